package noiseaware

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmcmc/dpmcmc/core/mathx"
	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// addGaussianNoise adds the release noise to every entry of v: the
// project's exact discrete Gaussian on the grid 2^(⌊log₂std⌋ − GridBits)
// (mcmc.AddGaussianNoise; DESIGN.md rule 4). It is the one place this
// package draws privacy noise.
func addGaussianNoise(noise *rand.Rand, v []float64, std float64) {
	mcmc.AddGaussianNoise(noise, v, std, GridBits)
}

// Release is the released statistics (after noise) of every expansion
// point, and the expansion points themselves: everything downstream is
// post-processing of it.
//
// Its JSON form (Theta, S, M, family and d; never the plan, which every
// holder recomputes from public inputs) lets a caller whose chains run
// apart (the page's workers) hand the release of one chain to the others
// (Kernel.Adopt): it is the mechanism's output, public once released.
type Release struct {
	Plan   *Plan  `json:"-"`
	Family string `json:"family"`
	D      int    `json:"d"`
	// Theta[r] is expansion point r (scaled space); S[r] and M[r] (d × d,
	// symmetric, row-major) the noisy score and information released there.
	Theta [][]float64 `json:"theta"`
	S     [][]float64 `json:"s"`
	M     [][]float64 `json:"m"`
	// N is the number of rows released and NoiseStd the noise std of each
	// block (Plan.Blocks; a mean release: its one std of the scaled sums),
	// as planned: both are public. A chain that adopts the release (Adopt)
	// refuses one whose N or stds differ from its own plan's, so an
	// honestly labelled release made under another budget, other bounds
	// or other rows is not reported under this run's ε (the labels travel
	// with the release: a caller that edits them is not stopped).
	N        int       `json:"n"`
	NoiseStd []float64 `json:"noise_std"`
}

// checkOrigin refuses rel unless it was made on n rows with the noise stds
// std: a release of another run's plan.
func (rel *Release) checkOrigin(n int, std []float64) error {
	if rel.N != n || !slices.Equal(rel.NoiseStd, std) {
		return fmt.Errorf("noise-aware: the release was made on %d rows with noise stds %v, this run's plan is %d rows with %v: a release of another run (another budget, bounds or data) is refused", rel.N, rel.NoiseStd, n, std)
	}
	return nil
}

// noiseStds returns the planned noise std of each block.
func (p *Plan) noiseStds() []float64 {
	out := make([]float64, len(p.Blocks))
	for i, b := range p.Blocks {
		out[i] = b.Std
	}
	return out
}

// scaledRow writes the scaled design row i into out and returns the
// scaled outcome.
func (p *Plan) scaledRow(rd *model.RegressionData, i int, out []float64) float64 {
	row := rd.X[i*rd.D : (i+1)*rd.D]
	for j, v := range row {
		if j == 0 && rd.Intercept {
			out[j] = 1
			continue
		}
		out[j] = clamp1((v - p.Centre[j]) / p.Half[j])
	}
	y := rd.Y[i]
	if rd.Family == "linear" {
		return clamp1((y - p.YCentre) / p.YHalf)
	}
	if rd.Family == "poisson" {
		return math.Min(math.Max(y, 0), p.Cap)
	}
	return y
}

func clamp1(v float64) float64 {
	if !(v >= -1) { // NaN included: a deterministic per-row value
		return -1
	}
	return math.Min(v, 1)
}

// rowWeights returns t and w of one row at linear predictor eta.
func (p *Plan) rowWeights(family string, y, eta float64) (t, w float64) {
	switch family {
	case "logistic":
		s := 1 / (1 + mathx.Exp(-eta))
		return y - s, s * (1 - s)
	case "poisson":
		// The count as released, min(Y, K), censored at K (censored.go).
		return p.censor.weights(y, math.Min(mathx.Exp(eta), p.Cap))
	default:
		return y - eta, 1
	}
}

// statistics computes the exact sums S = Σ t_i x̃_i and M = Σ w_i x̃_i x̃_iᵀ
// at theta over all rows: every term is rounded to the quantum q and
// clamped to its bound, the integers are summed in int64 (no rounding error
// depends on other rows; see the package doc).
func (p *Plan) statistics(rd *model.RegressionData, theta []float64) (S, M []float64) {
	return p.statisticsIn(rd, theta, 0, nil)
}

// statisticsIn is statistics at release r: in the design-adapted
// coordinates dc when it is not nil (S = Σ t_i u_i, M = Σ w_i u_i u_iᵀ with
// u_i = A·x̃_i shrunk to ‖u_{1:}‖ ≤ C and the linear predictor γᵀu_i,
// γ = A⁻ᵀθ; whiten.go).
func (p *Plan) statisticsIn(rd *model.RegressionData, theta []float64, r int, dc *designCoords) (S, M []float64) {
	d := rd.D
	B := p.termBound(rd.Family, r)
	q := quantum(rd.N, B)
	kmax := int64(math.Floor(B / q))
	toInt := func(v float64) int64 {
		k := int64(math.Round(v / q))
		return max(-kmax, min(kmax, k))
	}
	accS := make([]int64, d)
	accM := make([]int64, d*d)
	x := make([]float64, d)
	var xs []float64 // the box row, when x holds its design-adapted u
	coef := theta
	if dc != nil {
		xs = make([]float64, d)
		coef = make([]float64, d)
		dc.gamma(theta, coef)
	}
	for i := 0; i < rd.N; i++ {
		var y float64
		if dc != nil {
			y = p.scaledRow(rd, i, xs)
			dc.row(xs, x)
		} else {
			y = p.scaledRow(rd, i, x)
		}
		eta := 0.0
		for j, v := range x {
			eta += v * coef[j]
		}
		t, w := p.rowWeights(rd.Family, y, eta)
		for j, v := range x {
			accS[j] += toInt(t * v)
			for k := j; k < d; k++ {
				accM[j*d+k] += toInt(w * v * x[k])
			}
		}
	}
	S = make([]float64, d)
	M = make([]float64, d*d)
	for j := range d {
		S[j] = float64(accS[j]) * q
		for k := j; k < d; k++ {
			M[j*d+k] = float64(accM[j*d+k]) * q
			M[k*d+j] = M[j*d+k]
		}
	}
	return S, M
}

// releaseInfo releases M as the vector (M_jj, √2·M_jk) with N(0, std²) per
// entry and returns the noisy symmetric matrix.
func releaseInfo(noise *rand.Rand, M []float64, d int, std float64) []float64 {
	v := make([]float64, 0, d*(d+1)/2)
	for j := range d {
		for k := j; k < d; k++ {
			if j == k {
				v = append(v, M[j*d+k])
			} else {
				v = append(v, math.Sqrt2*M[j*d+k])
			}
		}
	}
	addGaussianNoise(noise, v, std)
	out := make([]float64, d*d)
	i := 0
	for j := range d {
		for k := j; k < d; k++ {
			if j == k {
				out[j*d+k] = v[i]
			} else {
				out[j*d+k] = v[i] / math.Sqrt2
				out[k*d+j] = out[j*d+k]
			}
			i++
		}
	}
	return out
}

// ErrNotRegression is returned for a model without RegressionData.
var ErrNotRegression = errors.New("noise-aware: the model must be logistic, linear or poisson regression")

// Run performs every release of the plan on the model's data, drawing the
// noise from the private stream noise. It is the only function of this
// package that reads the data.
func Run(p *Plan, m model.Model, noise *rand.Rand) (*Release, error) {
	rd, ok := model.RegressionDataOf(m)
	if !ok {
		return nil, ErrNotRegression
	}
	if rd.Temper != 0 && rd.Temper != 1 {
		return nil, fmt.Errorf("noise-aware: tempering (F = %v) is not supported", rd.Temper)
	}
	if rd.D != len(p.Centre) {
		return nil, fmt.Errorf("noise-aware: the plan has %d coefficients, the model %d", len(p.Centre), rd.D)
	}
	stats := func(pl *Plan, theta []float64, r int, dc *designCoords) (S, M []float64) {
		return pl.statisticsIn(&rd, theta, r, dc)
	}
	return p.release(rd.Family, rd.N, rd.D, rd.Intercept, stats, noise), nil
}

// release performs the plan's releases of the statistics that stats
// computes at each expansion point r under the plan in force (the data's
// in Run, synthetic ones in Preview; in the design-adapted coordinates dc
// when it is not nil), drawing the noise from noise. With Spec.AdaptCoords
// the plan in force after the first release is the one preferDesign
// chooses: its term bounds and quanta are those of its coordinates.
func (p *Plan) release(family string, n, d int, intercept bool, stats func(pl *Plan, theta []float64, r int, dc *designCoords) (S, M []float64), noise *rand.Rand) *Release {
	rel := &Release{Plan: p, Family: family, D: d, N: n, NoiseStd: p.noiseStds()}
	theta := make([]float64, d)
	var dc *designCoords
	halvings := make([]int, p.Releases)
	best := 0
	for r := range p.Releases {
		if r == 1 && p.preferDesign(rel) {
			// The later releases in the design-adapted coordinates: the
			// first release's blocks are the same in both plans.
			p = p.design
			rel.Plan, rel.NoiseStd = p, p.noiseStds()
			dc = rel.designCoords()
		}
		S, M := stats(p, theta, r, dc)
		addGaussianNoise(noise, S, p.Blocks[2*r].Std)
		Mn := releaseInfo(noise, M, d, p.Blocks[2*r+1].Std)
		rel.Theta = append(rel.Theta, append([]float64(nil), theta...))
		rel.S = append(rel.S, S)
		rel.M = append(rel.M, Mn)
		if r == 0 && p.ClipRadius > 0 {
			dc = rel.designCoords()
		}
		if r < p.Releases-1 {
			if r == 0 && family == "logistic" && intercept {
				theta = p.ldaStart(n, S, Mn)
			} else if r == 0 && family == "poisson" && intercept {
				theta = p.loglinearStart(n, S, Mn)
			} else {
				var rdc *designCoords
				if p.whitened(r) {
					rdc = dc
				}
				// With a shrunk path each step is taken from the best
				// point so far, the last one whose step raised the log
				// posterior (logPostGain), and halved each time the path
				// comes back to it: a backtracking line search,
				// post-processing of the releases.
				from, f := r, 1.0
				if p.ShrinkPath && r >= 1 {
					if r == 1 {
						best = 1
					} else if rel.logPostGain(best, r, rdc) >= 0 {
						best = r
					} else {
						halvings[best]++
					}
					from = best
					f = math.Pow(0.5, float64(halvings[from]))
				}
				next := p.newtonStep(family, rel.Theta[from], rel.S[from], rel.M[from], p.newtonDamping(from, d), p.Blocks[2*from].Std, p.InfoCap(family, from, n, d), rdc)
				theta = make([]float64, d)
				for j := range d {
					theta[j] = rel.Theta[from][j] + f*(next[j]-rel.Theta[from][j])
				}
			}
		}
	}
	return rel
}

// designCoords returns the design-adapted coordinates of the releases
// after the first (whiten.go), derived from the first release's
// information (post-processing), or nil when the plan does not use them.
func (rel *Release) designCoords() *designCoords {
	p := rel.Plan
	if p == nil || p.ClipRadius == 0 || len(rel.M) == 0 {
		return nil
	}
	return designCoordsOf(rel.N, rel.M[0], rel.D, p.Blocks[1].Std, p.firstWeight(rel.Family), p.ClipRadius)
}

// firstWeight is every row's weight at θ = 0, where the first release is
// made: σ(0)(1 − σ(0)) = ¼ (logistic), the information w(1) of a count of
// mean 1 censored at K (Poisson; 1 − O(1/K!), 0.58 at K = 1).
func (p *Plan) firstWeight(family string) float64 {
	if family == "poisson" {
		_, w := p.censor.weights(0, 1)
		return w
	}
	return 0.25
}

// RowCoords returns the coordinates in which release r (0-based) sums the
// scaled design row x̃ (x̃[0] = 1 with an intercept): x̃ itself in the box,
// u = A·x̃ with u_{1:} shrunk to norm at most C in the design-adapted
// coordinates (whiten.go). The coordinates come from the first release, so
// this is post-processing: the privacy audit uses it to find how one row
// moves a release.
func (rel *Release) RowCoords(r int, x []float64) []float64 {
	out := append([]float64(nil), x...)
	if rel.Plan != nil && rel.Plan.whitened(r) {
		rel.designCoords().row(x, out)
	}
	return out
}

// NewtonDamping is κ of the Newton steps' Levenberg–Marquardt term
// λ = κ·σ_M·√d (see newtonStep). The released M̃ carries symmetric noise of
// spectral norm about σ_M·√(2d); in directions where the information is
// below that level the undamped step is driven by the noise: on the
// breast-cancer design resampled to n = 5,000 at ε = 8 the expansion points
// then moved away from the mode (8.5 → 17.6 → 21.6 Laplace sds along the
// path) and the radius's 90% intervals covered the truth 0.67 of the time.
// Measured (fixed truth, 100 replicates, and prior-predictive coverage;
// κ = 0 / 0.25 / 0.5 / 1): n = 5,000, ε = 3 radius 0.64 / 0.97 / 0.97 /
// 0.92; ε = 8 radius 0.67 / 0.96 / 0.95; n = 50,000, ε = 1 radius 0.83 /
// 1.00; n = 50,000, ε = 8 radius sd 2.2 / 1.3 / 1.0 (coverage 1.00 / 1.00 /
// 1.00); prior-predictive (N(0, 10²) truths) n = 569, ε = 3 0.838 / 0.841 /
// 0.833 / 0.835, n = 5,000, ε = 1 0.830 / 0.826 / 0.814, n = 50,000,
// ε = 8 0.879 / 0.917 / 0.925; N(0, 2.5²) truths, n = 569, ε = 3 0.882 /
// 0.893 / 0.900. 0.25 fixes the under-coverage without losing calibration
// at n ≤ 5,000.
const NewtonDamping = 0.25

// newtonDamping is λ = NewtonDamping·σ_M·√d of the step after release r
// (σ_M that release's information noise std): public.
func (p *Plan) newtonDamping(r, d int) float64 {
	return NewtonDamping * p.Blocks[2*r+1].Std * math.Sqrt(float64(d))
}

// newtonStep is one damped Newton step on the log posterior from the
// released (S̃, M̃): θ + (M̃₊/φ + (1/s² + λ)I)⁻¹(S̃/φ − θ/s²), with M̃₊ the
// projection of M̃ on the PSD matrices of trace at most infoCap
// (Plan.InfoCap; jacobiClip) and λ ≥ 0 a Levenberg–Marquardt term
// against the release noise in M̃ (newtonDamping), and the step shrunk so
// that the largest change of the linear predictor over the public box,
// Σ_j |Δθ_j|, is at most maxEtaStep (post-processing of the release).
// With Plan.ShrinkPath the step is also shrunk along each eigenvector of
// its matrix by the positive-part factor max(0, 1 − (σ_S/φ)²/c_k²), c_k
// the gradient's component along it and σ_S the score's release noise std
// (stdS): components the noise alone explains do not move the path.
//
// With the design-adapted coordinates dc (not nil) S and M are u's and the
// step is taken in γ = A⁻ᵀθ, where the prior's precision is AAᵀ/s² and its
// gradient −Aθ/s², then mapped back, Δθ = AᵀΔγ.
func (p *Plan) newtonStep(family string, theta, S, M []float64, lambda, stdS, infoCap float64, dc *designCoords) []float64 {
	d := len(theta)
	prec := clippedPart(M, d, infoCap)
	inv := 1 / (p.PriorSD * p.PriorSD)
	g := make([]float64, d)
	var pp, a []float64
	if dc != nil {
		pp, a = dc.priorPrecision(p.PriorSD), dc.matrix()
	}
	for j := range d {
		for k := range d {
			prec[j*d+k] /= p.Phi
		}
		if dc == nil {
			prec[j*d+j] += inv + lambda
			g[j] = S[j]/p.Phi - theta[j]*inv
			continue
		}
		prec[j*d+j] += lambda
		g[j] = S[j] / p.Phi
		for k := range d {
			prec[j*d+k] += pp[j*d+k]
			g[j] -= a[j*d+k] * theta[k] * inv
		}
	}
	step := make([]float64, d)
	if p.ShrinkPath && stdS > 0 {
		// Along each eigenvector v_k of the step's matrix the gradient's
		// component c_k = v_kᵀg carries release noise of sd σ_S/φ (the
		// score's noise is isotropic in the release's coordinates, and so
		// is its projection): the step along v_k, c_k/λ_k, is shrunk by
		// the positive-part factor max(0, 1 − (σ_S/φ)²/c_k²).
		vecs, vals := make([]float64, d*d), make([]float64, d)
		jacobiEigen(prec, vecs, vals, d)
		nv := stdS * stdS / (p.Phi * p.Phi)
		for k := range d {
			c := 0.0
			for j := range d {
				c += vecs[j*d+k] * g[j]
			}
			if c*c <= nv || !(vals[k] > 0) {
				continue
			}
			f := (1 - nv/(c*c)) * c / vals[k]
			for j := range d {
				step[j] += vecs[j*d+k] * f
			}
		}
	} else if err := cholSolve(prec, d, g, step); err != nil {
		return append([]float64(nil), theta...)
	}
	if dc != nil {
		dc.theta(step, step, make([]float64, d-1)) // Δθ = AᵀΔγ (linear)
	}
	l1 := 0.0
	for _, v := range step {
		l1 += math.Abs(v)
	}
	if c := maxEtaStep(family); l1 > c {
		for j := range step {
			step[j] *= c / l1
		}
	}
	out := make([]float64, d)
	for j := range d {
		out[j] = theta[j] + step[j]
		if math.IsNaN(out[j]) || math.IsInf(out[j], 0) {
			return append([]float64(nil), theta...)
		}
	}
	return out
}

// ldaStart is the logistic model's second expansion point from the first
// release (at θ = 0, where S = Σ(y − ½)x̃ and M = ¼Σx̃x̃ᵀ): the linear
// discriminant estimate, which is close to the logistic MLE when the
// predictors are roughly normal within classes (Efron 1975) and is far
// better than one Newton step from 0 when the coefficients are large.
// With n public, the release gives n₁ = S_0 + n/2, the class sums and the
// total second moments, hence the pooled within-class covariance
// W = T − p(1 − p)ΔΔᵀ (T the total covariance, Δ = μ₁ − μ₀) and
// β = (W₊ + I/(n s²))⁻¹Δ, intercept log(p/(1 − p)) − βᵀ(μ₁ + μ₀)/2
// (W₊: eigenvalues clipped at 0; the ridge is the prior's, plus with
// Plan.ShrinkPath the first release's Newton damping on W's scale, 4λ/n,
// against the release noise in W). Post-processing.
func (p *Plan) ldaStart(n int, S, M []float64) []float64 {
	d := len(S)
	nf := float64(n)
	// n̂₁ is kept one release-noise sd (at least ½ row) inside (0, n): a
	// clamp at 2% of n (the previous rule) put the start's intercept at
	// logit(0.02) for rare outcomes and, at n = 5,000–50,000, left the
	// intercept's 90% intervals covering 0.55–0.58 of prior-predictive
	// truths (0.69–0.73 with this rule; TestCalibrationPriorPredictive).
	// When that sd reaches n/2 (small n, small ε) the release says nothing
	// about n₁ and the start is the balanced n̂₁ = n/2: without this cap
	// the interval was empty, p̂ < 0 and the start NaN (n = 100, ε = 0.1:
	// every draw non-finite; found by TestAuditNoiseAwareNewtonPath).
	lo := math.Min(math.Max(0.5, p.Blocks[0].Std), nf/2)
	n1 := math.Min(math.Max(S[0]+nf/2, lo), nf-lo)
	pr := n1 / nf
	k := d - 1
	out := make([]float64, d)
	if k == 0 {
		out[0] = mathx.Log(pr / (1 - pr))
		return out
	}
	mu, mu1, mu0, delta := make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
	for j := range k {
		sx := 4 * M[j+1] // Σ x_j (row 0 of M is ¼Σ x̃_j)
		s1 := S[j+1] + sx/2
		// Every x̃ is in [−1, 1], so are its means: the release's noise
		// alone puts them outside (at ε = 0.001, n = 569, far enough for a
		// start intercept of −352 and a posterior 28× wider than its prior).
		mu[j] = clamp1(sx / nf)
		mu1[j] = clamp1(s1 / n1)
		mu0[j] = clamp1((sx - s1) / (nf - n1))
		delta[j] = mu1[j] - mu0[j]
	}
	W := make([]float64, k*k)
	for a := range k {
		for b := range k {
			W[a*k+b] = 4*M[(a+1)*d+b+1]/nf - mu[a]*mu[b] - pr*(1-pr)*delta[a]*delta[b]
		}
	}
	W = psdPart(W, k)
	ridge := 1 / (nf * p.PriorSD * p.PriorSD)
	if p.ShrinkPath {
		// The Newton steps' Levenberg–Marquardt term against the noise in
		// M̃, on W's scale (W ≈ 4M/n).
		ridge += 4 * p.newtonDamping(0, d) / nf
	}
	for a := range k {
		W[a*k+a] += ridge
	}
	beta := make([]float64, k)
	if err := cholSolve(W, k, delta, beta); err != nil {
		return out
	}
	l1 := 0.0
	for _, v := range beta {
		l1 += math.Abs(v)
	}
	if c := maxEtaStep("logistic"); l1 > c {
		for j := range beta {
			beta[j] *= c / l1
		}
	}
	out[0] = mathx.Log(pr / (1 - pr))
	for j := range k {
		out[j+1] = beta[j]
		out[0] -= beta[j] * (mu1[j] + mu0[j]) / 2
	}
	return out
}

// loglinearStart is the Poisson model's second expansion point from the
// first release (at θ = 0: S = Σ(y − 1)x̃, M = w₁·Σx̃x̃ᵀ, up to the
// censored counts' t = h(1) ≈ K − 1 instead of y − 1; w₁ = firstWeight):
// the least-squares fit b of y on x̃ (from Xᵀy = S + XᵀX·e₀ and
// XᵀX = M/w₁), turned into log-linear coefficients by the delta method,
// θ_j = b_j/ȳ, with the intercept set so that the fitted mean at the mean
// predictor is ȳ = Σy/n (clamped to [1/(2n), K]). Post-processing.
func (p *Plan) loglinearStart(n int, S, M []float64) []float64 {
	d := len(S)
	nf := float64(n)
	w1 := p.firstWeight("poisson")
	M = append([]float64(nil), M...)
	for i := range M {
		M[i] /= w1
	}
	xty := make([]float64, d)
	for j := range d {
		xty[j] = S[j] + M[j*d] // Σ(y − 1)x̃_j + Σx̃_j
	}
	ybar := math.Min(math.Max(xty[0]/nf, 0.5/nf), p.Cap)
	A := psdPart(M, d)
	for j := range d {
		A[j*d+j] += 1 / (p.PriorSD * p.PriorSD)
	}
	b := make([]float64, d)
	out := make([]float64, d)
	if err := cholSolve(A, d, xty, b); err != nil {
		out[0] = mathx.Log(ybar)
		return out
	}
	l1 := 0.0
	out[0] = mathx.Log(ybar)
	for j := 1; j < d; j++ {
		out[j] = b[j] / ybar
		l1 += math.Abs(out[j])
	}
	if c := maxEtaStep("poisson"); l1 > c {
		for j := 1; j < d; j++ {
			out[j] *= c / l1
		}
	}
	for j := 1; j < d; j++ {
		out[0] -= out[j] * clamp1(M[j]/nf) // mean predictor x̄_j = Σx̃_j/n, in [−1, 1]
	}
	return out
}

func maxEtaStep(family string) float64 {
	if family == "poisson" {
		return 3
	}
	return 30
}

// logPostGain estimates the change of the log posterior from expansion
// point a to b (releases after the first, in the same coordinates: S̃ is
// the gradient of the log-likelihood in γ, the coefficients of those
// coordinates, times φ) by the trapezoid rule on the released scores,
// ½(S̃_a + S̃_b)·(γ_b − γ_a)/φ, plus the prior's change
// −(‖θ_b‖² − ‖θ_a‖²)/(2s²). Exact for a quadratic log-likelihood; its
// release noise has sd about σ_S‖γ_b − γ_a‖/φ. Post-processing.
func (rel *Release) logPostGain(a, b int, dc *designCoords) float64 {
	d := rel.D
	ga, gb := rel.Theta[a], rel.Theta[b]
	if dc != nil {
		ga, gb = make([]float64, d), make([]float64, d)
		dc.gamma(rel.Theta[a], ga)
		dc.gamma(rel.Theta[b], gb)
	}
	gain := 0.0
	for j := range d {
		gain += 0.5 * (rel.S[a][j] + rel.S[b][j]) * (gb[j] - ga[j]) / rel.Plan.Phi
	}
	s2 := rel.Plan.PriorSD * rel.Plan.PriorSD
	for j := range d {
		gain -= (rel.Theta[b][j]*rel.Theta[b][j] - rel.Theta[a][j]*rel.Theta[a][j]) / (2 * s2)
	}
	return gain
}
