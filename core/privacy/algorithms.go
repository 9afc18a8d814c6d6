package privacy

import "math"

// Per-algorithm accounting. Each function states its formula and source.
// All count every iteration of every chain (warm-up included): pass the
// total over chains as iters.

// PenaltyStepMu returns the per-iteration GDP μ of the DP penalty MH
// algorithm (Yıldırım & Ermiş 2019; dp-mcmc-thesis-penalty-mala.txt; used as
// in dp-hmc.txt §4): the clipped log-likelihood ratio Σᵢ clip(r‖θ'−θ‖) has
// replace-one sensitivity 2r‖θ'−θ‖ and gets noise std τ√n·2r‖θ'−θ‖, so
// μ = 1/(τ√n) per iteration, independent of r and of the proposal.
func PenaltyStepMu(n int, tau float64) (float64, error) {
	if n < 1 {
		return 0, fmtErr("n must be ≥ 1, got %d", n)
	}
	if err := checkPos("τ", tau); err != nil {
		return 0, err
	}
	return 1 / (tau * math.Sqrt(float64(n))), nil
}

// PenaltyAccount returns ε at δ for iters iterations of DP penalty by the
// tight Gaussian composition (dp-hmc.txt Thm 2.4): μ = √iters/(τ√n).
func PenaltyAccount(n int, tau float64, iters int, delta float64) (Report, error) {
	mu, err := PenaltyStepMu(n, tau)
	if err != nil {
		return Report{}, err
	}
	return gdpReport(mu, iters, delta)
}

// PlanPenaltyIterations returns the largest total number of DP penalty
// iterations (all chains) within (ε, δ).
func PlanPenaltyIterations(n int, tau, eps, delta float64) (int, error) {
	mu, err := PenaltyStepMu(n, tau)
	if err != nil {
		return 0, err
	}
	return MaxGaussianReleases(mu, eps, delta)
}

// CalibrateTau returns the smallest DP penalty τ such that iters iterations
// are (ε, δ)-DP: τ = √iters/(μ*(ε, δ)·√n), rounded up.
func CalibrateTau(n, iters int, eps, delta float64) (float64, error) {
	if n < 1 || iters < 1 {
		return 0, fmtErr("n and iterations must be ≥ 1, got %d, %d", n, iters)
	}
	mu, err := MuFor(eps, delta)
	if err != nil {
		return 0, err
	}
	return roundUpRel(math.Sqrt(float64(iters)) / (mu * math.Sqrt(float64(n)))), nil
}

// HMCStepMu returns the per-iteration GDP μ of DP-HMC (dp-hmc.txt Alg. 1,
// Thm 3.5): one log-likelihood-ratio release with μ_l = 1/(τ_l√n) (as in
// DP penalty) and L+1 gradient releases, each with replace-one sensitivity
// 2b_g and noise std τ_g√n·2b_g, i.e. μ_g = 1/(τ_g√n). Composed:
//
//	μ² = (1/τ_l² + (L+1)/τ_g²)/n.
//
// (Thm 3.5's m = k/(2τ_l²) + k(L+1)/(2τ_g²) is Sommer's m = μ²/2 with the
// √n absorbed into τ; the experiment anchors in testdata/README use the
// scaling above.) The clip bounds cancel.
func HMCStepMu(n int, tauL, tauG float64, L int) (float64, error) {
	if n < 1 || L < 1 {
		return 0, fmtErr("n and L must be ≥ 1, got %d, %d", n, L)
	}
	if err := checkPos("τ_l", tauL); err != nil {
		return 0, err
	}
	if err := checkPos("τ_g", tauG); err != nil {
		return 0, err
	}
	return math.Sqrt((1/(tauL*tauL) + float64(L+1)/(tauG*tauG)) / float64(n)), nil
}

// HMCAccount returns ε at δ for iters DP-HMC iterations (tight Gaussian).
func HMCAccount(n int, tauL, tauG float64, L, iters int, delta float64) (Report, error) {
	mu, err := HMCStepMu(n, tauL, tauG, L)
	if err != nil {
		return Report{}, err
	}
	return gdpReport(mu, iters, delta)
}

// PlanHMCIterations returns the largest total number of DP-HMC iterations
// within (ε, δ).
func PlanHMCIterations(n int, tauL, tauG float64, L int, eps, delta float64) (int, error) {
	mu, err := HMCStepMu(n, tauL, tauG, L)
	if err != nil {
		return 0, err
	}
	return MaxGaussianReleases(mu, eps, delta)
}

// MALAStepMu returns the per-iteration GDP μ of DP-MALA
// (dp-mcmc-thesis-penalty-mala.txt Alg. 3, Lemmas 2–3, Thm 10, where
// ρ = μ²/2): the proposal mean θ + ½σ_p²∇ln p has sensitivity ½σ_p²c_g and
// noise variance aσ_p², and the log-likelihood ratio has noise variance
// τ·c_l², so
//
//	μ² = σ_p²c_g²/(4a) + 1/τ.
//
// gradSens is c_g, the L2 sensitivity of the full-data gradient for the
// relation (2× the per-row clip under replace-one). The tight Gaussian
// composition replaces the thesis' zCDP conversion, which it never exceeds.
func MALAStepMu(sigmaP, a, gradSens, tau float64) (float64, error) {
	for _, v := range []struct {
		n string
		x float64
	}{{"σ_p", sigmaP}, {"a", a}, {"gradient sensitivity", gradSens}, {"τ", tau}} {
		if err := checkPos(v.n, v.x); err != nil {
			return 0, err
		}
	}
	return math.Sqrt(sigmaP*sigmaP*gradSens*gradSens/(4*a) + 1/tau), nil
}

// MALAAccount returns ε at δ for iters DP-MALA iterations.
func MALAAccount(sigmaP, a, gradSens, tau float64, iters int, delta float64) (Report, error) {
	mu, err := MALAStepMu(sigmaP, a, gradSens, tau)
	if err != nil {
		return Report{}, err
	}
	return gdpReport(mu, iters, delta)
}

func gdpReport(mu1 float64, iters int, delta float64) (Report, error) {
	if iters < 1 {
		return Report{}, fmtErr("iterations must be ≥ 1, got %d", iters)
	}
	g := TightGaussian{mu1}.Repeat(float64(iters))
	e, err := g.Epsilon(delta)
	return Report{Epsilon: e, Delta: delta, Method: MethodTight, Relation: Replace, Mu: g.Mu}, err
}

// BarkerAccount returns ε at δ for T iterations of the subsampled DP Barker
// test (Heikkilä et al. 2019): base RDP from Thm 2 (C = 2, α < b/5), the WBK
// general subsampling bound (Cor. 2, eq. 22) with q = b/N, composition over
// T, then the better of the improved and classic conversions over integer
// orders 3…min(99, ⌈b/5⌉−1) (BarkerOrders). The classic value (the
// paper's) is returned too.
func BarkerAccount(N, b, T int, delta float64) (best Report, classic Report, err error) {
	if err := checkDelta(delta); err != nil {
		return Report{}, Report{}, err
	}
	ord := BarkerOrders(b)
	if len(ord) == 0 {
		return Report{}, Report{}, fmtErr("batch size %d too small for Thm 2 (needs α = 3 < b/5)", b)
	}
	c, err := BarkerChainRDP(N, b, T, ord)
	if err != nil {
		return Report{}, Report{}, err
	}
	ec, oc, _ := RDPToEpsilon(c, delta, Classic)
	ei, oi, _ := RDPToEpsilon(c, delta, Improved)
	classic = Report{Epsilon: ec, Delta: delta, Method: MethodRDPClassic, Relation: Replace, Order: oc}
	best = classic
	if ei < ec {
		best = Report{Epsilon: ei, Delta: delta, Method: MethodRDP, Relation: Replace, Order: oi}
	}
	return best, classic, nil
}

// FastMHAccount returns ε for iters steps of DP-Fast MH, each (ε, δ)-DP
// (dp-fast-mh.txt), at total δ deltaTotal: the smallest of basic,
// Dwork–Rothblum–Vadhan advanced and the optimal homogeneous composition
// (Kairouz, Oh & Viswanath 2015), named in Method.
func FastMHAccount(stepEps, stepDelta float64, iters int, deltaTotal float64) (Report, error) {
	e, m, err := BestComposition(stepEps, stepDelta, iters, deltaTotal)
	return Report{Epsilon: e, Delta: deltaTotal, Method: m, Relation: Replace}, err
}

// SGLDAccount returns ε at δ for steps of DP-SGLD/SGHMC/SGNHT (Wang et al.
// 2015; Li et al. 2019): each step releases a clipped minibatch gradient sum
// with Gaussian noise of noise multiplier z (noise std ÷ per-record clip),
// minibatches drawn by the stated scheme at rate q. The accountant must match
// the sampling: Poisson accountants are invalid for fixed-size batches, which
// use replace-one with sensitivity 2·clip. PLD is tried first, RDP is the
// fallback, and the smaller valid result is reported.
func SGLDAccount(z, q float64, s Sampling, rel Relation, steps int, delta float64) (Report, error) {
	l := &Ledger{Relation: rel}
	if err := l.Add(Event{Kind: SubsampledGaussianEvent, NoiseMultiplier: z, Rate: q, Sampling: s, Count: steps}); err != nil {
		return Report{}, err
	}
	return l.Epsilon(delta)
}

// OPSEpsilon returns the pure ε of releasing one sample from the tempered
// posterior p(θ)^ρ ∏ p(xᵢ|θ)^ρ when sup |log p(x|θ)| ≤ B (Wang, Fienberg &
// Smola 2015, privacy-for-free-ops-sgld.txt Alg. 1: the exponential mechanism
// with utility the log-likelihood): ε = 4ρB.
func OPSEpsilon(rho, B float64) (float64, error) {
	if err := checkPos("tempering ρ", rho); err != nil {
		return 0, err
	}
	if err := checkPos("log-likelihood bound B", B); err != nil {
		return 0, err
	}
	return roundUpRel(4 * rho * B), nil
}

// OPSTemper returns the tempering ρ = min(1, ε/(4B)) that makes one
// posterior sample ε-DP.
func OPSTemper(eps, B float64) (float64, error) {
	if err := checkPos("ε", eps); err != nil {
		return 0, err
	}
	if err := checkPos("log-likelihood bound B", B); err != nil {
		return 0, err
	}
	return math.Min(1, eps/(4*B)*(1-1e-15)), nil
}
