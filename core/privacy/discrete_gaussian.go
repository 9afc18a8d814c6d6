package privacy

import (
	"errors"
	"fmt"
	"math"
)

// The accounting charge of the discrete Gaussian.
//
// The kernels (core/mcmc/dgauss.go) release h·(c + Z) with c = round(f/h)
// an integer, h the grid step and Z ~ N_ℤ(0, S²) the exact discrete
// Gaussian (Canonne, Kamath & Steinke 2020), S = ⌈σ/h⌉ ≥ 2^k (k the grid
// bits). The accountants (tight Gaussian, RDP, PLD) are proved for the
// continuous Gaussian. Compare the real mechanism M_d with the hypothetical
// M_c that draws Z_c ~ N(0, S²) and releases h·(c + round(Z_c)) =
// h·round(c + Z_c): M_c is post-processing of a continuous Gaussian
// mechanism on c, whose L2 sensitivity in grid units is ≤ Δ/h + √m
// (rounding moves each coordinate of each world by ≤ ½), so its μ is
// (Δ/h + √m)/S ≤ Δ/σ + √m·2^−k — what the kernels report. Every accountant
// therefore bounds M_c, and M_d differs from M_c only in the law of each
// noise coordinate: p(j) = φ_S(j)/Σ_i φ_S(i) against r(j) = ∫_{j−½}^{j+½} φ_S
// (φ_S the N(0, S²) density).
//
// Pointwise ratio on |j| ≤ K·S. Writing r(j) = φ_S(j)·∫_{−½}^{½}
// exp(−(2ju + u²)/(2S²)) du: by Jensen r(j)/φ_S(j) ≥ exp(−1/(24S²)), and with
// exp(−u²/(2S²)) ≤ 1 and sinh(x)/x ≤ exp(x²/6) (termwise, (2n+1)! ≥ 6ⁿn!),
// r(j)/φ_S(j) ≤ exp(j²/(24S⁴)) ≤ exp(K²/(24S²)). By Poisson summation
// Σ_i φ_S(i) = 1 + 2Σ_{n≥1} exp(−2π²S²n²) ∈ [1, 1 + 3·exp(−2π²S²)]. Hence
//
//	|log p(j)/r(j)| ≤ a := K²/(24S²) + 3·exp(−2π²S²)   for |j| ≤ K·S.
//
// Tails: P(|Z_c rounded| > KS) ≤ P(|Z_c| > KS − ½) ≤ exp(−(K − 1)²/2), and
// for the discrete Gaussian, bounding each term by an integral and the
// normaliser by √(2π)S, P(|Z| > KS) ≤ exp(−(K − 1)²/2); t_K := 2·exp(−(K−1)²/2)
// covers both. The sampler conditions Z on |Z| ≤ 2^61 (dgauss.go), which
// multiplies p on |j| ≤ KS by at most 1 + 4·exp(−2^61/S) (< 10^−300 extra in
// log, absorbed by rounding a up).
//
// Composition. Let N be the number of discrete-Gaussian coordinates drawn in
// the whole run (all chains, all iterations, whether or not the value is
// shown). Conditionally on the past, each draw's released value y has
// probability p(y − c) under M_d and r(y − c) under M_c, so on the event
// G_X that every |y − c(X)| ≤ KS the transcript probabilities satisfy
// e^{−Na} ≤ P_d,X / P_c,X ≤ e^{Na}, and P(G_Xᶜ) ≤ N·t_K under both. For any
// set E and neighbours X, X′, with M_c (ε_c, δ_c)-DP:
//
//	P_d,X(E) ≤ e^{Na}P_c,X(E) + N t_K ≤ e^{Na}(e^{ε_c}P_c,X′(E) + δ_c) + N t_K
//	        ≤ e^{ε_c + 2Na}·P_d,X′(E) + e^{Na}δ_c + N t_K·(1 + e^{ε_c + Na}).
//
// So M_d is (ε_c + 2Na, e^{Na}δ_c + N t_K(1 + e^{ε_c+Na}))-DP, and coarser
// outputs (accept bits) are post-processing. At a target δ the charge picks
// K so that N t_K(1 + e^{ε_c+Na}) ≤ δ·2^−30 for ε_c ≤ max(100, 2·ε_budget)
// (larger ε_c: K is recomputed for it), asks the continuous accountant for ε_c at δ_c = δ·e^{−Na}(1 − 2^−29)
// and reports ε = ε_c + 2Na. With S ≥ 2^24 (the default grid) and K ≈ 18,
// a ≈ 4.6e−13: N = 10^6 coordinates cost 2Na ≈ 1e−6 in ε and a relative
// 2^−29 of δ.

// DiscreteGaussianCharge is what the discrete Gaussian costs on top of the
// continuous Gaussian accountant for one run.
type DiscreteGaussianCharge struct {
	// Coords is N, the number of discrete-Gaussian coordinates drawn.
	Coords float64 `json:"coords"`
	// MinScale is the smallest S = ⌈σ/h⌉ (2^GridBits).
	MinScale float64 `json:"min_scale"`
	// K is the truncation in units of S.
	K float64 `json:"k"`
	// PerCoord is a, the bound on |log p/r| per coordinate on |j| ≤ KS.
	PerCoord float64 `json:"per_coord"`
	// Epsilon is 2Na, added to the continuous ε.
	Epsilon float64 `json:"epsilon"`
	// DeltaFactor is δ_c/δ = e^{−Na}(1 − 2^−29).
	DeltaFactor float64 `json:"delta_factor"`
}

// Describe is one line for a privacy report.
func (c DiscreteGaussianCharge) Describe() string {
	return fmt.Sprintf("noise is an exact discrete Gaussian on the release grid (Canonne–Kamath–Steinke 2020); its difference from the continuous Gaussian the accountant assumes is charged: +%.3g to ε (%.4g coordinates × 2·%.3g) and δ × (1 − %.2g) for the accountant", c.Epsilon, c.Coords, c.PerCoord, 1-c.DeltaFactor)
}

// chargeCap is the ε_c up to which K is chosen for a budget ε:
// max(100, 2ε). Planner and report use the same rule, hence the same K.
func chargeCap(epsBudget float64) float64 { return math.Max(100, 2*epsBudget) }

// NewDiscreteGaussianCharge returns the charge for coords discrete-Gaussian
// coordinates with scale at least 2^gridBits at target delta, K chosen for
// a continuous ε up to epsCap.
func NewDiscreteGaussianCharge(coords float64, gridBits int, delta, epsCap float64) (DiscreteGaussianCharge, error) {
	if !(coords >= 0) || math.IsInf(coords, 1) {
		return DiscreteGaussianCharge{}, fmt.Errorf("privacy: discrete Gaussian coordinates = %v must be finite and ≥ 0", coords)
	}
	if gridBits < 1 || gridBits > 60 {
		return DiscreteGaussianCharge{}, fmt.Errorf("privacy: grid bits = %d must be in [1, 60]", gridBits)
	}
	if !(delta > 0 && delta < 1) {
		return DiscreteGaussianCharge{}, fmt.Errorf("privacy: δ = %v must be in (0, 1)", delta)
	}
	s := math.Ldexp(1, gridBits)
	c := DiscreteGaussianCharge{Coords: coords, MinScale: s, DeltaFactor: 1}
	if coords == 0 {
		return c, nil
	}
	// (K−1)²/2 ≥ ln(2N) + ln(1 + e^{1+cap}) − ln δ + 30 ln 2 (Na ≤ 1 checked below).
	x := 1 + epsCap
	logTerm := math.Log(2*coords) + x + math.Log1p(math.Exp(-x)) - math.Log(delta) + 30*math.Ln2
	c.K = 1 + math.Sqrt(2*math.Max(logTerm, 0))
	c.K = math.Ceil(c.K)
	a := c.K*c.K/(24*s*s) + 3*math.Exp(-2*math.Pi*math.Pi*s*s)
	c.PerCoord = math.Nextafter(a, math.Inf(1))
	na := coords * c.PerCoord
	if na > 1 {
		// K grows with the ε the charge must cover and N with the
		// iterations: name those settings, not the grid.
		return DiscreteGaussianCharge{}, fmt.Errorf("privacy: the budget cannot be accounted: %.4g noisy coordinates (iterations × chains × released numbers) with ε up to %.3g cost the discrete noise N·a = %.3g > 1 (grid 2^%d): lower ε or the number of iterations", coords, epsCap, na, gridBits)
	}
	c.Epsilon = math.Nextafter(2*na, math.Inf(1))
	c.DeltaFactor = math.Exp(-na) * (1 - 0x1p-29)
	return c, nil
}

// ContinuousDelta is δ_c = δ·e^{−Na}(1 − 2^−29), the δ at which the
// continuous accountant is asked.
func (c DiscreteGaussianCharge) ContinuousDelta(delta float64) float64 {
	return delta * c.DeltaFactor
}

// DiscreteGaussianEpsilon returns ε at delta of a run that draws coords
// discrete-Gaussian coordinates of scale ≥ 2^gridBits, given epsAt, ε of
// the same run with continuous Gaussian noise at a given δ (any valid
// accountant), and the run's ε budget (which fixes K, see chargeCap). It
// returns the charge applied.
func DiscreteGaussianEpsilon(coords float64, gridBits int, epsBudget, delta float64, epsAt func(deltaCont float64) (float64, error)) (float64, DiscreteGaussianCharge, error) {
	epsCap := chargeCap(epsBudget)
	for range 8 {
		c, err := NewDiscreteGaussianCharge(coords, gridBits, delta, epsCap)
		if err != nil {
			return 0, c, err
		}
		ec, err := epsAt(c.ContinuousDelta(delta))
		if err != nil {
			return 0, c, err
		}
		if math.IsNaN(ec) {
			return 0, c, errors.New("privacy: NaN ε from the continuous accountant")
		}
		if ec <= epsCap || math.IsInf(ec, 1) {
			if c.Epsilon == 0 {
				return ec, c, nil
			}
			return math.Nextafter(ec+c.Epsilon, math.Inf(1)), c, nil
		}
		epsCap = 2 * ec
	}
	return 0, DiscreteGaussianCharge{}, errors.New("privacy: discrete Gaussian charge did not settle")
}

// DiscreteGaussianBudget returns the (ε_c, δ_c) a continuous accountant must
// meet so that the discrete run is within (eps, delta): ε_c = eps − 2Na,
// δ_c = δ·e^{−Na}(1 − 2^−29), with K chosen for ε_c ≤ max(100, 2·eps). It is
// what planners calibrate against.
func DiscreteGaussianBudget(coords float64, gridBits int, eps, delta float64) (epsCont, deltaCont float64, c DiscreteGaussianCharge, err error) {
	c, err = NewDiscreteGaussianCharge(coords, gridBits, delta, chargeCap(eps))
	if err != nil {
		return 0, 0, c, err
	}
	// ε_c + 2Na (rounded up once in DiscreteGaussianEpsilon) must stay ≤ eps.
	epsCont = math.Nextafter(eps-c.Epsilon, 0)
	epsCont = math.Nextafter(epsCont, 0)
	return epsCont, c.ContinuousDelta(delta), c, nil
}
