package mcmc

import (
	"fmt"
	"math"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// DPSGLD is differentially private stochastic-gradient MCMC with "privacy
// for free" (Wang, Fienberg & Smola 2015, privacy-for-free-ops-sgld.txt
// §4.1, Algorithm 2, and §4.2, eqs. (4)–(5); Li et al. 2019): the Langevin
// noise that the sampler injects anyway is the Gaussian mechanism applied
// to the clipped minibatch gradient sum.
//
// SGLD (Method "sgld", fixed step h):
//
//	S ⊂ {1…n}: fixed size b without replacement, or Poisson with q = b/n   (noise stream: secret)
//	g  = Σ_{i∈S} clip_G(∇ℓ_i(θ))                        (per-example L2 clipping, exact sum)
//	ĝ  = snap(g + N(0, σ_g² I)),  σ_g = 2b/(n√h)        (noise stream)
//	θ' = θ + (h/2)·(∇log p(θ) + (n/b)·ĝ)
//
// so θ' = θ + (h/2)∇̂log π(θ) + N(0, h I): the Euler–Maruyama (ULA) step
// of the Langevin diffusion whose stationary law is π (drift (h/2)∇,
// noise variance h). The reference codes' θ + η∇ + N(0, η) is the same
// scheme for π² (drift η∇ = (2η/2)∇ with noise η instead of 2η) and is
// not used. The bias of the fixed step is O(h) (for a Gaussian target of
// precision λ the stationary variance is 1/(λ(1 − hλ/4)) with full
// batches; minibatch gradient noise adds more).
//
// SGHMC (Method "sghmc", eq. (4) with b̂ = 0, learning rate η = Step,
// friction a = Friction):
//
//	v ← (1 − a)·v + η·(∇log p(θ) + (n/b)·ĝ),  θ ← θ + v,  σ_g = √(2a/η)·b/n
//
// SGNHT (Method "sgnht", eq. (5)): as SGHMC with friction α (initially a)
// and the thermostat α ← α + (vᵀv/d − η) after each step. The injected
// noise η(n/b)σ_g equals the scheme's N(0, 2aη).
//
// Privacy: every step releases ĝ, a Gaussian mechanism on a subsampled
// sum of per-row terms bounded by G in L2, with noise multiplier
// z = σ_g/G (std ÷ per-record bound; core/privacy applies the replace-one
// factor 2 itself, so z must not include it). The grid inflates the
// per-record bound by √d·σ_g·2^−k: z_eff = 1/(1/z + √d·2^−k). If
// NoiseMultiplier asks for more noise than the dynamics provide, σ_g is
// raised to NoiseMultiplier·G: the chain then samples a hotter target
// (SGLD, SGHMC: noise variance on θ is (σ_g/σ_g,free)² times too large);
// SGNHT's thermostat absorbs extra gradient noise and stays close to π.
// The accountant must match the sampling: privacy.SGLDAccount(z_eff, q,
// sampling, relation, steps, δ) — PLD (tightest) or RDP, Poisson or
// fixed-size without replacement (replace-one only).
type DPSGLD struct {
	m      model.Model
	cfg    DPSGLDConfig
	method int
	d, n   int
	nPub   int
	b      int
	q      float64
	samp   privacy.Sampling
	rel    privacy.Relation
	bits   int
	sigmaG float64
	scaleN float64 // n/b

	theta, v    []float64
	grad, prior []float64
	alpha       float64
	batch       batchSampler
	pbuf        []int
	gs          gradSum
	ready       bool

	// brokenPi2 (tests only): θ' = θ + h∇̂ + N(0, h), the reference codes'
	// scheme that targets π².
	brokenPi2 bool
}

const (
	methodSGLD = iota
	methodSGHMC
	methodSGNHT
)

// DPSGLDConfig configures DP-SGLD / DP-SGHMC / DP-SGNHT. JSON names follow
// the command line (--step, --grad-clip, --batch, --sampling).
type DPSGLDConfig struct {
	// Method is "sgld" (default), "sghmc" or "sgnht".
	Method string `json:"method,omitempty"`
	// Step is h (SGLD: drift (h/2)∇, noise N(0, h)) or the learning rate η
	// (SGHMC, SGNHT). Fixed.
	Step float64 `json:"step"`
	// Friction is a for SGHMC/SGNHT (default 0.1).
	Friction float64 `json:"friction,omitempty"`
	// Batch is b: the fixed batch size, or the expected one (q = b/n) for
	// Poisson sampling.
	Batch int `json:"batch"`
	// Sampling is "without-replacement" (default) or "poisson".
	Sampling string `json:"sampling,omitempty"`
	// GradClip is G, the per-example L2 clip of ∇ℓ_i.
	GradClip float64 `json:"grad_clip"`
	// NoiseMultiplier optionally raises the gradient noise to
	// NoiseMultiplier·G when the dynamics' own noise is smaller (0: privacy
	// for free only).
	NoiseMultiplier float64 `json:"noise_multiplier,omitempty"`
	// N is the public number of rows (0: the model's N()).
	N int `json:"n,omitempty"`
	// Relation is "replace" (default) or "add-remove" (Poisson only).
	Relation string `json:"relation,omitempty"`
	// GridBits is k of the release grid (default 24).
	GridBits int `json:"grid_bits,omitempty"`
}

func parseMethod(s string) (int, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "sgld", "dp-sgld":
		return methodSGLD, nil
	case "sghmc", "dp-sghmc":
		return methodSGHMC, nil
	case "sgnht", "dp-sgnht":
		return methodSGNHT, nil
	}
	return 0, fmt.Errorf("mcmc: unknown stochastic-gradient method %q (want sgld, sghmc or sgnht)", s)
}

// noise returns the gradient-noise std σ_g for public n, and the noise
// multiplier z_eff the accountant must use.
func (c DPSGLDConfig) noise(n, d int) (sigmaG, zEff float64, s privacy.Sampling, rel privacy.Relation, bits int, err error) {
	method, err := parseMethod(c.Method)
	if err != nil {
		return
	}
	if err = checkStep("dp-sgld", c.Step); err != nil {
		return
	}
	if err = checkPositive("dp-sgld grad_clip", c.GradClip); err != nil {
		return
	}
	if c.Batch < 1 || c.Batch > n {
		err = fmt.Errorf("mcmc: dp-sgld batch = %d must be in [1, n = %d] (dp-sgld, dp-sgnht, dp-sghmc and hybrid share this check; --batch sets it)", c.Batch, n)
		return
	}
	if s, err = parseSampling(c.Sampling); err != nil {
		return
	}
	if rel, err = parseRelation(c.Relation); err != nil {
		return
	}
	if s == privacy.WithoutReplacement && rel != privacy.Replace {
		err = fmt.Errorf("mcmc: fixed-size batches without replacement are accounted for replace-one only")
		return
	}
	if bits, err = gridBits(c.GridBits); err != nil {
		return
	}
	if !(c.NoiseMultiplier >= 0) || math.IsInf(c.NoiseMultiplier, 1) {
		err = fmt.Errorf("mcmc: dp-sgld noise_multiplier = %v must be finite and ≥ 0", c.NoiseMultiplier)
		return
	}
	bn := float64(c.Batch) / float64(n) // b/n
	switch method {
	case methodSGLD:
		sigmaG = 2 * bn / math.Sqrt(c.Step) // √h / ((h/2)(n/b))
	default:
		a := c.Friction
		if a == 0 {
			a = 0.1
		}
		if !(a > 0 && a < 1) {
			err = fmt.Errorf("mcmc: dp-sgld friction = %v must be in (0, 1)", a)
			return
		}
		sigmaG = math.Sqrt(2*a/c.Step) * bn // √(2aη) / (η(n/b))
	}
	sigmaG = math.Max(sigmaG, c.NoiseMultiplier*c.GradClip)
	z := sigmaG / c.GradClip
	zEff = 1 / (1/z + GridInflation(d, bits))
	return
}

// checkThermostat refuses an SGNHT setting whose injected noise the
// thermostat cannot absorb. The momentum receives s·N(0, I) per step with
// s = η·(n/b)·σ_g; with friction α the stationary variance of
// v ← (1 − α)v + s·N(0, 1) is s²/(α(2 − α)) ≥ s², while the thermostat
// α ← α + (vᵀv/d − η) drives vᵀv/d to η. If s² > η, α grows past 2,
// v ← (1 − α)v amplifies v and the chain diverges (NaN draws), so the run
// would spend its budget for nothing. Privacy for free has s² = 2aη (fine
// for a ≤ ½); a raised noise multiplier needs η ≤ (b/(n·σ_g))².
func checkThermostat(cfg DPSGLDConfig, n int, sigmaG float64) error {
	s := cfg.Step * (float64(n) / float64(cfg.Batch)) * sigmaG
	if s*s <= cfg.Step*(1+1e-6) {
		return nil // s² = η (a = ½) is the boundary: α drifts up only through the gradient's share
	}
	if free := math.Sqrt(2*cfg.Friction/cfg.Step) * (float64(cfg.Batch) / float64(n)); free >= sigmaG*(1-1e-9) {
		return fmt.Errorf("mcmc: dp-sgnht friction = %v: the injected noise variance 2aη exceeds η, so the thermostat cannot absorb it and the chain diverges; use a friction of at most 0.5", cfg.Friction)
	}
	limit := math.Pow(float64(cfg.Batch)/(float64(n)*sigmaG), 2)
	return fmt.Errorf("mcmc: dp-sgnht step = %g: the injected privacy noise has variance (η·(n/b)·σ_g)² = %.3g per step, above η, so the thermostat cannot absorb it and the chain diverges; use a step below %.3g (= (b/(n·σ_g))², σ_g = %.3g), or leave it unset for the default matched to the noise", cfg.Step, s*s, limit, sigmaG)
}

// NewDPSGLD returns a DP-SGLD/SGHMC/SGNHT kernel for m.
func NewDPSGLD(m model.Model, cfg DPSGLDConfig) (*DPSGLD, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	nPub, err := publicN(cfg.N, n)
	if err != nil {
		return nil, err
	}
	if nPub != n {
		return nil, fmt.Errorf("mcmc: dp-sgld: public n = %d differs from the model's %d rows", nPub, n)
	}
	method, err := parseMethod(cfg.Method)
	if err != nil {
		return nil, err
	}
	sigmaG, _, s, rel, bits, err := cfg.noise(n, d)
	if err != nil {
		return nil, err
	}
	if cfg.Friction == 0 {
		cfg.Friction = 0.1
	}
	if method == methodSGNHT {
		if err := checkThermostat(cfg, n, sigmaG); err != nil {
			return nil, err
		}
	}
	k := &DPSGLD{
		m: m, cfg: cfg, method: method, d: d, n: n, nPub: nPub, b: cfg.Batch,
		q: float64(cfg.Batch) / float64(nPub), samp: s, rel: rel, bits: bits,
		sigmaG: sigmaG, scaleN: float64(nPub) / float64(cfg.Batch),
		theta: make([]float64, d), v: make([]float64, d), grad: make([]float64, d), prior: make([]float64, d),
		gs: newGradSum(n, d, cfg.GradClip),
	}
	if s == privacy.WithoutReplacement {
		k.batch = newBatchSampler(n, k.b)
	} else {
		k.pbuf = make([]int, 0, n)
	}
	return k, nil
}

// Name implements Kernel.
func (k *DPSGLD) Name() string {
	return [...]string{"dp-sgld", "dp-sghmc", "dp-sgnht"}[k.method]
}

// Position implements Kernel.
func (k *DPSGLD) Position() []float64 { return k.theta }

// Init implements Kernel. theta0 must be public; the momentum starts at 0
// and the thermostat at the friction a.
func (k *DPSGLD) Init(theta0 []float64) error {
	_, err := initPosition(k.m, theta0, k.theta, nil)
	if err != nil {
		return err
	}
	clear(k.v)
	k.alpha = k.cfg.Friction
	k.ready = true
	return nil
}

// Step implements Kernel: one update; the new position is released.
func (k *DPSGLD) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	var rows []int
	if k.samp == privacy.WithoutReplacement {
		rows = k.batch.draw(r.Noise, k.b)
	} else {
		rows = poissonSample(r.Noise, k.n, k.q, k.pbuf)
	}
	clipped := k.gs.evalRows(k.m, k.theta, rows, k.grad)
	addNoise(r.Noise, k.grad, k.sigmaG, k.bits) // ĝ
	k.m.GradLogPrior(k.theta, k.prior)
	sn := k.scaleN
	h := k.cfg.Step
	switch k.method {
	case methodSGLD:
		if k.brokenPi2 {
			// drift h∇ with noise N(0, h): rescale the noise part of the
			// step (h/2)(n/b)ĝ, whose noise has variance h, to keep N(0, h)
			// while doubling the drift (tests only; g is known here).
			for j := range k.theta {
				k.theta[j] += h*k.prior[j] + (h/2)*sn*k.grad[j] + (h/2)*sn*k.gs.acc2(j)
			}
			break
		}
		for j := range k.theta {
			k.theta[j] += h / 2 * (k.prior[j] + sn*k.grad[j])
		}
	case methodSGHMC, methodSGNHT:
		a := k.cfg.Friction
		if k.method == methodSGNHT {
			a = k.alpha
		}
		vv := 0.0
		for j := range k.v {
			k.v[j] += -a*k.v[j] + h*(k.prior[j]+sn*k.grad[j])
			k.theta[j] += k.v[j]
			vv += k.v[j] * k.v[j]
		}
		if k.method == methodSGNHT {
			k.alpha += vv/float64(k.d) - h
		}
	}
	return Info{Accepted: true, AcceptProb: 1, Rows: len(rows), Clipped: clipped}
}

// acc2 returns the exact clipped gradient sum's coordinate j (the value
// before noise), used only by the π² test variant.
func (gs *gradSum) acc2(j int) float64 { return float64(gs.acc[j]) * gs.q }

// NoiseMultiplier returns z_eff, the noise multiplier (std ÷ per-record
// bound, grid-inflated) to pass to privacy.SGLDAccount, and the sampling
// rate q = b/n.
func (k *DPSGLD) NoiseMultiplier() (z, q float64) {
	_, z, _, _, _, _ = k.cfg.noise(k.nPub, k.d)
	return z, k.q
}

// Account returns ε at delta for steps updates (all chains) on n public
// rows in dimension d: privacy.SGLDAccount(z_eff, b/n, Sampling, Relation,
// steps, δ).
func (c DPSGLDConfig) Account(n, d, steps int, delta float64) (privacy.Report, error) {
	_, z, s, rel, _, err := c.noise(n, d)
	if err != nil {
		return privacy.Report{}, err
	}
	return privacy.SGLDAccount(z, float64(c.Batch)/float64(n), s, rel, steps, delta)
}

// PlanIterations returns the largest total number of updates within
// (eps, delta).
func (c DPSGLDConfig) PlanIterations(n, d int, eps, delta float64) (int, error) {
	return planIterations(eps, delta, func(t int) (privacy.Report, error) { return c.Account(n, d, t, delta) })
}

// Hybrid is the hybrid posterior sampler of Wang et al. (2015, Algorithm
// 3): one OPS draw (Algorithm 1) with budget share ε_OPS, used as the
// initial point of DP stochastic-gradient MCMC (Algorithm 2), all of whose
// iterates are released. The first Step is the OPS draw (its inner chain
// starts from the public Init position); every later Step is one SGLD
// (SGHMC, SGNHT) update from there.
//
// Privacy: the OPS draw is ε_OPS-DP (pure; conditional on the inner chain
// having converged, see OPS), the SGLD part is accounted as in DPSGLD;
// Account composes them (the better of basic composition ε_OPS + ε_SGLD(δ)
// and RDP composition through privacy.Ledger).
type Hybrid struct {
	ops   *OPS
	sgld  *DPSGLD
	cfg   HybridConfig
	first bool
}

// HybridConfig configures the hybrid sampler (the paper splits ε in half:
// OPS.Epsilon = ε/2, the SGLD steps planned within the other half).
type HybridConfig struct {
	OPS  OPSConfig    `json:"ops"`
	SGLD DPSGLDConfig `json:"sgld"`
}

// NewHybrid returns the hybrid kernel for m.
func NewHybrid(m model.Model, cfg HybridConfig) (*Hybrid, error) {
	o, err := NewOPS(m, cfg.OPS)
	if err != nil {
		return nil, err
	}
	s, err := NewDPSGLD(m, cfg.SGLD)
	if err != nil {
		return nil, err
	}
	return &Hybrid{ops: o, sgld: s, cfg: cfg}, nil
}

// Name implements Kernel.
func (k *Hybrid) Name() string { return "hybrid" }

// Init implements Kernel (theta0 public, inside the OPS box).
func (k *Hybrid) Init(theta0 []float64) error {
	if err := k.ops.Init(theta0); err != nil {
		return err
	}
	k.first = true
	return k.sgld.Init(theta0)
}

// Position implements Kernel.
func (k *Hybrid) Position() []float64 {
	if k.first {
		return k.ops.Position()
	}
	return k.sgld.Position()
}

// Step implements Kernel.
func (k *Hybrid) Step(r rng.Streams) Info {
	if k.first {
		info := k.ops.Step(r)
		k.first = false
		copy(k.sgld.theta, k.ops.Position())
		clear(k.sgld.v)
		return info
	}
	return k.sgld.Step(r)
}

// OPSEpsilon is the pure ε of the OPS draw (4ρB ≤ OPS.Epsilon).
func (k *Hybrid) OPSEpsilon() float64 { return k.ops.Epsilon() }

// Account returns ε at delta for a hybrid run whose chains made iters
// Steps in total over chains (chains of the hybrid each spend one OPS draw:
// pass the number of chains) on n rows in dimension d: composition of
// chains OPS draws (pure ε each, at most OPS.Epsilon) and iters − chains
// SGLD updates.
func (c HybridConfig) Account(n, d, chains, iters int, delta float64) (privacy.Report, error) {
	if chains < 1 || iters < chains {
		return privacy.Report{}, fmt.Errorf("mcmc: hybrid accounting needs 1 ≤ chains ≤ iterations")
	}
	epsOPS := float64(chains) * c.OPS.Epsilon
	steps := iters - chains
	if steps == 0 {
		return privacy.Report{Epsilon: epsOPS, Delta: delta, Method: privacy.MethodPure, Relation: privacy.Replace}, nil
	}
	sg, err := c.SGLD.Account(n, d, steps, delta)
	if err != nil {
		return privacy.Report{}, err
	}
	best := sg
	best.Epsilon += epsOPS
	best.Method = "basic(pure+" + sg.Method + ")"
	_, z, s, rel, _, err := c.SGLD.noise(n, d)
	if err != nil {
		return privacy.Report{}, err
	}
	l := &privacy.Ledger{Relation: rel}
	if err := l.Add(privacy.Event{Kind: privacy.PureDPEvent, Epsilon: c.OPS.Epsilon, Count: chains}); err != nil {
		return privacy.Report{}, err
	}
	if err := l.Add(privacy.Event{Kind: privacy.SubsampledGaussianEvent, NoiseMultiplier: z, Rate: float64(c.SGLD.Batch) / float64(n), Sampling: s, Count: steps}); err != nil {
		return privacy.Report{}, err
	}
	if r, err := l.Epsilon(delta); err == nil && r.Epsilon < best.Epsilon {
		best = r
	}
	return best, nil
}

var (
	_ Kernel = (*DPSGLD)(nil)
	_ Kernel = (*Hybrid)(nil)
)
