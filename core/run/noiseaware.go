package run

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/report"
)

// NoiseAware is the name of the noise-aware algorithm (core/noiseaware).
const NoiseAware = "noise-aware"

// defaultNoiseAwareDraws is the draws per chain of a noise-aware run when
// none are given: draws are free (post-processing), warmup is 0 (each draw
// is independent).
const defaultNoiseAwareDraws = 1000

// releaseStream is the chain index whose noise stream (rng.ForChain) makes
// the noise-aware release. Every chain derives it from the run's key, so all
// chains (one per browser worker, or goroutines) compute the same ONE
// release; real chains are 0..63.
const releaseStream = -1

// releaser is a kernel that makes a one-off private release before its
// chain starts (noiseaware.Kernel).
type releaser interface {
	Release(noise *rand.Rand) error
	// Adopt uses a release made by another chain of the run.
	Adopt(rel *noiseaware.Release) error
	// Released is the release sampled from (nil before Release or Adopt).
	Released() *noiseaware.Release
}

// SharedRelease reports whether the named algorithm makes one private
// release for the whole run that all chains sample from (noise-aware): its
// chains need one key (NewChainSharedKey) or the release of the first
// chain (NewChainFromRelease).
func SharedRelease(name string) bool { return name == NoiseAware }

// noiseAwareSpec is the public spec of the mechanism for cfg on n rows and
// d coefficients. Without a model (a plan without data) the design ranges
// are unit ranges: the noise depends only on d, the family and the
// outcome's public bound.
func noiseAwareSpec(cfg *Config, m model.Model, n, d int) (noiseaware.Spec, error) {
	fam := strings.ToLower(strings.TrimSpace(cfg.Model.Model))
	// The noise is an exact discrete Gaussian: calibrate to the continuous
	// budget left after its charge (privacy.DiscreteGaussianBudget) for the
	// releases' coordinates (R·(d + d(d+1)/2), the plan's R).
	// The first release chooses the coordinates of the later ones
	// (logistic and Poisson with an intercept; noiseaware.Spec.AdaptCoords).
	releases := max(noiseaware.ReleasesFor(noiseaware.Spec{Family: fam, AdaptCoords: true, Intercept: !cfg.Model.NoIntercept}), 1)
	coords := float64(releases * (d + d*(d+1)/2))
	ec, dc, _, err := privacy.DiscreteGaussianBudget(coords, noiseaware.GridBits, cfg.Privacy.Epsilon, cfg.Privacy.Delta)
	if err != nil {
		return noiseaware.Spec{}, err
	}
	if !(ec > 0) {
		return noiseaware.Spec{}, errNoRoomForReleaseCharge
	}
	mu, err := privacy.MuFor(ec, dc)
	if err != nil {
		return noiseaware.Spec{}, err
	}
	// μ a relative 1e-7 below the calibration target, so that ε spent,
	// rounded up for the report, never shows more than the budget.
	s := noiseaware.Spec{Family: fam, N: n, D: d, Intercept: !cfg.Model.NoIntercept, PriorSD: cfg.Model.PriorSD, Mu: mu * (1 - 1e-7), AdaptCoords: true, Releases: releases}
	if m != nil {
		rd, ok := model.RegressionDataOf(m)
		if !ok {
			return s, fmt.Errorf("noise-aware works for the logistic, linear and poisson models (got %s)", cfg.Model.Model)
		}
		s.Intercept, s.XRanges, s.YRange, s.NoiseSD = rd.Intercept, rd.XRanges, rd.YRange, rd.NoiseSD
		if rd.Temper != 1 && rd.Temper != 0 {
			return s, fmt.Errorf("noise-aware does not support tempering (temper = %v)", rd.Temper)
		}
		return s, nil
	}
	s.XRanges = make([]model.Interval, d)
	for j := range s.XRanges {
		s.XRanges[j] = model.Interval{Lo: -1, Hi: 1}
	}
	if s.Intercept {
		s.XRanges[0] = model.Interval{Lo: 1, Hi: 1}
	}
	s.YRange = model.Interval{Lo: -1, Hi: 1}
	if b, ok := cfg.Data.Bounds[cfg.Model.Outcome]; ok {
		s.YRange = model.Interval{Lo: b[0], Hi: b[1]}
	} else if fam == "poisson" {
		return s, fmt.Errorf("noise-aware poisson needs the outcome's public bound (--bound %s=0:K): K caps the mean", cfg.Model.Outcome)
	}
	s.NoiseSD = 1
	if v, ok := cfg.Model.Options["noise-sd"]; ok {
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			s.NoiseSD = x
		}
	}
	return s, nil
}

// noiseAwarePlan returns the mechanism's release schedule for cfg.
func noiseAwarePlan(cfg *Config, m model.Model, n, d int) (*noiseaware.Plan, error) {
	s, err := noiseAwareSpec(cfg, m, n, d)
	if err != nil {
		return nil, err
	}
	return noiseaware.NewPlan(s)
}

// planNoiseAware fills the plan of a noise-aware run: the budget is spent
// by the releases, whatever the number of draws.
func planNoiseAware(c *Config, p *Plan, m model.Model, n, d int) error {
	if c.Privacy.Relation == "add-remove" {
		return fmt.Errorf("noise-aware treats n as public (its expansion points and the means of its release use it): use the replace-one relation")
	}
	if isMeanStatisticModel(c.Model.Model) {
		return planNoiseAwareMean(c, p, m, n)
	}
	if !isRegression(c.Model.Model) {
		return fmt.Errorf("noise-aware works for the logistic, linear, poisson, gaussian and banana models (got %s)", c.Model.Model)
	}
	if d > MaxNoiseAwareDim {
		return fmt.Errorf("noise-aware handles at most %d coefficients (this model has %d): every posterior draw decomposes a d×d matrix (about 10 s natively at 64 with the default draws, longer in a browser, hours at 300), and at clinical sizes a release this wide tells little; use fewer predictors", MaxNoiseAwareDim, d)
	}
	spec, err := noiseAwareSpec(c, m, n, d)
	if err != nil {
		return err
	}
	np, err := noiseaware.NewPlan(spec)
	if err != nil {
		return err
	}
	if pv, ok := np.Preview(spec.Family, n, spec.Intercept); ok {
		p.preview = &pv
		if weakAtQuarter(pv) {
			p.previewEpsilon = informativeEpsilon(c, m, n, d)
			k := informativePredictors(spec, n)
			p.previewPredictors = &k
		}
	}
	eps, _, err := noiseAwareEpsilon(c, np)
	if err != nil {
		return err
	}
	if !(eps <= c.Privacy.Epsilon) { // NaN included
		return fmt.Errorf("noise-aware: internal error: the releases spend ε = %v, over the budget's %v", eps, c.Privacy.Epsilon)
	}
	planNoiseAwareDraws(c, p)
	p.Epsilon, p.Accountant = eps, privacy.MethodTight+" Gaussian (μ-GDP composition of the releases)"
	releases := fmt.Sprintf("%d private releases", np.Releases)
	if np.Releases == 1 {
		releases = "1 private release"
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%s of the score and Fisher information (μ = %s in total), made once and shared by all chains; every draw after them is free", releases, fmtFloat(np.Mu)))
	for _, b := range np.Blocks {
		p.Notes = append(p.Notes, fmt.Sprintf("release: %s: L2 sensitivity %.4g, noise std %.4g, μ = %.4g", b.What, b.Sensitivity, b.Std, b.Mu))
	}
	if dp := np.Design(); dp != nil {
		p.Notes = append(p.Notes, designCoordsNote(dp))
	}
	return nil
}

// blockSettings records the noise std and sensitivity of blocks[from:] in
// the report's settings as noise_std_score_R, sensitivity_info_R, … (R the
// 1-based release, each release a score then an information block), with
// suffix appended.
func blockSettings(settings map[string]float64, blocks []noiseaware.Block, from int, suffix string) {
	for i := from; i < len(blocks); i++ {
		kind := "score"
		if i%2 == 1 {
			kind = "info"
		}
		settings[fmt.Sprintf("noise_std_%s_%d%s", kind, i/2+1, suffix)] = blocks[i].Std
		settings[fmt.Sprintf("sensitivity_%s_%d%s", kind, i/2+1, suffix)] = blocks[i].Sensitivity
	}
}

// designCoordsNote says, for the plan and the report, that the releases
// after the first may be made in design-adapted coordinates (dp: that
// schedule), when, and with which sensitivities and noise.
func designCoordsNote(dp *noiseaware.Plan) string {
	num := func(v float64) string { return fmt.Sprintf("%.4g", v) }
	var sens, stdS, stdM []string
	for i, b := range dp.Blocks {
		if i < 2 {
			continue // the first release is the same in both schedules
		}
		if i%2 == 0 {
			stdS = append(stdS, num(b.Std))
		} else {
			stdM = append(stdM, num(b.Std))
		}
		if i < 4 {
			sens = append(sens, num(b.Sensitivity))
		}
	}
	return fmt.Sprintf("design-adapted coordinates: when the first release shows the predictors filling a small part of their bounds (an eigenvalue of their covariance, estimated from it, below %s·d/(1 + C²)), the later releases sum each row in coordinates whitened by that estimate and shrunk to norm C = %s instead of the bounds' box: the same μ per release, with L2 sensitivities %s (score) and %s (information) and noise stds %s (score) and %s (information) at expansion points 2–%d; the choice is post-processing of the first release",
		num(noiseaware.DesignCoordsGain), num(dp.ClipRadius), sens[0], sens[1], strings.Join(stdS, ", "), strings.Join(stdM, ", "), dp.Releases)
}

// NoteRelease checks that release, the JSON of the release the chains of
// a noise-aware run (cfg, n rows, d coefficients) sampled from
// (Result.Release, Chain.ReleaseJSON), is this run's: made on n rows with
// the noise of this run's plan (Plan.Verify), so that the report's ε is the
// one it was made under. It adds nothing computed from the release: which
// coordinates the later releases used, and the first release's eigenvalue
// estimate behind that choice, are data-dependent (DESIGN.md rule 5: an
// export holds the draws, the public config and the report, never another
// data-dependent statistic), so the report states only the public rule
// (designCoordsNote). Other algorithms and models, and a nil release, are
// not checked.
func (r *PrivacyReport) NoteRelease(cfg *Config, n, d int, release []byte) error {
	if release == nil || !SharedRelease(cfg.Algorithm) || isMeanStatisticModel(cfg.Model.Model) {
		return nil
	}
	np, err := noiseAwarePlan(cfg, nil, n, d)
	if err != nil {
		return err
	}
	var rel noiseaware.Release
	if err := json.Unmarshal(release, &rel); err != nil {
		return fmt.Errorf("the run's release: %w", err)
	}
	if _, err := np.Verify(&rel, strings.ToLower(strings.TrimSpace(cfg.Model.Model)), n, d); err != nil {
		return fmt.Errorf("the run's release: %w", err)
	}
	return nil
}

// NoteReleaseOrSay is NoteRelease for a report that must be written
// whatever happens (the budget is spent): a release NoteRelease refuses
// leaves a note saying why.
func (r *PrivacyReport) NoteReleaseOrSay(cfg *Config, n, d int, release []byte) {
	if err := r.NoteRelease(cfg, n, d, release); err != nil {
		r.Notes = append(r.Notes, "the release the chains sampled from could not be checked against this run's plan: "+err.Error())
	}
}

// planNoiseAwareDraws sets the plan's warmup and draws: no warmup by
// default, as the draws are iid (NoWarmupNote); a warmup given explicitly
// is honoured (it spends no privacy) and called unnecessary.
func planNoiseAwareDraws(c *Config, p *Plan) {
	p.Warmup, p.Draws = c.Warmup, c.Draws
	if p.Draws == 0 {
		p.Draws = defaultNoiseAwareDraws
	}
	if p.Warmup == 0 {
		p.Notes = append(p.Notes, NoWarmupNote)
	} else {
		p.Notes = append(p.Notes, fmt.Sprintf("warmup %d per chain as given, though noise-aware needs none (%s): those draws are computed and discarded; they spend no privacy; set the warmup to 0", p.Warmup, noWarmupReason))
	}
}

// informativeEpsilon is the smallest ε (at the budget's δ, the same n, d
// and model) at which the preview stops warning (weakAtQuarter), by
// bisection on log ε over the fixed bracket [MinInformativeEpsilon,
// MaxInformativeEpsilon] (10 halvings: within 1.4% above the threshold);
// 0 when even the largest does not suffice. The bracket does not depend on
// the budget's ε, so neither does the answer (a page review saw "about 15"
// at ε = 0.1 and "about 14" at ε = 3 for the same data): midpoints at or
// below the budget's ε, where the caller found the preview weak, are
// taken as weak without a preview. Public inputs only, like the preview.
func informativeEpsilon(c *Config, m model.Model, n, d int) float64 {
	weak := func(eps float64) bool {
		c2, b := *c, *c.Privacy
		b.Epsilon, c2.Privacy = eps, &b
		s, err := noiseAwareSpec(&c2, m, n, d)
		return err != nil || weakSpec(s, n)
	}
	lo, hi := math.Log(MinInformativeEpsilon), math.Log(MaxInformativeEpsilon)
	if weak(MaxInformativeEpsilon) {
		return 0
	}
	known := math.Log(c.Privacy.Epsilon)
	for range 10 {
		mid := (lo + hi) / 2
		if mid <= known || weak(math.Exp(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp(hi)
}

// MinInformativeEpsilon is the lower end of informativeEpsilon's bracket.
const MinInformativeEpsilon = 1e-3

// informativePredictors is the largest number of predictors k, below the
// spec's, with which the preview at the same n, ε and δ stops warning
// (weakAtQuarter); 0 when even one predictor warns. It bisects on k (the
// caller knows the spec's own number warns), so it runs about log₂ k
// previews, the largest at half the predictors. Fewer predictors lower
// both sensitivities (Δ_S ∝ √d, Δ_M ∝ d) and leave each coefficient more
// of the information. Public inputs only: the preview's synthetic design
// does not depend on the ranges, so the first k + intercept columns stand
// for any k predictors.
func informativePredictors(spec noiseaware.Spec, n int) int {
	icpt := 0
	if spec.Intercept {
		icpt = 1
	}
	weak := func(k int) bool {
		s := spec
		s.D = k + icpt
		s.XRanges = spec.XRanges[:s.D]
		return weakSpec(s, n)
	}
	lo, hi := 0, spec.D-icpt // k = lo is informative (0: vacuously), k = hi warns
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if weak(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo
}

// MaxInformativeEpsilon is the largest ε informativeEpsilon tries.
const MaxInformativeEpsilon = 1000.0

// weakAtQuarter reports whether the preview says that for predictors spread
// over a quarter of their public half-range a slope's posterior sd per
// predictor sd, in the preview's effect unit (log odds; the linear model's
// noise sd), exceeds StrongEffectSD.
func weakAtQuarter(pv noiseaware.Preview) bool {
	for i, f := range pv.Spread {
		if f == weakSpread && i < len(pv.SDRatio) && pv.EffectSD(i) > StrongEffectSD {
			return true
		}
	}
	return false
}

// weakSpread is the predictor spread (sd over public half-range) at which
// the preview's warning is judged.
const weakSpread = 0.25

// weakSpec is weakAtQuarter for the release that spec would plan, from the
// preview at weakSpread alone (the searches over ε and over the number of
// predictors); true when the spec cannot be planned.
func weakSpec(spec noiseaware.Spec, n int) bool {
	np, err := noiseaware.NewPlan(spec)
	if err != nil {
		return true
	}
	r, _ := np.PreviewRatio(spec.Family, n, spec.Intercept, weakSpread)
	return weakAtQuarter(noiseaware.Preview{Spread: []float64{weakSpread}, SDRatio: []float64{r}, PriorSD: np.PriorSD, EffectUnit: np.EffectUnit()})
}

// noiseAwareEpsilon is ε at the budget's δ of the releases of np: the
// tight Gaussian of μ, with the discrete-Gaussian charge for their
// coordinates; it returns the charge's report line.
func noiseAwareEpsilon(c *Config, np *noiseaware.Plan) (float64, string, error) {
	eps, ch, err := privacy.DiscreteGaussianEpsilon(float64(np.Coords), noiseaware.GridBits, c.Privacy.Epsilon, c.Privacy.Delta, privacy.TightGaussian{Mu: np.Mu}.Epsilon)
	if err != nil || ch.Epsilon == 0 {
		return eps, "", err
	}
	return eps, ch.Describe(), nil
}

// newNoiseAwareKernel builds the kernel (the release happens in NewChain).
func newNoiseAwareKernel(m model.Model, c *Config) (mcmc.Kernel, error) {
	if c.Privacy == nil {
		return nil, fmt.Errorf("noise-aware is private: give a budget (epsilon and delta)")
	}
	if isMeanStatisticModel(c.Model.Model) {
		mp, err := noiseAwareMeanPlan(c)
		if err != nil {
			return nil, err
		}
		return noiseaware.NewMeanKernel(m, mp)
	}
	np, err := noiseAwarePlan(c, m, m.N(), m.Dim())
	if err != nil {
		return nil, err
	}
	return noiseaware.NewKernel(m, np)
}

// noWarmupReason is why noise-aware needs no warmup (core/noiseaware:
// each Step draws M and then θ afresh from the posterior given the one
// release; no state carries over from one draw to the next).
const noWarmupReason = "its draws are independent (iid) exact draws from the posterior given the releases, not steps of a Markov chain, so there is nothing to warm up"

// NoWarmupNote is the plan's and the report's note for a noise-aware run
// without warmup, the default.
const NoWarmupNote = "no warmup: iid draws (" + noWarmupReason + ")"

// WarmupNote says why the named algorithm runs no warmup (the page
// disables its warmup input), or "" when it has one. ops plans 0 warmup
// whatever is asked (planOPS); noise-aware defaults to 0 (planNoiseAware);
// exact runs the warmup only when one is given (the CLI does not count its
// flag's default).
func WarmupNote(name string) string {
	switch name {
	case NoiseAware:
		return "no warmup: " + noWarmupReason
	case "ops":
		return "no warmup: each draw is an independent one-posterior-sample release"
	case Exact:
		return "no warmup: its draws are independent exact draws from the closed-form posterior, not steps of a Markov chain"
	}
	return ""
}

// UnneededWarmupNote says that a non-private run of an algorithm without
// warmup (WarmupNote: exact) was given one anyway, or "" otherwise.
func UnneededWarmupNote(alg string, warmup int) string {
	note := WarmupNote(alg)
	if note == "" || warmup <= 0 || IsPrivate(alg) {
		return ""
	}
	return fmt.Sprintf("warmup %d per chain as given, though %s needs none (%s): those draws are computed and discarded; set the warmup to 0", warmup, alg, strings.TrimPrefix(note, "no warmup: "))
}

// NoiseAwareApproximations says the approximations of the noise-aware
// posterior in words (the report's note).
const NoiseAwareApproximations = "the noise-aware posterior is approximate: the log-likelihood is replaced by its second-order expansion at the last expansion point (exact for the linear model) with an extra score variance for the expansion's error, estimated from the last two releases, the score's sampling distribution by its normal approximation, and the unknown Fisher information by draws from its release-noise pivot projected onto the positive semi-definite matrices; an outcome outside its public bound enters at the bound, which the Poisson model reads as censored (a count of K means K or more, with the rate capped at K) and the linear model does not model; its credible intervals widen as ε shrinks and are meant to cover the truth at their stated rate, not to mimic the non-private posterior"

// noiseAwareReport fills the report of a noise-aware run. The releases are
// made once, before any chain runs, and are counted in full whatever ran.
func noiseAwareReport(r *PrivacyReport, cfg *Config, n, d int) error {
	if isMeanStatisticModel(cfg.Model.Model) {
		return noiseAwareMeanReport(r, cfg)
	}
	np, err := noiseAwarePlan(cfg, nil, n, d)
	if err != nil {
		return err
	}
	eps, charge, err := noiseAwareEpsilon(cfg, np)
	if err != nil {
		return err
	}
	r.Epsilon, r.Mu = eps, np.Mu
	if charge != "" {
		r.Notes = append(r.Notes, charge)
	}
	r.Accountant = privacy.MethodTight + " Gaussian (μ-GDP composition of the releases, Sommer et al. / Dong et al.)"
	var parts []string
	for _, b := range np.Blocks {
		parts = append(parts, fmt.Sprintf("%s (%d entries, L2 sensitivity %s, noise std %s, μ = %s)", b.What, b.Entries, fmtFloat(b.Sensitivity), fmtFloat(b.Std), fmtFloat(b.Mu)))
	}
	r.Mechanism = "once for the whole run, shared by all chains: " + strings.Join(parts, "; ") + ", on the predictors scaled to [-1, 1] by their public bounds; released values are rounded to a grid of step ≤ σ·2^-24 and μ includes that inflation; the posterior draws are post-processing"
	r.Settings["releases"] = float64(np.Releases)
	r.Settings["prior_sd_scaled"] = np.PriorSD
	blockSettings(r.Settings, np.Blocks, 0, "")
	if np.Cap > 0 {
		r.Settings["poisson_mean_cap"] = np.Cap
	}
	if dp := np.Design(); dp != nil {
		r.Notes = append(r.Notes, designCoordsNote(dp))
		r.Settings["design_clip_radius"] = dp.ClipRadius
		blockSettings(r.Settings, dp.Blocks, 2, "_design") // the first release is the box's in both
	}
	if np.PathNoise > 0 {
		r.Settings["path_noise"] = np.PathNoise
		r.Notes = append(r.Notes, shrunkPathNote(np))
	}
	if cfg.Warmup == 0 {
		r.Notes = append(r.Notes, NoWarmupNote)
	}
	prior := fmt.Sprintf("prior: N(0, %s²) on every coefficient of the predictors scaled to [-1, 1] by their public bounds (intercept at the bounds' centres)", fmtFloat(np.PriorSD))
	if np.YHalf != 1 || np.YCentre != 0 {
		prior += fmt.Sprintf(", for the outcome scaled to [-1, 1] by its public bound too (centre %s, half-range %s): in the outcome's units N(0, %s²) per scaled predictor", fmtFloat(np.YCentre), fmtFloat(np.YHalf), fmtFloat(np.PriorSD*np.YHalf))
		if !cfg.Model.NoIntercept {
			prior += fmt.Sprintf(" and N(%s, %s²) on the intercept", fmtFloat(np.YCentre), fmtFloat(np.PriorSD*np.YHalf))
		}
	}
	r.Notes = append(r.Notes, NoiseAwareApproximations, prior)
	if c := report.CalibrationNote(cfg.Model.Model); c != "" {
		r.Notes = append(r.Notes, c)
	}
	if np.Cap > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Poisson: each row's fitted mean is capped at the outcome's public upper bound K = %s in the released score and information", fmtFloat(np.Cap)))
	}
	if math.IsNaN(eps) {
		return fmt.Errorf("noise-aware: ε is not a number")
	}
	return nil
}

// Auto is the algorithm name that asks for the recommended algorithm
// (Recommend), resolved when the number of rows and parameters is known:
// by Prepare and PrepareStream once the data are loaded, by MakePlan from
// its n and d. The page resolves it from the same public n and d, so a
// CLI run and a page run choose the same algorithm.
const Auto = "auto"

// resolveAuto returns cfg with Auto replaced by Recommend's choice for n
// rows and d parameters, and the reason ("" when cfg did not ask for Auto).
func resolveAuto(cfg *Config, n, d int) (*Config, string) {
	if cfg.Algorithm != Auto {
		return cfg, ""
	}
	c := *cfg
	var reason string
	c.Algorithm, reason = Recommend(c.Model.Model, n, d, c.Privacy != nil, MeanStatisticBounded(&c))
	return &c, reason
}

// AutoNote is the plan's and the report's note of an Auto choice.
func AutoNote(alg, reason string) string {
	return fmt.Sprintf("algorithm chosen by --algorithm auto: %s (%s)", alg, reason)
}

// MaxNoiseAwareDim is the largest number of coefficients noise-aware
// accepts (its draws cost O(d³) each).
const MaxNoiseAwareDim = 64

// Recommend returns the recommended algorithm for a run of the named model
// on n rows with d parameters (n = 0 when unknown), among the private
// algorithms when private is set, with the reason in words. meanBounded
// says that the model reads its data only through column means and every
// such column has a public bound (MeanStatisticBounded). Private
// regression runs, and such runs of the gaussian and banana models, get
// noise-aware (one release; free chains); otherwise the page's previous
// order (wasm recommend): gradient-based DP kernels when n is large. A
// regression with more than MaxNoiseAwareDim coefficients gets the
// per-iteration kernel instead.
func Recommend(modelName string, n, d int, private, meanBounded bool) (name, reason string) {
	if !private {
		if isMeanStatisticModel(modelName) {
			return Exact, "non-private default for the gaussian and banana models: their posterior is closed-form, so every draw is an independent exact draw; HMC mixes slowly on the banana's curved posterior"
		}
		return "hmc", "non-private default"
	}
	if isRegression(modelName) && d > MaxNoiseAwareDim {
		alg := "dp-penalty"
		if n >= 1000 {
			alg = "dp-hmc"
		}
		return alg, fmt.Sprintf("noise-aware handles at most %d coefficients and this model has %d; the plan's forecast says whether %s can converge", MaxNoiseAwareDim, d, alg)
	}
	if isRegression(modelName) {
		return NoiseAware, "recommended for logistic, linear and poisson regression: private releases of noisy sufficient statistics made once, then free posterior draws"
	}
	if isMeanStatisticModel(modelName) && meanBounded {
		return NoiseAware, "recommended for the gaussian and banana models when every data column has a public bound: one private release of the clipped column sums, then free, exact posterior draws"
	}
	if n >= 1000 && d <= 20 {
		return "dp-hmc", "recommended for n ≥ 1000 and d ≤ 20"
	}
	return "dp-penalty", "recommended default private algorithm for this model"
}

// shrunkPathNote states how the expansion points between the releases are
// chosen (noiseaware.Plan.ShrinkPath), from public inputs only.
func shrunkPathNote(np *noiseaware.Plan) string {
	how := "full damped Newton steps (the releases before the last are mostly noise at this n and budget, and a shrunk path would stall where the expansion's error is not measured)"
	if np.ShrinkPath {
		how = "damped Newton steps shrunk, direction by direction, by the share of each step the release noise explains, each from the last point whose step raised the log posterior as the released scores estimate it and halved on a return to it, after an LDA start with a ridge against that noise"
	}
	return fmt.Sprintf("path: the expansion points of the releases after the first come from %s; path noise ρ = 2σ/√n = %s against the limit %s (σ the score's noise at the second release; public)", how, fmtFloat(np.PathNoise), fmtFloat(noiseaware.ShrinkPathMaxNoise))
}
