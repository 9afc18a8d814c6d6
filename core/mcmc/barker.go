package mcmc

import (
	"github.com/dpmcmc/dpmcmc/core/mathx"
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Barker is random-walk MCMC with Barker's acceptance test (Barker 1965), in
// the form of Seita et al. (2017) used by dp-barker-mcmc.txt §2.2, eqs. (4)–(5):
//
//	propose θ' = θ + step·s⊙z,  z ~ N(0, I)               (public stream)
//	Δ = Σ_i [ℓ_i(θ') − ℓ_i(θ)] + log p(θ') − log p(θ)      (q is symmetric)
//	accept iff Δ + V_log > 0,  V_log ~ Logistic(0, 1)      (noise stream)
//
// i.e. with probability 1/(1 + e^{−Δ}). This is the full-data exact test; the
// DP variant replaces Δ by a subsampled estimate and splits V_log into a
// normal part and a correction. ℓ_i(θ) is cached for every row, so an
// iteration evaluates the data once, at θ'.
type Barker struct {
	rwChain
	cfg BarkerConfig
}

// BarkerConfig configures the Barker kernel.
type BarkerConfig struct {
	// Step is the proposal standard deviation per coordinate.
	Step float64 `json:"step"`
	// Scale optionally multiplies Step per coordinate; nil means all 1.
	Scale []float64 `json:"scale,omitempty"`
}

// NewBarker returns a random-walk kernel with Barker's acceptance test.
func NewBarker(m model.Model, cfg BarkerConfig) (*Barker, error) {
	c, err := newRWChain(m, "barker", cfg.Step, cfg.Scale)
	if err != nil {
		return nil, err
	}
	return &Barker{rwChain: c, cfg: cfg}, nil
}

// Name implements Kernel.
func (k *Barker) Name() string { return "barker" }

// Init implements Kernel.
func (k *Barker) Init(theta0 []float64) error { return k.init(theta0) }

// Position implements Kernel.
func (k *Barker) Position() []float64 { return k.theta }

// Step implements Kernel.
func (k *Barker) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	rwPropose(r.Public, k.theta, k.scale, k.step, k.prop)
	lp, sum, rows, ok := k.evalProposal()
	if !ok {
		return Info{Rows: rows}
	}
	delta := sum - k.sumCur + lp - k.lpCur
	info := Info{AcceptProb: logistic(delta), Rows: rows, Divergent: delta != delta}
	if delta+logisticNoise(r) > 0 {
		k.accept(lp, sum)
		info.Accepted = true
	}
	return info
}

// logistic is 1/(1 + e^{−x}), 0 for NaN.
func logistic(x float64) float64 {
	if x != x {
		return 0
	}
	if x >= 0 {
		return 1 / (1 + mathx.Exp(-x))
	}
	e := mathx.Exp(x)
	return e / (1 + e)
}

// logisticNoise draws V ~ Logistic(0, 1) = log(U/(1−U)) from the noise
// stream, with U in (0, 1).
func logisticNoise(r rng.Streams) float64 {
	u := r.Noise.Float64()
	for u == 0 {
		u = r.Noise.Float64()
	}
	return mathx.Log(u) - math.Log1p(-u)
}
