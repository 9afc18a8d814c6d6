package mcmc

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// TunaMH is the exact minibatch Metropolis–Hastings method of Zhang, Cooper &
// De Sa (2020), as given in dp-fast-mh.txt, Algorithm 1, with energies
// U_i = −ℓ_i, a Gaussian random-walk proposal and Assumption 1 instantiated
// by the model's public per-row Lipschitz bound over the box:
// c_i = c = RowBounds(Box).Lipschitz, C = N·c, M(θ, θ') = ‖θ − θ'‖₂.
//
//	propose θ' = θ + step·s⊙z and compute M(θ, θ')         (public stream)
//	  (θ' outside Box, or outside the prior's support: reject, no data read)
//	λ = Lambda + Chi·C²M²
//	sample B ~ Poisson(λ + C·M)                            (public stream)
//	Batch(B): for b = 1..B
//	    sample i_b with P(i_b = i) = c_i/C = 1/N            (public stream)
//	    add i_b to I with probability                       (noise stream)
//	      [λc + (C/2)(U_i(θ') − U_i(θ) + cM)] / [λc + cCM]
//	r = exp(2 Σ_{i∈I} artanh(C(U_i(θ) − U_i(θ')) / (c(2λ + CM)))) · p(θ')/p(θ)
//	accept with probability min(1, r)                      (noise stream)
//
// The paper's Algorithm 1 keeps λ a fixed hyperparameter (Chi = 0), which
// DP-fast MH needs to bound its sensitivity; the original TunaMH sets
// λ = χC²M² (Lambda = 0), for which E[B] ≤ χC²M² + CM. Both are symmetric in
// (θ, θ'), so either choice (or their sum) is exact. The prior is public and
// enters the ratio exactly (MHRatio's τ slot, 0 in the paper's non-private
// algorithm; the paper's U_i carry the likelihood only). The proposal is
// symmetric, so q(θ|θ')/q(θ'|θ) = 1.
//
// The index draws i_b and B are data-independent (public stream); the
// inclusion coins depend on ℓ_i and are drawn, like the accept uniform, from
// the noise stream. The bound |ℓ_i(θ') − ℓ_i(θ)| ≤ cM holds only for θ, θ' in
// the box, so the chain targets the posterior restricted to the box. A row
// that violates the bound (a model bug) is clamped to it and counted in
// Info.Clipped. Rows are read in chunks, so B may exceed N and nothing is
// allocated. Info.Rows = 2B (each sampled row is evaluated at θ and θ').
type TunaMH struct {
	m       model.Model
	cfg     TunaMHConfig
	d, n    int
	step    float64
	scale   []float64
	box     []model.Interval
	c, bigC float64

	theta, prop []float64
	lpCur       float64
	idx         []int
	llA, llB    []float64 // ℓ_i at θ and θ' for one chunk
	ready       bool
}

// TunaMHConfig configures TunaMH.
type TunaMHConfig struct {
	// Step is the random-walk proposal standard deviation per coordinate.
	Step float64 `json:"step"`
	// Scale optionally multiplies Step per coordinate; nil means all 1.
	Scale []float64 `json:"scale,omitempty"`
	// Lambda is the fixed part of λ (dp-fast-mh Algorithm 1).
	Lambda float64 `json:"lambda,omitempty"`
	// Chi adds χ·C²·M² to λ (original TunaMH).
	Chi float64 `json:"chi,omitempty"`
	// Box is the public region where the per-row bound holds; nil means R^d
	// (only for models whose RowBounds(nil).Lipschitz is finite).
	Box []model.Interval `json:"box,omitempty"`
}

// tunaChunk is the number of rows evaluated per LogLik call.
const tunaChunk = 256

// NewTunaMH returns a TunaMH kernel for m.
func NewTunaMH(m model.Model, cfg TunaMHConfig) (*TunaMH, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("tunamh", cfg.Step); err != nil {
		return nil, err
	}
	sc, err := checkScale(cfg.Scale, d)
	if err != nil {
		return nil, err
	}
	if !(cfg.Lambda >= 0) || !(cfg.Chi >= 0) || math.IsInf(cfg.Lambda, 1) || math.IsInf(cfg.Chi, 1) {
		return nil, fmt.Errorf("mcmc: tunamh lambda = %v and chi = %v must be finite and non-negative", cfg.Lambda, cfg.Chi)
	}
	if cfg.Lambda == 0 && cfg.Chi == 0 {
		return nil, fmt.Errorf("mcmc: tunamh needs lambda > 0 or chi > 0")
	}
	var box []model.Interval
	if cfg.Box != nil {
		if len(cfg.Box) != d {
			return nil, fmt.Errorf("mcmc: tunamh box has %d intervals, want %d", len(cfg.Box), d)
		}
		for j, iv := range cfg.Box {
			if !(iv.Lo < iv.Hi) {
				return nil, fmt.Errorf("mcmc: tunamh box[%d] = [%v, %v] is empty", j, iv.Lo, iv.Hi)
			}
		}
		box = append([]model.Interval(nil), cfg.Box...)
	}
	c := m.RowBounds(box).Lipschitz
	if !(c > 0) || math.IsInf(c, 1) {
		return nil, fmt.Errorf("mcmc: tunamh needs a finite positive per-row Lipschitz bound over the box; model %s gives %v", m.Name(), c)
	}
	return &TunaMH{
		m: m, cfg: cfg, d: d, n: n, step: cfg.Step, scale: sc, box: box,
		c: c, bigC: float64(n) * c,
		theta: make([]float64, d), prop: make([]float64, d),
		idx: make([]int, tunaChunk), llA: make([]float64, tunaChunk), llB: make([]float64, tunaChunk),
	}, nil
}

// Name implements Kernel.
func (k *TunaMH) Name() string { return "tunamh" }

// Position implements Kernel.
func (k *TunaMH) Position() []float64 { return k.theta }

// Bound is the per-row constant c and C = N·c.
func (k *TunaMH) Bound() (c, bigC float64) { return k.c, k.bigC }

// Init implements Kernel. theta0 must lie in the box.
func (k *TunaMH) Init(theta0 []float64) error {
	if err := checkTheta(theta0, k.d); err != nil {
		return err
	}
	if !k.inBox(theta0) {
		return fmt.Errorf("mcmc: tunamh initial position outside the box")
	}
	lp := k.m.LogPrior(theta0)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return errOutsideSupport
	}
	copy(k.theta, theta0)
	k.lpCur = lp
	k.ready = true
	return nil
}

func (k *TunaMH) inBox(theta []float64) bool {
	if k.box == nil {
		return true
	}
	for j, t := range theta {
		if !(t >= k.box[j].Lo && t <= k.box[j].Hi) {
			return false
		}
	}
	return true
}

// Step implements Kernel.
func (k *TunaMH) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	rwPropose(r.Public, k.theta, k.scale, k.step, k.prop)
	if !k.inBox(k.prop) {
		return Info{}
	}
	lp := k.m.LogPrior(k.prop)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return Info{}
	}
	c, bigC := k.c, k.bigC
	dist := math.Sqrt(sqDist(k.theta, k.prop)) // M(θ, θ')
	cm := bigC * dist
	lambda := k.cfg.Lambda + k.cfg.Chi*cm*cm
	B := poisson(r.Public, lambda+cm)

	// Batch(B) and MHRatio(I, 0), chunk by chunk.
	den := lambda*c + c*cm        // λc + cCM
	artDen := c * (2*lambda + cm) // c(2λ + CM)
	bound := c * dist
	logR := lp - k.lpCur
	clipped := 0
	for done := 0; done < B; {
		nb := min(B-done, tunaChunk)
		idx := k.idx[:nb]
		for b := range idx {
			idx[b] = r.Public.IntN(k.n)
		}
		k.m.LogLik(k.theta, idx, k.llA[:nb])
		k.m.LogLik(k.prop, idx, k.llB[:nb])
		for b := range idx {
			delta := k.llB[b] - k.llA[b] // ℓ_i(θ') − ℓ_i(θ) = U_i(θ) − U_i(θ')
			if delta > bound {
				delta, clipped = bound, clipped+1
			} else if delta < -bound {
				delta, clipped = -bound, clipped+1
			} else if delta != delta {
				delta, clipped = -bound, clipped+1
			}
			// P(add i_b) = [λc + (C/2)(U_i(θ') − U_i(θ) + cM)] / [λc + cCM]
			if r.Noise.Float64()*den < lambda*c+bigC/2*(bound-delta) {
				x := bigC * delta / artDen
				logR += math.Log1p(2 * x / (1 - x)) // 2·artanh(x)
			}
		}
		done += nb
	}
	info := Info{AcceptProb: acceptProbMH(logR), Rows: 2 * B, Clipped: clipped}
	if logUniform(r.Noise) < logR {
		k.theta, k.prop = k.prop, k.theta
		k.lpCur = lp
		info.Accepted = true
	}
	return info
}
