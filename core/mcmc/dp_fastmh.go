package mcmc

import (
	"fmt"
	"github.com/dpmcmc/dpmcmc/core/mathx"
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// DPFastMH is DP-Fast MH of Zhang & Zhang (dp-fast-mh.txt, Algorithm 2) on
// TunaMH (Algorithm 1), with energies U_i = −ℓ_i, Assumption 1 instantiated
// by the model's public per-row bound over the public Box,
// c_i = c = RowBounds(Box).Lipschitz, C = N·c, M(θ, θ') = ‖θ − θ'‖₂, and a
// per-iteration budget (ε, δ):
//
//	propose θ' = θ + step·s⊙z                                   (public stream)
//	    (θ' outside Box or the prior's support: reject, no data read)
//	sample B ~ Poisson(λ + CM)                                  (public stream)
//	if B < K and not Full:                                      {minibatch MH}
//	    I ← Batch(B): i_b uniform (P = c_i/C = 1/N)             (noise stream: the batch is secret)
//	        added with prob. [λc + (C/2)(U_i(θ') − U_i(θ) + cM)]/(λc + cCM)  (noise stream)
//	    ℓ₁ = 2Σ_{i∈I} artanh(C(U_i(θ) − U_i(θ'))/(c(2λ + CM)))
//	    Δ(ℓ₁) = 2·log(1 + CM/λ)                                 (Lemma 1, eq. (1))
//	    if Δ(ℓ₁) ≤ ε₂: privacy for free — accept w.p. 1/(1 + e^{−(ℓ₁ + τ)})   (Barker; see below)
//	    else ξ ~ N(0, σ₁²),  σ₁ = Δ(ℓ₁)/μ₂;  y = snap(ℓ₁ + ξ)
//	         accept w.p. min(1, exp(y − σ₁²/2 + τ))              (penalty correction)
//	else:                                                       {full-batch MH}
//	    ℓ₂ = Σ_i clip_{cM}(ℓ_i(θ') − ℓ_i(θ));  Δ(ℓ₂) = 2cM       (Lemma 1, eq. (2))
//	    if Δ(ℓ₂) ≤ ε: accept w.p. 1/(1 + e^{−(ℓ₂ + τ)})         (Barker)
//	    else σ₂ = Δ(ℓ₂)/μ; y = snap(ℓ₂ + ξ); accept w.p. min(1, exp(y − σ₂²/2 + τ))
//
// with τ = log p(θ') − log p(θ) (the prior is public and enters exactly;
// the proposal is symmetric). Full (dp-fastmh-full) always takes the
// full-batch branch. λ is a constant (Lambda), so that Δ(ℓ₁) is bounded.
//
// Changes from the paper, with reasons:
//
//  1. Privacy for free uses Barker's acceptance a(r) = r/(1 + r), not
//     min(1, r). For min(1, r) the accept probabilities are within e^Δ of
//     each other on neighbouring data but the reject probabilities are not:
//     if r(D) ≥ 1 > r(D') then P(reject | D) = 0 < P(reject | D'), which no
//     finite ε covers (the audit test exhibits it). Barker's accept and
//     reject probabilities, 1/(1+e^{−x}) and 1/(1+e^{x}), are both
//     e^{|x−x'|}-Lipschitz in ratio, so a step whose log-ratio has
//     sensitivity Δ ≤ ε₀ is (ε₀, 0)-DP. Barker's a(r) satisfies
//     a(r) = r·a(1/r), so it keeps TunaMH's extended-space detailed
//     balance (as min(1, r) does) and every branch stays π-reversible;
//     the branch choice depends only on (M, B), symmetric in (θ, θ') and
//     data-independent (Thm 3's argument).
//
//  2. Noise is Gaussian (the reference code's uniform noise is not the
//     Gaussian mechanism) and calibrated by the tight Gaussian bound
//     (privacy.MuFor), valid for every ε, instead of the classic
//     σ = √(2 ln(1.25/δ))/ε, which needs ε < 1.
//
//  3. The minibatch amplification is computed exactly from the proof of
//     Thm 2 instead of its final bound ε' ≤ 6Kpε₂ (which holds only for
//     small ε₂ and fails, e.g., at the MoG settings K = 60, p = 1/N):
//     conditional on B ≤ K−1 (public), with a = 1 − p + pe^{ε₂},
//     b = 1 − p + pe^{−ε₂}, group privacy over the multiplicity of the
//     differing row gives ε' = (K−1)·ln(a/b) and
//     δ' = δ₂[(a^{K−1} − 1) + (a/b)^{K−1}(1 − b^{K−1})]/(e^{ε₂} − 1)
//     (the paper drops the last term, which is not a valid lower-bound step).
//     ε₂ solves ε' = ε and δ₂ makes δ' = δ (stepBudget). Inclusion coins
//     depend on the row, but every inclusion outcome moves ℓ₁ by at most
//     Δ(ℓ₁) per occurrence, so each component of the mixture is within the
//     Gaussian (or Barker) bound of every component on the neighbour.
//
//  4. Batch indices come from the noise stream (secret; dp_subsample.go);
//     B stays public.
//
//  5. Proposals outside the Box (where the Lipschitz bound holds) are
//     rejected without touching the data; rows that violate the bound (a
//     model bug) are clamped to it and counted in Info.Clipped.
//
//  6. The free branches' Barker decision is "accept iff V + x > 0" with
//     V = log u − log1p(−u), u uniform on {1, …, 2^53 − 1}·2^−53 (Float64,
//     0 redrawn): V never exceeds about ±36.7, and V is computed with an
//     absolute error e ≤ 2.5·2^−47 (log and log1p within 1 ulp of values
//     below 64, one rounding of the difference). Its accept probability
//     differs from the ideal 1/(1 + e^{−x}) by at most
//     η ≤ 2^−52 (the 2^−53 lattice of u, which includes the ±36.7
//     truncation: the logistic mass beyond it is e^{−36.7} < 2^−52)
//     + e/2 + 2^−53 (the u-interval where the rounded V can fall on the other
//     side of −x has length ≤ e/2, since d logit/du ≥ 4), i.e. η < 1.4e−14;
//     the kernel uses η = 2^−45 ≈ 2.8e−14. A decision whose probabilities
//     are within η of an (ε₀, 0)-DP one is (ε₀, (1 + e^{ε₀})η)-DP, so a free
//     branch is taken only where its slack covers that: (1 + e^{ε₂})η ≤ δ₂
//     (minibatch, so the amplification of item 3 is unchanged) and
//     (1 + e^{ε})η ≤ δ (full batch). Otherwise the Gaussian branch, which is
//     calibrated to the same (ε₂, δ₂) or (ε, δ), runs instead. The check
//     passes whenever δ₂ ≥ (1 + e^{ε₂})·2.8e−14 (1.1e−13 at ε₂ = 1), i.e. at
//     every usual budget; the Gaussian noise is the exact discrete
//     Gaussian (dgauss.go).
//
// Each iteration is (ε, δ)-DP (replace-one) whatever the branch; the total
// is privacy.FastMHAccount(ε, δ, iterations, δ_total) (the best of basic,
// advanced and the optimal homogeneous composition), see Account.
//
// Info.Rows counts row evaluations (2B in the minibatch branch; N or 2N in
// the full one, the per-row ℓ_i(θ) being cached across full-batch steps).
// Stats reports the mean fraction of rows touched per iteration (local).
type DPFastMH struct {
	m     model.Model
	cfg   DPFastMHConfig
	d, n  int
	step  float64
	scale []float64
	box   []model.Interval
	bits  int
	c     float64 // per-row bound
	bigC  float64 // N·c
	K     int

	eps2, delta2 float64 // per-occurrence budget of the minibatch mechanism
	mu2, muFull  float64 // calibrated μ (grid inflation removed)
	// freeMini and freeFull allow the free (Barker) branches: their
	// decision's η slack fits the per-occurrence δ (item 6 above).
	freeMini, freeFull bool

	theta, prop []float64
	lpCur       float64
	idx         []int
	llA, llB    []float64
	bs          batchSum
	cl          clipper
	llCur       []float64
	llProp      []float64
	curValid    bool
	ready       bool
	ad          dpAdapt

	stats FastMHStats

	// plainMHFree (tests only) makes the free branches use min(1, r), the
	// paper's unsound choice, for the privacy audit.
	plainMHFree bool
	// noiseScale multiplies the noise std (tests only).
	noiseScale float64
}

// DPFastMHConfig configures DP-Fast MH. JSON names follow the command line
// (--lambda, --batch-cap; per-iteration --epsilon/--delta map to
// StepEpsilon/StepDelta, see Account and PlanStepBudget).
type DPFastMHConfig struct {
	// Step is the random-walk proposal standard deviation per coordinate.
	Step float64 `json:"step"`
	// Scale optionally multiplies Step per coordinate.
	Scale []float64 `json:"scale,omitempty"`
	// Lambda is the constant λ of Algorithm 2 (default 10).
	Lambda float64 `json:"lambda,omitempty"`
	// BatchCap is K: minibatch MH when B < K, full-batch otherwise. 0 picks
	// the paper's recommendation ⌈εC/(6·max c_i)⌉ = ⌈εN/6⌉ (§6.2).
	BatchCap int `json:"batch_cap,omitempty"`
	// Full always uses the full-batch branch (dp-fastmh-full).
	Full bool `json:"full,omitempty"`
	// StepEpsilon, StepDelta are the per-iteration (ε, δ).
	StepEpsilon float64 `json:"step_epsilon"`
	StepDelta   float64 `json:"step_delta"`
	// Box is the public parameter box where the per-row bound holds
	// (required unless the model's RowBounds(nil).Lipschitz is finite).
	Box []model.Interval `json:"box,omitempty"`
	// N is the public number of rows (0: the model's N()).
	N int `json:"n,omitempty"`
	// Adapt tunes Step during warmup from the accept bits only.
	Adapt bool `json:"adapt,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.6, the paper's).
	TargetAccept float64 `json:"target_accept,omitempty"`
	// GridBits is k of the release grid (default 24).
	GridBits int `json:"grid_bits,omitempty"`

	// NoiseOff (tests only): no noise, min(1, r) everywhere — TunaMH with
	// the batch cap and the full-batch fallback (exact, not private).
	NoiseOff bool `json:"-"`
	// forceFree (tests only) takes the free (Barker) branches always.
	forceFree bool
}

// FastMHStats are local diagnostics (never exported): iteration counts per
// branch and rows touched.
type FastMHStats struct {
	Iters, Minibatch, Full, Free, OutOfBox int
	RowsTouched                            float64 // Σ distinct-row upper bound: B (minibatch) or N (full)
}

// RowFraction is the mean fraction of rows touched per iteration.
func (s FastMHStats) RowFraction(n int) float64 {
	if s.Iters == 0 {
		return 0
	}
	return s.RowsTouched / float64(s.Iters) / float64(n)
}

// fastMHBound returns the per-row bound c over the box.
func fastMHBound(m model.Model, box []model.Interval) (float64, error) {
	c := m.RowBounds(box).Lipschitz
	if !(c > 0) || math.IsInf(c, 1) {
		return 0, fmt.Errorf("mcmc: dp-fastmh needs a finite positive per-row Lipschitz bound over the box; model %s gives %v (set a box and public column bounds)", m.Name(), c)
	}
	return c, nil
}

// stepBudget returns the per-occurrence (ε₂, δ₂) of the minibatch
// mechanism that makes one iteration (ε, δ)-DP for batches of at most
// bmax = K−1 draws with inclusion probability p (change 3 in the type's doc).
func stepBudget(eps, delta, p float64, bmax int) (eps2, delta2 float64) {
	if bmax <= 0 {
		return math.Inf(1), 1
	}
	bm := float64(bmax)
	epsOf := func(e float64) float64 {
		a := math.Log1p(p * math.Expm1(e))
		b := math.Log1p(-p * -math.Expm1(-e))
		return bm * (a - b)
	}
	lo, hi := 0.0, 1.0
	for epsOf(hi) < eps {
		hi *= 2
		if hi > 700 {
			return math.Inf(1), 1
		}
	}
	for it := 0; it < 200; it++ {
		mid := (lo + hi) / 2
		if epsOf(mid) <= eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	eps2 = lo
	la := bm * math.Log1p(p*math.Expm1(eps2))    // ln a^bm
	lb := bm * math.Log1p(-p*-math.Expm1(-eps2)) // ln b^bm
	f := (math.Expm1(la) + mathx.Exp(la-lb)*(-math.Expm1(lb))) / math.Expm1(eps2)
	delta2 = math.Min(1, delta/f*(1-1e-9))
	return eps2, delta2
}

// EffectiveBatchCap is the K a kernel on n public rows uses: BatchCap, or
// when 0 the paper's ⌈εC/(6·max c_i)⌉ = ⌈ε_step·n/6⌉ (§6.2, c_i = c). The
// privacy report states it.
func (c DPFastMHConfig) EffectiveBatchCap(n int) int {
	if c.BatchCap != 0 {
		return c.BatchCap
	}
	return int(math.Ceil(c.StepEpsilon * float64(n) / 6))
}

// logisticTV is η, the bound on |P(accept) − 1/(1 + e^{−x})| of the
// floating-point Barker decision logisticNoise(r) + x > 0 (item 6 of the
// DPFastMH notes: the derived bound is < 1.4e−14).
const logisticTV = 0x1p-45

// freeBranchesAllowed reports whether the free minibatch branch (per
// occurrence (ε₂, δ₂); ε₂ = +Inf means no rows can be read) and the free
// full-batch branch (per iteration (ε, δ)) have δ slack for the
// floating-point decision's η: (1 + e^{ε₂})η ≤ δ₂ and (1 + e^{ε})η ≤ δ.
func freeBranchesAllowed(eps2, delta2, eps, delta float64) (mini, full bool) {
	mini = math.IsInf(eps2, 1) || (1+math.Exp(eps2))*logisticTV <= delta2
	full = (1+math.Exp(eps))*logisticTV <= delta
	return mini, full
}

// budget derives K and the calibrated μ's for public n and bound c.
func (c DPFastMHConfig) budget(n int, rowC float64) (K int, eps2, delta2, mu2, muFull float64, bits int, err error) {
	if bits, err = gridBits(c.GridBits); err != nil {
		return
	}
	if !(c.StepEpsilon > 0) || math.IsInf(c.StepEpsilon, 1) {
		err = fmt.Errorf("mcmc: dp-fastmh per-iteration ε = %v must be positive and finite", c.StepEpsilon)
		return
	}
	if !(c.StepDelta > 0 && c.StepDelta < 1) {
		err = fmt.Errorf("mcmc: dp-fastmh per-iteration δ = %v must be in (0, 1)", c.StepDelta)
		return
	}
	K = c.EffectiveBatchCap(n)
	if K < 1 {
		err = fmt.Errorf("mcmc: dp-fastmh batch_cap = %d must be ≥ 1", K)
		return
	}
	infl := GridInflation(1, bits)
	muFull, err = privacy.MuFor(c.StepEpsilon, c.StepDelta)
	if err != nil {
		return
	}
	eps2, delta2 = stepBudget(c.StepEpsilon, c.StepDelta, 1/float64(n), K-1)
	if !math.IsInf(eps2, 1) {
		if mu2, err = privacy.MuFor(eps2, delta2); err != nil {
			return
		}
	} else {
		mu2 = math.Inf(1)
	}
	if muFull <= infl || mu2 <= infl {
		err = fmt.Errorf("mcmc: dp-fastmh budget (ε, δ) = (%v, %v) too small for the release grid", c.StepEpsilon, c.StepDelta)
		return
	}
	return K, eps2, delta2, mu2 - infl, muFull - infl, bits, nil
}

// NewDPFastMH returns a DP-Fast MH kernel for m.
func NewDPFastMH(m model.Model, cfg DPFastMHConfig) (*DPFastMH, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("dp-fastmh", cfg.Step); err != nil {
		return nil, err
	}
	sc, err := checkScale(cfg.Scale, d)
	if err != nil {
		return nil, err
	}
	if cfg.Lambda == 0 {
		cfg.Lambda = 10
	}
	if err := checkPositive("dp-fastmh lambda", cfg.Lambda); err != nil {
		return nil, err
	}
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.6
	}
	nPub, err := publicN(cfg.N, n)
	if err != nil {
		return nil, err
	}
	if nPub != n {
		return nil, fmt.Errorf("mcmc: dp-fastmh: public n = %d differs from the model's %d rows", nPub, n)
	}
	box, err := checkBoxCfg(cfg.Box, d)
	if err != nil {
		return nil, err
	}
	c, err := fastMHBound(m, box)
	if err != nil {
		return nil, err
	}
	k := &DPFastMH{
		m: m, cfg: cfg, d: d, n: n, step: cfg.Step, scale: sc, box: box, c: c, bigC: float64(n) * c,
		theta: make([]float64, d), prop: make([]float64, d), noiseScale: 1,
		llCur: make([]float64, n), llProp: make([]float64, n), cl: newClipper(n, 1),
	}
	if cfg.NoiseOff {
		k.K = cfg.BatchCap
		if k.K == 0 {
			k.K = math.MaxInt
		}
		k.bits = DefaultGridBits
	} else {
		k.K, k.eps2, k.delta2, k.mu2, k.muFull, k.bits, err = cfg.budget(nPub, c)
		if err != nil {
			return nil, err
		}
		k.freeMini, k.freeFull = freeBranchesAllowed(k.eps2, k.delta2, cfg.StepEpsilon, cfg.StepDelta)
	}
	chunk := tunaChunk
	k.idx, k.llA, k.llB = make([]int, chunk), make([]float64, chunk), make([]float64, chunk)
	k.bs = newBatchSum(min(k.K, n*64+1))
	if k.ad, err = newDPAdapt(cfg.Adapt, cfg.Step, cfg.TargetAccept, 0); err != nil {
		return nil, err
	}
	return k, nil
}

// Name implements Kernel.
func (k *DPFastMH) Name() string {
	if k.cfg.Full {
		return "dp-fastmh-full"
	}
	return "dp-fastmh"
}

// Position implements Kernel.
func (k *DPFastMH) Position() []float64 { return k.theta }

// Bound is the per-row constant c and C = N·c.
func (k *DPFastMH) Bound() (c, bigC float64) { return k.c, k.bigC }

// BatchCap is K.
func (k *DPFastMH) BatchCap() int { return k.K }

// Stats returns the local diagnostics so far.
func (k *DPFastMH) Stats() FastMHStats { return k.stats }

// StepSize is the current proposal standard deviation.
func (k *DPFastMH) StepSize() float64 { return k.step }

// Init implements Kernel. theta0 must be public and lie in the box.
func (k *DPFastMH) Init(theta0 []float64) error {
	lp, err := initPosition(k.m, theta0, k.theta, k.box)
	if err != nil {
		return err
	}
	k.lpCur = lp
	k.curValid = false
	k.ready = true
	return nil
}

// Step implements Kernel.
func (k *DPFastMH) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	k.stats.Iters++
	rwPropose(r.Public, k.theta, k.scale, k.step, k.prop)
	lp := k.m.LogPrior(k.prop)
	if !inBox(k.prop, k.box) || math.IsInf(lp, -1) || math.IsNaN(lp) {
		k.stats.OutOfBox++
		return Info{}
	}
	tau := lp - k.lpCur
	dist := math.Sqrt(sqDist(k.theta, k.prop))
	cm := k.bigC * dist
	lambda := k.cfg.Lambda
	B := poisson(r.Public, lambda+cm)
	var info Info
	var accepted bool
	if !k.cfg.Full && B < k.K {
		accepted, info = k.minibatch(r, B, dist, tau)
	} else {
		accepted, info = k.fullBatch(r, dist, tau)
	}
	if accepted {
		k.theta, k.prop = k.prop, k.theta
		k.lpCur = lp
		info.Accepted = true
	}
	return info
}

// decide draws the accept decision for log-ratio x (noise already added)
// with Barker's or MH's acceptance.
func decide(r rng.Streams, x float64, barker bool) (bool, float64) {
	if barker {
		return logisticNoise(r)+x > 0, logistic(x)
	}
	return logUniform(r.Noise) < x, acceptProbMH(x)
}

func (k *DPFastMH) minibatch(r rng.Streams, B int, dist, tau float64) (bool, Info) {
	k.stats.Minibatch++
	k.stats.RowsTouched += float64(min(B, k.n))
	k.curValid = false
	c, bigC, lambda := k.c, k.bigC, k.cfg.Lambda
	cm := bigC * dist
	den := lambda*c + c*cm
	artDen := c * (2*lambda + cm)
	bound := c * dist
	L1 := math.Log1p(cm / lambda) // |2 artanh(·)| ≤ L1; Δ(ℓ₁) = 2·L1
	cp, q, kmax := k.bs.quantum(math.Max(L1, math.SmallestNonzeroFloat64))
	inv := 1 / q
	var acc int64
	clipped := 0
	for done := 0; done < B; {
		nb := min(B-done, len(k.idx))
		idx := k.idx[:nb]
		for b := range idx {
			idx[b] = r.Noise.IntN(k.n) // secret batch
		}
		k.m.LogLik(k.theta, idx, k.llA[:nb])
		k.m.LogLik(k.prop, idx, k.llB[:nb])
		for b := range idx {
			delta := k.llB[b] - k.llA[b] // U_i(θ) − U_i(θ')
			if delta > bound {
				delta, clipped = bound, clipped+1
			} else if delta < -bound {
				delta, clipped = -bound, clipped+1
			} else if delta != delta {
				delta, clipped = -bound, clipped+1
			}
			if r.Noise.Float64()*den < lambda*c+bigC/2*(bound-delta) {
				x := bigC * delta / artDen
				kk, _ := quantTerm(math.Log1p(2*x/(1-x)), cp, inv, kmax) // 2·artanh(x)
				acc += kk
			}
		}
		done += nb
	}
	l1 := float64(acc) * q
	info := Info{Rows: 2 * B, Clipped: clipped}
	sens := 2 * L1
	switch {
	case k.cfg.NoiseOff && !k.cfg.forceFree:
		ok, p := decide(r, l1+tau, false)
		info.AcceptProb = p
		return ok, info
	case k.cfg.forceFree || (k.freeMini && sens <= k.eps2):
		k.stats.Free++
		ok, p := decide(r, l1+tau, !k.plainMHFree)
		info.AcceptProb = p
		return ok, info
	}
	sigma := k.noiseScale * sens / k.mu2
	y := noisyScalar(r.Noise, l1, sigma, k.bits)
	ok, _ := decide(r, y-sigma*sigma/2+tau, false)
	info.AcceptProb = acceptProbMH(l1 - sigma*sigma/2 + tau)
	return ok, info
}

func (k *DPFastMH) fullBatch(r rng.Streams, dist, tau float64) (bool, Info) {
	k.stats.Full++
	k.stats.RowsTouched += float64(k.n)
	info := Info{Rows: k.n}
	if !k.curValid {
		k.m.LogLik(k.theta, nil, k.llCur)
		info.Rows += k.n
	}
	k.m.LogLik(k.prop, nil, k.llProp)
	bound := k.c * dist
	var l2 float64
	if bound > 0 {
		l2, info.Clipped = k.cl.sumDiff(k.llProp, k.llCur, bound)
	}
	sens := 2 * bound
	var ok bool
	switch {
	case k.cfg.NoiseOff && !k.cfg.forceFree:
		ok, info.AcceptProb = decide(r, l2+tau, false)
	case k.cfg.forceFree || (k.freeFull && sens <= k.cfg.StepEpsilon):
		k.stats.Free++
		ok, info.AcceptProb = decide(r, l2+tau, !k.plainMHFree)
	default:
		sigma := k.noiseScale * sens / k.muFull
		y := noisyScalar(r.Noise, l2, sigma, k.bits)
		ok, _ = decide(r, y-sigma*sigma/2+tau, false)
		info.AcceptProb = acceptProbMH(l2 - sigma*sigma/2 + tau)
	}
	if ok {
		k.llCur, k.llProp = k.llProp, k.llCur
	}
	k.curValid = true
	return ok, info
}

// Adapt implements Adaptive (accept bit only).
func (k *DPFastMH) Adapt(it int, info Info) { k.step = k.ad.update(k.step, info.Accepted) }

// EndWarmup implements Adaptive.
func (k *DPFastMH) EndWarmup() { k.step = k.ad.final(k.step) }

// StepBudget returns the per-iteration (ε, δ) and the per-occurrence
// (ε₂, δ₂) of the minibatch mechanism (ε₂ is also the free-branch
// threshold on Δ(ℓ₁)).
func (k *DPFastMH) StepBudget() (eps, delta, eps2, delta2 float64) {
	return k.cfg.StepEpsilon, k.cfg.StepDelta, k.eps2, k.delta2
}

// Account returns ε at deltaTotal for iters iterations (all chains): every
// iteration is (StepEpsilon, StepDelta)-DP (replace-one), composed by
// privacy.FastMHAccount(StepEpsilon, StepDelta, iters, deltaTotal) — the
// best of basic, advanced and the optimal homogeneous composition (KOV).
func (c DPFastMHConfig) Account(iters int, deltaTotal float64) (privacy.Report, error) {
	return privacy.FastMHAccount(c.StepEpsilon, c.StepDelta, iters, deltaTotal)
}

// PlanIterations returns the largest number of iterations (all chains)
// within (eps, deltaTotal) for the configured per-iteration budget.
func (c DPFastMHConfig) PlanIterations(eps, deltaTotal float64) (int, error) {
	return planIterations(eps, deltaTotal, func(t int) (privacy.Report, error) { return c.Account(t, deltaTotal) })
}

// PlanStepBudget returns the largest per-iteration ε (with per-iteration
// δ = deltaTotal/(2·iters)) such that iters iterations are within
// (eps, deltaTotal): the map from the command line's total --epsilon and
// --delta to StepEpsilon, StepDelta.
func PlanStepBudget(eps, deltaTotal float64, iters int) (stepEps, stepDelta float64, err error) {
	if iters < 1 || !(eps > 0) {
		return 0, 0, fmt.Errorf("mcmc: dp-fastmh plan needs iterations ≥ 1 and ε > 0")
	}
	stepDelta = deltaTotal / (2 * float64(iters))
	lo, hi := 0.0, eps
	for it := 0; it < 60; it++ {
		mid := (lo + hi) / 2
		r, e := privacy.FastMHAccount(mid, stepDelta, iters, deltaTotal)
		if e == nil && r.Epsilon <= eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0, 0, fmt.Errorf("mcmc: no per-iteration budget fits (ε, δ) = (%v, %v) over %d iterations", eps, deltaTotal, iters)
	}
	return lo, stepDelta, nil
}

// Compile-time checks.
var (
	_ Kernel   = (*DPFastMH)(nil)
	_ Adaptive = (*DPFastMH)(nil)
	_ Kernel   = (*DPBarker)(nil)
	_ Adaptive = (*DPBarker)(nil)
)
