package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// LoadData reads the CSV the config describes. Only the columns the model
// uses are parsed when the model names them. (PrepareStream, in load.go,
// reads a file and prepares the run without holding the table.)
func LoadData(r io.Reader, cfg *Config) (*dataset.Table, *dataset.LoadReport, error) {
	return dataset.Load(r, dataOptions(cfg))
}

// Prepared is a validated config bound to a dataset and a model, ready to run
// chains. Chains of one Prepared may run concurrently.
type Prepared struct {
	Config *Config
	Model  model.Model
	// Plan is the resolved plan (private runs: iterations and noise from
	// the budget); Config already holds its settings.
	Plan *Plan
	// Clipped counts values moved into their public bounds, per column.
	// Local diagnostic: not private, never exported.
	Clipped dataset.ClipCounts
	// NoiseSDFromRows is the linear model's noise sd σ when a non-private
	// run did not give one: the least-squares residual sd of these rows
	// (model.Linear.LeastSquaresResidualSD), a plug-in that Config's
	// NoiseSDFromRows then records (never model.options, which a private
	// run would read as public); 0 otherwise.
	NoiseSDFromRows float64
}

// NoiseSDFromRowsNote states a plug-in σ (Prepared.NoiseSDFromRows) for a
// non-private linear run.
func NoiseSDFromRowsNote(s float64, n, d int) string {
	return fmt.Sprintf("linear model: no noise sd was given, so σ = %s, the residual sd of least squares on these %d rows (%d degrees of freedom), is used as known: a plug-in whose own uncertainty (about %s of it) the intervals leave out. A private run needs σ from public knowledge (--model-opt noise-sd=S)",
		report.Num(s, 'g', 4), n, n-d, report.Num(1/math.Sqrt(2*float64(n-d)), 'g', 2))
}

// plugInNoiseSD gives a non-private linear run without a noise sd the
// least-squares residual sd of its rows (a private run is refused without
// one, Config.Validate: it must be public).
func plugInNoiseSD(cfg *Config, m model.Model) (*Config, model.Model, float64, error) {
	lin, ok := m.(*model.Linear)
	if _, given, _ := LinearNoiseSD(cfg); !ok || given || cfg.Privacy != nil || IsPrivate(cfg.Algorithm) {
		if cfg.NoiseSDFromRows != 0 && (!ok || given) {
			// A given σ wins over a recorded estimate, and a model that is
			// not linear has no σ to record.
			c := *cfg
			c.NoiseSDFromRows = 0
			return &c, m, 0, nil
		}
		return cfg, m, 0, nil
	}
	s, err := lin.LeastSquaresResidualSD()
	if err != nil {
		return nil, nil, 0, fmt.Errorf("linear model: no noise sd was given and it cannot be estimated from these rows: %w; give it (--model-opt noise-sd=S, the config's model.options[\"noise-sd\"])", err)
	}
	c := *cfg
	c.NoiseSDFromRows = s
	return &c, lin.WithNoiseSD(s), s, nil
}

// Prepare validates cfg, clips the table's columns to the public bounds (in
// place) and builds the model.
func Prepare(cfg *Config, t *dataset.Table) (*Prepared, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = withDefaultScale(cfg)
	if err := checkBoundsEarly(cfg, t.Names); err != nil {
		return nil, err
	}
	clipped, err := t.ApplyBounds(cfg.DatasetBounds())
	if err != nil {
		return nil, err
	}
	m, err := model.Build(cfg.Model, t)
	if err != nil {
		return nil, err
	}
	return prepareModel(cfg, m, t.Names, clipped)
}

// prepareModel is Prepare once the model is built (names: the loaded
// columns).
func prepareModel(cfg *Config, m model.Model, names []string, clipped dataset.ClipCounts) (*Prepared, error) {
	cfg, m, sigmaHat, err := plugInNoiseSD(cfg, m)
	if err != nil {
		return nil, err
	}
	if cfg.Privacy != nil {
		cfg = nameMeanColumns(cfg, names)
	}
	cfg, autoReason := resolveAuto(cfg, m.N(), m.Dim())
	if err := export.CheckNames(m.ParamNames()); err != nil {
		return nil, fmt.Errorf("%w (rename the column before loading)", err)
	}
	if n := len(cfg.Init.Values); cfg.Init.Kind == "values" && n != m.Dim() {
		return nil, fmt.Errorf("init values: got %d numbers, the model has %d parameters (%v)", n, m.Dim(), m.ParamNames())
	}
	if IsPrivate(cfg.Algorithm) && cfg.Privacy == nil {
		return nil, fmt.Errorf("algorithm %s is private: give a budget (epsilon and delta)", cfg.Algorithm)
	}
	if IsPrivate(cfg.Algorithm) && cfg.Data.DropMissing {
		return nil, errors.New("--drop-missing (the config's data.drop_missing) cannot be used with a private algorithm: dropping rows with missing values makes the number of rows depend on the data, while the privacy guarantee treats n as public; replace a predictor's missing cells by a public value instead (--impute COL=V, the config's data.impute), which keeps every row, or remove incomplete rows before loading")
	}
	if !IsPrivate(cfg.Algorithm) && cfg.Privacy != nil {
		return nil, fmt.Errorf("algorithm %s is not private: it cannot spend a privacy budget (choose a dp-* algorithm, or run without one)", cfg.Algorithm)
	}
	if IsPrivate(cfg.Algorithm) {
		if err := checkPublicBounds(cfg, names); err != nil {
			return nil, err
		}
		if err := checkImputeEveryPredictor(cfg, names); err != nil {
			return nil, err
		}
	}
	resolved, plan, err := resolve(cfg, m, m.N(), m.Dim())
	if err != nil {
		if autoReason != "" {
			// The user did not name this algorithm: say who chose it.
			return nil, fmt.Errorf("--algorithm auto chose %s (%s): %w", cfg.Algorithm, autoReason, err)
		}
		return nil, err
	}
	if err := checkStorage(resolved, m.Dim(), cfg); err != nil {
		return nil, err
	}
	if _, err := newKernel(resolved.Algorithm, m, resolved.Settings, resolved); err != nil {
		return nil, err
	}
	if autoReason != "" {
		plan.AutoReason = autoReason
		plan.Notes = append(plan.Notes, AutoNote(plan.Algorithm, autoReason))
	}
	return &Prepared{Config: resolved, Model: m, Plan: plan, Clipped: clipped, NoiseSDFromRows: sigmaHat}, nil
}

// MaxStoredValues bounds the numbers one chain holds in memory: (warmup +
// draws) × parameters, 8 bytes each (2 GiB; the page runs each chain in its
// own worker). MaxRunStoredValues bounds those of all chains together
// (8 GiB, four chains at the per-chain limit: the command-line tool holds
// every chain in one process; before, 64 chains could ask for 137 GB). A
// run asking for more is refused before it touches the data, rather than
// dying of an out-of-memory crash after a private release.
const (
	MaxStoredValues    = 1 << 28
	MaxRunStoredValues = 1 << 30
)

// MaxDataValues is the most values (rows × used columns) a run loads: 2 GB
// of float64 (10⁷ rows of 26 columns). A larger input, or one of unknown
// size that does not end (a pipe), is refused with the row where the
// limit was reached instead of exhausting memory.
const MaxDataValues = 1 << 28

// checkStorage refuses a resolved config c whose chains would each hold
// more than MaxStoredValues numbers, or all together more than
// MaxRunStoredValues. given is the user's config: when it plans the
// iterations (a private run without warmup and draws), the advice is not
// fewer draws the user never set but less noise, when the user gave a
// noise the plan follows, or else warmup and draws of their own.
func checkStorage(c *Config, dim int, given *Config) error {
	per := (float64(c.Warmup) + float64(c.Draws)) * float64(max(dim, 1))
	fewer, fewerAll := "lower the draws or the warmup", "lower the draws, the warmup or the chains"
	if given.Privacy != nil && given.Warmup == 0 && given.Draws == 0 {
		st := given.Settings
		if st.Tau > 0 || st.TauGrad > 0 || st.StepEpsilon > 0 || st.NoiseMultiplier > 0 {
			fewer = "these iterations were planned from the noise given (--tau, --tau-grad, --step-epsilon or --noise-multiplier): give less noise, which plans fewer, or give --warmup and --draws"
		} else {
			fewer = "these iterations were planned from the budget: give --warmup and --draws"
		}
		fewerAll = fewer
	}
	if per > MaxStoredValues {
		return fmt.Errorf("draws: each chain would hold (%d warmup + %d draws) × %d parameters = %.3g numbers, %.3g GB of memory; at most %d (%.3g GB) per chain: %s",
			c.Warmup, c.Draws, dim, per, per*8/1e9, MaxStoredValues, float64(MaxStoredValues)*8/1e9, fewer)
	}
	chains := max(c.Chains, 1)
	if all := float64(chains) * per; all > MaxRunStoredValues {
		return fmt.Errorf("draws: the run would hold %s × (%d warmup + %d draws) × %d parameters = %.3g numbers, %.3g GB of memory; at most %d (%.3g GB) for all chains together: %s",
			ChainsWord(chains), c.Warmup, c.Draws, dim, all, all*8/1e9, MaxRunStoredValues, float64(MaxRunStoredValues)*8/1e9, fewerAll)
	}
	return nil
}

// checkPublicBounds refuses a private run on a regression model unless every
// column the model reads has a public bound: without one the per-row
// sensitivities the accountant relies on do not hold.
func checkPublicBounds(cfg *Config, names []string) error {
	cols := cfg.Model.Predictors
	if len(cols) == 0 {
		cols = names
	} else if cfg.Model.Outcome != "" {
		cols = append([]string{cfg.Model.Outcome}, cols...)
	}
	if names != nil && cfg.Model.Outcome != "" && !slices.Contains(names, cfg.Model.Outcome) {
		return nil // the outcome is not a column: the model names it as such
	}
	var missing []string
	for _, c := range cols {
		if c == cfg.Model.Outcome && strings.EqualFold(strings.TrimSpace(cfg.Model.Model), "logistic") {
			continue // 0/1 by the model's support check: bounded without a bound
		}
		if names != nil && !slices.Contains(names, c) {
			continue // not a column at all: the loader names it as such
		}
		if _, ok := cfg.Data.Bounds[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 && isRegression(cfg.Model.Model) {
		// A bound whose column is not in the file is most likely the
		// missing one misspelt: name it, which the loader would do later.
		stray := ""
		if names != nil {
			var bad []string
			for _, c := range slices.Sorted(maps.Keys(cfg.Data.Bounds)) {
				if !slices.Contains(names, c) {
					bad = append(bad, fmt.Sprintf("%q", c))
				}
			}
			if len(bad) > 0 {
				stray = "; the bounds given for " + strings.Join(bad, ", ") + " name no column of the file"
			}
		}
		return fmt.Errorf("a private run needs a public bound for every column the model uses; missing: %s (give --bound COL=LO:HI from domain knowledge, never from the data)%s", strings.Join(missing, ", "), stray)
	}
	return nil
}

// checkImputeEveryPredictor refuses a private run whose values for missing
// cells (data.impute, --impute) name some predictors but not all: the
// report and the exported config state the imputed columns, and an analyst
// who typed values only where cells were missing would publish which
// columns have them. The page asks for a value for every predictor; so
// does the CLI in a private run. names are the loaded columns.
func checkImputeEveryPredictor(cfg *Config, names []string) error {
	if len(cfg.Data.Impute) == 0 {
		return nil
	}
	preds := cfg.Model.Predictors
	if len(preds) == 0 {
		for _, c := range names {
			if c != cfg.Model.Outcome {
				preds = append(preds, c)
			}
		}
	}
	var missing []string
	for _, c := range preds {
		if _, ok := cfg.Data.Impute[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("a private run with values for missing cells needs one for every predictor, missing: %s (--impute %s=V, or COL=mid for the middle of its bound): the privacy report and the exported config list the imputed columns, and a list of only the columns that have missing cells would tell that about the data", strings.Join(missing, ", "), missing[0])
	}
	return nil
}

// withDefaultScale returns cfg with the regression parameterization
// resolved: a private run of a regression model samples the coefficients of
// the predictors scaled to [−1, 1] by their public bounds (model.Scaling;
// every such run has those bounds) unless the config says scale = none.
// Non-private runs keep the user's units unless scale = bounds or auto is
// given. cfg is not modified.
func withDefaultScale(cfg *Config) *Config {
	if cfg.Model.Scale != "" || cfg.Privacy == nil || !isRegression(cfg.Model.Model) {
		return cfg
	}
	c := *cfg
	c.Model.Scale = model.ScaleBounds
	return &c
}

// checkBoundsEarly is checkPublicBounds before the model is built, for a
// run that will be private (its algorithm is private or auto, with a
// budget), so that a missing bound is reported as such rather than as the
// scaling's error. names are the loaded columns (nil: only the named
// predictors are checked).
func checkBoundsEarly(cfg *Config, names []string) error {
	if err := checkBoundColumns(cfg, names); err != nil {
		return err
	}
	if cfg.Privacy == nil || (cfg.Algorithm != Auto && !IsPrivate(cfg.Algorithm)) {
		return nil
	}
	if names == nil && len(cfg.Model.Predictors) == 0 {
		return nil
	}
	return checkPublicBounds(cfg, names)
}

// checkBoundColumns refuses a public bound or text coding of a column the
// model does not use, once the model names its columns (names: the loaded
// ones, its outcome and predictors), saying so: the loader reads only those
// columns, and its own error ("not a loaded column") blamed a bound the user
// never typed for a coding (--category sex=F:0,M:1 of an unused column; a
// review).
func checkBoundColumns(cfg *Config, names []string) error {
	if len(cfg.Model.Predictors) == 0 || names == nil {
		return nil
	}
	for _, col := range slices.Sorted(maps.Keys(cfg.Data.Bounds)) {
		if slices.Contains(names, col) {
			continue
		}
		what, drop := "has a public bound (--bound, the config's data.bounds)", "drop its bound"
		if _, ok := cfg.Data.Categories[col]; ok {
			what, drop = "has a text coding (--category, the config's data.categories)", "drop its coding"
		}
		uses, role := "predictors "+strings.Join(quoteAll(cfg.Model.Predictors), ", "), "neither the outcome nor a predictor of this model"
		if cfg.Model.Outcome != "" {
			uses = fmt.Sprintf("outcome %q, %s", cfg.Model.Outcome, uses)
		} else {
			role = "not one of this model's columns"
		}
		return fmt.Errorf("column %q %s but is %s (%s): add it to the predictors, or %s (or correct its name, if it is a typo)",
			col, what, role, uses, drop)
	}
	return nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

// ModelPrior returns s of the N(0, s²) prior on every coefficient of a
// regression run as it runs (the config's, else the default) and whether it
// is on the predictors scaled to [−1, 1] by their public bounds (scale =
// bounds, the default of a private run, and always for noise-aware).
func ModelPrior(cfg *Config) (sd float64, scaled bool) {
	c := withDefaultScale(cfg)
	scaled = strings.EqualFold(c.Model.Scale, model.ScaleBounds) || c.Algorithm == NoiseAware
	sd = c.Model.PriorSD
	if v, err := strconv.ParseFloat(strings.TrimSpace(c.Model.Options["prior-sd"]), 64); sd == 0 && err == nil {
		sd = v
	}
	if sd == 0 {
		sd = 10
		if scaled {
			sd = model.DefaultScaledPriorSD
		}
	}
	return sd, scaled
}

// PriorSDs is every regression coefficient's prior sd in the user's units
// (report.PriorSDs with ModelPrior), for the posterior the run's algorithm
// samples: noise-aware's linear regression also scales the outcome to
// [−1, 1] by its public bound (NoiseAwareOutcomeHalf), so its prior sds in
// the outcome's units are h_y times those of the scaled predictors. Empty
// when they are unknown (a scaled predictor or the outcome without a bound).
func PriorSDs(cfg *Config, names []string) map[string]float64 {
	sd, scaled := ModelPrior(cfg)
	out := report.PriorSDs(names, cfg.Data.Bounds, sd, scaled)
	if h, ok := NoiseAwareOutcomeHalf(cfg); ok {
		for k := range out {
			out[k] *= h
		}
	} else if cfg.Algorithm == NoiseAware && strings.EqualFold(strings.TrimSpace(cfg.Model.Model), "linear") {
		return map[string]float64{}
	}
	return out
}

// NoiseAwareOutcomeHalf is h_y, the half-range by which noise-aware's
// linear regression scales its outcome (noiseaware.OutcomeScaling, as its
// plan does), and whether cfg is such a run with a finite outcome bound.
func NoiseAwareOutcomeHalf(cfg *Config) (float64, bool) {
	if cfg.Algorithm != NoiseAware || !strings.EqualFold(strings.TrimSpace(cfg.Model.Model), "linear") {
		return 0, false
	}
	b, ok := cfg.Data.Bounds[cfg.Model.Outcome]
	if !ok || !(b[1] > b[0]) || math.IsInf(b[0], 0) || math.IsInf(b[1], 0) {
		return 0, false
	}
	_, h := noiseaware.OutcomeScaling(model.Interval{Lo: b[0], Hi: b[1]}, !cfg.Model.NoIntercept)
	return h, true
}

func isRegression(name string) bool {
	for _, mi := range model.Models() {
		if strings.EqualFold(mi.Name, strings.TrimSpace(name)) {
			return mi.Regression
		}
	}
	return false
}

// initial draws chain c's starting point from its public stream.
func (p *Prepared) initial(r rng.Streams) []float64 {
	d := p.Model.Dim()
	theta := make([]float64, d)
	switch p.Config.Init.Kind {
	case "zero":
	case "values":
		copy(theta, p.Config.Init.Values) // in the user's units
		if sc := model.ScalingOf(p.Model); sc != nil {
			sc.FromUser(theta)
		}
	default:
		rad := or(p.Config.Init.Radius, 2)
		for i := range theta {
			theta[i] = rad * (2*r.Public.Float64() - 1)
		}
	}
	return theta
}

// RunChain runs chain c (0-based) with the noise key. The browser runs one
// chain per Web Worker through this function; Run runs them all.
func (p *Prepared) RunChain(ctx context.Context, c int, key rng.Key, progress func(Progress)) (*ChainResult, error) {
	ch, err := p.NewChain(c, key)
	if err != nil {
		return nil, err
	}
	return runChain(ctx, ch, c, p.Config.ProgressEvery, progress)
}

// runSharedKeyChain is RunChain for Run, which gives every chain the same
// key. It also returns the JSON of the chain's shared release (nil for an
// algorithm without one).
func (p *Prepared) runSharedKeyChain(ctx context.Context, c int, key rng.Key, progress func(Progress)) (*ChainResult, []byte, error) {
	ch, err := p.NewChainSharedKey(c, key)
	if err != nil {
		return nil, nil, err
	}
	var rel []byte
	if c == 0 { // every chain shares the one release
		if rel, err = ch.ReleaseJSON(); err != nil {
			return nil, nil, err
		}
	}
	cr, err := runChain(ctx, ch, c, p.Config.ProgressEvery, progress)
	return cr, rel, err
}

// Result is a finished (or cancelled) run.
type Result struct {
	Config *Config
	Names  []string
	Chains []*ChainResult
	// Cancelled is true when the context ended the run early; the chains
	// hold what ran.
	Cancelled bool
	// Aborted is the *NonFiniteError that stopped the run (the other
	// chains are stopped too), or nil. The chains hold what ran; their
	// draws are finite, but the run must not be exported as a sample: Run
	// returns the same error.
	Aborted error
	// Release is the JSON of the run's one shared release (noise-aware,
	// Chain.ReleaseJSON), nil for other algorithms or when no chain
	// started: the mechanism's output, public once made, never its key.
	// Report checks it is this run's (PrivacyReport.NoteRelease).
	Release []byte
}

// Run runs every chain in parallel, each with its own streams. When ctx is
// cancelled it returns the partial result with Cancelled set and no error.
// When a chain's state becomes non-finite, the other chains are stopped and
// Run returns the partial result (Aborted set; Report counts every iteration
// that ran) together with the *NonFiniteError.
func (p *Prepared) Run(ctx context.Context, progress func(Progress)) (*Result, error) {
	return p.run(ctx, rng.NewKey(), progress)
}

// run is Run with a given noise key (tests fix it so that statistical
// tests are deterministic; the tool and the page always use rng.NewKey).
func (p *Prepared) run(ctx context.Context, key rng.Key, progress func(Progress)) (*Result, error) {
	res := &Result{Config: p.Config, Names: p.Model.ParamNames(), Chains: make([]*ChainResult, p.Config.Chains)}
	errs := make([]error, p.Config.Chains)
	runCtx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	var mu sync.Mutex
	report := func(pr Progress) {
		if progress != nil {
			mu.Lock()
			progress(pr)
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	var release []byte // written by chain 0's goroutine only, read after Wait
	for c := range p.Config.Chains {
		wg.Go(func() {
			var rel []byte
			res.Chains[c], rel, errs[c] = p.runSharedKeyChain(runCtx, c, key, report)
			if c == 0 {
				release = rel
			}
			var nf *NonFiniteError
			if errors.As(errs[c], &nf) {
				stopAll()
			}
		})
	}
	wg.Wait()
	res.Release = release
	for _, err := range errs {
		var nf *NonFiniteError
		switch {
		case err == nil:
		case errors.As(err, &nf):
			if res.Aborted == nil {
				res.Aborted = err
			}
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			if ctx.Err() != nil { // the caller's cancellation, not an abort
				res.Cancelled = true
			}
		default:
			return nil, err
		}
	}
	if res.Aborted != nil {
		for _, ch := range res.Chains {
			if ch == nil { // a chain that never started ran no iteration
				return nil, res.Aborted
			}
		}
		return res, res.Aborted
	}
	return res, nil
}

// Draws converts the result to the export form. Warmup draws are included
// (and counted in Draws.Warmup) only when withWarmup is set. When a run was
// cancelled, every chain is cut to the shortest chain's length so the draws
// form a rectangle.
func (r *Result) Draws(withWarmup bool) *export.Draws {
	d := len(r.Names)
	nw, nd := -1, -1
	for _, ch := range r.Chains {
		w, k := len(ch.Warmup)/d, len(ch.Draws)/d
		if nw < 0 || w < nw {
			nw = w
		}
		if nd < 0 || k < nd {
			nd = k
		}
	}
	out := &export.Draws{Names: append([]string(nil), r.Names...)}
	if withWarmup {
		out.Warmup = nw
	}
	for _, ch := range r.Chains {
		var rows [][]float64
		if withWarmup {
			for i := range nw {
				rows = append(rows, ch.Warmup[i*d:(i+1)*d:(i+1)*d])
			}
		}
		for i := range nd {
			rows = append(rows, ch.Draws[i*d:(i+1)*d:(i+1)*d])
		}
		out.Values = append(out.Values, rows)
	}
	return out
}

// Iterations is the total number of iterations that ran, all chains, warmup
// included: what privacy accounting charges.
func (r *Result) Iterations() int {
	n := 0
	for _, ch := range r.Chains {
		n += ch.Iterations
	}
	return n
}

// Report is the privacy report of a private run's result.
func (p *Prepared) Report(res *Result) (*PrivacyReport, error) {
	its := make([]int, len(res.Chains))
	for c, ch := range res.Chains {
		its[c] = ch.Iterations
	}
	rep, err := NewReport(p.Config, p.Model.N(), p.Model.Dim(), its, res.Cancelled || res.Aborted != nil)
	if err != nil {
		return nil, err
	}
	rep.MarkAborted(res.Aborted)
	rep.NoteReleaseOrSay(p.Config, p.Model.N(), p.Model.Dim(), res.Release)
	if p.Plan != nil && p.Plan.AutoReason != "" {
		rep.Notes = append(rep.Notes, AutoNote(p.Config.Algorithm, p.Plan.AutoReason))
	}
	return rep, nil
}

// ScaleAutoHint is advice for a run whose chains did not converge: a
// non-private regression run sampled in the user's units (scale none, the
// default) whose predictors all have public bounds could sample the same
// posterior with scale = auto, which is far better conditioned on raw
// measurements (docs/SAMPLERS.md "scale = auto"; on a Pima-like table of
// 768 rows and 8 raw clinical predictors, HMC at the defaults has R-hat
// above 1.01 in the user's units and converges with auto). "" otherwise.
// params are the run's parameter names (the intercept, when there is one,
// first, then the predictors).
func ScaleAutoHint(cfg *Config, params []string, converged bool) string {
	if converged || cfg.Privacy != nil || !isRegression(cfg.Model.Model) {
		return ""
	}
	if sc := strings.ToLower(strings.TrimSpace(cfg.Model.Scale)); sc != "" && sc != model.ScaleNone {
		return ""
	}
	predictors := params
	if !cfg.Model.NoIntercept && len(predictors) > 0 {
		predictors = predictors[1:]
	}
	if len(predictors) == 0 {
		return ""
	}
	for _, c := range predictors {
		if _, ok := cfg.Data.Bounds[c]; !ok {
			return ""
		}
	}
	return "Hint: the coefficients were sampled in the user's units, where raw measurements (predictors far from 0, or on very different scales) make the posterior hard to sample; every predictor has a public bound, so --scale auto samples the same posterior and prior on the predictors scaled by those bounds, which usually converges (docs/SAMPLERS.md, \"scale = auto\")."
}
