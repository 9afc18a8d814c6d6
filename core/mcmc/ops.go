package mcmc

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// OPS is the one-posterior-sample mechanism (Wang, Fienberg & Smola 2015,
// privacy-for-free-ops-sgld.txt Algorithm 1, Theorem 4): one draw from the
// tempered posterior restricted to a public box Θ,
//
//	B  = sup_{x, θ∈Θ} |ℓ(θ; x)|          (model.RowBounds(box).AbsLogLik, public)
//	ρ  = min{1, ε/(4B)}                 (Alg. 1, step 1; privacy.OPSTemper)
//	ℓ' = ρ·ℓ,  p' = p^ρ                 (Alg. 1, step 2)
//	output θ̂ ~ π_ρ(θ) ∝ p(θ)^ρ·Π_i exp(ρ·ℓ_i(θ))·1{θ ∈ Θ}
//
// is ε-DP for the replace-one relation (the exponential mechanism with
// utility Σ ℓ_i: ε = 4ρB ≤ ε; privacy.OPSEpsilon).
//
// The draw is produced by an inner random-walk Metropolis chain of
// InnerIterations iterations on π_ρ (proposals outside Θ rejected), whose
// per-row ℓ_i are cached; only its final position is released. All of its
// randomness — proposals as well as accept uniforms — comes from the private
// stream: the guarantee is about the output distribution over all the
// sampler's internal randomness, so none of it may be known to the adversary
// (a proposal sequence from the seeded public stream would be). The inner
// chain starts from the previous released draw (public) and, on the first
// Step, from the Init position, which must be public.
//
// IMPORTANT: the ε-DP guarantee holds only if the released draw is an exact
// sample from π_ρ. A finite MCMC run is approximate; the guarantee is
// therefore conditional on the inner chain having converged (the longer
// InnerIterations, the closer). The privacy report must say so.
//
// As a Kernel, every Step is an independent OPS release and costs ε again
// (pure ε composes additively; PrivacyParams reports it per Step). The
// chain of OPS draws is not a Markov chain on the untempered posterior: each
// draw targets π_ρ.
type OPS struct {
	m     model.Model
	cfg   OPSConfig
	d, n  int
	box   []model.Interval
	rho   float64
	bound float64 // B
	eps   float64 // 4ρB
	scale []float64

	theta, prop   []float64
	llCur, llProp []float64
	sumCur, lpCur float64 // Σℓ_i(θ), log p(θ) (untempered)
	ready         bool
}

// OPSConfig configures the one-posterior-sample mechanism.
type OPSConfig struct {
	// Epsilon is the pure ε of one draw.
	Epsilon float64 `json:"epsilon"`
	// Box is the public parameter box Θ (required: B is taken over it).
	Box []model.Interval `json:"box"`
	// InnerIterations is the length K of the inner MH run per draw
	// (default 1000).
	InnerIterations int `json:"inner_iterations,omitempty"`
	// InnerStep is the inner random-walk proposal sd (default: 1/20 of the
	// box's smallest width).
	InnerStep float64 `json:"inner_step,omitempty"`
	// Scale optionally multiplies InnerStep per coordinate.
	Scale []float64 `json:"scale,omitempty"`

	// NoiseOff sets ρ = 1 (no tempering; tests only): the kernel is then K
	// iterations of random-walk MH on the posterior restricted to Θ.
	NoiseOff bool `json:"-"`
}

// NewOPS returns an OPS kernel for m.
func NewOPS(m model.Model, cfg OPSConfig) (*OPS, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if cfg.Box == nil {
		return nil, fmt.Errorf("mcmc: ops needs a parameter box (its log-likelihood bound B is taken over it)")
	}
	box, err := checkBoxCfg(cfg.Box, d)
	if err != nil {
		return nil, err
	}
	if cfg.InnerIterations == 0 {
		cfg.InnerIterations = 1000
	}
	if cfg.InnerIterations < 1 {
		return nil, fmt.Errorf("mcmc: ops inner_iterations = %d must be at least 1", cfg.InnerIterations)
	}
	if cfg.InnerStep == 0 {
		w := math.Inf(1)
		for _, iv := range box {
			w = min(w, iv.Hi-iv.Lo)
		}
		cfg.InnerStep = w / 20
	}
	if err := checkStep("ops inner", cfg.InnerStep); err != nil {
		return nil, err
	}
	sc, err := checkScale(cfg.Scale, d)
	if err != nil {
		return nil, err
	}
	B := m.RowBounds(box).AbsLogLik
	if !(B > 0) || math.IsInf(B, 1) {
		return nil, fmt.Errorf("mcmc: ops: model %s has no finite log-likelihood bound on the box (B = %v); set public column bounds", m.Name(), B)
	}
	k := &OPS{
		m: m, cfg: cfg, d: d, n: n, box: box, bound: B, scale: sc,
		theta: make([]float64, d), prop: make([]float64, d),
		llCur: make([]float64, n), llProp: make([]float64, n),
	}
	if cfg.NoiseOff {
		k.rho = 1
		k.eps = math.Inf(1)
	} else {
		if k.rho, err = privacy.OPSTemper(cfg.Epsilon, B); err != nil {
			return nil, fmt.Errorf("mcmc: ops: %w", err)
		}
		if k.eps, err = privacy.OPSEpsilon(k.rho, B); err != nil {
			return nil, fmt.Errorf("mcmc: ops: %w", err)
		}
	}
	return k, nil
}

// Name implements Kernel.
func (k *OPS) Name() string { return "ops" }

// Position implements Kernel.
func (k *OPS) Position() []float64 { return k.theta }

// Rho is the tempering ρ.
func (k *OPS) Rho() float64 { return k.rho }

// Bound is B, the public bound on |ℓ_i| over the box.
func (k *OPS) Bound() float64 { return k.bound }

// Init implements Kernel; theta0 must be public and inside the box.
func (k *OPS) Init(theta0 []float64) error {
	lp, err := initPosition(k.m, theta0, k.theta, k.box)
	if err != nil {
		return err
	}
	k.lpCur = lp
	k.sumCur = logLikAll(k.m, k.theta, k.llCur)
	if !finite(k.sumCur) {
		return errBadLogLik
	}
	k.ready = true
	return nil
}

// Step implements Kernel: one OPS draw (InnerIterations MH iterations on
// π_ρ, all randomness from the private stream; only the final position is
// released). Info.Accepted reports whether the released draw differs from
// the previous one; AcceptProb is the inner acceptance rate (local).
func (k *OPS) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	priv := r.Noise
	K := k.cfg.InnerIterations
	acc := 0
	info := Info{}
	for it := 0; it < K; it++ {
		rwPropose(priv, k.theta, k.scale, k.cfg.InnerStep, k.prop)
		if !inBox(k.prop, k.box) {
			continue
		}
		lp := k.m.LogPrior(k.prop)
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			continue
		}
		sum := logLikAll(k.m, k.prop, k.llProp)
		info.Rows += k.n
		logRatio := k.rho * (sum - k.sumCur + lp - k.lpCur)
		if logUniform(priv) < logRatio {
			k.theta, k.prop = k.prop, k.theta
			k.llCur, k.llProp = k.llProp, k.llCur
			k.sumCur, k.lpCur = sum, lp
			acc++
		}
	}
	info.Accepted = acc > 0
	info.AcceptProb = float64(acc) / float64(K)
	return info
}

// PrivacyParams returns the cost of one Step: pure ε = 4ρB (replace-one),
// valid under exact sampling (see the type's doc).
func (k *OPS) PrivacyParams() PrivacyCost {
	return PrivacyCost{Relation: privacy.Replace, PureEpsilon: k.eps}
}

// Epsilon is the pure ε of one draw, 4ρB (privacy.OPSEpsilon); +Inf with
// NoiseOff.
func (k *OPS) Epsilon() float64 { return k.eps }
