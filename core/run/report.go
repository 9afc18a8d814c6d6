package run

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// PrivacyReport states exactly what a private run protected and what it
// spent. Every field is public: the config, n (public under the replace-one
// relation, as in the papers), and quantities computed from them and from the
// number of iterations that ran. It holds no statistic of the data.
type PrivacyReport struct {
	Tool      string `json:"tool"`
	Algorithm string `json:"algorithm"`
	Model     string `json:"model"`
	// N is the number of rows (public).
	N int `json:"n"`
	// Relation is "replace" (one row's values replaced, n public): the only
	// relation a run accepts (CheckSamplingRelation).
	Relation string `json:"relation"`
	Unit     string `json:"unit_of_privacy"`
	// Bounds are the public column bounds the data were clipped to.
	Bounds map[string][2]float64 `json:"public_bounds"`
	// Imputed are the public values that replaced missing cells of
	// predictor columns (DataSpec.Impute), row by row: n is unchanged.
	// Which cells or how many were missing is never reported.
	Imputed map[string]float64 `json:"missing_cells_replaced_by,omitempty"`
	// Categories is the text coding of columns written as text
	// (DataSpec.Categories, typed by the analyst: public), so that a
	// coefficient's direction can be read from the report alone (sex
	// F = 0, M = 1: a positive coefficient is for M).
	Categories map[string]map[string]float64 `json:"categories,omitempty"`
	// Mechanism describes the noise and clipping of one iteration.
	Mechanism string `json:"mechanism"`
	// Settings are the sampler's privacy-relevant settings (clip bounds,
	// noise scales, steps), all public.
	Settings map[string]float64 `json:"settings"`
	// Accountant names the method that gave Epsilon (tight, rdp, pld, ...).
	Accountant string `json:"accountant"`
	// EpsilonBudget and DeltaBudget are what the user allowed; Epsilon is
	// what was spent by the iterations that actually ran, at Delta.
	EpsilonBudget float64 `json:"epsilon_budget"`
	DeltaBudget   float64 `json:"delta_budget"`
	Epsilon       float64 `json:"epsilon_spent"`
	Delta         float64 `json:"delta"`
	// Mu is the Gaussian-DP μ of the whole release, when the mechanism is
	// a composition of Gaussian mechanisms.
	Mu float64 `json:"mu_gdp,omitempty"`
	// RDPOrder is the optimal Rényi order, for RDP accounting.
	RDPOrder float64 `json:"rdp_order,omitempty"`
	Chains   int     `json:"chains"`
	// Iterations per chain that ran, warmup included.
	Iterations    []int  `json:"iterations_per_chain"`
	Warmup        int    `json:"warmup_per_chain"`
	PlannedPerRun int    `json:"planned_iterations_per_chain"`
	Cancelled     bool   `json:"cancelled"`
	SeedPolicy    string `json:"seed_policy"`
	// Condition, when not empty, is what the guarantee depends on beyond
	// the accountant: ops and hybrid release the final state of a finite
	// MH run, private only if that run has converged. Statement says it
	// too.
	Condition string `json:"condition,omitempty"`
	// Aborted, when not empty, says why the run stopped before its end
	// (a chain's state became non-finite: *NonFiniteError): the iterations
	// that ran are charged, but no draw is released as a posterior sample.
	// Statement says it too (MarkAborted).
	Aborted   string   `json:"aborted,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Statement string   `json:"statement"`
}

// cancelledNote is the note of a report whose run stopped early.
const cancelledNote = "the run was cancelled: ε counts the iterations that ran"

// MarkAborted makes r the report of a run stopped by err (a chain's state
// became non-finite, *NonFiniteError): Aborted holds its reason, the note
// and the statement say that ε was spent by the iterations that ran and
// that the draws are not a posterior sample. The numbers do not change:
// NewReport already counted what ran.
func (r *PrivacyReport) MarkAborted(err error) {
	if err == nil {
		return
	}
	r.Aborted = err.Error()
	var nf *NonFiniteError
	if errors.As(err, &nf) {
		r.Aborted = fmt.Sprintf("%s chain %d, at iteration %d of %d", nf.Algorithm, nf.Chain, nf.Iteration, nf.Total)
		if nf.Step > 0 {
			r.Aborted += fmt.Sprintf(", step %g", nf.Step)
		}
	}
	r.Cancelled = true
	notes := r.Notes[:0:0]
	for _, n := range r.Notes {
		if n != cancelledNote {
			notes = append(notes, n)
		}
	}
	r.Notes = append(notes, "the run stopped early because a chain's state became non-finite: ε counts every iteration that ran, the failing one included; no draws were released as a posterior sample")
	r.Statement = statement(r)
}

// JSON returns the report as indented JSON.
func (r *PrivacyReport) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// ReportLines implements export.PrivacyReport: the report as comment lines
// for Stan CSV headers.
func (r *PrivacyReport) ReportLines() []string {
	lines := []string{
		"privacy:",
		"  statement = " + r.Statement,
		"  algorithm = " + r.Algorithm,
		"  relation = " + r.Relation + " (" + r.Unit + ")",
		"  n = " + strconv.Itoa(r.N),
		"  epsilon_spent = " + fmtFloat(r.Epsilon),
		"  delta = " + fmtFloat(r.Delta),
		"  accountant = " + r.Accountant,
		"  epsilon_budget = " + fmtFloat(r.EpsilonBudget),
		"  chains = " + strconv.Itoa(r.Chains),
		"  iterations_per_chain = " + joinInts(r.Iterations) + " (warmup included)",
		"  mechanism = " + r.Mechanism,
	}
	if r.Condition != "" {
		lines = append(lines, "  condition = "+r.Condition)
	}
	if r.Mu > 0 {
		lines = append(lines, "  mu_gdp = "+fmtFloat(r.Mu))
	}
	keys := make([]string, 0, len(r.Settings))
	for k := range r.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lines = append(lines, "  setting "+k+" = "+fmtFloat(r.Settings[k]))
	}
	bk := make([]string, 0, len(r.Bounds))
	for k := range r.Bounds {
		bk = append(bk, k)
	}
	sort.Strings(bk)
	for _, k := range bk {
		b := r.Bounds[k]
		lines = append(lines, fmt.Sprintf("  public bound %s = [%s, %s]", sanitize(k), fmtFloat(b[0]), fmtFloat(b[1])))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Imputed)) {
		lines = append(lines, fmt.Sprintf("  missing cells of %s replaced by %s", sanitize(k), fmtFloat(r.Imputed[k])))
	}
	lines = append(lines, "  seed_policy = "+r.SeedPolicy)
	for _, n := range r.Notes {
		lines = append(lines, "  note = "+n)
	}
	return lines
}

// sanitize removes control characters from a column name for a comment line.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

func fmtFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// minibatchMechanism describes one iteration of the accounted kernels.
func minibatchMechanism(cfg *Config, n int) string {
	s := cfg.Settings
	b := defaultBatch(s, n)
	samp := s.Sampling
	if samp == "" {
		samp = "without-replacement"
	}
	switch cfg.Algorithm {
	case "dp-barker":
		return fmt.Sprintf("per iteration: a minibatch of %d rows drawn without replacement (secretly), each row's log-likelihood ratio clipped, a Gaussian release of the minibatch estimate (Heikkilä et al. Thm 2), amplified by subsampling (Wang–Balle–Kasiviswanathan)", b)
	case "dp-barker-full":
		return "per iteration: the clipped full-data log-likelihood ratio released with Gaussian noise (Heikkilä et al. Thm 1)"
	case "dp-fastmh", "dp-fastmh-full":
		return fmt.Sprintf("per iteration: an (ε, δ) = (%s, %s) DP acceptance decision (Gaussian noise on the TunaMH ratio; rows touched depend only on public bounds), composed over iterations", fmtFloat(s.StepEpsilon), fmtFloat(s.StepDelta))
	case "dp-penalty-sub":
		return fmt.Sprintf("per iteration: a penalty test on a minibatch of %d rows (%s), Gaussian noise on the clipped ratio and its variance correction (thesis Thm 9), amplified by subsampling", b, samp)
	case "hybrid":
		return "one one-posterior-sample draw per chain (pure ε), then DP-SGLD steps (see dp-sgld)"
	default:
		return fmt.Sprintf("per iteration: the sum of per-row gradients clipped in L2 over a minibatch of %d rows (%s sampling), released with Gaussian noise (the Langevin noise itself, raised where needed)", b, samp)
	}
}

// statement is the plain-language sentence a clinician can paste into a
// paper.
func statement(r *PrivacyReport) string {
	total := 0
	for _, it := range r.Iterations {
		total += it
	}
	rel := "replacing any one row of the dataset with any other row (the number of rows, n = " + strconv.Itoa(r.N) + ", is treated as public)"
	cond := ""
	if r.Condition != "" {
		cond = ", " + r.Condition + ","
	}
	var s string
	if r.Aborted != "" {
		// A chain diverged: what ran was spent, nothing usable came out.
		var what string
		if r.Algorithm == NoiseAware {
			what = fmt.Sprintf("The privacy cost of this run is that of its %s of noisy statistics: (ε = %s, δ = %s)-differential privacy with respect to %s, computed with the %s accountant.",
				releasesText(r), report.Up(r.Epsilon, report.SpentDigits(r.Epsilon, r.EpsilonBudget)), fmtFloat(r.Delta), rel, r.Accountant)
		} else {
			what = fmt.Sprintf("The %d iterations that ran (%s, warmup included) spent (ε = %s, δ = %s)-differential privacy with respect to %s, computed with the %s accountant from the iterations that actually ran%s.",
				total, ChainsWord(r.Chains), report.Up(r.Epsilon, report.SpentDigits(r.Epsilon, r.EpsilonBudget)), fmtFloat(r.Delta), rel, r.Accountant, strings.TrimSuffix(cond, ","))
		}
		s = fmt.Sprintf("This %s run stopped before its end because a chain's state became non-finite (%s); its draws are not a posterior sample and were not released. %s", r.Algorithm, r.Aborted, what)
	} else if r.Algorithm == NoiseAware {
		// The budget is spent by the releases, made once before any draw;
		// the draws are post-processing, so their number does not enter.
		s = fmt.Sprintf("The released posterior draws (%s) were produced by %s from %s of noisy statistics, made once before any draw and shared by all chains, and satisfy (ε = %s, δ = %s)-differential privacy with respect to %s, computed with the %s accountant for those releases together; the draws after them, however many, spend no privacy.",
			ChainsWord(r.Chains), r.Algorithm, releasesText(r), report.Up(r.Epsilon, report.SpentDigits(r.Epsilon, r.EpsilonBudget)), fmtFloat(r.Delta), rel, r.Accountant)
	} else {
		s = fmt.Sprintf("The released posterior draws (%s, %d iterations in total, warmup included) were produced by %s and%s satisfy (ε = %s, δ = %s)-differential privacy with respect to %s, computed with the %s accountant from the iterations that actually ran.",
			ChainsWord(r.Chains), total, r.Algorithm, cond, report.Up(r.Epsilon, report.SpentDigits(r.Epsilon, r.EpsilonBudget)), fmtFloat(r.Delta), rel, r.Accountant)
	}
	if r.Condition != "" {
		s += " This is not a worst-case guarantee: the error of the finite inner run is not accounted."
	}
	if len(r.Bounds) > 0 {
		s += " Data were clipped to public bounds, declared by the analyst as chosen from public knowledge (e.g. the study protocol), not from the data."
	}
	// The guarantee's domain (a privacy audit: "two files that differ in
	// one row give the same exports" overstated it): what is clipped and
	// what stops the run.
	s += " The guarantee covers files whose rows this run can read: values outside the public bounds, the outcome's included, are clipped into them, while a value the model cannot take inside them (such as a missing outcome, 2.5 for a count or a text value outside a declared coding) stops the run before anything is released."
	if len(r.Categories) > 0 {
		cols := slices.Sorted(maps.Keys(r.Categories))
		codes := make([]string, len(cols))
		for i, c := range cols {
			vals := slices.Sorted(maps.Keys(r.Categories[c]))
			slices.SortStableFunc(vals, func(a, b string) int { return cmp.Compare(r.Categories[c][a], r.Categories[c][b]) })
			parts := make([]string, len(vals))
			for j, v := range vals {
				parts[j] = sanitize(v) + " = " + fmtFloat(r.Categories[c][v])
			}
			codes[i] = sanitize(c) + ": " + strings.Join(parts, ", ")
		}
		s += " Text values were coded as declared by the analyst (" + strings.Join(codes, "; ") + "); like the bounds, a coding chosen after seeing which values the rows hold is outside the guarantee."
	}
	if len(r.Imputed) > 0 {
		cols := slices.Sorted(maps.Keys(r.Imputed))
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = sanitize(c) + " = " + fmtFloat(r.Imputed[c])
		}
		s += " Missing values of the predictors, if any, were replaced by public values declared by the analyst (" + strings.Join(vals, ", ") + "), row by row: no row was dropped, so the guarantee covers every row of the file."
	}
	if rng.FixedTestKey {
		s += " TEST BUILD: the privacy noise came from a fixed, published test key, so these draws are not private."
	}
	return s
}

// seedPolicy states where the run's randomness came from: a fresh
// crypto/rand key, or the fixed test key of a dpmcmc_testkey build.
func seedPolicy() string {
	if rng.FixedTestKey {
		return "TEST BUILD (dpmcmc_testkey): the public seed drives only initial values and proposals; privacy noise and accept decisions come from a fixed TEST key compiled into this build and published in its source (ChaCha8, one stream per chain) instead of a key drawn from crypto/rand: these draws are NOT private"
	}
	return "the public seed drives only initial values and proposals; privacy noise and accept decisions come from a fresh crypto/rand key per run (ChaCha8, one stream per chain) that is never stored or exported"
}

// innerRunCondition is the condition of the one-posterior-sample guarantee
// (Wang et al. 2015 Thm 1 needs an exact draw; dpmcmc releases the final
// state of a finite MH run): what, for ops and hybrid, the statement makes
// the guarantee depend on.
func innerRunCondition(whose string, inner int, from string) string {
	if inner == 0 {
		inner = 1000 // mcmc.OPSConfig's default
	}
	return fmt.Sprintf("if the inner Metropolis–Hastings run behind %s (%d iterations from %s) has converged to the tempered posterior", whose, inner, from)
}

// NewReport computes the privacy report of a run from its resolved config
// (Prepared.Config, or the config a plan was made for, resolved with
// MakePlan's settings), the public n and d, and the iterations each chain
// actually ran (warmup included). ε is computed from what ran, never from
// what was planned.
func NewReport(cfg *Config, n, d int, iterations []int, cancelled bool) (*PrivacyReport, error) {
	if !IsPrivate(cfg.Algorithm) || cfg.Privacy == nil {
		return nil, fmt.Errorf("%s is not a private algorithm: no privacy report", cfg.Algorithm)
	}
	if len(iterations) != cfg.Chains {
		return nil, fmt.Errorf("report: %d iteration counts for %d chains", len(iterations), cfg.Chains)
	}
	total := 0
	for _, it := range iterations {
		if it < 0 {
			return nil, fmt.Errorf("report: negative iteration count %d", it)
		}
		total += it
	}
	b := cfg.Privacy
	if err := CheckSamplingRelation(b.Relation); err != nil {
		return nil, err
	}
	rel := "replace"
	r := &PrivacyReport{
		Tool: "dpmcmc", Algorithm: cfg.Algorithm, Model: cfg.Model.Model, N: n,
		Relation: rel, Unit: "one row of the dataset: one patient or record",
		Bounds: cfg.Data.Bounds, Imputed: cfg.Data.Impute, Categories: cfg.Data.Categories, EpsilonBudget: b.Epsilon, DeltaBudget: b.Delta,
		Delta: b.Delta, Chains: cfg.Chains, Iterations: append([]int(nil), iterations...),
		Warmup: cfg.Warmup, PlannedPerRun: cfg.Warmup + cfg.Draws, Cancelled: cancelled,
		SeedPolicy: seedPolicy(),
		Settings:   map[string]float64{},
	}
	if r.Bounds == nil {
		r.Bounds = map[string][2]float64{}
	}
	s := cfg.Settings
	a, isAccounted := accountedAlgorithms[cfg.Algorithm]
	switch {
	case isAccounted:
		rc := *cfg
		if total > 0 {
			rep, err := a.account(&rc, n, d, total)
			if err != nil {
				return nil, err
			}
			r.Epsilon, r.Accountant, r.RDPOrder = rep.Epsilon, rep.Method, rep.Order
			if rep.Mu > 0 {
				r.Mu = rep.Mu
			}
			if rep.Note != "" {
				r.Notes = append(r.Notes, rep.Note)
			}
		} else {
			r.Accountant = "none (nothing ran)"
		}
		r.Mechanism = minibatchMechanism(cfg, n)
		for k, v := range map[string]float64{"clip": s.Clip, "grad_clip": s.GradClip, "tau": s.Tau, "step": s.Step, "box": s.Box,
			"barker_c": s.BarkerC, "lambda": s.Lambda, "batch_cap": float64(s.BatchCap),
			"step_epsilon": s.StepEpsilon, "step_delta": s.StepDelta, "noise_multiplier": s.NoiseMultiplier} {
			if v > 0 {
				r.Settings[k] = v
			}
		}
		// Only the settings the kernel uses: DP-Fast MH has no batch size
		// (its minibatch size B is drawn each iteration, secretly) but a
		// cap K deciding minibatch vs full batch; the full-batch kernels
		// have neither.
		delete(r.Settings, "batch_cap")
		switch cfg.Algorithm {
		case "dp-fastmh":
			if k := fastMHConfig(cfg, n, false, nil).EffectiveBatchCap(n); k > 0 {
				r.Settings["batch_cap"] = float64(k)
			}
		case "dp-fastmh-full", "dp-barker-full":
		default:
			r.Settings["batch"] = float64(defaultBatch(s, n))
		}
		if cfg.Algorithm == "hybrid" {
			r.Condition = innerRunCondition("each chain's one-posterior-sample start", s.InnerIterations, "the chain's initial value")
			r.Notes = append(r.Notes, "the one-posterior-sample start's share of the guarantee is conditional on exact sampling from the tempered posterior; it is the final state of a finite random-walk MH run inside the box, and the error of that approximation is not accounted (the DP-SGLD steps' share is a worst-case bound)")
		}
		if strings.HasPrefix(cfg.Algorithm, "dp-barker") {
			r.Notes = append(r.Notes, "the Barker test's logistic noise is split into a normal part and a fitted correction distribution; the correction is approximate (sup |CDF error| about 2.4e-3 at C = 2), which perturbs the sampler's target slightly but not the privacy guarantee")
		}
		if cfg.Algorithm == "dp-barker" {
			// A privacy audit: the code's own comment (mcmc.DPBarker.noisy)
			// calls this a tolerance the proof does not cover.
			r.Notes = append(r.Notes, "the normal part's variance C − s² depends on the minibatch (s² is its variance estimate) and is rounded up to the exact discrete-Gaussian grid, by less than 2^-22 of itself; Heikkilä et al.'s Thm 2 is stated for exactly C − s², so this rounding is a numerical tolerance the proof does not cover")
		}
	case cfg.Algorithm == NoiseAware:
		if err := noiseAwareReport(r, cfg, n, d); err != nil {
			return nil, err
		}
	case cfg.Algorithm == "ops":
		epsDraw := b.Epsilon / float64(cfg.Chains*cfg.Draws)
		if epsDraw*float64(cfg.Chains*cfg.Draws) > b.Epsilon {
			epsDraw = math.Nextafter(epsDraw, 0)
		}
		r.Epsilon = epsDraw * float64(total)
		r.Delta = 0
		r.Accountant = "pure ε, basic composition"
		r.Mechanism = fmt.Sprintf("each draw is one sample from the posterior tempered to ε = %s per draw (exponential mechanism, Wang et al. 2015 Alg. 1) inside the public box [-%s, %s]^d", fmtFloat(epsDraw), fmtFloat(s.Box), fmtFloat(s.Box))
		r.Settings["epsilon_per_draw"] = epsDraw
		r.Settings["box"] = s.Box
		r.Condition = innerRunCondition("each draw", s.InnerIterations, "the previous draw, the first from the initial value")
		r.Notes = append(r.Notes, "the guarantee is conditional on exact sampling from the tempered posterior; each draw is the final state of a long random-walk MH run inside the box, and the error of that approximation is not accounted")
	default:
		cost, err := stepCost(cfg.Algorithm, s, rel, n, d)
		if err != nil {
			return nil, err
		}
		mu1 := cost.StepMu()
		r.Accountant = privacy.MethodTight + " Gaussian (μ-GDP composition, Sommer et al. / Dong et al.)"
		im2, err := initMu2(cfg, n, d)
		if err != nil {
			return nil, err
		}
		if im2 > 0 {
			how := "noisy clipped-gradient ascent from a public point"
			if k := meanStatisticColumns(cfg); k > 0 {
				how = fmt.Sprintf("one release of the %d data columns' sums, each clipped to its public bound, with Gaussian noise, then the posterior mode given them", k)
			}
			r.Notes = append(r.Notes, fmt.Sprintf("each chain started from a private estimate of the posterior mode (%s); all %d initialisations are counted (μ² = %s) even if a chain was cancelled", how, cfg.Chains, fmtFloat(im2)))
			r.Settings["init_mu2"] = im2
		}
		if total > 0 || im2 > 0 {
			// Tight Gaussian with the discrete-Gaussian charge (discrete_charge.go).
			eps, line, err := tightCharged(cfg, n, d, total, mu1, im2)
			if err != nil {
				return nil, err
			}
			r.Epsilon, r.Mu = eps, math.Sqrt(float64(total)*mu1*mu1+im2)
			if line != "" {
				r.Notes = append(r.Notes, line)
			}
		}
		var parts []string
		for _, g := range cost.Gaussian {
			parts = append(parts, fmt.Sprintf("%d × %s (Gaussian, μ = %s)", g.Count, g.What, fmtFloat(g.Mu)))
		}
		r.Mechanism = "per iteration: " + strings.Join(parts, " + ") + "; released noisy values are rounded to a grid of step ≤ σ·2^-24 and μ includes that inflation"
		r.Settings["step_mu"] = mu1
		for k, v := range map[string]float64{"clip": s.Clip, "grad_clip": s.GradClip, "tau": s.Tau, "tau_grad": s.TauGrad, "step": s.Step, "box": s.Box} {
			if v > 0 {
				r.Settings[k] = v
			}
		}
		if s.Leapfrog > 0 {
			r.Settings["leapfrog"] = float64(s.Leapfrog)
		}
		r.Notes = append(r.Notes, "clip bounds are public (typed by the user or derived from the public column bounds); each row's contribution is clipped so its influence is bounded whatever its values")
	}
	if cfg.Init.Kind == "values" && len(cfg.Init.Values) > 0 && cfg.Algorithm != NoiseAware {
		// Typed starting values are an input like a bound: public only if
		// they come from outside these data (a review pasted in a
		// non-private fit's means, and nothing said so).
		vals := make([]string, len(cfg.Init.Values))
		for i, v := range cfg.Init.Values {
			vals[i] = fmtFloat(v)
		}
		r.Notes = append(r.Notes, InitValuesNote(strings.Join(vals, ", ")))
	}
	if sd, given, linear := LinearNoiseSD(cfg); given && linear {
		r.Notes = append(r.Notes, LinearNoiseSDNote(sd))
	}
	if IsGaussian(cfg) {
		r.Notes = append(r.Notes, GaussianCovNote(cfg.Model.Cov != nil))
	}
	if r.Epsilon > LargeEpsilon {
		// The ε spent (an interrupted run may have spent less than asked).
		// Spelled as the statement spells it (report.SpentDigits, up).
		e, _ := strconv.ParseFloat(report.Up(r.Epsilon, report.SpentDigits(r.Epsilon, r.EpsilonBudget)), 64)
		r.Notes = append(r.Notes, LargeEpsilonNote(e))
	}
	if sc := withDefaultScale(cfg); cfg.Algorithm != NoiseAware && strings.EqualFold(sc.Model.Scale, model.ScaleBounds) {
		sd, _ := ModelPrior(cfg)
		r.Notes = append(r.Notes, ScaledNote, ScaledPriorNote(sd))
	} else if cfg.Algorithm != NoiseAware && isRegression(cfg.Model.Model) {
		sd, _ := ModelPrior(cfg)
		r.Notes = append(r.Notes, fmt.Sprintf("prior: N(0, %s²) on every coefficient, in the user's units (scale none: the chains sample the coefficients of the predictors as given)", fmtFloat(sd)))
	}
	if cancelled {
		r.Notes = append(r.Notes, cancelledNote)
	}
	if b.Delta >= 1/float64(n) && r.Delta > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("δ = %g is not below 1/n = %g", b.Delta, 1/float64(n)))
	}
	// Reported rounded up to 9 significant digits: never below the
	// accountant's value, and the same text whichever platform computed it
	// (the numerical accountants can differ between amd64 and wasm from
	// about the 11th digit).
	r.Epsilon = roundUpSig(r.Epsilon, 9)
	r.Statement = statement(r)
	return r, nil
}

// releasesText spells a noise-aware report's number of releases
// (Settings["releases"]): "1 private release", "4 private releases".
func releasesText(r *PrivacyReport) string {
	k := int(r.Settings["releases"])
	if k == 1 {
		return "1 private release"
	}
	if k < 1 {
		return "the private releases"
	}
	return fmt.Sprintf("%d private releases", k)
}

// ScaledNote is the report's note on a run whose model samples the
// InitValuesNote is the report's note on typed initial values (--init
// values): declared public, as the bounds are.
func InitValuesNote(values string) string {
	return "initial values " + values + " (the user's units), typed by the analyst and declared public: chosen from outside these data (e.g. the literature), not from a fit to them; the first draws of every chain start there"
}

// coefficients of the predictors scaled by their public bounds
// (model.Scaling).
const ScaledNote = "parameterization: the chains sample the coefficients of the predictors scaled to [-1, 1] by their public bounds (x̃ = (x − centre)/half-range); the draws are reported in the user's units by the back-transform slope = β/half-range, intercept = β₀ − Σ β·centre/half-range, which is post-processing; the clip, step and box settings are on the scaled space"

// ScaledPriorNote states the prior of a scaled run (s from ModelPrior).
func ScaledPriorNote(s float64) string {
	return fmt.Sprintf("prior: N(0, %s²) on every coefficient of the predictors scaled to [-1, 1] by their public bounds (intercept at the bounds' centres)", fmtFloat(s))
}

// roundUpSig returns the smallest number with the given significant digits
// that is ≥ v (v itself when v ≤ 0 or not finite).
func roundUpSig(v float64, digits int) float64 {
	if !(v > 0) || math.IsInf(v, 0) {
		return v
	}
	s := strconv.FormatFloat(v, 'e', digits-1, 64)
	r, _ := strconv.ParseFloat(s, 64)
	if r >= v {
		return r
	}
	mant, exp, _ := strings.Cut(s, "e")
	m, _ := strconv.ParseFloat(mant, 64)
	up := strconv.FormatFloat(m+math.Pow10(-(digits-1)), 'f', digits-1, 64) + "e" + exp
	r, _ = strconv.ParseFloat(up, 64)
	return r
}
