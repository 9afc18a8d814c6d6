package mcmc

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// DPPenalty is the DP penalty algorithm of Yıldırım & Ermiş (2019), as
// stated in dp-mcmc-thesis-penalty-mala.txt §3.1 (Theorems 6–7) and
// dp-hmc.txt §3 (first display): random-walk MH whose log acceptance ratio
// is released through a Gaussian mechanism and corrected by the penalty
// method of Ceperley & Dewing (1999).
//
//	propose θ' = θ + step·s⊙z, z ~ N(0, I)                           (public stream)
//	    OCU: change one coordinate j ~ U{1..d} only: θ'_j = θ_j + step·s_j·z
//	    GRW: θ'_j = θ_j + dir_j·step·s_j·|z|; dir_j flips on rejection  (YE19, §3.1)
//	c  = r·‖θ' − θ‖₂                                                   (clip bound)
//	S  = Σ_i clip_c(ℓ_i(θ') − ℓ_i(θ))                                  (exact sum, dpnoise.go)
//	σ  = τ·√n·Δ,  Δ = 2c (replace-one) or c (add/remove)               (σ_l of dp-hmc.txt §3)
//	λ̂  = snap(S + ξ),  ξ ~ N(0, σ²)                                    (private stream; grid 2^−k·σ)
//	accept with probability min{1, exp(λ̂ + log p(θ') − log p(θ) − σ²/2)}  (uniform: private stream)
//
// The released statistic λ̂ has sensitivity Δ and noise std τ√n·Δ, so every
// iteration is a Gaussian mechanism with μ = 1/(τ√n) for either relation
// (Theorem 7's proof: release λ/c, whose sensitivity is constant), plus the
// grid inflation 2^−k. The per-row log-likelihoods ℓ_i(θ) are cached, so an
// iteration evaluates the data once, at θ'. A proposal outside the prior's
// support or the optional public Box is rejected without touching the data.
//
// Exactness: with nothing clipped, the penalty acceptance keeps the
// posterior invariant (Ceperley & Dewing; the thesis eq. before Thm 6),
// because σ(θ, θ') is symmetric; the grid moves λ̂ by at most σ·2^−(k+1).
// Clipping (|ℓ_i(θ') − ℓ_i(θ)| > c) changes the target; Info.Clipped counts
// the clipped rows (a local diagnostic, never to be released).
//
// With Adapt set, the step is tuned during warmup by dual averaging on the
// released accept bit only (μ does not depend on the step).
type DPPenalty struct {
	m     model.Model
	cfg   DPPenaltyConfig
	d, n  int
	nPub  int
	rel   privacy.Relation
	step  float64
	scale []float64
	box   []model.Interval
	bits  int
	cl    clipper
	sqrtN float64

	theta, prop   []float64
	llCur, llProp []float64
	lpCur         float64
	dir           []float64 // GRW directions ±1
	ready         bool
	ad            dpAdapt
	metric        *dpMetric
	variance      []float64 // scale², the metric dpMetric adapts

	// noiseScale multiplies the noise std (1; tests set 0.5 for a
	// deliberately broken variant in the privacy audit).
	noiseScale float64
}

// DPPenaltyConfig configures DP penalty.
type DPPenaltyConfig struct {
	// Step is the proposal standard deviation per coordinate.
	Step float64 `json:"step"`
	// Scale optionally multiplies Step per coordinate (public).
	Scale []float64 `json:"scale,omitempty"`
	// Clip is r: per-row log-likelihood ratios are clipped to ±r·‖θ'−θ‖₂.
	Clip float64 `json:"clip"`
	// Tau is τ: noise std τ·√n·(sensitivity); μ = 1/(τ√n) per iteration.
	Tau float64 `json:"tau"`
	// N is the public number of rows (0: the model's N()).
	N int `json:"n,omitempty"`
	// Relation is the neighbouring relation: "replace" (default) or
	// "add-remove".
	Relation string `json:"relation,omitempty"`
	// OCU proposes a change in one randomly chosen coordinate per iteration.
	OCU bool `json:"ocu,omitempty"`
	// GRW is the guided random walk (implies OCU).
	GRW bool `json:"grw,omitempty"`
	// Adapt tunes Step during warmup from the accept bits.
	Adapt bool `json:"adapt,omitempty"`
	// AdaptMetric also adapts Scale during warmup, per coordinate, from the
	// chain's own states (dpMetric; needs Adapt and no Scale given).
	AdaptMetric bool `json:"adapt_metric,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.3).
	TargetAccept float64 `json:"target_accept,omitempty"`
	// Box optionally restricts the chain to a public box.
	Box []model.Interval `json:"box,omitempty"`
	// GridBits is k of the release grid 2^(⌊log₂σ⌋−k) (default 24).
	GridBits int `json:"grid_bits,omitempty"`

	// NoiseOff disables the privacy noise and the grid (tests only: the
	// kernel is then MH on the clipped log-likelihood ratios).
	NoiseOff bool `json:"-"`
}

// NewDPPenalty returns a DP penalty kernel for m.
func NewDPPenalty(m model.Model, cfg DPPenaltyConfig) (*DPPenalty, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("dp-penalty", cfg.Step); err != nil {
		return nil, err
	}
	sc, err := checkScale(cfg.Scale, d)
	if err != nil {
		return nil, err
	}
	if err := checkPositive("dp-penalty clip", cfg.Clip); err != nil {
		return nil, err
	}
	if err := checkPositive("dp-penalty tau", cfg.Tau); err != nil {
		return nil, err
	}
	rel, err := parseRelation(cfg.Relation)
	if err != nil {
		return nil, err
	}
	nPub, err := publicN(cfg.N, n)
	if err != nil {
		return nil, err
	}
	box, err := checkBoxCfg(cfg.Box, d)
	if err != nil {
		return nil, err
	}
	bits, err := gridBits(cfg.GridBits)
	if err != nil {
		return nil, err
	}
	if cfg.GRW {
		cfg.OCU = true
	}
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.3
	}
	ad, err := newDPAdapt(cfg.Adapt, cfg.Step, cfg.TargetAccept, 0)
	if err != nil {
		return nil, err
	}
	k := &DPPenalty{
		m: m, cfg: cfg, d: d, n: n, nPub: nPub, rel: rel, step: cfg.Step, scale: sc,
		box: box, bits: bits, cl: newClipper(n, 1), sqrtN: math.Sqrt(float64(nPub)),
		theta: make([]float64, d), prop: make([]float64, d),
		llCur: make([]float64, n), llProp: make([]float64, n),
		dir: make([]float64, d), ad: ad, noiseScale: 1,
		metric: newDPMetric(cfg.AdaptMetric && cfg.Adapt && cfg.Scale == nil, d),
	}
	if k.metric != nil {
		k.variance = make([]float64, d)
		for j, v := range sc {
			k.variance[j] = v * v
		}
	}
	return k, nil
}

// Name implements Kernel.
func (k *DPPenalty) Name() string { return "dp-penalty" }

// Position implements Kernel.
func (k *DPPenalty) Position() []float64 { return k.theta }

// StepSize is the current proposal standard deviation (before Scale).
func (k *DPPenalty) StepSize() float64 { return k.step }

// Init implements Kernel. GRW directions are drawn at the first Step.
func (k *DPPenalty) Init(theta0 []float64) error {
	lp, err := initPosition(k.m, theta0, k.theta, k.box)
	if err != nil {
		return err
	}
	k.lpCur = lp
	if !finite(logLikAll(k.m, k.theta, k.llCur)) {
		return errBadLogLik
	}
	clear(k.dir)
	k.ready = true
	return nil
}

// noiseStd is σ = τ√n·Δ for clip bound c.
func (k *DPPenalty) noiseStd(c float64) float64 {
	if k.cfg.NoiseOff {
		return 0
	}
	return k.noiseScale * k.cfg.Tau * k.sqrtN * k.rel.SensitivityFactor() * c
}

// Step implements Kernel.
func (k *DPPenalty) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	j := -1
	if k.cfg.OCU {
		copy(k.prop, k.theta)
		j = r.Public.IntN(k.d)
		z := r.Public.NormFloat64()
		if k.cfg.GRW {
			if k.dir[j] == 0 { // first use: a public random direction
				k.dir[j] = float64(2*r.Public.IntN(2) - 1)
			}
			z = k.dir[j] * math.Abs(z)
		}
		k.prop[j] += k.step * k.scale[j] * z
	} else {
		rwPropose(r.Public, k.theta, k.scale, k.step, k.prop)
	}
	lp := k.m.LogPrior(k.prop)
	if math.IsInf(lp, -1) || math.IsNaN(lp) || !inBox(k.prop, k.box) {
		k.reject(j)
		return Info{}
	}
	c := k.cfg.Clip * math.Sqrt(sqDist(k.prop, k.theta))
	if !(c > 0) { // θ' = θ: nothing to decide, nothing released
		return Info{Accepted: true, AcceptProb: 1}
	}
	k.m.LogLik(k.prop, nil, k.llProp)
	s, clipped := k.cl.sumDiff(k.llProp, k.llCur, c)
	sigma := k.noiseStd(c)
	lam := noisyScalar(r.Noise, s, sigma, k.bits)
	logA := lam + lp - k.lpCur - sigma*sigma/2
	info := Info{AcceptProb: acceptProbMH(logA), Clipped: clipped, Rows: k.n, Divergent: logA != logA}
	if logUniform(r.Noise) < logA {
		k.theta, k.prop = k.prop, k.theta
		k.llCur, k.llProp = k.llProp, k.llCur
		k.lpCur = lp
		info.Accepted = true
	} else {
		k.reject(j)
	}
	return info
}

func (k *DPPenalty) reject(j int) {
	if k.cfg.GRW && j >= 0 {
		k.dir[j] = -k.dir[j]
	}
}

// Adapt implements Adaptive: the step from the accept bit, the per-coordinate
// scale from the chain's states (AdaptMetric).
func (k *DPPenalty) Adapt(it int, info Info) {
	var changed bool
	if k.step, changed = k.ad.updateWithMetric(k.step, info.Accepted, k.metric, k.theta, k.variance); changed {
		sqrtInto(k.scale, k.variance)
	}
}

// PlanWarmup implements WarmupPlanner (the metric's windows).
func (k *DPPenalty) PlanWarmup(warmup int) { k.metric.plan(warmup) }

// Scale is the current per-coordinate proposal scale (a copy).
func (k *DPPenalty) Scale() []float64 { return append([]float64(nil), k.scale...) }

// EndWarmup implements Adaptive.
func (k *DPPenalty) EndWarmup() { k.step = k.ad.final(k.step) }

// PrivacyParams returns the cost of one iteration: one Gaussian release of
// the clipped log-likelihood ratio with μ = 1/(τ√n) + 2^−k (grid).
func (k *DPPenalty) PrivacyParams() PrivacyCost {
	c, _ := k.cfg.Cost(k.nPub, k.d) // validated by NewDPPenalty
	return c
}

// AccountParams returns the arguments of privacy.PenaltyAccount /
// PlanPenaltyIterations for this kernel: the public n and an effective τ
// with 1/(τ_eff√n) = μ of PrivacyParams (the grid-inflated μ), so
// PenaltyAccount(n, τ_eff, iters, δ) is the kernel's exact tight-Gaussian
// cost. μ is the same for both relations (see the type's doc).
func (k *DPPenalty) AccountParams() (n int, tau float64) {
	mu := k.PrivacyParams().Gaussian[0].Mu
	return k.nPub, 1 / (mu * k.sqrtN)
}
