package privacy

import "math"

// BarkerRDP returns the per-iteration RDP at order α of the subsampled DP
// Barker acceptance test of Heikkilä et al. (2019, Thm 2, eq. 21), which
// assumes |log p(xᵢ|θ') − log p(xᵢ|θ)| ≤ √b/N (eq. 19; with tempering
// √b/N₀, eq. 23), batch size b, noise variance C = 2, and α < b/5:
//
//	ε(α) = 5/(2b) + ln(2b/(b − 5α))/(2(α − 1)) + 2α/(b − 5α).
//
// The theorem is stated for C = 2 only; other C return an error.
func BarkerRDP(b int, alpha, C float64) (float64, error) {
	if C != 2 {
		return 0, fmtErr("Heikkilä et al. Thm 2 is for C = 2, got C = %v", C)
	}
	if b < 1 {
		return 0, fmtErr("batch size must be ≥ 1, got %d", b)
	}
	bf := float64(b)
	if !(alpha > 1) || !(alpha < bf/5) {
		return 0, fmtErr("Barker RDP needs 1 < α < b/5 = %v, got α = %v", bf/5, alpha)
	}
	return 5/(2*bf) + math.Log(2*bf/(bf-5*alpha))/(2*(alpha-1)) + 2*alpha/(bf-5*alpha), nil
}

// BarkerChainRDP returns the RDP curve of T subsampled DP Barker iterations
// with batch b out of N rows (without replacement, q = b/N) at the given
// integer orders: the WBK general bound (Heikkilä et al. 2019, Cor. 2, eq. 22)
// of the Thm 2 base curve, times T. Orders must satisfy 2 ≤ α < b/5.
func BarkerChainRDP(N, b, T int, orders []float64) (RDPCurve, error) {
	if N < 1 || b < 1 || b > N {
		return RDPCurve{}, fmtErr("need 1 ≤ b ≤ N, got b = %d, N = %d", b, N)
	}
	if T < 1 {
		return RDPCurve{}, fmtErr("number of iterations must be ≥ 1, got %d", T)
	}
	q := float64(b) / float64(N)
	base := func(j int) float64 {
		v, err := BarkerRDP(b, float64(j), 2)
		if err != nil {
			return math.Inf(1)
		}
		return v
	}
	c, err := NewRDPCurve(orders, func(a float64) (float64, error) {
		if a != math.Trunc(a) {
			return 0, fmtErr("Barker accounting uses integer orders, got %v", a)
		}
		if !(a < float64(b)/5) {
			return 0, fmtErr("Barker order %v must be < b/5 = %v", a, float64(b)/5)
		}
		return WBKSubsampledRDP(base, q, int(a))
	})
	if err != nil {
		return RDPCurve{}, err
	}
	return c.Scale(float64(T)), nil
}

// BarkerOrders returns the integer orders 3…min(99, ⌈b/5⌉−1) used by
// Heikkilä et al.'s reference accounting.
func BarkerOrders(b int) []float64 {
	hi := 99
	m := (b+4)/5 - 1 // largest integer strictly below b/5
	if m < hi {
		hi = m
	}
	return IntegerOrders(3, hi)
}
