package mcmc

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// DPMALA is DP MALA (dp-mcmc-thesis-penalty-mala.txt §4.2, Algorithm 3,
// Lemmas 2–3, Theorem 10): MALA whose proposal is a Gaussian mechanism on
// the drift and whose acceptance is the DP penalty test, with the
// data-dependent proposal-density ratio inside the released λ.
//
//	g(θ) = Σ_i clip_G(∇ℓ_i(θ))                       (exact sum, dpnoise.go; cached at θ)
//	D(θ) = ½σ_p²·(g(θ) + ∇log p(θ))                  (drift; the prior's gradient is public)
//	v  = snap(D(θ) + √a·σ_p·z),  z ~ N(0, I)          (M_g, private stream; grid 2^−k·√aσ_p)
//	θ' = θ + v                                        (so q(θ'|θ, X) = N(θ + D(θ), aσ_p²I))
//	S  = Σ_i clip_c(ℓ_i(θ') − ℓ_i(θ)),  c = r‖θ' − θ‖₂
//	Q  = log q(θ|θ', X) − log q(θ'|θ, X)
//	   = (‖u − D(θ)‖² − ‖u + D(θ')‖²)/(2aσ_p²),  u = θ' − θ
//	λ̂  = snap(S + Q + ξ),  ξ ~ N(0, σ_l²),  σ_l² = τ·c_l²   (M_l, Lemma 3)
//	accept with probability min{1, exp(λ̂ + log p(θ') − log p(θ) − σ_l²/2)}
//
// Sensitivities, for the relation's factor f (2 replace-one, 1 add/remove)
// and n_s the rows two neighbours share at most (n−1 replace-one, n
// add/remove):
//
//   - Lemma 2: D(θ) has L2 sensitivity ½σ_p²·c_g, c_g = f·G, and noise std
//     √a·σ_p, so μ_g = σ_p·c_g/(2√a) (privacy.MALAStepMu's first term).
//
//   - S has sensitivity f·c (as in DP penalty).
//
//   - Q (the derivation after Theorem 10, redone for D with the prior's
//     gradient): write D = A + ½σ_p²c_x with A the shared rows' part and
//     c_x the differing row's clipped gradient (‖c_x‖ ≤ G). The cross term
//     −2u·(D(θ) + D(θ'))/(2aσ_p²) changes by at most f·G‖u‖/a, and
//     ‖D(θ)‖²/(2aσ_p²) by at most σ_p²G·(2f(n_s·G + ‖∇log p(θ)‖) + G)/(8a),
//     using ‖A‖ ≤ ½σ_p²(n_s·G + ‖∇log p(θ)‖). Hence
//
//     c_l(θ, θ') = f·c + f·G‖u‖/a
//
//   - σ_p²G·(4f·n_s·G + 2f(‖∇log p(θ)‖ + ‖∇log p(θ')‖) + 2G)/(8a)
//
//   - (rounding allowance, below),
//
//     which is symmetric in (θ, θ') as the penalty method requires and
//     depends on public quantities only. For replace-one it equals the
//     thesis' bound 2L‖u‖ + (2/a)G‖u‖ + σ_p²(n−1)G²/a + σ_p²G²/(2a) up to
//     a smaller last term (σ_p²G²/(4a)) and the prior's gradient, which the
//     thesis' proposal leaves out. The rounding allowance bounds the
//     floating-point error of computing Q on either dataset:
//     2·(4(d+4) + 2√d·n)·u·[(‖u‖ + B_θ)² + (‖u‖ + B_θ')²]/(2aσ_p²) with
//     B_θ = ½σ_p²(nG + ‖∇log p(θ)‖) and u = 2^−53.
//
//   - Lemma 3: M_l has μ_l = c_l/σ_l = 1/√τ.
//
// Per iteration: μ² = μ_g² + μ_l² (privacy.MALAStepMu), plus the grid
// inflation. Note that c_l grows like σ_p²·n·G²/a: the noise is moderate
// only for σ_p ≲ √a/(G√n).
//
// ℓ_i(θ) and g(θ) are cached, so an iteration evaluates the data at θ' only
// (Info.Rows = 2n; Info.Clipped counts clipped ratios plus clipped
// gradients at θ', local diagnostics). Invariance: the penalty test with a symmetric σ_l keeps
// the target invariant when no log-likelihood ratio is clipped (gradient
// clipping only changes the proposal, which Q accounts for).
//
// With Adapt set, σ_p is tuned during warmup by dual averaging on the
// released accept bit, capped at the configured Step, which is the σ_p the
// privacy cost is computed for (μ_g grows with σ_p).
//
// Diagonal metric (AdaptMetric, issue #16 part A). The proposal is
// preconditioned by a diagonal W with 0 < w_j ≤ 1, learned in warmup from
// the chain's own states (dpMetric, post-processing): with D(θ) =
// ½σ_p²·W·ĝ(θ), ĝ = g + ∇log p, the proposal is θ' = θ + W^½·v with
//
//	v = snap(W^½ĝ·½σ_p² + √a·σ_p·z)                   (the released vector)
//
// so q(θ'|θ, X) = N(θ + D(θ), aσ_p²W), and in the coordinates ũ = W^−½u,
// D̃ = W^−½D = ½σ_p²W^½ĝ the ratio is Q = (‖ũ − D̃(θ)‖² − ‖ũ + D̃(θ')‖²)/(2aσ_p²),
// the formula above with (u, D) replaced by (ũ, D̃). Because W ≤ I nothing
// in the privacy analysis grows: the released mean W^½ĝ·½σ_p² has
// sensitivity ½σ_p²‖W^½Δc‖ ≤ ½σ_p²·c_g (the same μ_g); Q's cross term is
// −ũᵀ(D̃ + D̃')/(aσ_p²) = −uᵀ(ĝ + ĝ')/(2a), unchanged, so its change is
// still ≤ f·G‖u‖/a with the Euclidean ‖u‖; and its quadratic terms
// σ_p²ĝᵀWĝ/(8a) change by at most σ_p²(2f·G‖A‖ + G²)/(8a) as before, since
// 2Δcᵀ W A + c_xᵀWc_x − c_yᵀWc_y ≤ 2f·G‖A‖ + G² for 0 ≤ W ≤ I. So c_l
// and PrivacyParams are unchanged; only the rounding allowance uses ‖ũ‖
// (≥ ‖u‖) and counts one more rounding per coordinate (the factor √w_j).
// The metric is normalised so that max_j w_j = 1: the widest direction
// steps at σ_p, the narrower ones shorter. With W = I the kernel is
// bit-identical to the unpreconditioned one.
type DPMALA struct {
	m     model.Model
	cfg   DPMALAConfig
	d, n  int
	nPub  int
	rel   privacy.Relation
	step  float64 // σ_p
	box   []model.Interval
	bits  int
	cl    clipper
	gs    gradSum
	f, ns float64

	theta, prop   []float64
	gCur, gProp   []float64 // clipped gradient sums at θ and θ'
	dCur, dProp   []float64 // drifts
	tmp           []float64
	llCur, llProp []float64
	lpCur         float64
	pCur          float64 // ‖∇log p(θ)‖
	ready         bool
	ad            dpAdapt
	noiseScale    float64 // 1 (tests only)
	metric        *dpMetric
	w, sw         []float64 // W's diagonal and its square root (nil: W = I)
}

// DPMALAConfig configures DP-MALA.
type DPMALAConfig struct {
	// Step is σ_p: drift ½σ_p²·∇, proposal variance a·σ_p². With Adapt it is
	// also the largest step (the one the privacy cost is computed for).
	Step float64 `json:"step"`
	// A is the proposal variance multiplier a (default 1: plain MALA).
	A float64 `json:"a,omitempty"`
	// Clip is r: per-row log-likelihood ratios are clipped to ±r‖θ'−θ‖₂.
	Clip float64 `json:"clip"`
	// GradClip is G: per-row gradients are clipped to L2 norm G.
	GradClip float64 `json:"grad_clip"`
	// Tau is τ of Lemma 3: σ_l² = τ·c_l², μ_l = 1/√τ.
	Tau float64 `json:"tau"`
	// N is the public number of rows (0: the model's N()).
	N int `json:"n,omitempty"`
	// Relation: "replace" (default) or "add-remove".
	Relation string `json:"relation,omitempty"`
	// Adapt tunes Step (downwards only) during warmup from the accept bits.
	Adapt bool `json:"adapt,omitempty"`
	// AdaptMetric also learns the diagonal metric W (max w_j = 1) from the
	// chain's own states during warmup (dpMetric; needs Adapt).
	AdaptMetric bool `json:"adapt_metric,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.5).
	TargetAccept float64 `json:"target_accept,omitempty"`
	// Box optionally restricts the chain to a public box.
	Box []model.Interval `json:"box,omitempty"`
	// GridBits is k of the release grid (default 24).
	GridBits int `json:"grid_bits,omitempty"`

	// NoiseOff disables the noise on λ and the grid (tests only). The
	// proposal keeps its N(0, aσ_p²) randomness (it is the proposal), so
	// the kernel is then MALA with clipped gradients and ratios.
	NoiseOff bool `json:"-"`
}

// NewDPMALA returns a DP-MALA kernel for m.
func NewDPMALA(m model.Model, cfg DPMALAConfig) (*DPMALA, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("dp-mala", cfg.Step); err != nil {
		return nil, err
	}
	if cfg.A == 0 {
		cfg.A = 1
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"a", cfg.A}, {"clip", cfg.Clip}, {"grad_clip", cfg.GradClip}, {"tau", cfg.Tau}} {
		if err := checkPositive("dp-mala "+v.name, v.x); err != nil {
			return nil, err
		}
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
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.5
	}
	ad, err := newDPAdapt(cfg.Adapt, cfg.Step, cfg.TargetAccept, cfg.Step)
	if err != nil {
		return nil, err
	}
	f := rel.SensitivityFactor()
	ns := float64(nPub)
	if rel == privacy.Replace {
		ns = float64(nPub - 1)
	}
	k := &DPMALA{
		m: m, cfg: cfg, d: d, n: n, nPub: nPub, rel: rel, step: cfg.Step,
		box: box, bits: bits, cl: newClipper(n, 1), gs: newGradSum(n, d, cfg.GradClip),
		f: f, ns: ns,
		theta: make([]float64, d), prop: make([]float64, d),
		gCur: make([]float64, d), gProp: make([]float64, d),
		dCur: make([]float64, d), dProp: make([]float64, d), tmp: make([]float64, d),
		llCur: make([]float64, n), llProp: make([]float64, n),
		ad: ad, noiseScale: 1,
		metric: newDPMetricMaxOne(cfg.AdaptMetric && cfg.Adapt, d),
	}
	if k.metric != nil {
		k.w, k.sw = make([]float64, d), make([]float64, d)
		for j := range k.w {
			k.w[j], k.sw[j] = 1, 1
		}
	}
	return k, nil
}

// Name implements Kernel.
func (k *DPMALA) Name() string { return "dp-mala" }

// Position implements Kernel.
func (k *DPMALA) Position() []float64 { return k.theta }

// StepSize is the current σ_p.
func (k *DPMALA) StepSize() float64 { return k.step }

// Init implements Kernel.
func (k *DPMALA) Init(theta0 []float64) error {
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

// drift writes D̃ = ½σ_p²·W^½(g + ∇log p(θ)) into out (D itself when
// W = I) and returns ‖∇log p(θ)‖.
func (k *DPMALA) drift(theta, g, out []float64) float64 {
	h := k.step * k.step / 2
	k.m.GradLogPrior(theta, k.tmp)
	s2 := 0.0
	for j, v := range k.tmp {
		s2 += v * v
		if k.sw != nil {
			out[j] = h * k.sw[j] * (g[j] + v)
		} else {
			out[j] = h * (g[j] + v)
		}
	}
	return math.Sqrt(s2)
}

// sensitivity returns c_l(θ, θ') (see the type's doc): dist = ‖u‖₂ and
// distW = ‖W^−½u‖₂ (= dist when W = I).
func (k *DPMALA) sensitivity(dist, distW, pCur, pProp float64) float64 {
	G, a, f := k.cfg.GradClip, k.cfg.A, k.f
	sp2 := k.step * k.step
	c := f*k.cfg.Clip*dist + f*G*dist/a +
		sp2*G*(4*f*k.ns*G+2*f*(pCur+pProp)+2*G)/(8*a)
	nf := float64(k.nPub)
	bc := sp2 / 2 * (nf*G + pCur)
	bp := sp2 / 2 * (nf*G + pProp)
	ops := 4 * float64(k.d+4)
	if k.sw != nil {
		ops = 4 * float64(k.d+5) // the factor √w_j in D̃
	}
	round := 2 * (ops + 2*math.Sqrt(float64(k.d))*nf) * unitRoundoff *
		((distW+bc)*(distW+bc) + (distW+bp)*(distW+bp)) / (2 * a * sp2)
	return c + round
}

// Step implements Kernel.
func (k *DPMALA) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	a := k.cfg.A
	sp := k.step
	pCur := k.drift(k.theta, k.gCur, k.dCur)
	// M_g: the proposal is the noisy drift (its noise is the proposal's).
	sdProp := math.Sqrt(a) * sp
	h := 0.0
	if !k.cfg.NoiseOff {
		h = gridFor(sdProp, k.bits)
	}
	for j, t := range k.theta {
		var v float64
		if h > 0 {
			v = noisyOnGrid(r.Noise, k.dCur[j], sdProp, h) // discrete Gaussian (dgauss.go)
		} else {
			v = k.dCur[j] + sdProp*r.Noise.NormFloat64() // NoiseOff: plain MALA proposal
		}
		if k.sw != nil {
			v *= k.sw[j]
		}
		k.prop[j] = t + v
	}
	lp := k.m.LogPrior(k.prop)
	if math.IsInf(lp, -1) || math.IsNaN(lp) || !inBox(k.prop, k.box) {
		return Info{}
	}
	dist := math.Sqrt(sqDist(k.prop, k.theta))
	if !(dist > 0) {
		return Info{Accepted: true, AcceptProb: 1}
	}
	sq, cl, clipped := k.ratio(dist, pCur)
	sigma := 0.0
	if !k.cfg.NoiseOff {
		sigma = k.noiseScale * math.Sqrt(k.cfg.Tau) * cl
	}
	lam := noisyScalar(r.Noise, sq, sigma, k.bits)
	logA := lam + lp - k.lpCur - sigma*sigma/2
	info := Info{AcceptProb: acceptProbMH(logA), Clipped: clipped, Rows: 2 * k.n, Divergent: logA != logA}
	if logUniform(r.Noise) < logA {
		k.theta, k.prop = k.prop, k.theta
		k.gCur, k.gProp = k.gProp, k.gCur
		k.llCur, k.llProp = k.llProp, k.llCur
		k.lpCur = lp
		info.Accepted = true
	}
	return info
}

// ratio evaluates the data at the proposal k.prop (log-likelihoods,
// clipped gradients, drift D̃(θ')) and returns the statistic the λ
// release perturbs, S + Q, its sensitivity c_l(θ, θ'), and the number of
// clipped terms. dist = ‖θ' − θ‖₂ and pCur = ‖∇log p(θ)‖, with k.dCur
// already D̃(θ).
func (k *DPMALA) ratio(dist, pCur float64) (sq, cl float64, clipped int) {
	a, sp := k.cfg.A, k.step
	k.m.LogLik(k.prop, nil, k.llProp)
	s, clipped := k.cl.sumDiff(k.llProp, k.llCur, k.cfg.Clip*dist)
	clipped += k.gs.eval(k.m, k.prop, k.gProp)
	pProp := k.drift(k.prop, k.gProp, k.dProp)
	fw, bw, uw := 0.0, 0.0, 0.0 // ‖ũ − D̃(θ)‖², ‖ũ + D̃(θ')‖², ‖ũ‖²
	for j := range k.prop {
		u := k.prop[j] - k.theta[j]
		if k.sw != nil {
			u /= k.sw[j]
		}
		x := u - k.dCur[j]
		y := u + k.dProp[j]
		fw += x * x
		bw += y * y
		uw += u * u
	}
	q := (fw - bw) / (2 * a * sp * sp)
	distW := dist
	if k.sw != nil {
		distW = math.Sqrt(uw)
	}
	return s + q, k.sensitivity(dist, distW, pCur, pProp), clipped
}

// Adapt implements Adaptive: the step from the accept bit (never above
// cfg.Step), the metric W from the chain's states (AdaptMetric).
func (k *DPMALA) Adapt(it int, info Info) {
	var changed bool
	if k.step, changed = k.ad.updateWithMetric(k.step, info.Accepted, k.metric, k.theta, k.w); changed {
		sqrtInto(k.sw, k.w)
	}
}

// PlanWarmup implements WarmupPlanner (the metric's windows).
func (k *DPMALA) PlanWarmup(warmup int) { k.metric.plan(warmup) }

// MetricNow is the current diagonal of W (a copy; all ones without
// AdaptMetric).
func (k *DPMALA) MetricNow() []float64 {
	if k.w == nil {
		w := make([]float64, k.d)
		for j := range w {
			w[j] = 1
		}
		return w
	}
	return append([]float64(nil), k.w...)
}

// EndWarmup implements Adaptive.
func (k *DPMALA) EndWarmup() { k.step = k.ad.final(k.step) }

// PrivacyParams returns the cost of one iteration at the largest step
// cfg.Step: the drift release with μ_g = σ_p·f·G/(2√a) + √d·2^−k and the
// λ release with μ_l = 1/√τ + 2^−k.
func (k *DPMALA) PrivacyParams() PrivacyCost {
	c, _ := k.cfg.Cost(k.nPub, k.d) // validated by NewDPMALA
	return c
}

// AccountParams returns the arguments of privacy.MALAAccount
// (sigmaP, a, gradSens, tau) such that MALAStepMu reproduces the
// grid-inflated μ of PrivacyParams: σ_p = cfg.Step, a, c_g inflated to
// 2√a·μ_g/σ_p, τ deflated to 1/μ_l².
func (k *DPMALA) AccountParams() (sigmaP, a, gradSens, tau float64) {
	g := k.PrivacyParams().Gaussian
	sa := math.Sqrt(k.cfg.A)
	return k.cfg.Step, k.cfg.A, 2 * sa * g[0].Mu / k.cfg.Step, 1 / (g[1].Mu * g[1].Mu)
}
