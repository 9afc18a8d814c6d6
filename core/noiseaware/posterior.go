package noiseaware

import (
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// Posterior draws from p(θ | last release) (see the package doc). Its
// scratch is allocated once: Draw allocates nothing.
type Posterior struct {
	rel          *Release
	d            int
	thetaR, sTil []float64
	mTil         []float64
	stdS, stdM   float64
	// modelErr is τ, the sd per coordinate of the quadratic expansion's
	// error on the score, estimated from the last two releases (0 with one
	// release); the likelihood's score variance is σ_S² + τ².
	modelErr   float64
	phi, invS2 float64
	// infoCap is the largest trace M can have (Plan.InfoCap): its pivot
	// draws are projected below it.
	infoCap float64
	// dc is the design-adapted coordinates of the last release (nil: the
	// box): the posterior is then computed for γ = A⁻ᵀθ, with thetaR
	// holding γ_R and priorP the prior's precision AAᵀ/s², and each draw
	// mapped back to θ = Aᵀγ (whiten.go).
	dc     *designCoords
	priorP []float64
	// scratch
	m, sig, b, p, c, z, k []float64
}

// NewPosterior prepares the sampler of the posterior given the release.
func NewPosterior(rel *Release) *Posterior {
	d, R := rel.D, len(rel.S)
	pl := rel.Plan
	q := &Posterior{
		rel: rel, d: d,
		thetaR: rel.Theta[R-1], sTil: rel.S[R-1], mTil: rel.M[R-1],
		stdS: pl.Blocks[2*(R-1)].Std, stdM: pl.Blocks[2*(R-1)+1].Std,
		phi: pl.Phi, invS2: 1 / (pl.PriorSD * pl.PriorSD),
		m: make([]float64, d*d), sig: make([]float64, d*d), b: make([]float64, d*d),
		p: make([]float64, d*d), c: make([]float64, d), z: make([]float64, d),
	}
	q.modelErr = math.Sqrt(modelErrorVar(rel))
	q.infoCap = pl.InfoCap(rel.Family, R-1, rel.N, d)
	if pl.whitened(R - 1) {
		q.dc = rel.designCoords()
		q.priorP = q.dc.priorPrecision(pl.PriorSD)
		q.thetaR = make([]float64, d)
		q.dc.gamma(rel.Theta[R-1], q.thetaR)
		q.k = make([]float64, d-1)
	}
	return q
}

// toTheta maps a point of the space the posterior is computed in back to
// the scaled coefficients θ, in place (nothing to do in the box).
func (q *Posterior) toTheta(v []float64) {
	if q.dc != nil {
		q.dc.theta(v, v, q.k)
	}
}

// ModelErrorSD is τ, the estimated sd per coordinate of the quadratic
// expansion's error on the score (see modelErrorVar).
func (q *Posterior) ModelErrorSD() float64 { return q.modelErr }

// modelErrorVar estimates τ², the mean squared error per coordinate of the
// score predicted by the last release's quadratic expansion, at the
// distance of the last step, from the releases alone (post-processing).
// The expansion at θ_R predicts the score at the previous point θ_{R−1} as
// S̃_R + M̃_R·Δ, Δ = θ_R − θ_{R−1}; the discrepancy with the score released
// there, e = S̃_{R−1} − S̃_R − M̃_R·Δ, is the expansion's error e₀ plus
// independent release noise with E‖noise‖² = d(σ²_{S,R−1} + σ²_{S,R}) +
// σ_M²‖Δ‖²(d + 1)/2 (M̃'s noise is σ_M on the diagonal and σ_M/√2 off it),
// so τ² = max(0, ‖e‖² − E‖noise‖²)/d is a method-of-moments estimate of
// ‖e₀‖²/d. The likelihood then treats the expansion's error at the
// posterior's location as extra isotropic noise on the score of that size.
// Without it, the intervals under-covered wherever the last expansion point
// was far from the mode (docs/SAMPLERS.md, "The expansion's error"). It
// needs R ≥ 3: with two releases the last step is the jump from the public
// start θ_1 = 0, whose error spans the whole distance to the data-adapted
// point and overstates the error near it (Poisson, R = 2: coverage went
// from 0.94–0.98 to 0.99–1.00), so τ = 0 there.
func modelErrorVar(rel *Release) float64 {
	R, d := len(rel.S), rel.D
	if R < 3 {
		return 0
	}
	pl := rel.Plan
	a, b := rel.Theta[R-2], rel.Theta[R-1]
	if pl.whitened(R-2) && pl.whitened(R-1) {
		// Both releases in the design-adapted coordinates: the step in γ.
		dc := rel.designCoords()
		a, b = make([]float64, d), make([]float64, d)
		dc.gamma(rel.Theta[R-2], a)
		dc.gamma(rel.Theta[R-1], b)
	}
	sa, sb, mb := rel.S[R-2], rel.S[R-1], rel.M[R-1]
	e2, step2 := 0.0, 0.0
	for j := range d {
		step2 += (b[j] - a[j]) * (b[j] - a[j])
	}
	for j := range d {
		pred := sb[j]
		for k := range d {
			pred += mb[j*d+k] * (b[k] - a[k])
		}
		e := sa[j] - pred
		e2 += e * e
	}
	sPrev, sLast, sM := pl.Blocks[2*(R-2)].Std, pl.Blocks[2*(R-1)].Std, pl.Blocks[2*(R-1)+1].Std
	noise := float64(d)*(sPrev*sPrev+sLast*sLast) + sM*sM*step2*float64(d+1)/2
	v := (e2 - noise) / float64(d)
	if !(v > 0) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// drawInfo draws M from its pivot, M̃ − E with E a fresh draw of the
// release noise, projected onto the matrices an information can be,
// M ⪰ 0 with tr M ≤ InfoCap (jacobiClip). It uses q.sig and q.c as
// scratch.
func (q *Posterior) drawInfo(r *rand.Rand) {
	d := q.d
	for j := range d {
		q.m[j*d+j] = q.mTil[j*d+j] - q.stdM*mathx.NormFloat64(r)
		for k := j + 1; k < d; k++ {
			v := q.mTil[j*d+k] - q.stdM/math.Sqrt2*mathx.NormFloat64(r)
			q.m[j*d+k], q.m[k*d+j] = v, v
		}
	}
	jacobiClip(q.m, q.sig, q.c, d, q.infoCap)
}

// DrawScaled writes one posterior draw of the scaled coefficients to out.
func (q *Posterior) DrawScaled(r *rand.Rand, out []float64) {
	q.drawInfo(r)
	q.drawGivenInfo(r, out)
}

// drawGivenInfo writes a draw of θ | S̃, M with M = q.m (scaled
// coefficients) to out.
func (q *Posterior) drawGivenInfo(r *rand.Rand, out []float64) {
	d := q.d
	if !q.meanGivenInfo(out) {
		q.toTheta(out)
		return
	}
	for j := range d {
		q.z[j] = mathx.NormFloat64(r)
	}
	backward(q.p, d, q.z) // R⁻ᵀz ~ N(0, P⁻¹)
	for j := range d {
		out[j] += q.z[j]
	}
	q.toTheta(out)
}

// meanGivenInfo writes the mean of θ | S̃, M with M = q.m to out and leaves
// the Cholesky factor of the precision P in q.p; false (out = θ_R) if a
// factorisation failed, which cannot happen (Σ ⪰ σ_S²I, P ⪰ I/s²).
func (q *Posterior) meanGivenInfo(out []float64) bool {
	d := q.d
	// Σ = φM + (σ_S² + τ²)I = L Lᵀ.
	for j := range d {
		for k := range d {
			q.sig[j*d+k] = q.phi * q.m[j*d+k]
		}
		q.sig[j*d+j] += q.stdS*q.stdS + q.modelErr*q.modelErr
	}
	if cholesky(q.sig, d) != nil { // cannot happen: σ_S > 0
		copy(out, q.thetaR)
		return false
	}
	// b = L⁻¹M (column by column, stored column-major in b), c = L⁻¹(S̃ + Mθ_R).
	for k := range d {
		col := q.b[k*d : (k+1)*d]
		for j := range d {
			col[j] = q.m[j*d+k]
		}
		forward(q.sig, d, col)
	}
	for j := range d {
		s := q.sTil[j]
		for k := range d {
			s += q.m[j*d+k] * q.thetaR[k]
		}
		q.c[j] = s
	}
	forward(q.sig, d, q.c)
	// P = BᵀB + I/s², rhs = Bᵀc (B's column k is b[k*d:]).
	for j := range d {
		bj := q.b[j*d : (j+1)*d]
		for k := j; k < d; k++ {
			bk := q.b[k*d : (k+1)*d]
			s := 0.0
			for i := range d {
				s += bj[i] * bk[i]
			}
			q.p[j*d+k], q.p[k*d+j] = s, s
		}
		if q.priorP == nil {
			q.p[j*d+j] += q.invS2
		} else {
			for k := j; k < d; k++ {
				q.p[j*d+k] += q.priorP[j*d+k]
				if k > j {
					q.p[k*d+j] = q.p[j*d+k]
				}
			}
		}
		s := 0.0
		for i := range d {
			s += bj[i] * q.c[i]
		}
		out[j] = s
	}
	if cholesky(q.p, d) != nil { // cannot happen: P ⪰ I/s²
		copy(out, q.thetaR)
		return false
	}
	forward(q.p, d, out)
	backward(q.p, d, out) // out = mean P⁻¹Bᵀc
	return true
}

// ToUser maps scaled coefficients to the user's units in place.
func (p *Plan) ToUser(beta []float64, intercept bool) {
	shift := 0.0
	for j := range beta {
		if j == 0 && intercept {
			continue
		}
		beta[j] /= p.Half[j]
		shift += beta[j] * p.Centre[j]
	}
	if intercept {
		beta[0] -= shift
	}
	for j := range beta {
		beta[j] *= p.YHalf
	}
	if intercept {
		beta[0] += p.YCentre
	}
}

// FromUser maps coefficients in the user's units to the scaled space in
// place (the inverse of ToUser).
func (p *Plan) FromUser(theta []float64, intercept bool) {
	if intercept {
		theta[0] -= p.YCentre
	}
	for j := range theta {
		theta[j] /= p.YHalf
	}
	shift := 0.0
	for j := range theta {
		if j == 0 && intercept {
			continue
		}
		shift += theta[j] * p.Centre[j]
		theta[j] *= p.Half[j]
	}
	if intercept {
		theta[0] += shift
	}
}
