package mcmc

import (
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// MH is random-walk Metropolis–Hastings (Metropolis et al. 1953; Hastings
// 1970), as stated in dp-fast-mh.txt §3.1 and dp-mcmc-thesis-penalty-mala.txt
// (the non-private penalty baseline):
//
//	propose θ' = θ + step·s⊙z,  z ~ N(0, I)               (public stream)
//	λ = Σ_i [ℓ_i(θ') − ℓ_i(θ)] + log p(θ') − log p(θ)      (q is symmetric)
//	accept with probability min(1, e^λ)                    (uniform from the noise stream)
//
// ℓ_i(θ) is cached for every row, so an iteration evaluates the data once,
// at θ'. Proposals outside the prior's support are rejected without touching
// the data. With Adapt set, the step is tuned during warmup by dual averaging
// (adapt.go) towards TargetAccept (default 0.234, Roberts, Gelman & Gilks
// 1997).
type MH struct {
	rwChain
	cfg      MHConfig
	da       *DualAveraging
	adapting bool
}

// MHConfig configures random-walk MH.
type MHConfig struct {
	// Step is the proposal standard deviation per coordinate.
	Step float64 `json:"step"`
	// Scale optionally multiplies Step per coordinate (public, e.g. prior
	// scales); nil means 1 for all coordinates.
	Scale []float64 `json:"scale,omitempty"`
	// Adapt tunes Step during warmup (non-private runs only).
	Adapt bool `json:"adapt,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.234).
	TargetAccept float64 `json:"target_accept,omitempty"`
}

// NewMH returns a random-walk MH kernel for m.
func NewMH(m model.Model, cfg MHConfig) (*MH, error) {
	c, err := newRWChain(m, "mh", cfg.Step, cfg.Scale)
	if err != nil {
		return nil, err
	}
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.234
	}
	if err := checkTarget(cfg.TargetAccept); err != nil {
		return nil, err
	}
	k := &MH{rwChain: c, cfg: cfg, adapting: cfg.Adapt}
	if cfg.Adapt {
		k.da = NewDualAveraging(cfg.Step, cfg.TargetAccept)
	}
	return k, nil
}

// Name implements Kernel.
func (k *MH) Name() string { return "mh" }

// Init implements Kernel.
func (k *MH) Init(theta0 []float64) error { return k.init(theta0) }

// Position implements Kernel.
func (k *MH) Position() []float64 { return k.theta }

// StepSize is the current proposal standard deviation (before Scale).
func (k *MH) StepSize() float64 { return k.step }

// Step implements Kernel.
func (k *MH) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	rwPropose(r.Public, k.theta, k.scale, k.step, k.prop)
	lp, sum, rows, ok := k.evalProposal()
	if !ok {
		return Info{Rows: rows}
	}
	logRatio := sum - k.sumCur + lp - k.lpCur
	info := Info{AcceptProb: acceptProbMH(logRatio), Rows: rows, Divergent: logRatio != logRatio}
	if logUniform(r.Noise) < logRatio {
		k.accept(lp, sum)
		info.Accepted = true
	}
	return info
}

// Adapt implements Adaptive.
func (k *MH) Adapt(it int, info Info) {
	if k.adapting {
		k.step = k.da.Update(info.AcceptProb)
	}
}

// EndWarmup implements Adaptive.
func (k *MH) EndWarmup() {
	if k.adapting {
		k.step = k.da.Final()
		k.adapting = false
	}
}
