// Package run turns a plain, JSON-serializable Config and a dataset into
// chains of draws. The same Config drives the command-line tool, the browser
// workers and the tests, and is embedded in every export (it holds only
// public settings: no data values, no keys).
package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// Config is one run. Every field is public: it is typed by the user or is a
// default, never computed from the data.
type Config struct {
	Model     model.Spec `json:"model"`
	Data      DataSpec   `json:"data"`
	Algorithm string     `json:"algorithm"`
	Settings  Settings   `json:"settings"`
	Chains    int        `json:"chains"`
	Warmup    int        `json:"warmup"`
	Draws     int        `json:"draws"`
	// Seed drives the public randomness only (initial values, proposals);
	// it is public and embedded in Stan CSV exports with the config.
	// A private run's privacy noise, accept decisions and minibatch
	// indices come from the noise stream (core/rng) and never depend on
	// it; a non-private run protects nothing, and its noise stream is
	// keyed from the seed (rng.PublicKey) so that its draws follow from it.
	Seed uint64 `json:"seed"`
	Init Init   `json:"init"`
	// Privacy is the budget of a private run; nil for a non-private run.
	Privacy *Budget `json:"privacy,omitempty"`
	// NoiseSDFromRows records the linear model's noise sd that a
	// non-private run without one estimated from its rows (the
	// least-squares residual sd, Prepared.NoiseSDFromRows): a statistic of
	// the data, kept out of model.options so that a private run cannot
	// take it for a public σ (Validate refuses it with a budget). A
	// non-private run recomputes it from its own rows.
	NoiseSDFromRows float64 `json:"noise_sd_from_rows,omitempty"`
	// ProgressEvery is the number of iterations between progress reports
	// (default 100). It does not change the draws.
	ProgressEvery int `json:"-"`
}

// DataSpec is how the CSV is read and which public bounds apply.
type DataSpec struct {
	// Bounds are the public bounds per column, [lo, hi], typed by the user.
	Bounds map[string][2]float64 `json:"bounds,omitempty"`
	// Delimiter is "," ";" "\t" or "" (detect).
	Delimiter string `json:"delimiter,omitempty"`
	// DropMissing drops rows with a missing value in a used column instead
	// of stopping with an error.
	DropMissing bool `json:"drop_missing,omitempty"`
	// Impute replaces the missing cells of named predictor columns by
	// public constants typed by the analyst (e.g. {"insulin": 80}, a
	// typical value from the literature, never from these data). Each row
	// is mapped on its own and every row is kept, so n stays public and a
	// neighbouring file stays neighbouring: allowed in private runs. The
	// value must lie within the column's public bound.
	Impute map[string]float64 `json:"impute,omitempty"`
	// Categories maps text categories of named columns to numbers, e.g.
	// {"diagnosis": {"M": 1, "B": 0}}.
	Categories map[string]map[string]float64 `json:"categories,omitempty"`
	// DecimalComma reads numbers written with a decimal comma ("70,5"), as
	// many European locales export semicolon-separated files; '.' is then
	// refused inside numbers (dataset.Options.DecimalComma).
	DecimalComma bool `json:"decimal_comma,omitempty"`
}

// Init says where chains start. Initial values never depend on the data.
type Init struct {
	// Kind is "uniform" (default: each coordinate U(−Radius, Radius) from
	// the public seed, as Stan does), "zero", "values", or "dp-map": each
	// chain starts from a private estimate of the posterior mode (noisy
	// gradient ascent from the uniform point), spending Share of the
	// budget's μ² (Gaussian-accounted private algorithms only).
	Kind   string    `json:"kind,omitempty"`
	Radius float64   `json:"radius,omitempty"` // default 2
	Values []float64 `json:"values,omitempty"` // for Kind "values"
	// Share is the fraction of the budget's μ² all chains' dp-map
	// initialisations spend together (default 0.2).
	Share float64 `json:"share,omitempty"`
	// Steps is the number of noisy gradient steps of dp-map (default 100).
	Steps int `json:"steps,omitempty"`
	// GradClip is the per-row gradient clip of dp-map (default 1). Its
	// clipping bias moves only where the chains start, never what they
	// sample, so it can be far below the worst-case bound.
	GradClip float64 `json:"grad_clip,omitempty"`
}

// Budget is the total privacy budget of a private run: all chains, warmup
// included.
type Budget struct {
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
	// Relation is the neighbouring relation: "replace" (the default and the
	// only one a run accepts: one row replaced, n public, as in the papers).
	// "add-remove" is refused, see CheckSamplingRelation.
	Relation string `json:"relation,omitempty"`
}

// ErrAddRemoveSampling is the refusal of the add-remove relation for a
// sampling run. A run is private under replace-one only: the kernels scale
// their noise, the subsampling rate b/n and DP-Fast MH's constants by the
// exact number of rows n, some accountants (dp-fastmh, dp-penalty-sub, ops)
// are replace-one only, and the report exports n, which by itself tells a
// dataset X from X ∪ {x}. `dpmcmc account`, where the relation is a formula,
// still offers add-remove.
var ErrAddRemoveSampling = errors.New(`relation "add-remove" is not available for sampling: ` +
	"the run uses and reports the exact number of rows n, which tells a dataset from the same dataset plus one row; " +
	`sampling is private under "replace" (one row replaced, n public): set the relation to replace (--relation replace) or leave it out; ` +
	"the command \"dpmcmc account\" still computes add/remove bounds")

// CheckSamplingRelation accepts the neighbouring relations a run supports:
// "replace" or "" (replace). "add-remove" gets ErrAddRemoveSampling, any
// other value a specific error.
func CheckSamplingRelation(rel string) error {
	switch rel {
	case "", "replace":
		return nil
	case "add-remove", "add/remove", "addremove":
		return ErrAddRemoveSampling
	}
	return fmt.Errorf("relation must be replace (got %q); add-remove is available only in \"dpmcmc account\"", rel)
}

// Settings are the sampler settings, flat so that one struct serves every
// algorithm, the command-line flags and the page's advanced panel. Zero
// values mean the algorithm's default.
type Settings struct {
	// Step is the proposal standard deviation per coordinate for MH-type
	// kernels, or the leapfrog / Langevin step for gradient kernels.
	Step float64 `json:"step,omitempty"`
	// Leapfrog is the number of leapfrog steps L of HMC kernels.
	Leapfrog int `json:"leapfrog,omitempty"`
	// NoAdapt turns off warmup step-size adaptation (non-private kernels).
	NoAdapt bool `json:"no_adapt,omitempty"`
	// TargetAccept is the dual-averaging target acceptance rate.
	TargetAccept float64 `json:"target_accept,omitempty"`
	// Jitter is the HMC step jitter: "none", "uniform" or "halton".
	Jitter string `json:"jitter,omitempty"`
	// Metric is the metric non-private HMC adapts during warmup: "dense"
	// (the default: the chains' covariance, for correlated coefficients)
	// or "diag" (Stan's default diag_e).
	Metric string `json:"metric,omitempty"`
	// Lambda and Chi set TunaMH's λ = Lambda + Chi·C²M².
	Lambda float64 `json:"lambda,omitempty"`
	Chi    float64 `json:"chi,omitempty"`
	// Box bounds every parameter to [-Box, Box] where a kernel needs a
	// bounded region for its per-row bounds (TunaMH, DP kernels, required
	// by ops); 0 means unbounded.
	Box float64 `json:"box,omitempty"`

	// Private kernels. Zero values mean: derived from public inputs (clip
	// bounds from the model's public per-row bounds, noise calibrated to the
	// budget and the number of iterations).

	// Clip r bounds each row's log-likelihood ratio by r·‖θ'−θ‖.
	Clip float64 `json:"clip,omitempty"`
	// GradClip G bounds each row's gradient in L2 norm.
	GradClip float64 `json:"grad_clip,omitempty"`
	// Tau is the noise scale τ of the log-likelihood ratio (DP penalty,
	// DP-HMC's τ_l; DP-MALA's τ as in the thesis, noise variance τ·c_l²).
	Tau float64 `json:"tau,omitempty"`
	// TauGrad is DP-HMC's gradient noise scale τ_g.
	TauGrad float64 `json:"tau_grad,omitempty"`
	// OCU proposes a change of one coordinate per iteration; GRW adds the
	// guided random walk (a direction per coordinate, flipped on rejection).
	OCU bool `json:"ocu,omitempty"`
	GRW bool `json:"grw,omitempty"`
	// MALAScale is DP-MALA's a: the proposal variance is a·σ_p².
	MALAScale float64 `json:"mala_a,omitempty"`
	// InnerIterations is the length of the exact-sampling run behind each
	// one-posterior-sample draw (default 1000).
	InnerIterations int `json:"inner_iterations,omitempty"`

	// Minibatch kernels.

	// Batch is the minibatch size b (fixed size, or the expected size under
	// Poisson sampling).
	Batch int `json:"batch,omitempty"`
	// Sampling is "without-replacement" (default) or "poisson".
	Sampling string `json:"sampling,omitempty"`
	// BarkerC is C of the DP Barker test (default 2).
	BarkerC float64 `json:"barker_c,omitempty"`
	// BatchCap is DP-Fast MH's K (default ⌈ε_step·n/6⌉, the paper's).
	BatchCap int `json:"batch_cap,omitempty"`
	// StepEpsilon and StepDelta are DP-Fast MH's per-iteration budget
	// (default: the largest that fits the planned iterations).
	StepEpsilon float64 `json:"step_epsilon,omitempty"`
	StepDelta   float64 `json:"step_delta,omitempty"`
	// NoiseMultiplier raises DP-SGLD's gradient noise to z·G when the
	// dynamics' own noise is smaller.
	NoiseMultiplier float64 `json:"noise_multiplier,omitempty"`
	// Friction is SGHMC/SGNHT's friction a (default 0.1).
	Friction float64 `json:"friction,omitempty"`
	// OPSShare is the share of ε the hybrid sampler spends on its
	// one-posterior-sample initial draws (default 0.5, as Wang et al.).
	OPSShare float64 `json:"ops_share,omitempty"`
}

// LinearNoiseSDMissing is the refusal of a private linear run that does not
// give the model's noise sd: the model treats it as known, it sets the width
// of every interval, and a silent default of 1 (in the outcome's units)
// would make the intervals as wrong as the outcome's units are far from it.
const LinearNoiseSDMissing = "the linear model treats the outcome's noise sd σ (the spread of the outcome around the regression line, in the outcome's units) as known: give it from what is publicly known (the residual sd around the prediction in published models of the outcome, usually larger than the instrument's measurement error alone), never from these data: --model-opt noise-sd=S, the config's model.options[\"noise-sd\"], or the page's \"Noise sd\" box"

// LinearNoiseSDNote states a linear run's noise sd (s in the outcome's
// units) for the plan and the report.
func LinearNoiseSDNote(s string) string {
	return "linear model: the outcome's noise sd σ = " + s + " (in the outcome's units) is public and known, not estimated; every interval's width depends on it"
}

// GaussianCovNote states the gaussian model's known covariance Σ for the
// plan and the report: the model does not estimate it, so it sets every
// interval's width (the posterior sd of a mean is about √(Σ_jj/n)). given
// is whether the config gives one (model.cov, the CLI's --model-opt
// cov=FILE.csv); otherwise Σ is the identity.
func GaussianCovNote(given bool) string {
	if given {
		return "gaussian model: the columns' covariance Σ (the model's cov) is public and known, not estimated; every interval's width depends on it"
	}
	return "gaussian model: the columns' covariance Σ is public and known, not estimated, and is the identity here (variance 1 in each column's units, no correlation); every interval's width depends on it, so for columns whose spread is not about 1 give the covariance known from public sources (--model-opt cov=FILE.csv, the config's model.cov)"
}

// IsGaussian reports whether c's model is the gaussian mean.
func IsGaussian(c *Config) bool {
	return strings.EqualFold(strings.TrimSpace(c.Model.Model), "gaussian")
}

// ImputeOutcomeRefusal is the refusal of a value for the outcome's missing
// cells: a constant outcome would be fitted as if observed.
func ImputeOutcomeRefusal(col string) string {
	return fmt.Sprintf("the outcome %q cannot be given a value for its missing cells: a made-up outcome would be fitted as if it had been observed; remove the rows whose outcome is missing before loading the file", col)
}

// LinearNoiseSD returns the noise-sd option of a linear model's config as
// given, whether it is given, and whether the model is linear.
func LinearNoiseSD(c *Config) (sd string, given, linear bool) {
	sd, given = c.Model.Options["noise-sd"]
	return sd, given, strings.EqualFold(strings.TrimSpace(c.Model.Model), "linear")
}

// MaxCount is the largest upper bound a Poisson outcome may have (10¹⁵,
// below 2⁵³, where doubles stop holding every whole number).
const MaxCount = 1e15

// MaxInnerIterations is the most MH steps ops runs behind each released
// draw (the default is 1000; 10⁶ took about 9 s per draw on 50 rows).
const MaxInnerIterations = 1_000_000

// MaxLeapfrog is the most leapfrog steps per HMC iteration a run accepts
// (Stan's default tree depth 10 allows 1023).
const MaxLeapfrog = 1024

// Validate checks the config without touching data.
func (c *Config) Validate() error {
	var errs []string
	add := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if c.Chains < 1 {
		add("chains must be at least 1 (got %d)", c.Chains)
	}
	if c.Chains > 64 {
		add("chains must be at most 64 (got %d)", c.Chains)
	}
	if c.Warmup < 0 {
		add("warmup must be ≥ 0 (got %d)", c.Warmup)
	}
	if c.Draws < 1 && c.Privacy == nil {
		add("draws must be at least 1 (got %d)", c.Draws)
	}
	if c.Draws < 0 && c.Privacy != nil {
		add("draws must be ≥ 0 (got %d; 0 in a private run: planned from the budget)", c.Draws)
	}
	if _, ok := algorithms[c.Algorithm]; !ok && c.Algorithm != Auto {
		add("unknown algorithm %q (choose one of %s, or auto)", c.Algorithm, strings.Join(Algorithms(), ", "))
	}
	for name, b := range c.Data.Bounds {
		if !(b[0] < b[1]) || math.IsInf(b[0], 0) || math.IsInf(b[1], 0) || math.IsNaN(b[0]) || math.IsNaN(b[1]) {
			add("bound for column %q: need finite lo < hi (got %v:%v)", name, b[0], b[1])
		} else if math.IsInf(b[1]-b[0], 0) {
			// Scaling by the half-range and every sensitivity need the width.
			add("bound for column %q: %v:%v is too wide (its width overflows a double)", name, b[0], b[1])
		} else if w := b[1] - b[0]; w > 1e100 && !(name == c.Model.Outcome && strings.EqualFold(strings.TrimSpace(c.Model.Model), "poisson")) {
			// The coefficients per unit are the scaled ones over the
			// half-range: below 1e-100 their squares (variances) underflow,
			// and the summary would print sd 0 with a nonzero interval.
			add("bound for column %q: %v:%v is too wide to scale by (its width must be at most 1e100)", name, b[0], b[1])
		} else if w < 1e-100 || w < 1e-12*max(math.Abs(b[0]), math.Abs(b[1])) {
			// Scaling divides by the half-range: a subnormal or
			// rounding-sized width gives infinite scaled values.
			add("bound for column %q: %v:%v is too narrow to scale by (its width must be at least 1e-100 and 1e-12 of its ends)", name, b[0], b[1])
		} else if name == c.Model.Outcome && strings.EqualFold(strings.TrimSpace(c.Model.Model), "logistic") && (b[0] != 0 || b[1] != 1) {
			// The model's support is {0, 1}; another bound would be
			// stated in the report without being what the run used.
			add("bound for the logistic outcome %q: a 0/1 outcome's bound is 0:1 (got %v:%v); leave it out or give 0:1", name, b[0], b[1])
		} else if name == c.Model.Outcome && strings.EqualFold(strings.TrimSpace(c.Model.Model), "poisson") && (b[0] < 0 || b[0] != math.Trunc(b[0]) || b[1] != math.Trunc(b[1])) {
			// Clipping a count to a bound that is not a whole number ≥ 0
			// would make it an impossible count (and the row be blamed).
			add("bound for the Poisson outcome %q: need whole numbers 0 ≤ lo < hi (got %v:%v)", name, b[0], b[1])
		} else if name == c.Model.Outcome && strings.EqualFold(strings.TrimSpace(c.Model.Model), "poisson") && b[1] > MaxCount {
			// Whole numbers are exact in a double up to 2⁵³; the
			// sensitivities square the cap (1e154 overflowed them).
			add("bound for the Poisson outcome %q: counts up to %g are supported (got %v:%v)", name, float64(MaxCount), b[0], b[1])
		}
	}
	if c.Privacy != nil && strings.EqualFold(strings.TrimSpace(c.Model.Scale), model.ScaleAuto) {
		// A private run's prior is on the scaled coefficients (the
		// forecast, the report and noise-aware assume it): scale auto is
		// for non-private runs.
		add("scale auto keeps the prior in the user's units and is for non-private runs; a private run uses scale bounds (its default) or none")
	}
	if c.NoiseSDFromRows != 0 && (c.Privacy != nil || IsPrivate(c.Algorithm)) {
		add("noise_sd_from_rows (%v) is the noise sd a non-private run estimated from its rows, not a public value: a private run needs σ from public knowledge (--model-opt noise-sd=S, the config's model.options[\"noise-sd\"]); remove noise_sd_from_rows from the config", c.NoiseSDFromRows)
	}
	if _, given, linear := LinearNoiseSD(c); linear && !given && c.Privacy != nil && (c.Algorithm == Auto || IsPrivate(c.Algorithm)) {
		add("%s", LinearNoiseSDMissing)
	}
	if c.Algorithm == NoiseAware && strings.EqualFold(strings.TrimSpace(c.Model.Scale), model.ScaleNone) {
		// Its release is of the statistics of the scaled predictors, and
		// its prior is on their coefficients: the run could not be what
		// the config says.
		add("noise-aware always samples the coefficients of the predictors scaled to [-1, 1] by their public bounds (its release is of the scaled statistics): leave scale unset or set it to bounds; scale none is for the per-iteration samplers")
	}
	for _, col := range slices.Sorted(maps.Keys(c.Data.Categories)) {
		// A coding that gives every text one number makes a constant
		// column, and no bound can be taken from it: say so rather than
		// report the bound missing.
		vals := slices.Collect(maps.Values(c.Data.Categories[col]))
		if len(vals) > 1 && slices.Min(vals) == slices.Max(vals) {
			add("the coding of %q gives every value the number %v: a coding needs at least two different numbers (e.g. F=0, M=1)", col, vals[0])
		}
		// Both are public, so a code outside the column's own bound is
		// refused before any row is read: clipping would silently give
		// that category another category's number (a review coded M=5
		// with a bound 0:1 and learned it only from a clip count).
		if b, bounded := c.Data.Bounds[col]; bounded && b[0] < b[1] {
			m := c.Data.Categories[col]
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if v := m[k]; v < b[0] || v > b[1] {
					add("the coding of %q maps %q to %v, outside the column's public bound %v:%v: its rows would be clipped to another number; give a code inside the bound or widen it", col, k, v, b[0], b[1])
				}
			}
		}
	}
	if m, ok := c.Data.Categories[c.Model.Outcome]; ok && c.Model.Outcome != "" {
		// The outcome's bound clips what the coding gives: a 0/1 outcome
		// coded 1/2 would make every row a 1 without a word.
		fam := strings.ToLower(strings.TrimSpace(c.Model.Model))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v := m[k]
			switch {
			case fam == "logistic" && v != 0 && v != 1:
				add("the coding of the 0/1 outcome %q maps %q to %v: a 0/1 outcome's coding must give 0 and 1 only (e.g. control=0, case=1)", c.Model.Outcome, k, v)
			case fam == "poisson" && (v < 0 || v != math.Trunc(v)):
				add("the coding of the count outcome %q maps %q to %v: counts are whole numbers ≥ 0", c.Model.Outcome, k, v)
			}
		}
	}
	for _, col := range slices.Sorted(maps.Keys(c.Data.Impute)) {
		v := c.Data.Impute[col]
		b, bounded := c.Data.Bounds[col]
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			add("the value for missing cells of %q must be a finite number (got %v)", col, v)
		case !isRegression(c.Model.Model):
			add("a value for missing cells of %q: only a regression's predictors can be given one; every column of the %s model is an observation, and a made-up observation would be fitted as if it had been seen", col, c.Model.Model)
		case col == c.Model.Outcome && c.Model.Outcome != "":
			add("%s", ImputeOutcomeRefusal(col))
		case len(c.Model.Predictors) > 0 && !slices.Contains(c.Model.Predictors, col):
			add("a value for missing cells is given for %q, which is not a predictor of the model (predictors: %s)", col, strings.Join(c.Model.Predictors, ", "))
		case bounded && !(b[0] <= v && v <= b[1]):
			add("the value for missing cells of %q, %v, lies outside its public bound %v:%v", col, v, b[0], b[1])
		}
	}
	switch c.Data.Delimiter {
	case "", ",", ";", "\t":
	default:
		add("delimiter must be one of , ; or tab (got %q)", c.Data.Delimiter)
	}
	switch c.Init.Kind {
	case "", "uniform", "zero", "values":
	case "dp-map":
		if !(c.Init.Share >= 0 && c.Init.Share < 1) {
			add("dp-map init: the budget share (--init-share, init.share) must be in (0, 1) (got %v)", c.Init.Share)
		}
		if c.Init.Steps < 0 {
			add("dp-map init: init.steps must be ≥ 1 (got %d)", c.Init.Steps)
		}
		if _, ok := gaussianAlgorithms[c.Algorithm]; !ok && (c.Algorithm == Auto || c.Algorithm == "") {
			add("dp-map init is available for dp-penalty, dp-hmc and dp-mala, and the algorithm is auto (the default of a private run), which chooses noise-aware for a regression or a bounded mean model (its draws need no starting point): give the algorithm (--algorithm dp-hmc) to use dp-map")
		} else if !ok {
			add("dp-map init is available for dp-penalty, dp-hmc and dp-mala (got %s)", c.Algorithm)
		}
	default:
		add("init kind must be uniform, zero, values or dp-map (got %q)", c.Init.Kind)
	}
	if c.Init.Radius < 0 || math.IsNaN(c.Init.Radius) || math.IsInf(c.Init.Radius, 0) {
		add("init radius must be a finite number ≥ 0 (got %v)", c.Init.Radius)
	}
	s := c.Settings
	if s.Step < 0 || math.IsNaN(s.Step) || math.IsInf(s.Step, 0) {
		add("step must be a finite number > 0 (got %v)", s.Step)
	}
	if s.Leapfrog < 0 || s.Leapfrog > MaxLeapfrog {
		add("leapfrog must be between 1 and %d (got %d): every iteration computes that many gradients", MaxLeapfrog, s.Leapfrog)
	}
	if s.Box < 0 || math.IsNaN(s.Box) || math.IsInf(s.Box, 0) {
		add("box must be a finite number > 0 (got %v)", s.Box)
	}
	if !(s.TargetAccept >= 0 && s.TargetAccept < 1) {
		add("target-accept must be in (0, 1) (got %v)", s.TargetAccept)
	}
	if s.Metric != "" && s.Metric != "dense" && s.Metric != "diag" {
		add("metric must be dense or diag (got %q)", s.Metric)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"clip", s.Clip}, {"grad-clip", s.GradClip}, {"tau", s.Tau}, {"tau-grad", s.TauGrad}, {"mala-a", s.MALAScale}} {
		if v.x < 0 || math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			add("%s must be a finite number > 0 (got %v)", v.name, v.x)
		}
	}
	if s.Batch < 0 || s.BatchCap < 0 {
		add("batch and batch-cap must be ≥ 1 (got %d, %d)", s.Batch, s.BatchCap)
	}
	switch s.Sampling {
	case "", "poisson", "without-replacement":
	default:
		add("sampling must be poisson or without-replacement (got %q)", s.Sampling)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"barker-c", s.BarkerC}, {"step-epsilon", s.StepEpsilon}, {"noise-multiplier", s.NoiseMultiplier}, {"friction", s.Friction}, {"lambda", s.Lambda}, {"chi", s.Chi}} {
		if v.x < 0 || math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			add("%s must be a finite number > 0 (got %v)", v.name, v.x)
		}
	}
	if !(s.StepDelta >= 0 && s.StepDelta < 1) {
		add("step-delta must be in (0, 1) (got %v)", s.StepDelta)
	}
	if !(s.OPSShare >= 0 && s.OPSShare < 1) {
		add("ops-share must be in (0, 1) (got %v)", s.OPSShare)
	}
	if s.InnerIterations < 0 || s.InnerIterations > MaxInnerIterations {
		add("inner-iterations must be between 1 and %d (got %d): every released draw runs that many MH steps", MaxInnerIterations, s.InnerIterations)
	}
	if b := c.Privacy; b != nil {
		switch {
		case b.Epsilon == 0 && b.Delta > 0:
			add("epsilon must be a finite number > 0 (got 0): a private run needs ε as well as δ")
		case !(b.Epsilon > 0) || math.IsInf(b.Epsilon, 0):
			add("epsilon must be a finite number > 0 (got %v)", b.Epsilon)
		}
		switch {
		case b.Delta == 0 && b.Epsilon > 0:
			add("delta must be in (0, 1) (got 0): a private run needs δ as well as ε; choose δ below 1/n (e.g. 1e-5 for up to 100,000 rows)")
		case !(b.Delta > 0 && b.Delta < 1):
			add("delta must be in (0, 1) (got %v)", b.Delta)
		}
		if err := CheckSamplingRelation(b.Relation); err != nil {
			add("%v", err)
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// LoadOptions are the dataset options the config implies: only the columns
// the model uses are parsed.
func (c *Config) LoadOptions() dataset.Options {
	o := dataset.Options{Categories: c.Data.Categories, DecimalComma: c.Data.DecimalComma, Impute: c.Data.Impute, MaxValues: MaxDataValues}
	if c.Data.DropMissing {
		o.Missing = dataset.MissingDropRows
	}
	if c.Data.Delimiter != "" {
		o.Delimiter = rune(c.Data.Delimiter[0])
	}
	return o
}

// DatasetBounds converts the public bounds to the dataset package's form.
func (c *Config) DatasetBounds() map[string]dataset.Bound {
	if len(c.Data.Bounds) == 0 {
		return nil
	}
	m := make(map[string]dataset.Bound, len(c.Data.Bounds))
	for k, b := range c.Data.Bounds {
		m[k] = dataset.Bound{Lo: b[0], Hi: b[1]}
	}
	return m
}

// PublicJSON is the config as embedded in exports. Every field of Config is
// public by construction but NoiseSDFromRows, a non-private run's statistic
// of its rows, which only a non-private run records (Validate refuses it in
// a private one) and whose exports say NOT PRIVATE.
func (c *Config) PublicJSON() ([]byte, error) { return json.Marshal(c) }

// ParseConfig decodes a JSON config, refusing unknown fields so that typos
// are errors rather than silently ignored settings.
func ParseConfig(b []byte) (*Config, error) {
	// A byte-order mark, as some editors on Windows write (the CSV loader
	// skips one too).
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("run config: the file is empty (want a JSON object, e.g. {\"model\": {\"model\": \"logistic\"}})")
	}
	if t := bytes.TrimSpace(b); t[0] != '{' {
		return nil, errors.New("run config: want a JSON object {...} at the top level")
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		// Name the field as the file spells it, not Go's struct path.
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			// The offset is just past the value: its line and column name
			// the entry (a map's field is the map, not its key: "noise-sd"
			// in model.options).
			line, col := lineColumn(b, ute.Offset)
			field := ute.Field
			if field == "model.options" {
				field = `each value of model.options (e.g. "noise-sd": "1.5")`
			}
			return nil, fmt.Errorf("run config: %s must be %s (got a JSON %s) at line %d, column %d", field, jsonKind(ute.Type), ute.Value, line, col)
		}
		// Say where a syntax error is, as the CSV loader does.
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := lineColumn(b, syn.Offset)
			return nil, fmt.Errorf("run config: line %d, column %d: %w", line, col, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("run config: the JSON ends before its object is closed")
		}
		return nil, fmt.Errorf("run config: %w", err)
	}
	if dec.More() {
		return nil, errors.New("run config: trailing data after the JSON object")
	}
	// A bound is exactly [lo, hi]: decoding into [2]float64 would silently
	// drop a third number or fill a missing one with 0, and the report
	// would state a bound nobody wrote.
	var raw struct {
		Data struct {
			Bounds map[string][]json.RawMessage `json:"bounds"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err == nil {
		for _, col := range slices.Sorted(maps.Keys(raw.Data.Bounds)) {
			if n := len(raw.Data.Bounds[col]); n != 2 {
				return nil, fmt.Errorf("run config: the bound of column %q must be two numbers [lo, hi] (got %d)", col, n)
			}
			for k, v := range raw.Data.Bounds[col] {
				// null decodes to 0: a bound nobody wrote.
				if string(bytes.TrimSpace(v)) == "null" {
					return nil, fmt.Errorf("run config: data.bounds.%s[%d] must be a number (got null)", col, k)
				}
			}
		}
	}
	return &c, nil
}

// ParseCoding reads a text coding typed by the analyst, "F=0, M=1": pairs
// of a value the column can take and its number, separated by commas or
// semicolons, with = or : between them (the page's "text coding" field
// reads the same). Every value the column can take must be listed, at
// least two; a value coded twice or a number that does not parse is an
// error.
func ParseCoding(text string) (map[string]float64, error) {
	m := map[string]float64{}
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		// As the page's parseCoding: the value is what precedes the first
		// = or : after which a single word follows.
		k, v := "", ""
		for i := 1; i < len(part); i++ {
			if part[i] != '=' && part[i] != ':' {
				continue
			}
			if rest := strings.TrimSpace(part[i+1:]); rest != "" && !strings.ContainsAny(rest, " \t\r\n\f\v") {
				k, v = strings.TrimSpace(part[:i]), rest
				break
			}
		}
		if k == "" {
			return nil, fmt.Errorf("write value=number pairs separated by commas, e.g. F=0,M=1 (got %q)", part)
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%q is not a number (in %q)", v, part)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("%q is coded twice", k)
		}
		m[k] = x
	}
	if len(m) < 2 {
		return nil, errors.New("give every value the column can take, at least two (e.g. F=0,M=1)")
	}
	return m, nil
}

// CodedBounds gives every column with a text coding (Data.Categories) and
// no public bound the bound of its numbers, [smallest, largest] (the coding
// is typed by the analyst, so public; the page does the same), and returns
// those columns, sorted. A coding whose numbers are all equal gives none.
func CodedBounds(c *Config) []string {
	var filled []string
	for _, col := range slices.Sorted(maps.Keys(c.Data.Categories)) {
		if _, ok := c.Data.Bounds[col]; ok {
			continue
		}
		vals := slices.Collect(maps.Values(c.Data.Categories[col]))
		if len(vals) == 0 {
			continue
		}
		lo, hi := slices.Min(vals), slices.Max(vals)
		if !(lo < hi) {
			continue
		}
		if c.Data.Bounds == nil {
			c.Data.Bounds = map[string][2]float64{}
		}
		c.Data.Bounds[col] = [2]float64{lo, hi}
		filled = append(filled, col)
	}
	return filled
}

// ConfigKeys returns the top-level keys of a JSON run config (ParseConfig
// checked it), lower-cased as ParseConfig matches them ("Warmup" sets
// warmup), so that a caller can tell a setting the file leaves out from one
// it sets to its zero value ("warmup": 0); nil if b is not an object.
func ConfigKeys(b []byte) map[string]bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), &m) != nil {
		return nil
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[strings.ToLower(k)] = true
	}
	return keys
}

// lineColumn is the 1-based line and column (in bytes) of byte offset off
// of b; json.SyntaxError's offset is just past the offending byte.
func lineColumn(b []byte, off int64) (line, col int) {
	off = min(max(off, 1), int64(len(b)))
	before := b[:off-1]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// jsonKind names what a Go type is in JSON, for ParseConfig's errors.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

// Algorithms lists the algorithm names, sorted.
func Algorithms() []string {
	names := make([]string, 0, len(algorithms))
	for n := range algorithms {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
