package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Audits of DP-Fast MH (dp_fastmh.go): one iteration of each branch, on
// n = 2 rows (a shared row ℓ = 0 and the differing row ℓ_i(θ) = ±c·θ),
// with the per-row bound c chosen so that the first public proposal u
// gives c·M = c|u| = cm: the differing row sits exactly at the Lipschitz
// bound, +cm on D and −cm on D′ (or the reverse). The public seed is
// chosen (by running the kernel) so that the first iteration takes the
// branch under audit with the wanted public batch size B. The claim is the
// run's accountant, DPFastMHConfig.Account = privacy.FastMHAccount, for
// one iteration at its per-step (ε, δ).
//
// Branches and seeded bugs (mcmc.AuditSeedFastMHBug):
//
//   - minibatch, privacy for free (B = 1 < K = 2, Δ(ℓ₁) = 2·log(1 + CM/λ) ≤ ε₂):
//     Barker's acceptance must pass; the paper's plain min(1, e^r) must be
//     caught (D never rejects, D′ rejects when its row is drawn);
//   - minibatch, noisy (Δ(ℓ₁) = 10 > ε₂ = ε): the noise std quartered must
//     be caught. (Halved is not caught by an accept-bit audit here: the
//     inclusion coins make D′'s shift −L1 occur with probability 1/2 and
//     D's +L1 almost never, so one bit sees about half the sensitivity the
//     claim is calibrated to.)
//   - full batch (dp-fastmh with K = 1, and dp-fastmh-full), noisy: the
//     noise std halved must be caught;
//   - full batch, free (dp-fastmh-full, 2cM ≤ ε): Barker must pass, plain
//     MH must be caught.

// fastMHSetup is one branch under audit.
type fastMHSetup struct {
	kernel     string
	cfg        mcmc.DPFastMHConfig // Step, Lambda, BatchCap, Full, StepEpsilon, StepDelta
	cm         float64             // c·M of the first proposal
	advSign    float64             // the differing row's ℓ difference on D is advSign·cm
	want       func(st mcmc.FastMHStats, info mcmc.Info) bool
	logAccept  float64 // D's mean log acceptance (noisy) or τ = β·u (free)
	noiseScale float64 // noisy branches: the kernel's noise multiplier, for β (0: free branch)
}

// fastMHPair returns the neighbours for a first proposal u.
func fastMHPair(s fastMHSetup, u, beta float64) [2]*LinearModel {
	c := s.cm / math.Abs(u)
	return Neighbours([][]float64{{0}}, []float64{s.advSign * math.Copysign(c, u)}, []float64{beta}, nil)
}

// fastMHSeed returns the first public seed whose first iteration on D
// takes the wanted branch.
func fastMHSeed(t *testing.T, s fastMHSetup) (uint64, float64) {
	t.Helper()
	for seed := uint64(1); seed < 5000; seed++ {
		u := s.cfg.Step * publicNorm(seed, 0)
		pair := fastMHPair(s, u, 0)
		k, err := mcmc.NewDPFastMH(pair[0], s.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Init([]float64{0}); err != nil {
			t.Fatal(err)
		}
		info := k.Step(rng.Streams{Public: rand.New(rand.NewPCG(seed, 0x5eed)), Noise: rand.New(rand.NewPCG(1, 1))})
		if s.want(k.Stats(), info) {
			return seed, u
		}
	}
	t.Fatalf("%s: no public seed reaches the branch", s.kernel)
	return 0, 0
}

// fastMHCase builds the audit of setup s with a seeded bug (plainMH, noise
// multiplier) at total δ auditDelta (the per-step δ is auditDelta/2, as
// mcmc.PlanStepBudget plans one iteration).
func fastMHCase(t *testing.T, s fastMHSetup, variant string, plainMH bool, noise float64, broken bool, auditDelta float64, trials int) auditCase {
	t.Helper()
	seed, u := fastMHSeed(t, s)
	probe, err := mcmc.NewDPFastMH(fastMHPair(s, u, 0)[0], s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	eps, delta, eps2, delta2 := probe.StepBudget()
	beta := s.logAccept / u // free branches: τ = logAccept
	if s.noiseScale > 0 {
		// noisy branch: set D's mean log acceptance ℓ_D − σ²/2 + τ.
		var sens, mu float64
		if s.cfg.Full || s.cfg.BatchCap == 1 {
			sens = 2 * s.cm
			mu, err = privacy.MuFor(eps, delta)
		} else {
			_, bigC := probe.Bound()
			sens = 2 * math.Log1p(bigC*math.Abs(u)/s.cfg.Lambda)
			mu, err = privacy.MuFor(eps2, delta2)
		}
		if err != nil {
			t.Fatal(err)
		}
		sigma := s.noiseScale * sens / mu
		lD := s.advSign * s.cm // D's ℓ difference when its row enters
		if !(s.cfg.Full || s.cfg.BatchCap == 1) {
			lD = 0 // minibatch: D's row (+cm) is almost never included
		}
		beta = (s.logAccept - lD + sigma*sigma/2) / u
	}
	rep, err := s.cfg.Account(1, auditDelta)
	if err != nil {
		t.Fatal(err)
	}
	pair := fastMHPair(s, u, beta)
	spec := KernelSpec{
		New: func(nb int) (mcmc.Kernel, error) {
			k, err := mcmc.NewDPFastMH(pair[nb], s.cfg)
			if err == nil {
				mcmc.AuditSeedFastMHBug(k, plainMH, noise)
			}
			return k, err
		},
		Theta0: []float64{0}, PublicSeed: seed, Reuse: true,
	}
	return auditCase{kernel: s.kernel, variant: variant, mech: spec.Mechanism(), claim: rep.Epsilon, delta: auditDelta,
		stats: []Statistic{Moves(spec.Theta0)}, broken: broken, trials: trials}
}

// mu1Epsilon is ε(δ) of the μ = 1 Gaussian mechanism: a per-step budget
// whose Gaussian noise has std = sensitivity.
func mu1Epsilon(t *testing.T, delta float64) float64 {
	e, err := privacy.TightGaussian{Mu: 1}.Epsilon(delta)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAuditDPFastMH(t *testing.T) {
	const delta = 1e-3
	e1 := mu1Epsilon(t, delta/2)
	miniB1 := func(free bool) func(mcmc.FastMHStats, mcmc.Info) bool {
		return func(st mcmc.FastMHStats, info mcmc.Info) bool {
			return st.Minibatch == 1 && info.Rows == 2 && (st.Free == 1) == free
		}
	}
	fullBranch := func(free bool) func(mcmc.FastMHStats, mcmc.Info) bool {
		return func(st mcmc.FastMHStats, info mcmc.Info) bool { return st.Full == 1 && (st.Free == 1) == free }
	}
	// Minibatch branches: n = 2, K = 2 (B ≤ 1), p = 1/2, so ε₂ = ε and δ₂ = δ.
	miniFree := fastMHSetup{kernel: "dp-fastmh (1 step, minibatch, free: Barker)",
		cfg: mcmc.DPFastMHConfig{Step: 1, Lambda: 1, BatchCap: 2, StepEpsilon: 1, StepDelta: delta / 2},
		cm:  0.3, advSign: 1, want: miniB1(true)} // L1 = log(1 + 0.6) = 0.47 ≤ ε₂/2
	miniNoisy := fastMHSetup{kernel: "dp-fastmh (1 step, minibatch, noisy)",
		cfg: mcmc.DPFastMHConfig{Step: 1, Lambda: 0.01, BatchCap: 2, StepEpsilon: e1, StepDelta: delta / 2},
		cm:  0.01 * math.Expm1(5) / 2, advSign: 1, want: miniB1(false), logAccept: 25, noiseScale: 1} // L1 = 5: σ₁ ≈ 10
	fullNoisy := fastMHSetup{kernel: "dp-fastmh (1 step, full-batch branch, K = 1)",
		cfg: mcmc.DPFastMHConfig{Step: 1, Lambda: 10, BatchCap: 1, StepEpsilon: e1, StepDelta: delta / 2},
		cm:  5, advSign: -1, want: fullBranch(false), logAccept: -18, noiseScale: 1} // σ₂ = 2cM/μ ≈ 10
	ffNoisy := fullNoisy
	ffNoisy.kernel = "dp-fastmh-full (1 step, noisy)"
	ffNoisy.cfg.Full, ffNoisy.cfg.BatchCap = true, 0
	ffFree := fastMHSetup{kernel: "dp-fastmh-full (1 step, free: Barker)",
		cfg: mcmc.DPFastMHConfig{Step: 1, Full: true, StepEpsilon: 1, StepDelta: delta / 2},
		cm:  0.49, advSign: 1, want: fullBranch(true)} // 2cM = 0.98 ≤ ε

	quarter := miniNoisy
	quarter.noiseScale, quarter.logAccept = 0.25, 7.5
	halfFull, halfFF := fullNoisy, ffNoisy
	halfFull.noiseScale, halfFF.noiseScale = 0.5, 0.5
	for _, c := range []struct {
		name    string
		s       fastMHSetup
		plainMH bool
		noise   float64
		broken  bool
	}{
		{"correct", miniFree, false, 1, false},
		{"plain-MH-free-branch", miniFree, true, 1, true},
		{"correct", miniNoisy, false, 1, false},
		{"noise-quartered", quarter, false, 0.25, true},
		{"correct", fullNoisy, false, 1, false},
		{"noise-halved", halfFull, false, 0.5, true},
		{"correct", ffNoisy, false, 1, false},
		{"noise-halved", halfFF, false, 0.5, true},
		{"correct", ffFree, false, 1, false},
		{"plain-MH-free-branch", ffFree, true, 1, true},
	} {
		t.Run(fmt.Sprintf("%s/%s", c.s.kernel, c.name), func(t *testing.T) {
			t.Parallel()
			runAudit(t, fastMHCase(t, c.s, c.name, c.plainMH, c.noise, c.broken, delta, 100000))
		})
	}
}
