package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// Default lengths of a private run when the user fixes neither the number of
// iterations nor the noise: 500 warmup + 500 draws per chain, the noise
// calibrated to fit the budget.
const (
	defaultPrivateWarmup = 500
	defaultPrivateDraws  = 500
	// hmcTauRatio is τ_g/τ_l when DP-HMC's noise is calibrated (the DP-HMC
	// paper's banana settings: τ_l = 0.1, τ_g = 0.55).
	hmcTauRatio = 5.5
)

// gaussianAlgorithms are the private kernels whose iterations are Gaussian
// mechanisms composed with the tight Gaussian accountant.
var gaussianAlgorithms = map[string]bool{"dp-penalty": true, "dp-hmc": true, "dp-mala": true}

// LargeEpsilonNote is the plan's and the report's note for ε above
// LargeEpsilon.
func LargeEpsilonNote(eps float64) string {
	factor := fmt.Sprintf("e^ε ≈ %.2g", math.Exp(eps))
	if eps > 700 {
		factor = "e^ε, beyond any number a double holds"
	}
	return fmt.Sprintf("ε = %g is large: it lets one person's row change the probability of any output by a factor of up to %s, which is weak protection (published deployments mostly use ε between 0.1 and %g)", eps, factor, LargeEpsilon)
}

// IsLargeEpsilonNote reports whether note is a LargeEpsilonNote.
func IsLargeEpsilonNote(note string) bool {
	return strings.Contains(note, " is large: it lets one person's row change the probability of any output")
}

// LargeEpsilon is the ε above which the plan notes that the protection is
// weak.
const LargeEpsilon = 10.0

// initConfig is the dp-map initialisation of one chain (nil unless chosen):
// each of the C chains spends μ_tot·√(Share/C).
func initConfig(c *Config, n int) (*mcmc.DPInitConfig, error) {
	if c.Init.Kind != "dp-map" || c.Privacy == nil {
		return nil, nil
	}
	if strings.EqualFold(strings.TrimSpace(c.Model.Model), "gaussian") && len(c.Model.Predictors) == 0 {
		// Whether the start is one release of the column sums depends on
		// which columns it reads (prepareModel names them once the data
		// are loaded); without them the plan could charge the other start.
		return nil, errors.New("dp-map on the gaussian model needs its data columns named (predictors) to plan its start")
	}
	muTot, err := privacy.MuFor(c.Privacy.Epsilon, c.Privacy.Delta)
	if err != nil {
		return nil, err
	}
	share := or(c.Init.Share, 0.2)
	return &mcmc.DPInitConfig{
		Steps: orInt(c.Init.Steps, 100), GradClip: or(c.Init.GradClip, 1), Mu: muTot * math.Sqrt(share/float64(c.Chains)),
		N: n, Relation: c.Privacy.Relation, MeanColumns: meanStatisticColumns(c),
	}, nil
}

// initMu2 is the μ² all chains' initialisations spend together (grid
// inflation included); 0 without dp-map.
func initMu2(c *Config, n, d int) (float64, error) {
	ic, err := initConfig(c, n)
	if ic == nil || err != nil {
		return 0, err
	}
	cost, err := ic.Cost(d)
	if err != nil {
		return 0, err
	}
	m := cost.StepMu()
	return float64(c.Chains) * m * m, nil
}

// Plan is what a private run will do and spend, computed from public inputs
// only (n, d, the budget, the settings). Prepare applies the same plan, so
// every browser worker derives identical settings.
type Plan struct {
	Algorithm string `json:"algorithm"`
	Private   bool   `json:"private"`
	N         int    `json:"n"`
	Dim       int    `json:"dim"`
	Chains    int    `json:"chains"`
	Warmup    int    `json:"warmup_per_chain"`
	Draws     int    `json:"draws_per_chain"`
	// Epsilon is what the whole planned run spends at Delta (≤ the budget).
	Epsilon    float64 `json:"epsilon"`
	Delta      float64 `json:"delta"`
	Accountant string  `json:"accountant,omitempty"`
	// StepMu is the Gaussian-DP μ of one iteration, StepEpsilon the pure ε
	// of one draw (ops).
	StepMu      float64 `json:"step_mu,omitempty"`
	StepEpsilon float64 `json:"step_epsilon,omitempty"`
	// Settings are the resolved sampler settings (noise scales, clips).
	Settings Settings `json:"settings"`
	Notes    []string `json:"notes,omitempty"`
	// Warnings are the notes that weaken the guarantee itself (δ ≥ 1/n):
	// also in Notes; the CLI prints them even with --quiet.
	Warnings []string `json:"warnings,omitempty"`
	// AutoReason is why Recommend chose the algorithm when the config asked
	// for auto ("" otherwise).
	AutoReason string `json:"auto_reason,omitempty"`
	// Forecast is the mixing forecast (forecast.go), from public inputs
	// only; nil for a non-private run.
	Forecast *Forecast `json:"forecast,omitempty"`
	// meanPreview is noise-aware's preview for a mean-statistic model.
	meanPreview *MeanPreview
	// preview is noise-aware's preview of how informative the release can
	// be (noiseaware.Plan.Preview), for its forecast.
	preview *noiseaware.Preview
	// previewEpsilon is the ε at which the preview would stop warning (0:
	// none up to MaxInformativeEpsilon, or no warning).
	previewEpsilon float64
	// previewPredictors is the most predictors with which the preview
	// would stop warning at this ε (nil: no warning; 0: not even one).
	previewPredictors *int
	// replan plans the same run at another total ε without searching
	// (nil: not needed); the forecast of dp-mala uses it to find the ε to
	// mix (epsilonToMixBy).
	replan func(eps float64) *Plan
	// replanKey identifies the run's public inputs other than ε (the
	// memo of epsilonToMixBy).
	replanKey string
	// drawsGiven: the draws per chain were set by the user, not planned
	// from the budget (the too-few-draws forecast's remedy differs).
	drawsGiven bool
}

// replanKey is the config without its ε and seed, n, d and, with a model,
// its parameter names: what a plan at another ε depends on.
func replanKey(cfg *Config, m model.Model, n, d int) string {
	c := *cfg
	if c.Privacy != nil {
		b := *c.Privacy
		b.Epsilon = 0
		c.Privacy = &b
	}
	c.Seed = 0
	j, err := json.Marshal(&c)
	if err != nil {
		return ""
	}
	var names []string
	if m != nil {
		names = m.ParamNames()
	}
	return fmt.Sprintf("%s|%d|%d|%v|%q", j, n, d, m != nil, names)
}

// IterationsPerChain is warmup plus draws.
func (p *Plan) IterationsPerChain() int { return p.Warmup + p.Draws }

// MakePlan plans a run on n rows with d parameters without touching data.
// Settings that need the model's public per-row bounds (default clip
// bounds) must be given, except where the plan does not depend on them.
func MakePlan(cfg *Config, n, d int) (*Plan, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg, reason := resolveAuto(cfg, n, d)
	c, p, err := resolve(cfg, nil, n, d)
	if err == nil {
		// The run's memory limit, which Prepare checks too: a plan of
		// iterations no run can hold is refused here as there.
		err = checkStorage(c, d, cfg)
	}
	if err == nil && reason != "" {
		p.AutoReason = reason
		p.Notes = append(p.Notes, AutoNote(p.Algorithm, reason))
	}
	return p, err
}

// resolve fills the private settings of cfg (defaults from the model's
// public per-row bounds when m is not nil) and plans iterations or noise. It
// returns the resolved config (a copy) and the plan, whose notes name the
// given settings the algorithm ignores (IgnoredSettings).
func resolve(cfg *Config, m model.Model, n, d int) (*Config, *Plan, error) {
	c, p, err := resolvePlan(cfg, m, n, d)
	if err == nil {
		if ig := IgnoredSettings(cfg); len(ig) > 0 {
			p.Notes = append(p.Notes, IgnoredNote(cfg.Algorithm, ig))
			// The plan states the settings that act: an ignored --tau
			// printed as "noise τ = 1" beside noise-aware's own noise.
			p.Settings = withoutSettings(p.Settings, ig)
		}
	}
	return c, p, err
}

// withoutSettings returns s with the settings of the given JSON names
// zeroed (unset).
func withoutSettings(s Settings, names []string) Settings {
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return s
	}
	for _, k := range names {
		delete(m, k)
	}
	b, err = json.Marshal(m)
	if err != nil {
		return s
	}
	var out Settings
	if json.Unmarshal(b, &out) != nil {
		return s
	}
	return out
}

func resolvePlan(cfg *Config, m model.Model, n, d int) (*Config, *Plan, error) {
	return resolvePlanWith(cfg, m, n, d, true)
}

// resolvePlanWith is resolvePlan; replan lets the forecast of an algorithm
// whose ε to mix has no closed form (dp-mala) search it by planning again
// at other budgets (those plans do not search).
func resolvePlanWith(cfg *Config, m model.Model, n, d int, replan bool) (*Config, *Plan, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	c := *withDefaultScale(cfg)
	p := &Plan{Algorithm: c.Algorithm, Private: IsPrivate(c.Algorithm), N: n, Dim: d, Chains: c.Chains}
	if !p.Private {
		p.Warmup, p.Draws, p.Settings = c.Warmup, c.Draws, c.Settings
		if note := UnneededWarmupNote(c.Algorithm, c.Warmup); note != "" {
			p.Notes = append(p.Notes, note)
		}
		return &c, p, nil
	}
	if c.Privacy == nil {
		return nil, nil, fmt.Errorf("algorithm %s is private: give a budget (epsilon and delta)", c.Algorithm)
	}
	if n < 2 || d < 1 {
		return nil, nil, fmt.Errorf("a private run needs n ≥ 2 rows and d ≥ 1 parameters (got n = %d, d = %d)", n, d)
	}
	b := *c.Privacy
	if b.Relation == "" {
		b.Relation = "replace"
	}
	c.Privacy = &b
	p.Delta = b.Delta
	if b.Delta >= 1/float64(n) {
		w := fmt.Sprintf("δ = %g is not below 1/n = %g: a mechanism that publishes one random row would satisfy it; choose δ < 1/n", b.Delta, 1/float64(n))
		p.Notes = append(p.Notes, w)
		p.Warnings = append(p.Warnings, w)
	}
	if b.Epsilon > LargeEpsilon {
		p.Notes = append(p.Notes, LargeEpsilonNote(b.Epsilon))
	}
	if sd, given, linear := LinearNoiseSD(&c); given && linear {
		p.Notes = append(p.Notes, LinearNoiseSDNote(sd))
	}
	if IsGaussian(&c) {
		p.Notes = append(p.Notes, GaussianCovNote(c.Model.Cov != nil))
	}
	s := &c.Settings
	if m != nil {
		if err := defaultClips(c.Algorithm, s, m); err != nil {
			return nil, nil, err
		}
	} else if om := regressionOptionsModel(&c, d); om != nil {
		// A plan without data of a scaled linear or Poisson regression
		// derives the clips a run would from the same public bounds (the
		// predictors' [−1, 1], the outcome's bound, the box); where a run
		// would refuse (no box), the plan keeps the settings as given.
		t := *s
		if defaultClips(c.Algorithm, &t, om) == nil {
			*s = t
		}
	}
	// stepFree: the proposal step of dp-penalty or dp-hmc is the planner's
	// to choose (defaultStep).
	stepFree := s.Step == 0 && (c.Algorithm == "dp-penalty" || c.Algorithm == "dp-hmc")
	var err error
	if c.Algorithm == "hybrid" && c.Settings.Box <= 0 {
		// Its one-posterior-sample start is ops's: refused here, before
		// the kernel would name ops and not the flag.
		return nil, nil, errors.New("hybrid needs a public parameter --box: its one-posterior-sample start (ops) takes its log-likelihood bound over it (every parameter in [−B, B] for a box B; in a regression on the scaled predictors, a private run's default, the coefficients of the predictors scaled to [−1, 1] by their public bounds); choose it from public knowledge of where the parameters can be")
	}
	if a, ok := accountedAlgorithms[c.Algorithm]; ok {
		err = planAccounted(&c, p, a, n, d)
	} else if c.Algorithm == "ops" {
		err = planOPS(&c, p)
	} else if c.Algorithm == NoiseAware {
		err = planNoiseAware(&c, p, m, n, d)
	} else {
		err = planGaussian(&c, p, n, d)
	}
	if err != nil {
		return nil, nil, err
	}
	fin := modelForecastInputs(&c, m, d)
	fin.WidestSD = modelWidestSD(&c, m, n)
	if stepFree {
		if h := defaultStep(c.Algorithm, *s, n, d, fin); h > 0 {
			s.Step = h
			p.Notes = append(p.Notes, fmt.Sprintf("proposal step %.4g from the public rule (a move of min(μ_l/r, 2.38·s_min): ratio noise sd 2, or the optimal random-walk move at the smallest possible posterior sd); the warmup adapts it", h))
		}
	}
	p.drawsGiven = cfg.Draws > 0
	c.Warmup, c.Draws = p.Warmup, p.Draws
	p.Settings = c.Settings
	if replan && c.Algorithm == "dp-mala" {
		p.replanKey = replanKey(cfg, m, n, d)
		p.replan = func(eps float64) *Plan {
			c2 := *cfg
			b := *cfg.Privacy
			b.Epsilon = eps
			c2.Privacy = &b
			_, q, err := resolvePlanWith(&c2, m, n, d, false)
			if err != nil {
				return nil
			}
			return q
		}
	}
	p.Forecast = MakeForecast(p, fin)
	return &c, p, nil
}

// defaultClips sets the clip bounds the user left at zero to the model's
// public per-row bounds, so nothing is clipped for rows inside the public
// column bounds. They depend only on those bounds and the box.
func defaultClips(alg string, s *Settings, m model.Model) error {
	rb := m.RowBounds(box(m, s.Box))
	needClip := alg == "dp-penalty" || alg == "dp-hmc" || alg == "dp-mala" || alg == "dp-penalty-sub"
	needGrad := alg == "dp-hmc" || alg == "dp-mala" || alg == "dp-sgld" || alg == "dp-sgnht" || alg == "dp-sghmc" || alg == "hybrid"
	if needClip && s.Clip == 0 {
		if math.IsInf(rb.Lipschitz, 0) || !(rb.Lipschitz > 0) {
			return fmt.Errorf("%s needs --clip: the %s model has no finite public bound on how fast a row's log-likelihood changes (give public bounds for every column it uses and, when its parameters are unbounded, a parameter --box; or set --clip)", alg, m.Name())
		}
		s.Clip = rb.Lipschitz
	}
	if needGrad && s.GradClip == 0 {
		if math.IsInf(rb.GradNorm, 0) || !(rb.GradNorm > 0) {
			return fmt.Errorf("%s needs --grad-clip: the %s model has no finite public bound on a row's gradient (give public bounds for every column it uses and, when its parameters are unbounded, a parameter --box; or set --grad-clip)", alg, m.Name())
		}
		s.GradClip = rb.GradNorm
	}
	return nil
}

// stepCost is the per-iteration cost of a Gaussian DP kernel with settings
// s, from the same mcmc config that builds the kernel.
func stepCost(alg string, s Settings, relation string, n, d int) (mcmc.PrivacyCost, error) {
	switch alg {
	case "dp-penalty":
		return penaltyConfig(s, relation, n).Cost(n, d)
	case "dp-hmc":
		return hmcConfig(s, relation, n).Cost(n, d)
	case "dp-mala":
		return malaConfig(s, relation, n).Cost(n, d)
	}
	return mcmc.PrivacyCost{}, fmt.Errorf("no Gaussian accounting for %s", alg)
}

func penaltyConfig(s Settings, relation string, n int) mcmc.DPPenaltyConfig {
	return mcmc.DPPenaltyConfig{Step: or(s.Step, 0.05), Clip: s.Clip, Tau: s.Tau, N: n, Relation: relation,
		OCU: s.OCU, GRW: s.GRW, Adapt: !s.NoAdapt, AdaptMetric: !s.NoAdapt, TargetAccept: s.TargetAccept}
}

func hmcConfig(s Settings, relation string, n int) mcmc.DPHMCConfig {
	return mcmc.DPHMCConfig{Step: or(s.Step, 0.01), Leapfrog: orInt(s.Leapfrog, 10), Clip: s.Clip, GradClip: s.GradClip,
		Tau: s.Tau, TauGrad: s.TauGrad, N: n, Relation: relation, Adapt: !s.NoAdapt, AdaptMetric: !s.NoAdapt, TargetAccept: s.TargetAccept,
		Jitter: mcmc.JitterConfig{Kind: s.Jitter}}
}

func malaConfig(s Settings, relation string, n int) mcmc.DPMALAConfig {
	return mcmc.DPMALAConfig{Step: or(s.Step, 0.01), A: or(s.MALAScale, 1), Clip: s.Clip, GradClip: s.GradClip,
		Tau: s.Tau, N: n, Relation: relation, Adapt: !s.NoAdapt, AdaptMetric: !s.NoAdapt, TargetAccept: s.TargetAccept}
}

// planGaussian plans a kernel whose iterations are Gaussian mechanisms,
// composed with the tight Gaussian accountant (dp-hmc.txt Thm 2.4): either
// the most iterations the budget allows for the given noise, or the least
// noise that fits the given iterations.
func planGaussian(c *Config, p *Plan, n, d int) error {
	b := c.Privacy
	s := &c.Settings
	rel := b.Relation
	if c.Algorithm == "dp-hmc" {
		// One of the two noise scales given: the other at the documented
		// ratio τ_g = 5.5·τ (before, a lone --tau was silently replaced by
		// the calibrated one).
		switch {
		case s.Tau > 0 && s.TauGrad == 0:
			s.TauGrad = hmcTauRatio * s.Tau
		case s.TauGrad > 0 && s.Tau == 0:
			s.Tau = s.TauGrad / hmcTauRatio
		}
	}
	noiseGiven := s.Tau > 0
	itersGiven := c.Draws > 0
	if c.Algorithm == "dp-mala" && s.GradClip == 0 {
		return errors.New("dp-mala: the plan needs --grad-clip (the proposal's privacy cost depends on it)")
	}
	p.Accountant = privacy.MethodTight
	im2, err := initMu2(c, n, d)
	if err != nil {
		return err
	}
	// The continuous budget after the discrete-Gaussian charge
	// (discrete_charge.go), for the iterations if they are known (else the
	// charge of the initialisations only; the final check below holds
	// either way).
	TKnown := 0
	if itersGiven || !noiseGiven {
		w, dr := c.Warmup, c.Draws
		if !itersGiven {
			w, dr = max(c.Warmup, defaultPrivateWarmup), defaultPrivateDraws
		}
		TKnown = c.Chains * (w + dr)
	}
	epsC, deltaC, err := gaussianBudget(c, n, d, TKnown)
	if err != nil {
		return err
	}
	muTot, err := privacy.MuFor(epsC, deltaC)
	if err != nil {
		return err
	}
	if im2 >= muTot*muTot {
		return errors.New("the dp-map initialisation alone spends the whole budget: lower its share")
	}
	muAvail := math.Sqrt(muTot*muTot - im2)
	// total is the exact ε of T iterations plus the initialisations, with
	// the discrete-Gaussian charge.
	total := func(mu1 float64, T int) (float64, error) {
		e, _, err := tightCharged(c, n, d, T, mu1, im2)
		return e, err
	}
	if c.Algorithm == "dp-mala" && s.Step == 0 {
		// DP-MALA's proposal spends μ_g = σ_p·f·G/(2√a) per iteration
		// whatever its noise: by default give it half of the per-iteration
		// μ² the budget allows, σ_p = (μ₁/√2)·2√a/(f·G).
		T := c.Chains * (c.Warmup + c.Draws)
		if !itersGiven {
			T = c.Chains * (max(c.Warmup, defaultPrivateWarmup) + defaultPrivateDraws)
		}
		if TKnown == 0 {
			TKnown = T
			if epsC, deltaC, err = gaussianBudget(c, n, d, T); err != nil {
				return err
			}
			if muTot, err = privacy.MuFor(epsC, deltaC); err != nil {
				return err
			}
			muAvail = math.Sqrt(max(muTot*muTot-im2, 0))
		}
		f := 2.0
		if rel == "add-remove" {
			f = 1
		}
		mu1 := muAvail / math.Sqrt(float64(T))
		s.Step = mu1 / math.Sqrt2 * 2 * math.Sqrt(or(s.MALAScale, 1)) / (f * s.GradClip)
	}
	switch {
	case noiseGiven:
		cost, err := stepCost(c.Algorithm, *s, rel, n, d)
		if err != nil {
			return err
		}
		mu1 := cost.StepMu()
		maxT, err := maxIterations(b.Epsilon, func(T int) (privacy.Report, error) {
			e, err := total(mu1, T)
			return privacy.Report{Epsilon: e}, err
		})
		if err != nil {
			return err
		}
		per := maxT / c.Chains
		if itersGiven {
			need := c.Warmup + c.Draws
			if need > per {
				return fmt.Errorf("the budget (ε = %g, δ = %g) allows %d iterations per chain with this noise (%d chains), but %d were asked for (warmup %d + draws %d): lower the iterations, raise the noise (--tau), or leave one of them unset to have it planned", b.Epsilon, b.Delta, per, c.Chains, need, c.Warmup, c.Draws)
			}
			p.Warmup, p.Draws = c.Warmup, c.Draws
		} else {
			if per < 2 {
				return fmt.Errorf("the budget (ε = %g, δ = %g) allows only %d iterations in total for %d chains with this noise: raise the noise (--tau) or the budget", b.Epsilon, b.Delta, maxT, c.Chains)
			}
			p.Warmup = c.Warmup
			if p.Warmup == 0 || p.Warmup >= per {
				p.Warmup = per / 2
			}
			p.Draws = per - p.Warmup
		}
		p.StepMu = mu1
	default:
		if !itersGiven {
			if c.Warmup == 0 {
				c.Warmup = defaultPrivateWarmup
			}
			c.Draws = defaultPrivateDraws
		}
		p.Warmup, p.Draws = c.Warmup, c.Draws
		T := c.Chains * (c.Warmup + c.Draws)
		if err := calibrate(c.Algorithm, s, rel, n, d, T, muAvail, func(mu1 float64) (float64, error) { return total(mu1, T) }, b.Epsilon); err != nil {
			return err
		}
		cost, err := stepCost(c.Algorithm, *s, rel, n, d)
		if err != nil {
			return err
		}
		p.StepMu = cost.StepMu()
	}
	T := c.Chains * (p.Warmup + p.Draws)
	eps, err := total(p.StepMu, T)
	if err != nil {
		return err
	}
	if im2 > 0 {
		how := fmt.Sprintf("%d noisy gradient steps", orInt(c.Init.Steps, 100))
		if k := meanStatisticColumns(c); k > 0 {
			how = fmt.Sprintf("one release of the %d data columns' clipped sums, then the posterior mode given them; init steps and grad_clip are not used", k)
		}
		p.Notes = append(p.Notes, fmt.Sprintf("each chain starts from a private estimate of the posterior mode (%s), which spends μ² = %.4g of the total", how, im2))
	}
	if eps > b.Epsilon {
		return fmt.Errorf("internal: planned ε %v exceeds the budget %v", eps, b.Epsilon)
	}
	p.Epsilon = eps
	return nil
}

// calibrate sets the noise scales of s to the smallest (up to 1e-9
// relative) for which T iterations stay within (ε, δ). The noise scales
// enter every μ as 1/scale (penalty, HMC) or 1/√τ (MALA's ratio), so μ per
// iteration decreases in a common multiplier; it is found by bisection on
// that multiplier and the result is checked.
func calibrate(alg string, s *Settings, rel string, n, d, T int, muAvail float64, total func(mu1 float64) (float64, error), eps float64) error {
	target := muAvail / math.Sqrt(float64(T))
	set := func(x float64) {
		switch alg {
		case "dp-hmc":
			s.Tau, s.TauGrad = x, hmcTauRatio*x
		default:
			s.Tau = x
		}
	}
	mu := func(x float64) float64 {
		t := *s
		switch alg {
		case "dp-hmc":
			t.Tau, t.TauGrad = x, hmcTauRatio*x
		default:
			t.Tau = x
		}
		c, err := stepCost(alg, t, rel, n, d)
		if err != nil {
			return math.Inf(1)
		}
		return c.StepMu()
	}
	lo, hi := 1e-12, 1.0
	for mu(hi) > target {
		hi *= 2
		if hi > 1e30 {
			if alg == "dp-mala" {
				return fmt.Errorf("dp-mala: the proposal alone (step %g, grad clip %g) spends more than the budget allows for %d iterations: lower --step or --grad-clip, or the iterations", s.Step, s.GradClip, T)
			}
			return fmt.Errorf("%s: no noise level fits %d iterations in ε = %g (the grid inflation alone exceeds it): lower the iterations", alg, T, eps)
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-9*hi; i++ {
		mid := (lo + hi) / 2
		if mu(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	set(hi)
	// Check the composition directly; nudge up if the root was on the edge.
	for range 60 {
		c, err := stepCost(alg, *s, rel, n, d)
		if err != nil {
			return err
		}
		got, err := total(c.StepMu())
		if err != nil {
			return err
		}
		if got <= eps {
			return nil
		}
		hi *= 1 + 1e-9
		set(hi)
	}
	return errors.New("internal: noise calibration did not converge")
}

// planOPS plans one-posterior-sample draws: each draw is pure
// ε_draw-DP (Wang et al. 2015, Alg. 1), and the draws compose by the
// basic composition of pure DP, so ε_draw = ε / (chains × draws). Warmup
// is zero: every draw is an independent exact sample.
func planOPS(c *Config, p *Plan) error {
	if c.Settings.Box <= 0 {
		return errors.New("ops needs a public parameter --box: its log-likelihood bound is taken over it (every parameter in [−B, B] for a box B; in a regression on the scaled predictors, a private run's default, the coefficients of the predictors scaled to [−1, 1] by their public bounds); choose it from public knowledge of where the parameters can be, since no draw can leave it")
	}
	draws := c.Draws
	if draws < 1 {
		draws = 1
	}
	p.Warmup, p.Draws = 0, draws
	total := c.Chains * draws
	p.StepEpsilon = c.Privacy.Epsilon / float64(total)
	p.Epsilon = p.StepEpsilon * float64(total)
	if p.Epsilon > c.Privacy.Epsilon {
		p.StepEpsilon = math.Nextafter(p.StepEpsilon, 0)
		p.Epsilon = p.StepEpsilon * float64(total)
	}
	p.Accountant = "pure (basic composition)"
	p.Notes = append(p.Notes, "one-posterior-sample's guarantee holds for exact samples from the tempered posterior; each draw here is the end of a long MH run inside the box, which approximates exact sampling (no extra δ is accounted for the approximation)")
	return nil
}
