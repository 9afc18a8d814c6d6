package mcmc

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// DPPenaltySub is the DP penalty algorithm with subsampling of
// dp-mcmc-thesis-penalty-mala.txt §4.1 (Lemma 1, Theorem 9): random-walk MH
// whose log acceptance ratio is estimated on a minibatch, corrected for the
// CLT variance of the estimate by the penalty method, and released through
// a Gaussian mechanism.
//
//	propose θ' = θ + step·s⊙z                                     (public stream)
//	    (θ' outside the prior's support or the Box: reject, no data read)
//	B ⊂ {1…n}, |B| = b, uniformly without replacement              (noise stream)
//	r_j = clip_c(ℓ_j(θ') − ℓ_j(θ)),  c = Clip·‖θ' − θ‖₂,  a = n/b
//	λ*  = a·Σ_{j∈B} r_j                                            (thesis λ*, tempering in ℓ_j)
//	σ_b² = a²·(Σ_{j∈B} r_j² − R²/b),  R = Σ_{j∈B} r_j              (CLT variance of λ*)
//	c_tot = Δ_λ + Δ_σ,  Δ_λ = 2ac,  Δ_σ = 2a²c²(b−1)/b             (sensitivity of λ* − ½σ_b²)
//	σ² = τ·c_tot²                                                  (Thm 9)
//	y = snap(λ* − ½σ_b² + N(0, σ²))                                (noise stream)
//	accept with probability min{1, exp(y − σ²/2 + log p(θ') − log p(θ))}   (uniform: noise stream)
//
// i.e. the thesis' acceptance min{1, e^{λ* − (σ² + σ_b²)/2}} with the
// released statistic λ* − ½σ_b². ℓ_j = F·log p(x_j|θ) is tempered by the
// model (core/model, --temper): the thesis' nT/|B| is a here, and with
// F = n₀/n the noise no longer grows with n (end of §4.1).
//
// Sensitivity (replace-one): Δ_λ = 2ac (one r_j changes by ≤ 2c). For
// ½σ_b², replacing r_x by r_x' with the others fixed (R* their sum, |R*| ≤
// (b−1)c) changes Σr² − R²/b by (1 − 1/b)(r_x² − r_x'²) − 2R*(r_x − r_x')/b,
// whose maximum over r_x, r_x' ∈ [−c, c] is ((b−1)/b)·max (u−v)(u+v+2c) =
// 4c²(b−1)/b (at u = c, v = −c, R* = −(b−1)c); so ½Δσ_b² ≤ 2a²c²(b−1)/b.
// Lemma 1 as stated gives a²c²(b−1)/b·3 (its proof bounds Δσ_b², not
// ½Δσ_b², and uses |r(x') − r(x)| ≤ c where 2c is needed; the two slips
// partly cancel and its Thm 9 value is valid but 1.5× larger than needed);
// we use the bound derived here. Sums are exact (quantized integers,
// dp_subsample.go) and a slack 8u·a²·b·c² covers the float64 evaluation of
// σ_b².
//
// Privacy: per iteration the batch mechanism is Gaussian with
// sensitivity/std = 1/√τ (+ the grid 2^−k): base RDP ε'(α) = αμ²/2, μ =
// 1/√τ + 2^−k. Fixed-size batches without replacement are amplified by the
// WBK general bound (Thm 9; privacy.WORSubsampledGaussianRDP with noise
// multiplier 2/μ, whose base curve 2α/σ² is exactly αμ²/2), composed over
// iterations and converted (Account). Only sampling without replacement is
// offered: the Poisson and PLD accountants of core/privacy model an additive
// statistic (a sum of per-row terms), which λ* − ½σ_b² is not, and a
// random batch size would also change a = n/|B|; the WBK bound needs only
// the base curve, so it is valid here.
//
// Exactness: with nothing clipped, σ² symmetric in (θ, θ'), and λ* − ½σ_b²
// approximately normal with variance σ_b² (CLT), the penalty acceptance
// keeps the posterior approximately invariant (Ceperley & Dewing); the
// CLT step is the approximation.
type DPPenaltySub struct {
	m     model.Model
	cfg   DPPenaltySubConfig
	d, n  int
	b     int
	a     float64
	step  float64
	scale []float64
	box   []model.Interval
	bits  int
	sqTau float64

	theta, prop []float64
	lpCur       float64
	batch       batchSampler
	bs          batchSum
	llA, llB    []float64
	ready       bool
	ad          dpAdapt
}

// DPPenaltySubConfig configures subsampled DP penalty.
type DPPenaltySubConfig struct {
	// Step is the proposal standard deviation per coordinate.
	Step float64 `json:"step"`
	// Scale optionally multiplies Step per coordinate.
	Scale []float64 `json:"scale,omitempty"`
	// Clip is r: per-row ratios are clipped to ±r·‖θ' − θ‖₂ (tempered units).
	Clip float64 `json:"clip"`
	// Tau is τ: the noise variance is τ·c_tot², so μ = 1/√τ per batch.
	Tau float64 `json:"tau"`
	// Batch is b, the fixed minibatch size.
	Batch int `json:"batch"`
	// Sampling must be "without-replacement" (default); see the type's doc.
	Sampling string `json:"sampling,omitempty"`
	// N is the public number of rows (0: the model's N()).
	N int `json:"n,omitempty"`
	// Box optionally restricts the chain to a public box.
	Box []model.Interval `json:"box,omitempty"`
	// Adapt tunes Step during warmup from the accept bits only.
	Adapt bool `json:"adapt,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.3).
	TargetAccept float64 `json:"target_accept,omitempty"`
	// GridBits is k of the release grid (default 24).
	GridBits int `json:"grid_bits,omitempty"`

	// NoiseOff (tests only): no privacy noise and no clipping; the kernel
	// is then the CLT-corrected minibatch penalty test.
	NoiseOff bool `json:"-"`
}

func (c DPPenaltySubConfig) check(n int) (bits int, err error) {
	if err = checkPositive("dp-penalty-sub tau", c.Tau); err != nil {
		return
	}
	if err = checkPositive("dp-penalty-sub clip", c.Clip); err != nil {
		return
	}
	s, err := parseSampling(c.Sampling)
	if err != nil {
		return
	}
	if s != privacy.WithoutReplacement {
		err = fmt.Errorf("mcmc: dp-penalty-sub supports sampling without replacement only (its statistic is not a per-row sum; see the kernel's doc)")
		return
	}
	if c.Batch < 2 || c.Batch > n {
		err = fmt.Errorf("mcmc: dp-penalty-sub batch = %d must be in [2, n = %d]", c.Batch, n)
		return
	}
	return gridBits(c.GridBits)
}

// NewDPPenaltySub returns a subsampled DP penalty kernel for m.
func NewDPPenaltySub(m model.Model, cfg DPPenaltySubConfig) (*DPPenaltySub, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("dp-penalty-sub", cfg.Step); err != nil {
		return nil, err
	}
	sc, err := checkScale(cfg.Scale, d)
	if err != nil {
		return nil, err
	}
	nPub, err := publicN(cfg.N, n)
	if err != nil {
		return nil, err
	}
	if nPub != n {
		return nil, fmt.Errorf("mcmc: dp-penalty-sub: public n = %d differs from the model's %d rows", nPub, n)
	}
	bits, err := cfg.check(n)
	if err != nil {
		return nil, err
	}
	box, err := checkBoxCfg(cfg.Box, d)
	if err != nil {
		return nil, err
	}
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.3
	}
	ad, err := newDPAdapt(cfg.Adapt, cfg.Step, cfg.TargetAccept, 0)
	if err != nil {
		return nil, err
	}
	return &DPPenaltySub{
		m: m, cfg: cfg, d: d, n: n, b: cfg.Batch, a: float64(nPub) / float64(cfg.Batch),
		step: cfg.Step, scale: sc, box: box, bits: bits, sqTau: math.Sqrt(cfg.Tau),
		theta: make([]float64, d), prop: make([]float64, d),
		batch: newBatchSampler(n, cfg.Batch), bs: newBatchSum(cfg.Batch),
		llA: make([]float64, cfg.Batch), llB: make([]float64, cfg.Batch), ad: ad,
	}, nil
}

// Name implements Kernel.
func (k *DPPenaltySub) Name() string { return "dp-penalty-sub" }

// Position implements Kernel.
func (k *DPPenaltySub) Position() []float64 { return k.theta }

// StepSize is the current proposal standard deviation.
func (k *DPPenaltySub) StepSize() float64 { return k.step }

// Init implements Kernel. theta0 must be public.
func (k *DPPenaltySub) Init(theta0 []float64) error {
	lp, err := initPosition(k.m, theta0, k.theta, k.box)
	if err != nil {
		return err
	}
	k.lpCur = lp
	k.ready = true
	return nil
}

// sensitivity returns c_tot for clip bound c.
func (k *DPPenaltySub) sensitivity(c float64) float64 {
	a, bf := k.a, float64(k.b)
	dl := 2 * a * c
	ds := 2*a*a*c*c*(bf-1)/bf + 8*unitRoundoff*a*a*bf*c*c
	return dl + ds
}

// Step implements Kernel.
func (k *DPPenaltySub) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	rwPropose(r.Public, k.theta, k.scale, k.step, k.prop)
	lp := k.m.LogPrior(k.prop)
	if math.IsInf(lp, -1) || math.IsNaN(lp) || !inBox(k.prop, k.box) {
		return Info{}
	}
	c := k.cfg.Clip * math.Sqrt(sqDist(k.prop, k.theta))
	if !(c > 0) {
		return Info{Accepted: true, AcceptProb: 1}
	}
	b := k.b
	rows := k.batch.draw(r.Noise, b)
	k.m.LogLik(k.theta, rows, k.llA)
	k.m.LogLik(k.prop, rows, k.llB)
	bf := float64(b)
	var lam, half float64
	clipped := 0
	if k.cfg.NoiseOff {
		var s, ss float64
		for i := range rows {
			t := k.llB[i] - k.llA[i]
			s += t
			ss += t * t
		}
		lam = k.a * s
		half = 0.5 * k.a * k.a * max(ss-s*s/bf, 0)
	} else {
		cp, q, kmax := k.bs.quantum(c)
		inv := 1 / q
		var s1, s2 int64
		for i := range rows {
			kk, cl := quantTerm(k.llB[i]-k.llA[i], cp, inv, kmax)
			if cl {
				clipped++
			}
			s1 += kk
			s2 += kk * kk
		}
		f1 := float64(s1)
		lam = k.a * f1 * q
		half = 0.5 * k.a * k.a * max(float64(s2)-f1*f1/bf, 0) * q * q
	}
	stat := lam - half
	sigma := 0.0
	if !k.cfg.NoiseOff {
		sigma = k.sqTau * k.sensitivity(c)
	}
	y := noisyScalar(r.Noise, stat, sigma, k.bits)
	logA := y - sigma*sigma/2 + lp - k.lpCur
	info := Info{AcceptProb: acceptProbMH(stat - sigma*sigma/2 + lp - k.lpCur), Clipped: clipped, Rows: 2 * b, Divergent: logA != logA}
	if logUniform(r.Noise) < logA {
		k.theta, k.prop = k.prop, k.theta
		k.lpCur = lp
		info.Accepted = true
	}
	return info
}

// Adapt implements Adaptive (accept bit only).
func (k *DPPenaltySub) Adapt(it int, info Info) { k.step = k.ad.update(k.step, info.Accepted) }

// EndWarmup implements Adaptive.
func (k *DPPenaltySub) EndWarmup() { k.step = k.ad.final(k.step) }

// StepMu is the per-batch Gaussian μ = 1/√τ + 2^−k (before subsampling).
func (c DPPenaltySubConfig) StepMu() (float64, error) {
	if err := checkPositive("dp-penalty-sub tau", c.Tau); err != nil {
		return 0, err
	}
	bits, err := gridBits(c.GridBits)
	if err != nil {
		return 0, err
	}
	return 1/math.Sqrt(c.Tau) + GridInflation(1, bits), nil
}

// Account returns ε at delta for iters iterations (all chains) on n public
// rows: thesis Thm 9 — base RDP αμ²/2 (StepMu), WBK subsampling with
// q = b/n at integer orders 2…256 (privacy.WORSubsampledGaussianRDP with
// noise multiplier 2/μ), composition, and the better of the improved and
// classic RDP conversions; or, when smaller, the tight Gaussian composition
// of the unamplified μ (also valid).
func (c DPPenaltySubConfig) Account(n, iters int, delta float64) (privacy.Report, error) {
	if _, err := c.check(n); err != nil {
		return privacy.Report{}, err
	}
	if iters < 1 {
		return privacy.Report{}, fmt.Errorf("mcmc: iterations = %d must be ≥ 1", iters)
	}
	mu, err := c.StepMu()
	if err != nil {
		return privacy.Report{}, err
	}
	q := float64(c.Batch) / float64(n)
	ord := privacy.IntegerOrders(2, 256)
	curve, err := privacy.NewRDPCurve(ord, func(a float64) (float64, error) {
		return privacy.WORSubsampledGaussianRDP(q, 2/mu, int(a))
	})
	if err != nil {
		return privacy.Report{}, err
	}
	l := &privacy.Ledger{Relation: privacy.Replace, Orders: ord}
	if err := l.Add(privacy.Event{Kind: privacy.RDPEvent, Curve: curve.Scale(float64(iters))}); err != nil {
		return privacy.Report{}, err
	}
	rep, err := l.Epsilon(delta)
	if err != nil {
		return privacy.Report{}, err
	}
	// Ignoring the subsampling is also valid (each batch mechanism is
	// μ-GDP on the full data too); the WBK bound is loose for large μ.
	g := privacy.TightGaussian{Mu: mu}.Repeat(float64(iters))
	if e, err := g.Epsilon(delta); err == nil && e < rep.Epsilon {
		rep = privacy.Report{Epsilon: e, Delta: delta, Method: privacy.MethodTight, Relation: privacy.Replace, Mu: g.Mu,
			Note: "tight Gaussian composition without amplification (smaller than WBK here)"}
	}
	return rep, nil
}

// PlanIterations returns the largest total number of iterations within
// (eps, delta).
func (c DPPenaltySubConfig) PlanIterations(n int, eps, delta float64) (int, error) {
	return planIterations(eps, delta, func(t int) (privacy.Report, error) { return c.Account(n, t, delta) })
}

var (
	_ Kernel   = (*DPPenaltySub)(nil)
	_ Adaptive = (*DPPenaltySub)(nil)
)
