package noiseaware

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// censoredCount is the Poisson model of a count released as min(Y, K):
// every private run clips the outcome to its public bound [0, K], so a
// released K means Y ≥ K. With Y ~ Poisson(λ), p_k = e^−λ·λ^k/k! and
// S = P(Y ≥ K), the log-likelihood of the released count c in η = log λ
// has the score
//
//	t = c − λ                  (c < K)
//	t = h(λ) = λ·p_{K−1}/S     (c = K; E[Y − λ | Y ≥ K])
//
// and the Fisher information w = E[t²] = Σ_{k<K} p_k(k − λ)² + S·h², which
// with the Poisson identities E[Y·1{Y<K}] = λ·P(Y ≤ K−2) and
// E[Y(Y−1)·1{Y<K}] = λ²·P(Y ≤ K−3) is
//
//	w = λ − λ·p_{K−1}·(K − λ + ρ − λ/ρ),   ρ = S/p_{K−1}.
//
// Both stay in the ranges the sensitivities use: −λ ≤ t ≤ h(λ) ≤ K
// (K·S ≥ K·p_K = λ·p_{K−1}) and 0 ≤ w ≤ λ (a coarsened observation carries
// at most the information of the count), with λ ≤ K the capped mean. As K
// grows, p_{K−1} → 0 and t, w become the uncensored y − λ and λ.
//
// Before 2026-11-30 the release used y − λ and λ for the clipped count,
// which describe an unclipped one: with the bound cutting into the counts
// (K = 10, rates about 6 at the bounds' centres) the 90% intervals covered
// the truth 0.003 of the time (docs/SAMPLERS.md "The outcome's bound").
//
// Everything is plain Go on mathx (the same bits natively and in the
// browser).
type censoredCount struct {
	K              float64
	logFactorialK1 float64 // log (K − 1)!
	// WMax bounds w over λ ∈ (0, K]: the largest w on a grid of infoGrid
	// means, raised by infoMargin, and weights clamps to it, so the
	// bound holds by construction even where the grid misses the peak.
	// w rises with λ to a maximum a few √K below K and falls from it to
	// w(K) (by 3% at K = 20, 18% for large K): WMax is 0.58 at K = 1,
	// 0.73·K at K = 7, 0.79·K at K = 20, 0.94·K at K = 1,000, where the
	// bound w ≤ λ ≤ K overstated the information's sensitivity by up to
	// 1/0.58.
	WMax float64
}

// infoGrid and infoMargin set censoredCount.WMax.
const (
	infoGrid   = 512
	infoMargin = 1e-3
)

func newCensoredCount(K float64) censoredCount {
	c := censoredCount{K: K, logFactorialK1: mathx.LogFactorial(K - 1), WMax: math.Inf(1)}
	top := 0.0
	for i := 1; i <= infoGrid; i++ {
		_, w := c.weights(0, K*float64(i)/infoGrid)
		top = math.Max(top, w)
	}
	c.WMax = math.Min(top*(1+infoMargin), K)
	return c
}

// maxTailTerms bounds the series of tailRatio: at λ = K its terms fall as
// e^{−m²/2K}, so 9√K terms reach 10⁻¹⁷, within the bound for K up to about
// 2·10⁵. Beyond, near the cap, tailRatio uses the normal approximation of
// the count, whose relative error O(1/√K) is below 0.3% there.
const maxTailTerms = 4000

// tailRatio is ρ = P(Y ≥ K)/p_{K−1} = Σ_{m≥1} Π_{i=1..m} λ/(K − 1 + i) for
// Y ~ Poisson(λ), 0 < λ ≤ K: a series of positive, falling terms that
// neither underflows when P(Y ≥ K) does nor cancels. pK1 is p_{K−1}, used
// only by the normal approximation.
func (c censoredCount) tailRatio(lam, pK1 float64) float64 {
	term, sum := 1.0, 0.0
	for i := 1; i <= maxTailTerms; i++ {
		term *= lam / (c.K - 1 + float64(i))
		sum += term
		if term <= 1e-17*sum {
			return sum
		}
	}
	// Not converged: λ within a few √K of a large K, where
	// P(Y ≥ K) ≈ P(Z ≥ (K − ½ − λ)/√λ) and p_{K−1} is far from 0.
	return 0.5 * math.Erfc((c.K-0.5-lam)/math.Sqrt(2*lam)) / pK1
}

// probs returns p_{K−1} and ρ = P(Y ≥ K)/p_{K−1} for Y ~ Poisson(lam),
// 0 < lam ≤ K.
func (c censoredCount) probs(lam float64) (pK1, rho float64) {
	pK1 = mathx.Exp(-lam + (c.K-1)*mathx.Log(lam) - c.logFactorialK1)
	return pK1, c.tailRatio(lam, pK1)
}

// below returns P(Y < K) and E[Y·1{Y < K}] = λ·P(Y ≤ K − 2) for
// Y ~ Poisson(lam), 0 < lam ≤ K: the preview's counts.
func (c censoredCount) below(lam float64) (prob, mean float64) {
	pK1, rho := c.probs(lam)
	prob = 1 - rho*pK1
	return prob, lam * (prob - pK1)
}

// weights returns t and w of a released count y ∈ [0, K] at mean lam
// (0 ≤ lam ≤ K).
func (c censoredCount) weights(y, lam float64) (t, w float64) {
	if !(lam > 0) {
		// λ → 0: h → K and w → 0.
		return math.Min(y, c.K), 0
	}
	pK1, rho := c.probs(lam)
	t = y - lam
	if y >= c.K {
		t = math.Min(lam/rho, c.K)
	}
	w = lam - lam*pK1*(c.K-lam+rho-lam/rho)
	if math.IsNaN(t) || math.IsNaN(w) {
		// Not reached for K below 10³⁰⁰ (p_{K−1} > 0 near the cap, where
		// the normal approximation divides by it); the uncensored
		// values, inside the same ranges.
		return math.Max(-lam, math.Min(y-lam, c.K)), math.Min(lam, c.WMax)
	}
	return t, math.Max(0, math.Min(w, math.Min(lam, c.WMax)))
}
