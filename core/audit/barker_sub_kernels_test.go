package audit

import (
	"fmt"
	"math"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
)

// Audits of the subsampled DP Barker kernel (dp_barker.go; driven through
// its exported API only): N = 32 rows, batches of b = 16 without
// replacement (q = 1/2, the smallest batch Thm 2 allows), the default clip
// factor 0.99, so the per-row ratio bound is c = 0.99·√b/N and the
// differing row (slope ±10⁶: always at ±c) moves Δ* = (N/b)·Σr_i by
// ±Ĉ = ±0.99/√b ≈ 0.25 when it is drawn. The other rows have ℓ = 0. One
// accept bit then carries little (|log-odds change| ≤ 2Ĉ, with probability
// q), so the correct kernel is audited on a 20-step chain, through the
// log-likelihood ratio of its accept bits: with the linear model, step t's
// Barker statistic depends on the public proposal u_t only, so the bits are
// independent and their exact-in-the-limit test is
//
//	Σ_t a_t·log(p′_t/p_t) + (1 − a_t)·log((1 − p′_t)/(1 − p_t)),
//	p_t = (1 − q)·L(βu_t) + q·L(βu_t + Ĉ·sgn u_t)   (D; −Ĉ on D′)
//
// with L the logistic function (the kernel's N(0, C − s²) + V_corr noise
// is logistic up to the correction's error). The claim is the run's
// accountant, DPBarkerConfig.Account = privacy.BarkerAccount (Thm 2 RDP
// curve, WBK subsampling, conversion) for the audited number of steps.
//
// Seeded bug, clip-removed: NoiseOff (an exported test switch of the
// kernel) drops the clip (and replaces the noise by its exact logistic
// equivalent, same variance class): D's huge ratio always accepts and D′
// rejects whenever its row is drawn (the prior slope makes D's statistic
// large without the row). Thm 2's claim for b = 16 is loose
// (only the order α = 3 < b/5 is available: ε ≈ 7.7 for one step at
// δ = 10⁻², ≈ 128 for 20 steps), so the bug is audited on one step, where
// it is caught with the CI's trials.

// barkerSubLLR is the accept-bit log-likelihood-ratio statistic of a
// subsampled DP Barker chain from theta0 = 0 (d = 1) whose proposals are
// u[t], prior slope beta.
func barkerSubLLR(u []float64, q, chat, beta float64) Statistic {
	L := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	w1 := make([]float64, len(u)) // weight of an accept
	w0 := make([]float64, len(u)) // weight of a reject
	for t, ut := range u {
		s := math.Copysign(chat, ut)
		p := (1-q)*L(beta*ut) + q*L(beta*ut+s)
		p1 := (1-q)*L(beta*ut) + q*L(beta*ut-s)
		w1[t] = math.Log(p1 / p)
		w0[t] = math.Log((1 - p1) / (1 - p))
	}
	return Statistic{Name: "LLR(accepts)", F: func(out []float64) float64 {
		prev, s := 0.0, 0.0
		for t, th := range out {
			if th != prev {
				s += w1[t]
			} else {
				s += w0[t]
			}
			prev = th
		}
		return s
	}}
}

// barkerSubCase audits `steps` iterations; the public prior's slope puts
// the first step's Barker statistic without the differing row at delta0
// (0 for chains: where an accept bit's Fisher information peaks; large for
// the clip-removed bug, so that D almost never rejects and D′ rejects
// whenever its row is drawn).
func barkerSubCase(t *testing.T, name string, steps int, delta0 float64, noiseOff, broken bool, delta float64, trials int) auditCase {
	const (
		n, b = 32, 16
		seed = 47
		step = 1.0
	)
	beta := delta0 / (step * publicNorm(seed, 0))
	cfg := mcmc.DPBarkerConfig{Step: step, Batch: b}
	rep, _, err := cfg.Account(n, steps, delta)
	if err != nil {
		t.Fatal(err)
	}
	kc := cfg
	kc.NoiseOff = noiseOff
	shared := make([][]float64, n-1)
	for i := range shared {
		shared[i] = []float64{0}
	}
	pair := Neighbours(shared, []float64{advSlope}, []float64{beta}, nil)
	spec := KernelSpec{
		New:    func(nb int) (mcmc.Kernel, error) { return mcmc.NewDPBarker(pair[nb], kc) },
		Theta0: []float64{0}, Steps: steps, PublicSeed: seed,
	}
	u := make([]float64, steps)
	for i := range u {
		u[i] = step * publicNorm(seed, i)
	}
	chat := 0.99 / math.Sqrt(b)
	return auditCase{kernel: fmt.Sprintf("dp-barker subsampled (%d step%s, b = %d of N = %d)", steps, map[bool]string{true: "s"}[steps > 1], b, n),
		variant: name, mech: spec.Mechanism(), claim: rep.Epsilon, delta: delta,
		stats: []Statistic{barkerSubLLR(u, float64(b)/n, chat, beta), Moves(spec.Theta0)}, broken: broken, trials: trials}
}

func TestAuditDPBarkerSubsampled(t *testing.T) {
	const delta = 1e-2
	for _, c := range []struct {
		name     string
		steps    int
		delta0   float64
		noiseOff bool
		broken   bool
		trials   int
	}{
		{"correct", 20, 0, false, false, 50000},
		{"correct", 1, 14, false, false, 50000},
		{"clip-removed", 1, 14, true, true, 50000},
	} {
		t.Run(fmt.Sprintf("%d-steps/%s", c.steps, c.name), func(t *testing.T) {
			t.Parallel()
			runAudit(t, barkerSubCase(t, c.name, c.steps, c.delta0, c.noiseOff, c.broken, delta, c.trials))
		})
	}
}
