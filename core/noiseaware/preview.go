package noiseaware

import (
	"math"
	"math/rand/v2"
)

// PreviewSpreads are the predictor spreads the preview assumes: a
// predictor's sd as a fraction f of its public half-range (on the scaled
// space every predictor lies in [−1, 1], so its sd there is f).
var PreviewSpreads = []float64{0.1, 0.25, 0.5}

// Preview says, before any data are read, how informative the release can
// be: for each spread f in Spread, SDRatio is the mean over the slopes of
// the posterior sd divided by the prior sd (1: the release says nothing
// about a slope; the summaries call a coefficient "mostly the prior" above
// MostlyPriorRatio).
type Preview struct {
	Spread  []float64 `json:"spread"`
	SDRatio []float64 `json:"sd_ratio"`
	// PriorSD is the prior sd of a scaled coefficient (per public
	// half-range of its predictor), so a slope's posterior sd per
	// predictor sd is SDRatio·PriorSD·Spread.
	PriorSD float64 `json:"prior_sd_scaled"`
	// EffectUnit is the unit in which an effect is judged, on the scaled
	// outcome: 1 for logistic regression (log odds), √φ for the linear
	// model (its noise sd, the model's noise-sd over the outcome's public
	// half-range). A slope's posterior sd per predictor sd in that unit is
	// SDRatio·PriorSD·Spread/EffectUnit.
	EffectUnit float64 `json:"effect_unit"`
	// LowMeanCount and LowMeanSDRatio (Poisson with K ≥ 3): the same
	// preview for counts of mean LowMeanCount (PoissonLowMean), far below
	// K, whose rows carry K/LowMeanCount times less information against
	// the same release noise: what a clinical count (visits, events) whose
	// bound K is its largest possible value, not its typical one, gets.
	LowMeanCount   float64   `json:"low_mean_count,omitempty"`
	LowMeanSDRatio []float64 `json:"low_mean_sd_ratio,omitempty"`
}

// PoissonLowMean is the mean count of the Poisson preview's second case.
const PoissonLowMean = 1.0

// LowMeanEffectSD is EffectSD for the low-mean case at spread index i.
func (pv Preview) LowMeanEffectSD(i int) float64 {
	q := pv
	q.SDRatio = pv.LowMeanSDRatio
	return q.EffectSD(i)
}

// EffectSD is the preview's posterior sd of a slope per predictor sd, in
// EffectUnit, at spread index i.
func (pv Preview) EffectSD(i int) float64 {
	u := pv.EffectUnit
	if !(u > 0) {
		u = 1
	}
	return pv.SDRatio[i] * pv.PriorSD * pv.Spread[i] / u
}

// MostlyPriorRatio is the posterior-to-prior sd ratio above which a
// coefficient is "mostly the prior" (the summaries' threshold, 1/√2: the
// prior's precision is at least the data's).
const MostlyPriorRatio = 0.71

// previewReps and previewInfoDraws set the preview's Monte Carlo:
// synthetic releases per spread, and draws of M per release.
const previewReps, previewInfoDraws = 12, 30

// Preview computes the plan's preview for n rows of the family's model
// (with or without an intercept) from public inputs only. It runs the
// mechanism's own release path (the start, the damped Newton steps, the
// noise of every block) and the sampler's own posterior on the statistics
// of a synthetic design instead of the data: independent predictors
// z_j ~ N(0, f²) and no effects. For logistic regression the outcome is a
// fair coin (a rate of ½ gives the largest information a row can carry,
// so the preview is the most optimistic case): the score at θ is
// S₀ + n·E[(½ − σ(x̃ᵀθ))x̃] with S₀ = Σ(y_i − ½)x̃_i ~ N(0, (n/4)·G),
// G = E[x̃x̃ᵀ] = diag(1, f², …, f²), drawn once, and the information its
// expectation n·E[w(x̃ᵀθ)x̃x̃ᵀ] (designMoments). For the linear model (one
// release at θ = 0) S = S₀ ~ N(0, φ·n·G) and M = n·G. For Poisson
// regression (with an intercept) the counts are Poisson(K) released as
// min(Y, K) and modelled as censored at K (censored.go): the information a
// row carries, w(λ)·x̃x̃ᵀ, grows with the mean λ (w(λ) ≈ λ well below K,
// 13.0 at λ = K = 17) while both sensitivities grow with K, so counts
// centred at K are near the most informative case; S₀ ~ N(0, w(K)·n·G),
// and the score's mean and the weight at a fitted mean min(eᵃ, K) are the
// censored count's (previewRatio, glmMoments). A real mean count well
// below K tells less. The random numbers are a fixed public sequence: the
// preview is the same on every machine and reads no data.
func (p *Plan) Preview(family string, n int, intercept bool) (Preview, bool) {
	if !previewable(family, n, intercept, p) {
		return Preview{}, false
	}
	pv := Preview{Spread: append([]float64(nil), PreviewSpreads...), PriorSD: p.PriorSD, EffectUnit: p.EffectUnit()}
	for _, f := range PreviewSpreads {
		r := p.previewRatio(family, n, intercept, f, 0, previewStream(f))
		if !(r >= 0 && r <= 1.5) {
			// A posterior wider than its prior: the doubles lost the
			// statistics (no preview rather than a wrong one).
			return Preview{}, false
		}
		pv.SDRatio = append(pv.SDRatio, r)
	}
	if family == "poisson" && p.Cap >= 3*PoissonLowMean {
		low := make([]float64, 0, len(PreviewSpreads))
		for _, f := range PreviewSpreads {
			r := p.previewRatio(family, n, intercept, f, PoissonLowMean, previewStream(f))
			if !(r >= 0 && r <= 1.5) {
				low = nil
				break
			}
			low = append(low, r)
		}
		if low != nil {
			pv.LowMeanCount, pv.LowMeanSDRatio = PoissonLowMean, low
		}
	}
	return pv, true
}

// EffectUnit is Preview.EffectUnit: √φ (1 for logistic regression, whose
// φ is 1; the linear model's noise sd on the scaled outcome).
func (p *Plan) EffectUnit() float64 { return math.Sqrt(p.Phi) }

// MaxPreviewDim is the largest number of coefficients the preview covers:
// it simulates the release path with d×d eigendecompositions, O(d³) per
// step (0.3 s at 16 coefficients, 2 s at 32, 8 s at 64 on one core), and
// the plan runs it again while it searches for the ε and the number of
// predictors to name.
const MaxPreviewDim = 32

// previewable reports whether the preview covers the family: logistic and
// linear regression, and Poisson regression with an intercept and a mean
// cap K ≥ 1 (its preview assumes counts of mean K) with n·K below 2⁵⁰
// (beyond, the sums n·K lose the digits the score's differences need).
func previewable(family string, n int, intercept bool, p *Plan) bool {
	if len(p.Centre) > MaxPreviewDim {
		return false
	}
	switch family {
	case "logistic", "linear":
		return true
	case "poisson":
		return intercept && p.Cap >= 1 && float64(n)*p.Cap < 1<<50
	}
	return false
}

// previewStream is the preview's fixed public random sequence for spread
// f: the same for Preview and PreviewRatio, so their ratios agree exactly.
func previewStream(f float64) *rand.Rand {
	return rand.New(rand.NewPCG(20261126, math.Float64bits(f)))
}

// PreviewRatio is the preview's posterior-to-prior sd ratio of a slope at
// the one spread f, equal to Preview's at that spread (false where Preview
// gives none). The planner searches ε with it.
func (p *Plan) PreviewRatio(family string, n int, intercept bool, f float64) (float64, bool) {
	if !previewable(family, n, intercept, p) {
		return 0, false
	}
	r := p.previewRatio(family, n, intercept, f, 0, previewStream(f))
	return r, r >= 0 && r <= 1.5
}

// previewRatio is the mean over previewReps synthetic releases (random
// numbers from r) of the slopes' mean posterior-to-prior sd ratio at
// spread f; Poisson counts have mean meanCount (0: K) before the clip.
func (p *Plan) previewRatio(family string, n int, intercept bool, f, meanCount float64, r *rand.Rand) float64 {
	d := len(p.Centre)
	nf := float64(n)
	g := make([]float64, d) // the diagonal of G
	for j := range g {
		g[j] = f * f
		if j == 0 && intercept {
			g[j] = 1
		}
	}
	ratio := 0.0
	// Poisson: counts Y of mean m (K, or meanCount) released as min(Y, K)
	// and modelled as censored at K (censored.go): a row's score factor at
	// fitted mean λ has expectation E[Y·1{Y<K}] − λ·P(Y<K) + P(Y≥K)·h(λ),
	// so the synthetic score is S₀ + n·(ȳ·e₀ − E[g(a)x̃]) with
	// ȳ = E[Y·1{Y<K}] and g(λ) = λ·P(Y<K) − P(Y≥K)·h(λ); at the truth
	// (λ = m) the factor has variance w(m), S₀'s.
	ybar, yvar := 0.5, 0.25
	var below float64
	if family == "poisson" {
		m := p.Cap
		if meanCount > 0 && meanCount < p.Cap {
			m = meanCount
		}
		below, ybar = p.censor.below(m)
		_, yvar = p.censor.weights(0, m)
	}
	for range previewReps {
		s0 := make([]float64, d)
		for j := range s0 {
			v := nf * g[j] / 4
			switch family {
			case "linear":
				v = p.Phi * nf * g[j]
			case "poisson":
				v = yvar * nf * g[j]
			}
			s0[j] = math.Sqrt(v) * r.NormFloat64()
		}
		boxStats := func(theta []float64) (S, M []float64) {
			S, M = append([]float64(nil), s0...), make([]float64, d*d)
			if family == "linear" {
				for j := range d {
					S[j] -= nf * g[j] * theta[j]
					M[j*d+j] = nf * g[j]
				}
				return S, M
			}
			// E[y x̃] = ȳ·e₀ with no effects: ȳ = ½ (logistic), the clipped
			// count's mean (Poisson).
			var es, ew []float64
			if family == "poisson" {
				es, ew = glmMoments(theta, f, intercept, func(a float64) (float64, float64) {
					l := math.Min(math.Exp(a), p.Cap)
					h, w := p.censor.weights(p.Cap, l)
					return l*below - (1-below)*h, w
				})
			} else {
				es, ew = designMoments(theta, f, intercept)
			}
			for j := range d {
				S[j] -= nf * es[j]
				if j == 0 && intercept {
					S[j] += nf * ybar
				}
				for k := range d {
					M[j*d+k] = nf * ew[j*d+k]
				}
			}
			return S, M
		}
		// In the design-adapted coordinates (Spec.Whiten) the synthetic
		// statistics are mapped by A (S_u = A·S, M_u = A·M·Aᵀ): exact for
		// rows within the radius C, which all but about one in a thousand
		// of this Gaussian design are.
		stats := func(_ *Plan, theta []float64, _ int, dc *designCoords) (S, M []float64) {
			S, M = boxStats(theta)
			if dc != nil {
				dc.transformStats(S, M)
			}
			return S, M
		}
		sds := posteriorSDs(NewPosterior(p.release(family, n, d, intercept, stats, r)), r)
		sum, slopes := 0.0, 0
		for j, sd := range sds {
			if j == 0 && intercept {
				continue
			}
			sum += sd / p.PriorSD
			slopes++
		}
		ratio += sum / float64(max(slopes, 1))
	}
	return ratio / previewReps
}

// designMoments returns E[σ(a)x̃] and E[w(a)x̃x̃ᵀ] (w = σ(1 − σ)) per row
// for x̃ = (1, z) (or z without an intercept), z ~ N(0, f²I) and
// a = x̃ᵀθ. With m = θ₀, v = f²Σ_{j≥1}θ_j² and u = (a − m)/√v ~ N(0, 1),
// E[z_j | a] = f²θ_j·u/√v and Cov[z | a] = f²I − f⁴θθᵀ/v, so
//
//	E[σ x̃]      = (E σ,  f²θ_j·E[σu]/√v)
//	E[w x̃x̃ᵀ]_00 = E w,  _0j = f²θ_j·E[wu]/√v,
//	E[w x̃x̃ᵀ]_jl = f²δ_jl·E w + f⁴θ_jθ_l·E[w(u² − 1)]/v,
//
// five one-dimensional integrals (trapezoid on u ∈ [−8, 8], 161 nodes).
func designMoments(theta []float64, f float64, intercept bool) (es, ew []float64) {
	return glmMoments(theta, f, intercept, func(a float64) (float64, float64) {
		s := 1 / (1 + math.Exp(-a))
		return s, s * (1 - s)
	})
}

// glmMoments is designMoments for a family whose fitted mean and weight at
// linear predictor a are mw(a) (logistic: σ(a) and σ(1 − σ); Poisson:
// min(eᵃ, K) for both).
func glmMoments(theta []float64, f float64, intercept bool, mw func(a float64) (mean, w float64)) (es, ew []float64) {
	d := len(theta)
	first := 0
	m := 0.0
	if intercept {
		first, m = 1, theta[0]
	}
	v := 0.0
	for j := first; j < d; j++ {
		v += f * f * theta[j] * theta[j]
	}
	sd := math.Sqrt(v)
	const nodes = 161
	var wsum, eS, eSu, eW, eWu, eWuu float64
	for i := range nodes {
		u := -8 + 16*float64(i)/float64(nodes-1)
		k := math.Exp(-u * u / 2)
		s, w := mw(m + sd*u)
		wsum += k
		eS += k * s
		eSu += k * s * u
		eW += k * w
		eWu += k * w * u
		eWuu += k * w * (u*u - 1)
	}
	eS, eSu, eW, eWu, eWuu = eS/wsum, eSu/wsum, eW/wsum, eWu/wsum, eWuu/wsum
	es, ew = make([]float64, d), make([]float64, d*d)
	lin := func(j int) float64 { // f²θ_j/√v (0 when every slope is 0)
		if sd == 0 {
			return 0
		}
		return f * f * theta[j] / sd
	}
	for j := range d {
		if j < first {
			es[j], ew[0] = eS, eW
			for l := first; l < d; l++ {
				ew[l], ew[l*d] = lin(l)*eWu, lin(l)*eWu
			}
			continue
		}
		es[j] = lin(j) * eSu
		for l := first; l < d; l++ {
			ew[j*d+l] = lin(j) * lin(l) * eWuu
		}
		ew[j*d+j] += f * f * eW
	}
	return es, ew
}

// posteriorSDs returns the posterior sd of every scaled coefficient of q,
// Rao–Blackwellised over the draws of M: θ | M is Gaussian with covariance
// P⁻¹ and mean m(M), so Var θ_j = E[(P⁻¹)_jj] + Var[m_j(M)], estimated from
// previewInfoDraws draws of M (the sampler's own drawInfo and
// meanGivenInfo). This needs far fewer draws than the sample sd of θ.
func posteriorSDs(q *Posterior, r *rand.Rand) []float64 {
	d := q.d
	mean, sq, pinv := make([]float64, d), make([]float64, d), make([]float64, d)
	m, e := make([]float64, d), make([]float64, d)
	var a []float64 // A of the design-adapted coordinates: θ_j = (A e_j)ᵀγ
	if q.dc != nil {
		a = q.dc.matrix()
	}
	for range previewInfoDraws {
		q.drawInfo(r)
		q.meanGivenInfo(m)
		q.toTheta(m)
		for j := range d {
			mean[j] += m[j] / previewInfoDraws
			sq[j] += m[j] * m[j] / previewInfoDraws
			clear(e)
			e[j] = 1
			if a != nil {
				for i := range d {
					e[i] = a[i*d+j]
				}
			}
			forward(q.p, d, e) // ‖L⁻¹e_j‖² = (P⁻¹)_jj (in γ: (A e_j)ᵀP⁻¹(A e_j))
			for _, v := range e {
				pinv[j] += v * v / previewInfoDraws
			}
		}
	}
	out := make([]float64, d)
	for j := range out {
		out[j] = math.Sqrt(pinv[j] + max(0, sq[j]-mean[j]*mean[j]))
	}
	return out
}
