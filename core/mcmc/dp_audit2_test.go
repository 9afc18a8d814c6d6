package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Black-box audits of dp-fastmh (free and noisy branches, minibatch and
// full) and dp-barker (full and subsampled), in the pattern of
// dp_audit_test.go: neighbouring datasets (replace-one) differ in one row
// set at the bound in opposite directions; one Step from the same θ with
// the same public proposal (and, for dp-fastmh, the same public batch size
// B) is repeated T times on each; Clopper–Pearson bounds on P(reject) and
// P(accept) give the empirical lower bound
//
//	ε_lb = max over events A and directions of log((p̂_hi-side_lo − δ)/p̂_lo-side_hi),
//
// which a correct kernel keeps below its claimed per-step ε. The paper's
// "privacy for free" branch with min(1, r) (plainMHFree) never rejects on
// one dataset and sometimes rejects on the other, so its ε_lb is large
// (unbounded as T grows); Barker's acceptance keeps it small.

// lipAuditModel is auditModel (ℓ_i(θ) = w_i·θ, d = 1, log p = βθ) with a
// finite public per-row Lipschitz bound L ≥ max|w_i| (dp-fastmh needs it).
type lipAuditModel struct {
	auditModel
	L float64
}

func (m *lipAuditModel) RowBounds(box []model.Interval) model.RowBounds {
	return model.RowBounds{Lipschitz: m.L, GradNorm: m.L, AbsLogLik: math.Inf(1)}
}

// auditRun performs trials one-step runs from θ = 0 on the dataset whose
// last row has weight w, with the public stream reseeded to (seedA, seedB)
// every trial, and returns the accept count.
func auditRun(t *testing.T, mk func(m model.Model) (Kernel, error), w []float64, L float64, seedA, seedB uint64, trials int, key byte) int {
	t.Helper()
	m := &lipAuditModel{auditModel: auditModel{w: w}, L: L}
	k, err := mk(m)
	if err != nil {
		t.Fatal(err)
	}
	pub := rand.NewPCG(seedA, seedB)
	var kb [32]byte
	kb[0], kb[1] = key, 0x5a
	r := rng.Streams{Public: rand.New(pub), Noise: rand.New(rand.NewChaCha8(kb))}
	acc := 0
	for i := 0; i < trials; i++ {
		if err := k.Init([]float64{0}); err != nil {
			t.Fatal(err)
		}
		pub.Seed(seedA, seedB)
		if k.Step(r).Accepted {
			acc++
		}
	}
	return acc
}

// auditEpsLB returns the empirical ε lower bound from accept counts a0, a1
// of T trials each, over the events accept and reject and both directions.
func auditEpsLB(a0, a1, T int, delta, alpha float64) float64 {
	best := math.Inf(-1)
	for _, ev := range [][2]int{{a0, a1}, {T - a0, T - a1}} {
		for _, dir := range [][2]int{{ev[0], ev[1]}, {ev[1], ev[0]}} {
			lo := clopperPearsonLower(dir[1], T, alpha/4)
			hi := clopperPearsonUpper(dir[0], T, alpha/4)
			if lo > delta {
				best = math.Max(best, math.Log((lo-delta)/hi))
			}
		}
	}
	return best
}

// fastMHAuditSeed returns a public seed whose first proposal u (step·z)
// and batch size B ~ Poisson(λ + C|u|) satisfy want(u, B).
func fastMHAuditSeed(step, lambda, bigC float64, want func(u float64, B int) bool) (uint64, float64) {
	for s := uint64(1); ; s++ {
		r := rand.New(rand.NewPCG(77, s))
		u := step * r.NormFloat64()
		B := poisson(r, lambda+bigC*math.Abs(u))
		if want(u, B) {
			return s, u
		}
	}
}

func TestDPAuditFastMH(t *testing.T) {
	const (
		n      = 4
		L      = 1.0 // per-row bound c
		lambda = 1.0
		eps    = 1.0
		delta  = 1e-6
		alpha  = 1e-3
	)
	trials := 100000
	if testing.Short() {
		trials = 30000
	}
	bigC := n * L
	cases := []struct {
		name   string
		full   bool
		step   float64
		want   func(u float64, B int) bool
		plain  bool // the paper's min(1, r) free branch
		broken bool // expected to violate its claim
	}{
		{"minibatch/free/barker", false, 0.05, func(u float64, B int) bool { return B == 1 && math.Abs(u) < 0.1 }, false, false},
		{"minibatch/free/plain-MH(paper)", false, 0.05, func(u float64, B int) bool { return B == 1 && math.Abs(u) < 0.1 }, true, true},
		{"minibatch/noisy", false, 1, func(u float64, B int) bool { return B == 1 && math.Abs(u) > 0.8 }, false, false},
		{"full/free/barker", true, 0.05, func(u float64, B int) bool { return math.Abs(u) < 0.1 }, false, false},
		{"full/free/plain-MH(paper)", true, 0.05, func(u float64, B int) bool { return math.Abs(u) < 0.1 }, true, true},
		{"full/noisy", true, 1, func(u float64, B int) bool { return math.Abs(u) > 0.8 }, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			seed, u := fastMHAuditSeed(c.step, lambda, bigC, c.want)
			var branchFree bool
			mk := func(m model.Model) (Kernel, error) {
				k, err := NewDPFastMH(m, DPFastMHConfig{Step: c.step, Lambda: lambda, BatchCap: 2, Full: c.full, StepEpsilon: eps, StepDelta: delta})
				if err == nil {
					k.plainMHFree = c.plain
					_, _, e2, _ := k.StepBudget()
					M := math.Abs(u)
					var sigma float64
					if c.full {
						branchFree = 2*L*M <= eps
						sigma = 2 * L * M / k.muFull
					} else {
						branchFree = 2*math.Log1p(bigC*M/lambda) <= e2
						sigma = 2 * math.Log1p(bigC*M/lambda) / k.mu2
					}
					if !branchFree {
						// public prior offset cancelling the penalty −σ²/2, so
						// the accept probability is mid-range (audit power)
						m.(*lipAuditModel).beta = sigma * sigma / 2 / u
					}
				}
				return k, err
			}
			s := math.Copysign(1, u)
			a0 := auditRun(t, mk, []float64{0, 0, 0, s * L}, L, 77, seed, trials, 1)
			a1 := auditRun(t, mk, []float64{0, 0, 0, -s * L}, L, 77, seed, trials, 2)
			elb := auditEpsLB(a0, a1, trials, delta, alpha)
			t.Logf("u = %.3f, free branch %v: accepts %d vs %d of %d; ε_lb = %.3f, claimed per-step ε = %v", u, branchFree, a0, a1, trials, elb, eps)
			if c.broken && !(elb > eps) {
				t.Errorf("unsound variant not flagged: ε_lb = %.3f ≤ %v", elb, eps)
			}
			if !c.broken && elb > eps {
				t.Errorf("privacy violation: ε_lb = %.3f > %v", elb, eps)
			}
		})
	}
}

func TestDPAuditBarker(t *testing.T) {
	const (
		delta = 1e-5
		alpha = 1e-3
	)
	trials := 100000
	if testing.Short() {
		trials = 30000
	}
	// Full data: μ = 2B/√C = 1 (B = √2/2, C = 2): claim ε(δ) of the tight
	// Gaussian. The broken variant ignores the clip (NoiseOff: no clipping,
	// exact logistic noise) with a row of weight ±1e6: it must be flagged.
	// Subsampled (N = 100, b = 20): claim from privacy.BarkerAccount for one
	// iteration.
	B := math.Sqrt2 / 2
	full := func(noiseOff bool) func(m model.Model) (Kernel, error) {
		return func(m model.Model) (Kernel, error) {
			return NewDPBarker(m, DPBarkerConfig{Step: 1, Full: true, Clip: B, BarkerC: 2, NoiseOff: noiseOff})
		}
	}
	fullClaim, _ := privacy.TightGaussian{Mu: 1 + GridInflation(1, DefaultGridBits)}.Epsilon(delta)
	subCfg := DPBarkerConfig{Step: 1, Batch: 20}
	subBest, _, err := subCfg.Account(100, 1, delta)
	if err != nil {
		t.Fatal(err)
	}
	wsub := make([]float64, 100)
	cases := []struct {
		name   string
		mk     func(m model.Model) (Kernel, error)
		w      []float64
		claim  float64
		broken bool
	}{
		{"full", full(false), []float64{0, 0, 0, 1e6}, fullClaim, false},
		{"full/no-clip(broken)", full(true), []float64{0, 0, 0, 1e6}, fullClaim, true},
		{"subsampled", func(m model.Model) (Kernel, error) { return NewDPBarker(m, subCfg) }, wsub, subBest.Epsilon, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w0 := append([]float64(nil), c.w...)
			w1 := append([]float64(nil), c.w...)
			w0[len(w0)-1], w1[len(w1)-1] = 1e6, -1e6
			a0 := auditRun(t, c.mk, w0, 1e6, 91, 3, trials, 3)
			a1 := auditRun(t, c.mk, w1, 1e6, 91, 3, trials, 4)
			elb := auditEpsLB(a0, a1, trials, delta, alpha)
			t.Logf("accepts %d vs %d of %d; ε_lb = %.3f, claimed per-step ε(δ=%g) = %.3f", a0, a1, trials, elb, delta, c.claim)
			if c.broken && !(elb > c.claim) {
				t.Errorf("broken variant not flagged: ε_lb = %.3f ≤ %.3f", elb, c.claim)
			}
			if !c.broken && elb > c.claim {
				t.Errorf("privacy violation: ε_lb = %.3f > %.3f", elb, c.claim)
			}
		})
	}
}
