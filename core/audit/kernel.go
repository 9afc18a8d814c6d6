package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// LinearModel is an adversarial model for auditing: row i's log-likelihood
// is linear in θ,
//
//	ℓ_i(θ) = W[i]·θ,   ∇ℓ_i(θ) = W[i],   log p(θ) = Slope·θ (improper),
//
// so a row with a huge W[i] saturates every clip bound a DP kernel applies
// (per-row log-likelihood ratios ±r‖θ′−θ‖, per-row gradients ‖·‖ ≤ G) and
// two datasets that differ in that row's sign are the worst-case
// neighbours of the replace-one relation. Slope shifts the acceptance
// probability (a public offset) into the regime where an accept bit is
// most informative.
type LinearModel struct {
	W     [][]float64
	Slope []float64
	// Box restricts the prior's support (log p = −Inf outside); nil: R^d.
	Box []model.Interval
	// ReportedAbsLogLik, when positive, is what RowBounds reports as the
	// bound B on |ℓ_i| instead of the true one: a seeded bug for
	// one-posterior-sample (an understated public bound).
	ReportedAbsLogLik float64
}

// Name implements model.Model.
func (m *LinearModel) Name() string { return "audit-linear" }

// Dim implements model.Model.
func (m *LinearModel) Dim() int { return len(m.Slope) }

// ParamNames implements model.Model.
func (m *LinearModel) ParamNames() []string {
	out := make([]string, m.Dim())
	for j := range out {
		out[j] = fmt.Sprintf("theta[%d]", j+1)
	}
	return out
}

// N implements model.Model.
func (m *LinearModel) N() int { return len(m.W) }

func dot(a, b []float64) float64 {
	s := 0.0
	for j, v := range a {
		s += v * b[j]
	}
	return s
}

// LogLik implements model.Model.
func (m *LinearModel) LogLik(theta []float64, rows []int, out []float64) {
	if rows == nil {
		for i, w := range m.W {
			out[i] = dot(w, theta)
		}
		return
	}
	for k, i := range rows {
		out[k] = dot(m.W[i], theta)
	}
}

// GradLogLikRow implements model.Model.
func (m *LinearModel) GradLogLikRow(theta []float64, i int, grad []float64) { copy(grad, m.W[i]) }

// GradLogLik implements model.Model.
func (m *LinearModel) GradLogLik(theta []float64, rows []int, grad []float64) {
	clear(grad)
	add := func(i int) {
		for j, v := range m.W[i] {
			grad[j] += v
		}
	}
	if rows == nil {
		for i := range m.W {
			add(i)
		}
		return
	}
	for _, i := range rows {
		add(i)
	}
}

// LogPrior implements model.Model.
func (m *LinearModel) LogPrior(theta []float64) float64 {
	for j, iv := range m.Box {
		if !(theta[j] >= iv.Lo && theta[j] <= iv.Hi) {
			return math.Inf(-1)
		}
	}
	return dot(m.Slope, theta)
}

// GradLogPrior implements model.Model.
func (m *LinearModel) GradLogPrior(theta []float64, grad []float64) { copy(grad, m.Slope) }

// RowBounds implements model.Model: the Lipschitz constant and gradient
// bound are max_i ‖W[i]‖; B = max_i Σ_j |W[i][j]|·max(|lo_j|, |hi_j|) over
// the box (+Inf without one), unless ReportedAbsLogLik overrides it.
func (m *LinearModel) RowBounds(box []model.Interval) model.RowBounds {
	lip, b := 0.0, 0.0
	for _, w := range m.W {
		lip = math.Max(lip, math.Sqrt(dot(w, w)))
		s := 0.0
		for j, v := range w {
			if box == nil {
				s = math.Inf(1)
				break
			}
			s += math.Abs(v) * math.Max(math.Abs(box[j].Lo), math.Abs(box[j].Hi))
		}
		b = math.Max(b, s)
	}
	if m.ReportedAbsLogLik > 0 {
		b = m.ReportedAbsLogLik
	}
	return model.RowBounds{Lipschitz: lip, GradNorm: lip, AbsLogLik: b}
}

var _ model.Model = (*LinearModel)(nil)

// Neighbours returns the replace-one pair of LinearModels that share rows
// shared and differ in one extra row: adv on D and −adv on D′.
func Neighbours(shared [][]float64, adv, slope []float64, box []model.Interval) [2]*LinearModel {
	var out [2]*LinearModel
	for nb, sign := range []float64{1, -1} {
		row := make([]float64, len(adv))
		for j, v := range adv {
			row[j] = sign * v
		}
		w := append(append([][]float64(nil), shared...), row)
		out[nb] = &LinearModel{W: w, Slope: slope, Box: box}
	}
	return out
}

// KernelSpec describes a DP kernel run as a black box: a fresh kernel on
// neighbour nb's dataset, started at the public Theta0, advanced Steps
// iterations with the public stream reseeded identically for every run (the
// same proposals on D and D′) and the run's own noise stream. The released
// output is every position of the short chain (Steps × d values): the
// draws a user would export.
type KernelSpec struct {
	// New builds the kernel for neighbour nb (0: D, 1: D′). It is called
	// once per run: kernels are stateful.
	New    func(nb int) (mcmc.Kernel, error)
	Theta0 []float64
	Steps  int // default 1
	// Warmup is the number of leading steps run as warmup (PlanWarmup,
	// Adapt after each, EndWarmup after the last), as a run does: the
	// adaptation is then part of the audited mechanism.
	Warmup     int
	PublicSeed uint64 // seed of the public stream
	// Reuse lets one kernel serve many runs (re-Init'ed before each):
	// only for kernels whose Init resets every state the next steps read
	// and whose construction is costly (dp-fastmh calibrates its noise by
	// bisection).
	Reuse bool
}

// Mechanism returns the spec as a Mechanism.
func (s KernelSpec) Mechanism() Mechanism {
	steps := max(s.Steps, 1)
	var pool [2]sync.Pool
	return func(nb int, noise *rand.Rand) ([]float64, error) {
		var k mcmc.Kernel
		if s.Reuse {
			if v := pool[nb].Get(); v != nil {
				k = v.(mcmc.Kernel)
				defer pool[nb].Put(k)
			}
		}
		if k == nil {
			var err error
			if k, err = s.New(nb); err != nil {
				return nil, err
			}
			if s.Reuse {
				defer pool[nb].Put(k)
			}
		}
		if err := k.Init(s.Theta0); err != nil {
			return nil, err
		}
		r := rng.Streams{Public: rand.New(rand.NewPCG(s.PublicSeed, 0x5eed)), Noise: noise}
		d := len(s.Theta0)
		out := make([]float64, 0, steps*d)
		ad, _ := k.(mcmc.Adaptive)
		if pl, ok := k.(mcmc.WarmupPlanner); ok && s.Warmup > 0 {
			pl.PlanWarmup(s.Warmup)
		}
		for it := range steps {
			info := k.Step(r)
			out = append(out, k.Position()...)
			if ad != nil && it < s.Warmup {
				ad.Adapt(it, info)
				if it == s.Warmup-1 {
					ad.EndWarmup()
				}
			}
		}
		return out, nil
	}
}

// Moves is the statistic "number of iterations that moved the chain"
// (θ_t ≠ θ_{t−1}) of a KernelSpec output from theta0 with dimension d; for
// one step it is the accept bit of a proposal that differs from θ.
func Moves(theta0 []float64) Statistic {
	d := len(theta0)
	return Statistic{Name: "moves", F: func(out []float64) float64 {
		prev := theta0
		n := 0
		for t := 0; t+d <= len(out); t += d {
			cur := out[t : t+d]
			for j := range cur {
				if cur[j] != prev[j] {
					n++
					break
				}
			}
			prev = cur
		}
		return float64(n)
	}}
}

// Final is the statistic "coordinate j of the last position" of a
// KernelSpec output with dimension d.
func Final(j, d int, name string) Statistic {
	return Statistic{Name: name, F: func(out []float64) float64 { return out[len(out)-d+j] }}
}

// GaussianClaim is the ε at δ that the tight Gaussian accountant
// (dp-hmc.txt Thm 2.4) claims for steps iterations of a kernel whose one
// iteration costs c (its PrivacyParams).
func GaussianClaim(c mcmc.PrivacyCost, steps int, delta float64) (float64, error) {
	return privacy.TightGaussian{Mu: c.StepMu() * math.Sqrt(float64(max(steps, 1)))}.Epsilon(delta)
}
