package privacy

import "math"

// ZCDP is a ρ-zCDP guarantee (Bun & Steinke 2016): RDP ε(α) ≤ ξ + ρα for
// all α > 1. The Gaussian mechanism with σ = noise std ÷ sensitivity is
// (1/(2σ²))-zCDP with ξ = 0. Xi is kept for (ξ, ρ)-zCDP compositions.
type ZCDP struct {
	Rho float64
	Xi  float64
}

// Compose adds ρ and ξ (Bun & Steinke 2016, Lemma 2.3).
func (z ZCDP) Compose(o ZCDP) ZCDP { return ZCDP{z.Rho + o.Rho, z.Xi + o.Xi} }

// RDP returns the implied RDP at order α: ξ + ρα.
func (z ZCDP) RDP(alpha float64) float64 { return z.Xi + z.Rho*alpha }

// EpsilonBunSteinke returns ξ + ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016,
// Prop. 1.3), the conversion quoted by most papers.
func (z ZCDP) EpsilonBunSteinke(delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	return roundUpRel(z.Xi + z.Rho + 2*math.Sqrt(z.Rho*-math.Log(delta))), nil
}

// Epsilon returns the tighter conversion: the improved RDP conversion
// (Canonne, Kamath & Steinke 2020, Prop. 12; Balle et al. 2020) optimised
// over continuous α for the curve ξ + ρα. It is never above Bun–Steinke.
func (z ZCDP) Epsilon(delta float64) (float64, error) {
	if z.Rho == 0 {
		return z.Xi, checkDelta(delta)
	}
	e, _, err := GaussianRDPEpsilon(z.Rho, delta, Improved)
	if err != nil {
		return 0, err
	}
	bs, _ := z.EpsilonBunSteinke(delta)
	return math.Min(e+z.Xi, bs), nil
}

// RhoForBunSteinke inverts Bun–Steinke: the largest ρ with
// ρ + 2√(ρ ln(1/δ)) ≤ ε, i.e. ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))²
// (as in the thesis' Theorem 10 for DP MALA). The difference of square
// roots is computed as ε/(√(L+ε) + √L) to avoid cancellation.
func RhoForBunSteinke(eps, delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if !(eps >= 0) {
		return 0, fmtErr("ε must be ≥ 0, got %v", eps)
	}
	L := -math.Log(delta)
	s := eps / (math.Sqrt(L+eps) + math.Sqrt(L))
	return s * s * (1 - 1e-14), nil
}
