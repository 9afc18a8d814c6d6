package privacy

import "math"

// WBKSubsampledRDP returns the RDP at integer order α ≥ 2 of a mechanism
// applied to a subsample of fixed size drawn without replacement with rate
// q = b/n, under replace-one, given the base mechanism's RDP ε(j) for
// j = 2…α (base must be valid for every such j). This is the general upper
// bound of Wang, Balle & Kasiviswanathan (2019, Thm 9) with ε(∞) = ∞, as used
// by Heikkilä et al. (2019, Cor. 2, eq. 22):
//
//	ε'(α) = 1/(α−1) · ln(1 + q² C(α,2) min{4(e^{ε(2)} − 1), 2e^{ε(2)}}
//	                      + Σ_{j=3}^{α} q^j C(α,j) 2 e^{(j−1)ε(j)}).
//
// All terms are summed in log space.
func WBKSubsampledRDP(base func(j int) float64, q float64, alpha int) (float64, error) {
	if err := checkRate(q); err != nil {
		return 0, err
	}
	if alpha < 2 {
		return 0, fmtErr("WBK bound needs an integer order ≥ 2, got %d", alpha)
	}
	if q == 1 {
		return base(alpha), nil
	}
	return wbkLog(base, nil, q, alpha) / float64(alpha-1), nil
}

// wbkLog returns the log of the WBK moment sum. If fd is non-nil it is the
// log of the ℓ-th forward difference bound (see woRGaussianFD) and the
// Gaussian-specific term 4√(D_{2⌊j/2⌋} D_{2⌈j/2⌉}) is used where smaller.
func wbkLog(base func(j int) float64, fd []float64, q float64, alpha int) float64 {
	lq := math.Log(q)
	e2 := base(2)
	if math.IsInf(e2, 1) || math.IsNaN(e2) {
		return math.Inf(1)
	}
	t2 := math.Min(math.Log(4)+math.Log(math.Expm1(e2)), ln2+e2)
	if fd != nil {
		t2 = math.Min(t2, math.Log(4)+fd[2])
	}
	lb, _ := logBinom(float64(alpha), 2)
	acc := logAddExp(0, 2*lq+lb+t2)
	for j := 3; j <= alpha; j++ {
		ej := base(j)
		if math.IsInf(ej, 1) || math.IsNaN(ej) {
			return math.Inf(1)
		}
		tj := ln2 + float64(j-1)*ej
		if fd != nil {
			tj = math.Min(tj, math.Log(4)+0.5*(fd[2*(j/2)]+fd[2*((j+1)/2)]))
		}
		lb, _ := logBinom(float64(alpha), j)
		acc = logAddExp(acc, float64(j)*lq+lb+tj)
	}
	return acc
}

// WORSubsampledGaussianRDP returns the RDP at integer order α ≥ 2 of the
// Gaussian mechanism on a fixed-size batch drawn without replacement (rate
// q = b/n) under replace-one; sigma is the noise multiplier (noise std ÷
// per-record L2 bound), so the base sensitivity is 2 and the base RDP is
// ε(j) = 2j/σ². It is the WBK general bound (Thm 9), optionally (see
// useWBKGaussianRefinement) the minimum with its
// Gaussian refinement (Wang, Balle & Kasiviswanathan 2019, Thm 27 of the
// arXiv version), which replaces the j-th moment bound by
// 4·√(D_{2⌊j/2⌋}·D_{2⌈j/2⌉}) with D_ℓ the ℓ-th forward difference of
// x ↦ e^{x·ε(x+1)} at 0. Forward differences are alternating sums; a D_ℓ
// whose value is not resolved above the floating-point cancellation error
// is discarded (the general bound is used), so the result stays an upper bound.
func WORSubsampledGaussianRDP(q, sigma float64, alpha int) (float64, error) {
	if err := checkRate(q); err != nil {
		return 0, err
	}
	if err := checkPos("noise multiplier σ", sigma); err != nil {
		return 0, err
	}
	if alpha < 2 {
		return 0, fmtErr("WBK bound needs an integer order ≥ 2, got %d", alpha)
	}
	base := func(j int) float64 { return 2 * float64(j) / (sigma * sigma) }
	if q == 1 {
		return base(alpha), nil
	}
	var fd []float64
	if useWBKGaussianRefinement {
		fd = woRGaussianFD(sigma, alpha+1)
	}
	return wbkLog(base, fd, q, alpha) / float64(alpha-1), nil
}

// useWBKGaussianRefinement enables the Thm 27 forward-difference term. It is
// off until the term is checked against the paper's statement (it was
// transcribed from the authors' reference implementation, not the paper);
// with it off only the general Thm 9 bound is used, which is always valid.
const useWBKGaussianRefinement = false

// woRGaussianFD returns ln D_ℓ for ℓ = 0…m, D_ℓ = Σ_i (−1)^{ℓ−i} C(ℓ,i)
// e^{i(i+1)·2/σ²} (the base curve e^{x ε(x+1)} with ε(j) = 2j/σ²), or +Inf
// where cancellation leaves the value unresolved.
func woRGaussianFD(sigma float64, m int) []float64 {
	out := make([]float64, m+1)
	c := 2 / (sigma * sigma)
	for l := 0; l <= m; l++ {
		s := slZero
		mag := math.Inf(-1)
		for i := 0; i <= l; i++ {
			lb, _ := logBinom(float64(l), i)
			t := lb + float64(i*(i+1))*c
			mag = logAddExp(mag, t)
			s = s.add(signedLog{(l-i)%2 == 1, t})
		}
		// accept only if clearly above the rounding error ~ l·1e-14·Σ|terms|
		if s.neg || s.l < mag+math.Log(1e-12*float64(l+1)) {
			out[l] = math.Inf(1)
		} else {
			out[l] = s.l + 1e-9 // tiny relative inflation for rounding
		}
	}
	return out
}

// PoissonReplaceGaussianRDP returns an RDP bound at order α for the
// Poisson-subsampled Gaussian under replace-one (noise multiplier σ). The
// pair of outputs is a mixture (1−q)R + qA vs (1−q)R + qB with a common R,
// the structure WBK's proof uses, so the WBK bound with base ε(j) = 2j/σ²
// applies at integer α; it is compared with Mironov's weak triangle
// inequality (2017, Prop. 11) over remove-then-add:
// ((α−½)/(α−1))·ε_AR(2α) + ε_AR(2α−1), and the smaller is returned.
func PoissonReplaceGaussianRDP(q, sigma, alpha float64) (float64, error) {
	e1, err := PoissonSubsampledGaussianRDP(q, sigma, 2*alpha)
	if err != nil {
		return 0, err
	}
	e2, err := PoissonSubsampledGaussianRDP(q, sigma, 2*alpha-1)
	if err != nil {
		return 0, err
	}
	best := (alpha-0.5)/(alpha-1)*e1 + e2
	if alpha == math.Trunc(alpha) && alpha <= 4096 {
		w, err := WORSubsampledGaussianRDP(q, sigma, int(alpha))
		if err == nil && w < best {
			best = w
		}
	}
	return best, nil
}
