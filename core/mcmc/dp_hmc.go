package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// DPHMC is DP Hamiltonian Monte Carlo (Räisä et al., dp-hmc.txt Algorithm 1,
// Theorems 3.3–3.5): HMC whose leapfrog uses clipped, noisy gradients and
// whose acceptance test is the DP penalty test of the Hamiltonian.
//
//	p ~ N(0, M)                                                      (public stream)
//	η = Step·u, u ∈ [0, 1) from a randomised Halton sequence            (public; §3 before Thm 3.5)
//	ĝ(θ) = snap(Σ_i clip_G(∇ℓ_i(θ)) + ξ) + ∇log p(θ),  ξ ~ N(0, σ_g²I)  (fresh ξ at every evaluation)
//	σ_g = τ_g·√n·Δ_g,  Δ_g = 2G (replace-one) or G (add/remove)
//	leapfrog, L times:  p ← p + (η/2)ĝ(θ);  θ ← θ + ηM⁻¹p;  p ← p + (η/2)ĝ(θ)
//	                    (L+1 gradient releases: θ_0, θ_1, …, θ_L)
//	c  = b_l·‖θ' − θ‖₂,  S = Σ_i clip_c(ℓ_i(θ') − ℓ_i(θ))                (exact sum, dpnoise.go)
//	σ_l = τ_l·√n·Δ_l,  Δ_l = 2c (replace-one) or c (add/remove)
//	λ̂ = snap(S + ζ),  ζ ~ N(0, σ_l²)                                    (private stream)
//	accept with probability min{1, exp(λ̂ + log p(θ') − log p(θ) + ½pᵀM⁻¹p − ½p'ᵀM⁻¹p' − σ_l²/2)}
//
// The noise of each gradient release is drawn afresh: the noisy gradient of
// one iteration is never reused in the next (the paper, after Thm 3.5: doing
// so would make the chain depend on old noise and possibly not Markov). The
// noiseless clipped gradient sum at the current θ is a deterministic function
// of (X, θ) and is cached, so an iteration evaluates L gradient passes and
// one log-likelihood pass (Info.Rows = (L+1)·n); ℓ_i(θ) is cached per row.
//
// Privacy (Thm 3.5 with the √n scaling of the paper's code and of
// privacy.HMCStepMu): per iteration one log-likelihood-ratio release with
// μ_l = 1/(τ_l√n) and L+1 gradient releases with μ_g = 1/(τ_g√n) each, plus
// the grid inflation (2^−k and √d·2^−k).
//
// Invariance (Thm 3.3): with no log-likelihood ratio clipped the target is
// invariant, whatever the gradient clipping and noise. A trajectory that
// leaves the prior's support or the public Box, or whose Hamiltonian error
// exceeds MaxEnergyError, is rejected and marked Divergent.
//
// Info.Clipped counts the clipped per-row gradients (L passes) plus the
// clipped log-likelihood ratios (local diagnostics, never to be released).
//
// With Adapt set, η is tuned during warmup by dual averaging on the released
// accept bit (μ does not depend on η).
type DPHMC struct {
	m      model.Model
	cfg    DPHMCConfig
	d, n   int
	nPub   int
	rel    privacy.Relation
	step   float64
	jitter StepJitter
	box    []model.Interval
	bits   int
	cl     clipper
	gs     gradSum
	sqrtN  float64

	invM, sqrtM    []float64
	metric         *dpMetric
	theta, thNew   []float64
	gCur, gNew     []float64 // clipped gradient sums (noiseless) at θ and at the trajectory's point
	gNoisy, gPrior []float64 // scratch
	p              []float64
	llCur, llProp  []float64
	lpCur          float64
	ready          bool
	ad             dpAdapt
	noiseScale     float64 // 1 (tests only)
}

// DPHMCConfig configures DP-HMC.
type DPHMCConfig struct {
	// Step is the leapfrog step η.
	Step float64 `json:"step"`
	// Leapfrog is the number of leapfrog steps L.
	Leapfrog int `json:"leapfrog"`
	// Jitter randomises η per iteration. The default, kind "halton-unit",
	// is the paper's: η·u with u a randomised base-2 Halton point in [0, 1)
	// (dp-hmc.txt §3 after Hoffman et al.; the reference code's
	// halton_sequence), so the mean step is η/2. The kinds of JitterConfig
	// ("none", "uniform", "halton" with factor 1 ± Width) are accepted too.
	Jitter JitterConfig `json:"jitter,omitempty"`
	// InvMetric is the diagonal of M⁻¹ (public); nil means identity.
	InvMetric []float64 `json:"inv_metric,omitempty"`
	// Clip is b_l: per-row log-likelihood ratios are clipped to ±b_l‖θ'−θ‖₂.
	Clip float64 `json:"clip"`
	// GradClip is b_g = G: per-row gradients are clipped to L2 norm G.
	GradClip float64 `json:"grad_clip"`
	// Tau is τ_l (log-likelihood ratio noise std τ_l√n·Δ_l).
	Tau float64 `json:"tau"`
	// TauGrad is τ_g (gradient noise std τ_g√n·Δ_g).
	TauGrad float64 `json:"tau_grad"`
	// N is the public number of rows (0: the model's N()).
	N int `json:"n,omitempty"`
	// Relation: "replace" (default) or "add-remove".
	Relation string `json:"relation,omitempty"`
	// Adapt tunes Step during warmup from the accept bits.
	Adapt bool `json:"adapt,omitempty"`
	// AdaptMetric also adapts InvMetric during warmup from the chain's own
	// states (dpMetric; needs Adapt and no InvMetric given).
	AdaptMetric bool `json:"adapt_metric,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.65).
	TargetAccept float64 `json:"target_accept,omitempty"`
	// MaxEnergyError marks a trajectory divergent (default 1000).
	MaxEnergyError float64 `json:"max_energy_error,omitempty"`
	// Box optionally restricts the chain to a public box.
	Box []model.Interval `json:"box,omitempty"`
	// GridBits is k of the release grid (default 24).
	GridBits int `json:"grid_bits,omitempty"`

	// NoiseOff disables the privacy noise and the grid (tests only: the
	// kernel is then HMC with clipped gradients and clipped ratios).
	NoiseOff bool `json:"-"`
}

// NewDPHMC returns a DP-HMC kernel for m.
func NewDPHMC(m model.Model, cfg DPHMCConfig) (*DPHMC, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("dp-hmc", cfg.Step); err != nil {
		return nil, err
	}
	if cfg.Leapfrog < 1 {
		return nil, fmt.Errorf("mcmc: dp-hmc leapfrog = %d must be at least 1", cfg.Leapfrog)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"clip", cfg.Clip}, {"grad_clip", cfg.GradClip}, {"tau", cfg.Tau}, {"tau_grad", cfg.TauGrad}} {
		if err := checkPositive("dp-hmc "+v.name, v.x); err != nil {
			return nil, err
		}
	}
	invM, err := checkScale(cfg.InvMetric, d)
	if err != nil {
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
	var jit StepJitter
	if cfg.Jitter.Kind == "" || cfg.Jitter.Kind == "halton-unit" {
		cfg.Jitter.Kind = "halton-unit"
		jit = &unitHaltonJitter{HaltonJitter{Width: 1}}
	} else if jit, err = NewJitter(cfg.Jitter); err != nil {
		return nil, err
	}
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.65
	}
	if cfg.MaxEnergyError == 0 {
		cfg.MaxEnergyError = 1000
	}
	if !(cfg.MaxEnergyError > 0) {
		return nil, fmt.Errorf("mcmc: dp-hmc max_energy_error = %v must be positive", cfg.MaxEnergyError)
	}
	ad, err := newDPAdapt(cfg.Adapt, cfg.Step, cfg.TargetAccept, 0)
	if err != nil {
		return nil, err
	}
	k := &DPHMC{
		m: m, cfg: cfg, d: d, n: n, nPub: nPub, rel: rel, step: cfg.Step, jitter: jit,
		box: box, bits: bits, cl: newClipper(n, 1), gs: newGradSum(n, d, cfg.GradClip),
		sqrtN: math.Sqrt(float64(nPub)),
		invM:  invM, sqrtM: make([]float64, d),
		theta: make([]float64, d), thNew: make([]float64, d),
		gCur: make([]float64, d), gNew: make([]float64, d),
		gNoisy: make([]float64, d), gPrior: make([]float64, d), p: make([]float64, d),
		llCur: make([]float64, n), llProp: make([]float64, n),
		ad: ad, noiseScale: 1,
		metric: newDPMetric(cfg.AdaptMetric && cfg.Adapt && cfg.InvMetric == nil, d),
	}
	k.setMetric()
	return k, nil
}

// unitHaltonJitter is the DP-HMC paper's jitter: factor u ∈ [0, 1), the
// randomised Halton point of HaltonJitter (whose factor with Width 1 is 2u).
type unitHaltonJitter struct{ h HaltonJitter }

// Factor implements StepJitter.
func (j *unitHaltonJitter) Factor(r *rand.Rand) float64 { return j.h.Factor(r) / 2 }

// SetJitter replaces the step-size jitter (public randomness only).
func (k *DPHMC) SetJitter(j StepJitter) { k.jitter = j }

// Name implements Kernel.
func (k *DPHMC) Name() string { return "dp-hmc" }

// Position implements Kernel.
func (k *DPHMC) Position() []float64 { return k.theta }

// StepSize is the current (unjittered) leapfrog step η.
func (k *DPHMC) StepSize() float64 { return k.step }

// Init implements Kernel.
func (k *DPHMC) Init(theta0 []float64) error {
	lp, err := initPosition(k.m, theta0, k.theta, k.box)
	if err != nil {
		return err
	}
	k.lpCur = lp
	if !finite(logLikAll(k.m, k.theta, k.llCur)) {
		return errBadLogLik
	}
	k.gs.eval(k.m, k.theta, k.gCur)
	k.ready = true
	return nil
}

// noisyGrad writes ĝ(θ) = snap(g + ξ) + ∇log p(θ) into k.gNoisy for the
// noiseless clipped sum g at θ.
func (k *DPHMC) noisyGrad(r rng.Streams, theta, g []float64) {
	copy(k.gNoisy, g)
	std := 0.0
	if !k.cfg.NoiseOff {
		std = k.noiseScale * k.cfg.TauGrad * k.sqrtN * k.rel.SensitivityFactor() * k.cfg.GradClip
	}
	addNoise(r.Noise, k.gNoisy, std, k.bits)
	k.m.GradLogPrior(theta, k.gPrior)
	for j := range k.gNoisy {
		k.gNoisy[j] += k.gPrior[j]
	}
}

// Step implements Kernel.
func (k *DPHMC) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	eta := k.step * k.jitter.Factor(r.Public)
	kin0 := 0.0
	for j := range k.p {
		pj := k.sqrtM[j] * r.Public.NormFloat64()
		k.p[j] = pj
		kin0 += k.invM[j] * pj * pj
	}
	copy(k.thNew, k.theta)
	k.noisyGrad(r, k.theta, k.gCur) // release 1 of L+1
	info := Info{}
	L := k.cfg.Leapfrog
	for l := 0; l < L; l++ {
		for j := range k.p {
			k.p[j] += eta / 2 * k.gNoisy[j]
			k.thNew[j] += eta * k.invM[j] * k.p[j]
		}
		if lp := k.m.LogPrior(k.thNew); math.IsInf(lp, -1) || math.IsNaN(lp) || !inBox(k.thNew, k.box) {
			info.Divergent = true
			return info
		}
		info.Clipped += k.gs.eval(k.m, k.thNew, k.gNew)
		info.Rows += k.n
		k.noisyGrad(r, k.thNew, k.gNew) // releases 2 … L+1
		for j := range k.p {
			k.p[j] += eta / 2 * k.gNoisy[j]
		}
	}
	lp := k.m.LogPrior(k.thNew)
	kin1 := 0.0
	for j, pj := range k.p {
		kin1 += k.invM[j] * pj * pj
	}
	c := k.cfg.Clip * math.Sqrt(sqDist(k.thNew, k.theta))
	if !(c > 0) || !finite(kin1) {
		info.Divergent = !finite(kin1)
		return info
	}
	k.m.LogLik(k.thNew, nil, k.llProp)
	info.Rows += k.n
	s, clipped := k.cl.sumDiff(k.llProp, k.llCur, c)
	info.Clipped += clipped
	sigma := 0.0
	if !k.cfg.NoiseOff {
		sigma = k.noiseScale * k.cfg.Tau * k.sqrtN * k.rel.SensitivityFactor() * c
	}
	lam := noisyScalar(r.Noise, s, sigma, k.bits)
	logA := lam + lp - k.lpCur + kin0/2 - kin1/2 - sigma*sigma/2
	if logA != logA || -logA > k.cfg.MaxEnergyError {
		info.Divergent = true
		// still draw nothing more: the decision is a rejection
		return info
	}
	info.AcceptProb = acceptProbMH(logA)
	if logUniform(r.Noise) < logA {
		k.theta, k.thNew = k.thNew, k.theta
		k.gCur, k.gNew = k.gNew, k.gCur
		k.llCur, k.llProp = k.llProp, k.llCur
		k.lpCur = lp
		info.Accepted = true
	}
	return info
}

// setMetric derives the momentum scale from invM.
func (k *DPHMC) setMetric() {
	for j, v := range k.invM {
		k.sqrtM[j] = 1 / math.Sqrt(v)
	}
}

// Adapt implements Adaptive: the step from the accept bit, the diagonal
// metric from the chain's states (AdaptMetric).
func (k *DPHMC) Adapt(it int, info Info) {
	var changed bool
	if k.step, changed = k.ad.updateWithMetric(k.step, info.Accepted, k.metric, k.theta, k.invM); changed {
		k.setMetric()
	}
}

// PlanWarmup implements WarmupPlanner (the metric's windows).
func (k *DPHMC) PlanWarmup(warmup int) { k.metric.plan(warmup) }

// InvMetricNow is the current diagonal of M⁻¹ (a copy).
func (k *DPHMC) InvMetricNow() []float64 { return append([]float64(nil), k.invM...) }

// EndWarmup implements Adaptive.
func (k *DPHMC) EndWarmup() { k.step = k.ad.final(k.step) }

// PrivacyParams returns the cost of one iteration: L+1 gradient releases
// with μ_g = 1/(τ_g√n) + √d·2^−k and one log-likelihood-ratio release with
// μ_l = 1/(τ_l√n) + 2^−k.
func (k *DPHMC) PrivacyParams() PrivacyCost {
	c, _ := k.cfg.Cost(k.nPub, k.d) // validated by NewDPHMC
	return c
}

// AccountParams returns the arguments of privacy.HMCAccount /
// PlanHMCIterations: n, effective τ_l and τ_g whose μ's are the
// grid-inflated ones of PrivacyParams, and L.
func (k *DPHMC) AccountParams() (n int, tauL, tauG float64, L int) {
	g := k.PrivacyParams().Gaussian
	return k.nPub, 1 / (g[0].Mu * k.sqrtN), 1 / (g[1].Mu * k.sqrtN), k.cfg.Leapfrog
}
