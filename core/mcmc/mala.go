package mcmc

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// MALA is the Metropolis-adjusted Langevin algorithm (Roberts & Rosenthal
// 1998; dp-mcmc-thesis-penalty-mala.txt §4.2, non-private form), with an
// optional public diagonal preconditioner S = diag(s²):
//
//	θ' = θ + (ε²/2)·S∇log π(θ) + ε·s⊙z,  z ~ N(0, I)     (public stream)
//	λ  = log π(θ') − log π(θ) + log q(θ|θ') − log q(θ'|θ)
//	log q(b|a) = −Σ_j (b_j − a_j − (ε²/2)s_j²∂_j log π(a))² / (2ε²s_j²) + const
//	accept with probability min(1, e^λ)                   (noise stream)
//
// where π(θ) ∝ p(θ)·Π_i exp(ℓ_i(θ)) is the full posterior (the drift uses the
// prior's gradient as well as the likelihood's). log π and ∇log π are cached
// at the current θ, so an iteration evaluates the data at θ' only: one
// log-likelihood pass and one gradient pass (Info.Rows = 2N). With Adapt set,
// ε is tuned during warmup by dual averaging towards TargetAccept (default
// 0.574, Roberts & Rosenthal 1998).
type MALA struct {
	m     model.Model
	cfg   MALAConfig
	d, n  int
	step  float64
	scale []float64

	theta, prop     []float64
	grad, gradProp  []float64 // ∇log π at θ and θ'
	tmp, buf        []float64 // scratch: len d, len N
	llCur, lpCur    float64   // Σℓ_i(θ), log p(θ)
	ready, adapting bool
	da              *DualAveraging
}

// MALAConfig configures MALA.
type MALAConfig struct {
	// Step is ε: the proposal standard deviation per coordinate is ε·s_j and
	// the drift is (ε²/2)·s_j²·∂_j log π.
	Step float64 `json:"step"`
	// Scale is s (public preconditioner); nil means all 1.
	Scale []float64 `json:"scale,omitempty"`
	// Adapt tunes Step during warmup (non-private runs only).
	Adapt bool `json:"adapt,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.574).
	TargetAccept float64 `json:"target_accept,omitempty"`
}

// NewMALA returns a MALA kernel for m.
func NewMALA(m model.Model, cfg MALAConfig) (*MALA, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("mala", cfg.Step); err != nil {
		return nil, err
	}
	sc, err := checkScale(cfg.Scale, d)
	if err != nil {
		return nil, err
	}
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.574
	}
	if err := checkTarget(cfg.TargetAccept); err != nil {
		return nil, err
	}
	k := &MALA{
		m: m, cfg: cfg, d: d, n: n, step: cfg.Step, scale: sc,
		theta: make([]float64, d), prop: make([]float64, d),
		grad: make([]float64, d), gradProp: make([]float64, d),
		tmp: make([]float64, d), buf: make([]float64, n),
		adapting: cfg.Adapt,
	}
	if cfg.Adapt {
		k.da = NewDualAveraging(cfg.Step, cfg.TargetAccept)
	}
	return k, nil
}

// Name implements Kernel.
func (k *MALA) Name() string { return "mala" }

// Position implements Kernel.
func (k *MALA) Position() []float64 { return k.theta }

// StepSize is the current ε.
func (k *MALA) StepSize() float64 { return k.step }

// Init implements Kernel.
func (k *MALA) Init(theta0 []float64) error {
	lp, err := initPosition(k.m, theta0, k.theta, nil)
	if err != nil {
		return err
	}
	k.lpCur = lp
	k.llCur = logLikAll(k.m, k.theta, k.buf)
	if !finite(k.llCur) {
		return errBadLogLik
	}
	gradLogPost(k.m, k.theta, k.grad, k.tmp)
	k.ready = true
	return nil
}

// logQ is log q(b | a) up to a constant, for drift gradient ga at a.
func (k *MALA) logQ(b, a, ga []float64, eps float64) float64 {
	h := eps * eps / 2
	s := 0.0
	for j := range b {
		v := k.scale[j] * k.scale[j]
		r := b[j] - a[j] - h*v*ga[j]
		s += r * r / v
	}
	return -s / (2 * eps * eps)
}

// Step implements Kernel.
func (k *MALA) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	eps := k.step
	h := eps * eps / 2
	for j, t := range k.theta {
		s := k.scale[j]
		k.prop[j] = t + h*s*s*k.grad[j] + eps*s*r.Public.NormFloat64()
	}
	lp := k.m.LogPrior(k.prop)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return Info{}
	}
	ll := logLikAll(k.m, k.prop, k.buf)
	gradLogPost(k.m, k.prop, k.gradProp, k.tmp)

	logRatio := ll - k.llCur + lp - k.lpCur +
		k.logQ(k.theta, k.prop, k.gradProp, eps) - k.logQ(k.prop, k.theta, k.grad, eps)
	info := Info{AcceptProb: acceptProbMH(logRatio), Rows: 2 * k.n, Divergent: logRatio != logRatio}
	if logUniform(r.Noise) < logRatio {
		k.theta, k.prop = k.prop, k.theta
		k.grad, k.gradProp = k.gradProp, k.grad
		k.llCur, k.lpCur = ll, lp
		info.Accepted = true
	}
	return info
}

// Adapt implements Adaptive.
func (k *MALA) Adapt(it int, info Info) {
	if k.adapting {
		k.step = k.da.Update(info.AcceptProb)
	}
}

// EndWarmup implements Adaptive.
func (k *MALA) EndWarmup() {
	if k.adapting {
		k.step = k.da.Final()
		k.adapting = false
	}
}
