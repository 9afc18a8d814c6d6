package privacy

import "math"

// ApproxDP is an (ε, δ)-DP guarantee.
type ApproxDP struct {
	Epsilon float64
	Delta   float64
}

// BasicComposition returns (kε, kδ) (Dwork et al. 2006).
func BasicComposition(eps, delta float64, k int) (ApproxDP, error) {
	if err := checkStep(eps, delta, k); err != nil {
		return ApproxDP{}, err
	}
	kf := float64(k)
	return ApproxDP{roundUpRel(kf * eps), math.Min(1, roundUpRel(kf*delta))}, nil
}

// AdvancedComposition returns the Dwork–Rothblum–Vadhan (2010) bound for k
// adaptive (ε, δ)-DP steps and slack δ' > 0:
//
//	ε_tot = ε√(2k ln(1/δ')) + kε(e^ε − 1),  δ_tot = kδ + δ'.
func AdvancedComposition(eps, delta float64, k int, deltaPrime float64) (ApproxDP, error) {
	if err := checkStep(eps, delta, k); err != nil {
		return ApproxDP{}, err
	}
	if err := checkDelta(deltaPrime); err != nil {
		return ApproxDP{}, err
	}
	kf := float64(k)
	e := eps*math.Sqrt(2*kf*-math.Log(deltaPrime)) + kf*eps*math.Expm1(eps)
	return ApproxDP{roundUpRel(e), math.Min(1, roundUpRel(kf*delta+deltaPrime))}, nil
}

// AdvancedEpsilon returns the smallest DRV ε_tot whose total δ is at most
// deltaTotal, optimising the split δ' = deltaTotal − kδ (ε_tot decreases in δ').
func AdvancedEpsilon(eps, delta float64, k int, deltaTotal float64) (float64, error) {
	if err := checkStep(eps, delta, k); err != nil {
		return 0, err
	}
	dp := deltaTotal - float64(k)*delta
	if !(dp > 0) {
		return 0, fmtErr("total δ %v does not exceed kδ = %v", deltaTotal, float64(k)*delta)
	}
	a, err := AdvancedComposition(eps, delta, k, dp*(1-1e-12))
	return math.Min(a.Epsilon, roundUpRel(float64(k)*eps)), err
}

// OptimalCompositionDelta returns the exact δ_tot(ε_g) of the k-fold
// composition of (ε, δ)-DP mechanisms (Kairouz, Oh & Viswanath 2015, Thm 3.3;
// the closed form of Murtagh & Vadhan 2016):
//
//	δ_tot = 1 − (1 − δ)^k (1 − δ'),
//	δ' = (1+e^ε)^{−k} Σ_{i=0}^{k} C(k,i) max(0, e^{(k−i)ε} − e^{ε_g + iε}),
//
// summed in log space (O(k)).
func OptimalCompositionDelta(eps, delta float64, k int, epsG float64) (float64, error) {
	if err := checkStep(eps, delta, k); err != nil {
		return 0, err
	}
	kf := float64(k)
	lnorm := kf * logAddExp(0, eps)
	acc := math.Inf(-1)
	for i := 0; i <= k; i++ {
		d := epsG - (kf-2*float64(i))*eps // term ∝ e^{(k−i)ε}(1 − e^{d})
		if d >= 0 {
			break // d increases with i
		}
		lb, _ := logBinom(kf, i)
		acc = logAddExp(acc, lb+(kf-float64(i))*eps+log1mexp(d))
	}
	// δ' ≤ 1 exactly; the log-space sum can round to just above 1 when the
	// composition is far beyond its budget (δ' ≈ 1), which would make
	// log1p(−δ') NaN.
	dprime := math.Min(1, math.Exp(acc-lnorm))
	// 1 − (1−δ)^k(1−δ') = −expm1(k ln(1−δ) + ln(1−δ'))
	tot := -math.Expm1(kf*math.Log1p(-delta) + math.Log1p(-dprime))
	if math.IsNaN(tot) {
		return 0, fmtErr("optimal composition: numerical failure at ε_g = %v", epsG)
	}
	return math.Min(1, roundUpRel(tot)), nil
}

// OptimalComposition returns the smallest ε_tot with δ_tot(ε_tot) ≤
// deltaTotal under the optimal homogeneous composition (KOV 2015), by
// bisection on ε_g ∈ [0, kε], reported at the upper end of the bracket.
func OptimalComposition(eps, delta float64, k int, deltaTotal float64) (float64, error) {
	if err := checkStep(eps, delta, k); err != nil {
		return 0, err
	}
	if k > MaxOptimalComposition {
		// Each δ evaluation sums O(k) terms and the bisection needs ~50:
		// beyond this the exact optimum is too slow to plan with, and
		// BestComposition falls back to the advanced bound (valid, and
		// within a few percent of the optimum for large k).
		return 0, fmtErr("optimal composition of %d steps: above %d it is not evaluated", k, MaxOptimalComposition)
	}
	if err := checkDelta(deltaTotal); err != nil {
		return 0, err
	}
	kf := float64(k)
	if d, _ := OptimalCompositionDelta(eps, delta, k, kf*eps); d > deltaTotal {
		return 0, fmtErr("total δ %v is below the composition's floor 1 − (1−δ)^k = %v", deltaTotal, d)
	}
	f := func(e float64) float64 {
		d, err := OptimalCompositionDelta(eps, delta, k, e)
		if err != nil || math.IsNaN(d) {
			d = 1 // fail closed: an unknown δ is never taken as small
		}
		return deltaTotal - d // increasing in e
	}
	if f(0) >= 0 {
		return 0, nil
	}
	_, hi, ok := bisect(f, 0, kf*eps, 1e-12*math.Max(1, kf*eps))
	if !ok {
		return 0, fmtErr("optimal composition: numerical failure")
	}
	return roundUpRel(hi), nil
}

// MaxOptimalComposition is the largest number of steps OptimalComposition
// evaluates exactly.
const MaxOptimalComposition = 20000

// BestComposition returns the smallest valid ε among basic, advanced and
// optimal composition of k (ε, δ) steps at total δ, and its method name.
func BestComposition(eps, delta float64, k int, deltaTotal float64) (float64, string, error) {
	if err := checkStep(eps, delta, k); err != nil {
		return 0, "", err
	}
	best, name := math.Inf(1), ""
	if b, err := BasicComposition(eps, delta, k); err == nil && b.Delta <= deltaTotal {
		best, name = b.Epsilon, "basic"
	}
	if a, err := AdvancedEpsilon(eps, delta, k, deltaTotal); err == nil && a < best {
		best, name = a, "advanced"
	}
	if o, err := OptimalComposition(eps, delta, k, deltaTotal); err == nil && o <= best {
		best, name = o, "optimal"
	}
	if name == "" {
		return 0, "", fmtErr("no composition reaches total δ %v from %d steps of δ %v", deltaTotal, k, delta)
	}
	return best, name, nil
}

func checkStep(eps, delta float64, k int) error {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return fmtErr("per-step ε must be ≥ 0 and finite, got %v", eps)
	}
	if !(delta >= 0 && delta < 1) {
		return fmtErr("per-step δ must lie in [0, 1), got %v", delta)
	}
	if k < 1 {
		return fmtErr("number of steps must be ≥ 1, got %d", k)
	}
	return nil
}
