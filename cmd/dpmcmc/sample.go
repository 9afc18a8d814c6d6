package main

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/run"
)

func init() {
	register("sample", "draw posterior samples from a CSV file", runSample)
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseCategoryFlags reads repeated --category COL=CODING flags (sample's
// and summary's) into column → text → number (run.ParseCoding), naming the
// flag at fault.
func parseCategoryFlags(items []string) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	for _, item := range items {
		col, coding, ok := strings.Cut(item, "=")
		col = strings.TrimSpace(col)
		if !ok || col == "" {
			return nil, fmt.Errorf("--category %q: want COL=CODING, e.g. sex=F:0,M:1", item)
		}
		if _, dup := out[col]; dup {
			return nil, fmt.Errorf("--category %s is given twice: give every value of the column in one coding", col)
		}
		m, err := run.ParseCoding(coding)
		if err != nil {
			return nil, fmt.Errorf("--category %s: %w", col, err)
		}
		out[col] = m
	}
	return out, nil
}

// sampleFlags are the flags of `dpmcmc sample`; they fill a run.Config.
type sampleFlags struct {
	data, config, out, format, predictors string
	bounds, modelOpts, impute, category   listFlag
	noPrivacy, printConfig, saveWarmup    bool
	quiet                                 bool
	report, relation                      string
	epsilon, delta                        float64
	cfg                                   run.Config
}

func (f *sampleFlags) register(fs *flag.FlagSet) {
	c := &f.cfg
	fs.StringVar(&f.data, "data", "", "CSV file with a header row (required)")
	fs.StringVar(&f.config, "config", "", "JSON run config file; flags given explicitly override it")
	fs.StringVar(&c.Model.Model, "model", "", "model: logistic, linear, poisson, gaussian, gmm, banana")
	fs.StringVar(&c.Model.Outcome, "outcome", "", "outcome column (regression models)")
	fs.StringVar(&f.predictors, "predictors", "", "comma-separated predictor (or data) columns; default: every column but the outcome")
	fs.BoolVar(&c.Model.NoIntercept, "no-intercept", false, "drop the intercept (regression models)")
	fs.Float64Var(&c.Model.PriorSD, "prior-sd", 0, "s of the N(0, s²) prior on each coefficient (default 20 on the predictors scaled to [-1, 1] by their bounds (--scale bounds, every private regression run); 10 in the user's units; gaussian: 100)")
	fs.StringVar(&c.Model.Scale, "scale", "", "regression coefficients sampled for the predictors scaled to [-1, 1] by their public bounds, with the prior on the scaled coefficients (bounds: the default of a private run; draws are reported in the user's units), the same space with the prior kept in the user's units when every predictor has a bound (auto: the posterior of none, better conditioned for raw measurements), or in the user's units (none: the default of a non-private run)")
	fs.Float64Var(&c.Model.Temper, "temper", 0, "raise the likelihood to the power F, 0 < F ≤ 1 (default 1)")
	fs.Var(&f.bounds, "bound", "public bound COL=LO:HI of a column (repeatable); values outside are clipped")
	fs.Var(&f.modelOpts, "model-opt", "model option KEY=VALUE (repeatable), e.g. a=20, cov=FILE.csv")
	fs.StringVar(&c.Data.Delimiter, "delimiter", "", "CSV delimiter: , ; or tab (default: detect)")
	fs.Var(&f.category, "category", "COL=CODING (repeatable): the text coding of a column written as text, every value it can take with its number, e.g. sex=F:0,M:1 or \"sex=F=0;M=1\" (data.categories in a config; the page's \"text coding\"). Public: from the study's coding, not from the rows. Without --bound COL its bound is that of the numbers")
	fs.Var(&f.impute, "impute", "COL=V (repeatable; COL=V,COL2=V2 too): replace the missing cells of predictor COL by the public value V, e.g. a typical value from the literature, never from these data (mid: the middle of COL's --bound). Every row is kept, so private runs allow it")
	fs.BoolVar(&c.Data.DropMissing, "drop-missing", false, "drop rows with a missing value instead of stopping (non-private runs only)")
	fs.BoolVar(&c.Data.DecimalComma, "decimal-comma", false, "numbers use a decimal comma (70,5), as in semicolon-separated files from many European locales; '.' is then refused in numbers")
	fs.StringVar(&c.Algorithm, "algorithm", "", "sampler: auto (the recommended one; the default of a private run), "+strings.Join(run.Algorithms(), ", "))
	fs.BoolVar(&f.noPrivacy, "no-privacy", false, "state that this run is not private (non-private algorithms only)")
	fs.IntVar(&c.Chains, "chains", 4, "number of chains")
	fs.IntVar(&c.Warmup, "warmup", 1000, "warmup iterations per chain (a private run plans its own from the budget unless this is given; exact, whose draws are independent, runs none unless this is given)")
	fs.IntVar(&c.Draws, "draws", 2000, "draws per chain after warmup (a private run plans its own from the budget unless this is given)")
	fs.Uint64Var(&c.Seed, "seed", 0, "seed of the public randomness (inits, proposals; a non-private run's draws follow from it alone, a private run's noise and accept decisions never do); 0 picks a random one. It is exported with the config (it is public)")
	fs.Float64Var(&c.Settings.Step, "step", 0, "proposal sd per coordinate (MH-type) or leapfrog/Langevin step (gradient kernels)")
	fs.IntVar(&c.Settings.Leapfrog, "leapfrog", 0, "leapfrog steps per HMC iteration (default 10)")
	fs.BoolVar(&c.Settings.NoAdapt, "no-adapt", false, "do not adapt the step during warmup")
	fs.Float64Var(&c.Settings.TargetAccept, "target-accept", 0, "target acceptance rate of warmup adaptation")
	fs.StringVar(&c.Settings.Jitter, "jitter", "", "HMC step jitter: none, uniform, halton")
	fs.StringVar(&c.Settings.Metric, "metric", "", "metric HMC adapts during warmup: dense (default: the chains' covariance, for correlated coefficients) or diag")
	fs.Float64Var(&c.Settings.Lambda, "lambda", 0, "TunaMH/DP-Fast MH constant λ")
	fs.Float64Var(&c.Settings.Chi, "chi", 0, "TunaMH χ in λ = χC²M²")
	fs.Float64Var(&c.Settings.Box, "box", 0, "bound every parameter to [-BOX, BOX] (kernels that need bounded parameters)")
	fs.Float64Var(&f.epsilon, "epsilon", 0, "total privacy budget ε for all chains, warmup included (private algorithms)")
	fs.Float64Var(&f.delta, "delta", 0, "total δ (private algorithms); choose δ < 1/n")
	fs.StringVar(&f.relation, "relation", "replace", "neighbouring relation: replace (one row replaced, n public), the only one sampling supports (a run uses and reports the exact n); add/remove bounds: see \"dpmcmc account\"")
	fs.Float64Var(&c.Settings.Clip, "clip", 0, "clip each row's log-likelihood ratio to ±R·‖θ'−θ‖ (default: the public bound implied by the column bounds; dp-barker: the factor of √b/N₀, default 0.99; dp-barker-full: ±R itself, default calibrated to the budget)")
	fs.Float64Var(&c.Settings.GradClip, "grad-clip", 0, "clip each row's gradient to L2 norm G (default: the public bound implied by the column bounds)")
	fs.Float64Var(&c.Settings.Tau, "tau", 0, "noise scale τ (default: calibrated so the planned iterations fit the budget)")
	fs.Float64Var(&c.Settings.TauGrad, "tau-grad", 0, "DP-HMC gradient noise scale τ_g (default: 5.5·τ; τ = τ_g/5.5 when only this is given)")
	fs.BoolVar(&c.Settings.OCU, "ocu", false, "dp-penalty: change one coordinate per proposal")
	fs.BoolVar(&c.Settings.GRW, "grw", false, "dp-penalty: guided random walk (implies --ocu)")
	fs.Float64Var(&c.Settings.MALAScale, "mala-a", 0, "dp-mala: proposal variance factor a (default 1)")
	fs.IntVar(&c.Settings.InnerIterations, "inner-iterations", 0, "ops: MH iterations behind each released draw (default 1000)")
	fs.IntVar(&c.Settings.Batch, "batch", 0, "minibatch size b (minibatch samplers; default min(1000, n/10), at least 16)")
	fs.StringVar(&c.Settings.Sampling, "sampling", "", "minibatch sampling: without-replacement (default) or poisson")
	fs.Float64Var(&c.Settings.BarkerC, "barker-c", 0, "DP Barker: variance C of the normal part of the logistic noise (default 2)")
	fs.IntVar(&c.Settings.BatchCap, "batch-cap", 0, "DP-Fast MH: batch cap K (default ⌈ε_step·n/6⌉)")
	fs.Float64Var(&c.Settings.StepEpsilon, "step-epsilon", 0, "DP-Fast MH: per-iteration ε (default: the largest that fits the planned iterations)")
	fs.Float64Var(&c.Settings.StepDelta, "step-delta", 0, "DP-Fast MH: per-iteration δ (default δ/(2·iterations))")
	fs.Float64Var(&c.Settings.NoiseMultiplier, "noise-multiplier", 0, "DP-SGLD: raise the gradient noise to z·G where the dynamics' own noise is smaller")
	fs.Float64Var(&c.Settings.Friction, "friction", 0, "SGHMC/SGNHT friction (default 0.1)")
	fs.Float64Var(&c.Settings.OPSShare, "ops-share", 0, "hybrid: share of ε for the one-posterior-sample start (default 0.5)")
	fs.StringVar(&f.report, "report", "", "privacy report JSON (private runs; default: --out with its extension replaced, e.g. draws.csv → draws.privacy.json)")
	fs.StringVar(&c.Init.Kind, "init", "", "initial values: uniform (default, U(-2,2)), zero, comma-separated numbers (in the user's units; in a private run they must be public, e.g. from the literature, never computed from these data: the privacy report lists them), or dp-map (private runs: start each chain from a private estimate of the mode, spending --init-share of the budget)")
	fs.Float64Var(&c.Init.Share, "init-share", 0, "dp-map: share of the budget's μ² spent on the initialisations (default 0.2)")
	fs.StringVar(&f.out, "out", "", "output draws file (required)")
	fs.StringVar(&f.format, "format", "draws", "output format: draws (tidy CSV, all chains) or stan (CmdStan CSV, one file per chain: OUT_1.csv, ...; one chain: OUT itself)")
	fs.BoolVar(&f.saveWarmup, "save-warmup", false, "also write the warmup draws (--format stan: its header counts them; the tidy draws format holds the draws after warmup only)")
	fs.BoolVar(&f.printConfig, "print-config", false, "print the run config as JSON and exit without sampling")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on stderr")
}

// buildConfig merges the config file (if any) with the explicitly set flags.
func (f *sampleFlags) buildConfig(fs *flag.FlagSet) (*run.Config, error) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if err := refuseExplicitZero(fs, set); err != nil {
		return nil, err
	}
	cfg := f.cfg
	// given reports whether the user chose a setting: by its flag, or by
	// its key in the config file. A setting chosen neither way gets the
	// flag's default (or a private run's plan), whether or not a file was
	// given.
	given := func(name string) bool { return set[name] }
	if f.config != "" {
		b, err := os.ReadFile(f.config)
		if err != nil {
			return nil, err
		}
		fileCfg, err := run.ParseConfig(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.config, err)
		}
		keys := run.ConfigKeys(b)
		if keys["chains"] && fileCfg.Chains == 0 && !set["chains"] {
			// --chains 0 is refused; the file's 0 would silently be 4.
			return nil, fmt.Errorf("%s: run config: chains 0: give at least 1, or leave \"chains\" out for the default (4)", f.config)
		}
		if fileCfg.Draws == 0 {
			delete(keys, "draws") // "draws": 0 is no request (0 draws are none)
		}
		given = func(name string) bool { return set[name] || keys[name] }
		// Re-apply the explicitly given flags on top of the file; the
		// iterations the file leaves out take the flags' defaults (a
		// missing "warmup" is not a request for none).
		merged := *fileCfg
		overlay(&merged, &cfg, set)
		if !given("warmup") {
			merged.Warmup = cfg.Warmup
		}
		if !given("draws") {
			merged.Draws = cfg.Draws
		}
		cfg = merged
	}
	if set["predictors"] {
		cfg.Model.Predictors = splitList(f.predictors)
		if len(cfg.Model.Predictors) == 0 {
			// "" or "," would silently mean every column.
			return nil, fmt.Errorf("--predictors %q names no column (leave the flag out to use every column but the outcome)", f.predictors)
		}
	}
	if cfg.Model.Model == "" {
		return nil, errors.New("--model is required")
	}
	private := set["epsilon"] || set["delta"] || cfg.Privacy != nil
	if cfg.Algorithm == "" && private {
		cfg.Algorithm = run.Auto // resolved from n and d once the data are loaded
	}
	if cfg.Algorithm == "" {
		return nil, errors.New("--algorithm is required (or --algorithm auto)")
	}
	if len(f.modelOpts) > 0 {
		if cfg.Model.Options == nil {
			cfg.Model.Options = map[string]string{}
		}
		given := map[string]bool{}
		for _, kv := range f.modelOpts {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fmt.Errorf("--model-opt %q: want KEY=VALUE", kv)
			}
			k = strings.TrimSpace(k)
			if given[k] {
				// As a repeated --bound: which one was meant is not known.
				return nil, fmt.Errorf("--model-opt %s is given twice", k)
			}
			given[k] = true
			if k == "cov" {
				cov, err := readMatrix(strings.TrimSpace(v))
				if err != nil {
					return nil, fmt.Errorf("--model-opt cov: %w", err)
				}
				cfg.Model.Cov = cov
				continue
			}
			cfg.Model.Options[k] = strings.TrimSpace(v)
		}
	}
	if len(f.bounds) > 0 {
		bs, err := dataset.ParseBounds(f.bounds)
		if err != nil {
			return nil, err
		}
		if cfg.Data.Bounds == nil {
			cfg.Data.Bounds = map[string][2]float64{}
		}
		for k, b := range bs {
			cfg.Data.Bounds[k] = [2]float64{b.Lo, b.Hi}
		}
	}
	if len(f.category) > 0 {
		cats, err := parseCategoryFlags(f.category)
		if err != nil {
			return nil, err
		}
		if cfg.Data.Categories == nil {
			cfg.Data.Categories = map[string]map[string]float64{}
		}
		maps.Copy(cfg.Data.Categories, cats)
	}
	// A coded column without a bound has the bound of its numbers (the
	// coding is public), from a flag or from the config file.
	run.CodedBounds(&cfg)
	if err := applyImpute(&cfg, f.impute); err != nil {
		return nil, err
	}
	if set["init"] {
		switch cfg.Init.Kind {
		case "uniform", "zero", "", "dp-map":
		default:
			vals, err := parseFloats(cfg.Init.Kind)
			if err != nil {
				return nil, fmt.Errorf("--init: want uniform, zero, dp-map or comma-separated numbers: %w", err)
			}
			cfg.Init.Kind, cfg.Init.Values = "values", vals
		}
	}
	if cfg.Data.Delimiter == "tab" || cfg.Data.Delimiter == `\t` {
		cfg.Data.Delimiter = "\t"
	}
	if cfg.Seed == 0 {
		// A random public seed, as the page's: it is exported with the
		// config (DESIGN rule 4: it drives only public randomness), so it
		// must not be the run's start time.
		cfg.Seed = randomSeed()
	}
	// auto with a budget resolves to a private algorithm (run.Recommend).
	privateAlg := run.IsPrivate(cfg.Algorithm) || (cfg.Algorithm == run.Auto && private)
	if set["epsilon"] || set["delta"] {
		if !privateAlg && !slices.Contains(run.Algorithms(), cfg.Algorithm) {
			return nil, fmt.Errorf("unknown algorithm %q (choose one of %s, or auto)", cfg.Algorithm, strings.Join(run.Algorithms(), ", "))
		}
		if !privateAlg {
			return nil, fmt.Errorf("--epsilon/--delta: %s is not a private algorithm (private: %s)", cfg.Algorithm, strings.Join(privateAlgorithms(), ", "))
		}
		b := run.Budget{Epsilon: f.epsilon, Delta: f.delta, Relation: f.relation}
		if cfg.Privacy != nil {
			b = *cfg.Privacy
			if set["epsilon"] {
				b.Epsilon = f.epsilon
			}
			if set["delta"] {
				b.Delta = f.delta
			}
		}
		cfg.Privacy = &b
	}
	if cfg.Privacy != nil && set["relation"] {
		cfg.Privacy.Relation = f.relation
	}
	// Refused here, not only by Validate, so that --print-config and a
	// --relation given to a non-private run refuse it too.
	if set["relation"] {
		if err := run.CheckSamplingRelation(f.relation); err != nil {
			return nil, fmt.Errorf("--relation: %w", err)
		}
	}
	if cfg.Privacy != nil {
		if err := run.CheckSamplingRelation(cfg.Privacy.Relation); err != nil {
			return nil, err
		}
	}
	if privateAlg {
		if cfg.Privacy == nil {
			return nil, fmt.Errorf("%s is private: give the total budget with --epsilon and --delta", cfg.Algorithm)
		}
		// Private runs plan their iterations from the budget unless the
		// user fixed them (by flag or in the file): the flags' defaults do
		// not count.
		if !given("warmup") {
			cfg.Warmup = 0
		}
		if !given("draws") {
			cfg.Draws = 0
		}
	}
	// A sampler whose draws are independent (exact: run.WarmupNote) runs
	// no warmup unless asked: the flag's default does not count. auto in
	// a non-private run resolves by the model alone (run.Recommend).
	alg := cfg.Algorithm
	if alg == run.Auto && !privateAlg {
		alg, _ = run.Recommend(cfg.Model.Model, 0, 0, false, false)
	}
	if !given("warmup") && run.WarmupNote(alg) != "" {
		cfg.Warmup = 0
	}
	if f.noPrivacy && cfg.Algorithm == run.Auto && private {
		return nil, fmt.Errorf("--no-privacy contradicts the budget (--epsilon/--delta, or the config's privacy): leave out the budget for a non-private run, or --no-privacy for a private one")
	}
	if f.noPrivacy && privateAlg {
		return nil, fmt.Errorf("--no-privacy: %s is a private algorithm and always adds its noise; choose a non-private algorithm instead", cfg.Algorithm)
	}
	return &cfg, nil
}

// overlay copies into dst the fields of src whose flags were set explicitly.
func overlay(dst, src *run.Config, set map[string]bool) {
	if set["model"] {
		dst.Model.Model = src.Model.Model
	}
	if set["outcome"] {
		dst.Model.Outcome = src.Model.Outcome
	}
	if set["no-intercept"] {
		dst.Model.NoIntercept = src.Model.NoIntercept
	}
	if set["prior-sd"] {
		dst.Model.PriorSD = src.Model.PriorSD
	}
	if set["scale"] {
		dst.Model.Scale = src.Model.Scale
	}
	if set["temper"] {
		dst.Model.Temper = src.Model.Temper
	}
	if set["delimiter"] {
		dst.Data.Delimiter = src.Data.Delimiter
	}
	if set["drop-missing"] {
		dst.Data.DropMissing = src.Data.DropMissing
	}
	if set["decimal-comma"] {
		dst.Data.DecimalComma = src.Data.DecimalComma
	}
	if set["algorithm"] {
		dst.Algorithm = src.Algorithm
	}
	if set["chains"] || dst.Chains == 0 {
		dst.Chains = src.Chains
	}
	if set["warmup"] {
		dst.Warmup = src.Warmup
	}
	if set["draws"] {
		dst.Draws = src.Draws
	}
	if set["seed"] {
		dst.Seed = src.Seed
	}
	if set["init"] {
		dst.Init.Kind, dst.Init.Values = src.Init.Kind, src.Init.Values
	}
	if set["init-share"] {
		dst.Init.Share = src.Init.Share
	}
	s, d := &src.Settings, &dst.Settings
	if set["step"] {
		d.Step = s.Step
	}
	if set["leapfrog"] {
		d.Leapfrog = s.Leapfrog
	}
	if set["no-adapt"] {
		d.NoAdapt = s.NoAdapt
	}
	if set["target-accept"] {
		d.TargetAccept = s.TargetAccept
	}
	if set["jitter"] {
		d.Jitter = s.Jitter
	}
	if set["metric"] {
		d.Metric = s.Metric
	}
	if set["lambda"] {
		d.Lambda = s.Lambda
	}
	if set["chi"] {
		d.Chi = s.Chi
	}
	if set["box"] {
		d.Box = s.Box
	}
	for name, p := range map[string][2]*float64{"clip": {&d.Clip, &s.Clip}, "grad-clip": {&d.GradClip, &s.GradClip},
		"tau": {&d.Tau, &s.Tau}, "tau-grad": {&d.TauGrad, &s.TauGrad}, "mala-a": {&d.MALAScale, &s.MALAScale},
		"barker-c": {&d.BarkerC, &s.BarkerC}, "step-epsilon": {&d.StepEpsilon, &s.StepEpsilon}, "step-delta": {&d.StepDelta, &s.StepDelta},
		"noise-multiplier": {&d.NoiseMultiplier, &s.NoiseMultiplier}, "friction": {&d.Friction, &s.Friction}, "ops-share": {&d.OPSShare, &s.OPSShare}} {
		if set[name] {
			*p[0] = *p[1]
		}
	}
	if set["batch"] {
		d.Batch = s.Batch
	}
	if set["batch-cap"] {
		d.BatchCap = s.BatchCap
	}
	if set["sampling"] {
		d.Sampling = s.Sampling
	}
	if set["ocu"] {
		d.OCU = s.OCU
	}
	if set["grw"] {
		d.GRW = s.GRW
	}
	if set["inner-iterations"] {
		d.InnerIterations = s.InnerIterations
	}
}

func runSample(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sample", "--data FILE.csv --model NAME --out FILE [--algorithm NAME (a private run's default: auto) | --epsilon E --delta D] [flags]", stderr)
	var f sampleFlags
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := f.buildConfig(fs)
	if err != nil {
		return err
	}
	if f.printConfig {
		b, err := cfg.PublicJSON()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return nil
	}
	if f.data == "" {
		return errors.New("--data is required")
	}
	if f.out == "" {
		return errors.New("--out is required")
	}
	if f.format != "draws" && f.format != "stan" {
		return fmt.Errorf("--format must be draws or stan (got %q)", f.format)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := checkOutputs(f.data, f.out, f.report, f.format, cfg.Chains, cfg.Privacy != nil); err != nil {
		return err
	}
	file, err := os.Open(f.data)
	if err != nil {
		return err
	}
	defer file.Close()
	start := time.Now()
	loaded := func(lrep *dataset.LoadReport) {
		if !f.quiet {
			fmt.Fprintf(stderr, "loaded %s: %d rows × %d columns in %s (the time is shown here only, not exported)\n", f.data, lrep.Rows, lrep.Columns, time.Since(start).Round(time.Millisecond))
			if lrep.DroppedRows > 0 {
				fmt.Fprintf(stderr, "dropped %d rows with missing values (not private, not exported)\n", lrep.DroppedRows)
			}
			for _, col := range slices.Sorted(maps.Keys(lrep.MissingCells)) {
				if v, ok := cfg.Data.Impute[col]; ok {
					fmt.Fprintf(stderr, "replaced %s of %s by %v (this count is not private and is not exported)\n", countNoun(lrep.MissingCells[col], "missing cell"), col, v)
				}
			}
		}
	}
	// From a regular file the rows go straight into the model's storage
	// (bounded memory for large files); on a data error, or a model that
	// cannot be built from chunks, the whole table is read again to report
	// or run exactly as before. A pipe is read once, as a table.
	var p *run.Prepared
	var lrep *dataset.LoadReport
	fi, err := file.Stat()
	streamed := err == nil && fi.Mode().IsRegular()
	if streamed {
		p, lrep, err = run.PrepareStream(file, cfg)
	} else {
		err = run.ErrNotStreamed
	}
	switch {
	case err == nil:
		loaded(lrep)
	case errors.Is(err, run.ErrNotStreamed):
		if streamed {
			if _, err := file.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("%s: %w", f.data, err)
			}
		}
		tab, lrep, err := run.LoadData(file, cfg)
		if err != nil {
			if d := cfg.Data.Delimiter; d != "" {
				// A forced delimiter that is not the file's makes any
				// error: name it as a cause.
				name := map[string]string{",": "','", ";": "';'", "\t": "tab"}[d]
				return fmt.Errorf("%s: %w (read with the delimiter %s that --delimiter or the config sets; leave it out to have the file's detected)", f.data, err, name)
			}
			return fmt.Errorf("%s: %w", f.data, err)
		}
		loaded(lrep)
		if p, err = run.Prepare(cfg, tab); err != nil {
			if errors.Is(err, model.ErrData) {
				return fmt.Errorf("%s: %w", f.data, err) // its line and column are the file's
			}
			return err
		}
	default:
		return err
	}
	if !f.quiet {
		for _, line := range clipLines(p.Clipped, p.Config) {
			fmt.Fprintln(stderr, line)
		}
		for _, n := range repeatedFlags(fs, args) {
			fmt.Fprintf(stderr, "note: %s\n", n)
		}
	}
	if p.Plan.AutoReason != "" {
		fmt.Fprintf(stderr, "algorithm: %s (%s)\n", p.Config.Algorithm, p.Plan.AutoReason)
	}
	if pl := p.Plan; pl.Private && !f.quiet {
		fmt.Fprintf(stderr, "plan: %s × (%d warmup + %d draws) iterations, ε = %.4g of %.4g at δ = %g (%s accountant)\n",
			run.ChainsWord(pl.Chains), pl.Warmup, pl.Draws, pl.Epsilon, cfg.Privacy.Epsilon, pl.Delta, pl.Accountant)
		for _, n := range pl.Notes {
			// What weakens the guarantee reads as --quiet prints it.
			label := "note"
			if slices.Contains(pl.Warnings, n) {
				label = "warning"
			}
			fmt.Fprintf(stderr, "%s: %s\n", label, n)
		}
	} else if pl.Private {
		// --quiet keeps what weakens the guarantee itself.
		for _, w := range pl.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	} else if !f.quiet {
		// A private plan's notes say these; a non-private run has no plan
		// printed.
		if ig := run.IgnoredSettings(p.Config); len(ig) > 0 {
			fmt.Fprintf(stderr, "note: %s\n", run.IgnoredNote(p.Config.Algorithm, ig))
		}
		if n := run.UnneededWarmupNote(p.Config.Algorithm, p.Config.Warmup); n != "" {
			fmt.Fprintf(stderr, "note: %s\n", n)
		}
	}
	if p.NoiseSDFromRows > 0 {
		// A private run refuses a linear model without σ
		// (run.LinearNoiseSDMissing); a non-private one estimates it from
		// the rows, and says so even with --quiet: it sets every width.
		fmt.Fprintln(stderr, "note: "+run.NoiseSDFromRowsNote(p.NoiseSDFromRows, p.Model.N(), p.Model.Dim()))
	}
	if f.saveWarmup && f.format == "draws" {
		// Not silently dropped: the tidy format (posterior's draws_df) has
		// no way to mark warmup rows, so a reader would take them for draws.
		fmt.Fprintln(stderr, "note: --save-warmup is read with --format stan only (its header counts the warmup draws and summary skips them): the tidy draws file holds the draws after warmup")
	}
	if !f.quiet {
		for _, n := range run.IgnoredInitNotes(p.Config) {
			fmt.Fprintf(stderr, "note: %s\n", n)
		}
	}
	if run.IsGaussian(p.Config) && !p.Plan.Private && !f.quiet {
		// A private plan's notes (printed above) say it.
		fmt.Fprintln(stderr, "note: "+run.GaussianCovNote(p.Config.Model.Cov != nil))
	}
	// The mixing forecast (public inputs only); a forecast that the chains
	// cannot (or, for typical data, will probably not) converge is printed
	// even with --quiet.
	if fc := p.Plan.Forecast; fc != nil && p.Plan.Private && (!f.quiet || fc.ProbablyNotMixing()) {
		fmt.Fprintf(stderr, "forecast: %s\n", fc.Text)
	}
	ctx, stop := interruptContext(stderr)
	defer stop()
	bar := newProgressBar(stderr, cfg.Chains, f.quiet)
	res, err := p.Run(ctx, bar.update)
	bar.done()
	if err != nil && (res == nil || res.Aborted == nil) {
		return err
	}
	if res.Cancelled {
		// Every iteration that ran is charged (the report); the draws file
		// keeps the same number of draws per chain, the shortest chain's.
		kept := res.Draws(f.saveWarmup)
		perChain := kept.NumIterations() + kept.Warmup
		fmt.Fprintf(stderr, "interrupted: %d iterations ran, all charged in the privacy report; the draws file keeps %d per chain (the shortest chain's)\n", res.Iterations(), perChain)
		if perChain == 0 {
			fmt.Fprintln(stderr, "warning: a chain had drawn nothing after warmup when interrupted: the draws file holds no draws")
		}
	}
	var rep *run.PrivacyReport
	if run.IsPrivate(p.Config.Algorithm) {
		if rep, err = p.Report(res); err != nil {
			return err
		}
		path := reportPath(f.out, f.report)
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		if err := writeFile(path, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
			return err
		}
		if !f.quiet || res.Aborted != nil {
			fmt.Fprintf(stderr, "privacy report: %s\n%s\n%s\n", path, rep.Statement, report.Budget(rep.Epsilon, rep.EpsilonBudget, rep.Delta))
		}
	} else {
		// Even with --quiet: a user who forgot --epsilon must not take
		// these draws for private ones.
		fmt.Fprintln(stderr, report.NotPrivate(p.Config.Algorithm))
	}
	if res.Aborted != nil {
		// A chain's state became non-finite: the privacy report (above)
		// counts what ran; no draws are written.
		return res.Aborted
	}
	if err := writeDraws(f.out, f.format, p.Config, res, f.saveWarmup, rep); err != nil {
		return err
	}
	d := res.Draws(false)
	if d.NumIterations() > 1 {
		rows := diag.Summary(d.Names, d.Values)
		// Ratios per the public step of each predictor's bound, as on the
		// page (report.Steps; the bounds were checked with the config).
		steps, err := report.Steps(p.Config.Data.Bounds)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		private := run.IsPrivate(p.Config.Algorithm)
		verdict := diag.Assess(rows, d.NumChains()).WithStuck(diag.StuckChains(d.Sampling()))
		heading := runHeading(p.Config, d)
		if err := writeSummaryTable(stdout, heading, rows, verdict, p.Config.Model.Model, steps, private, p.Config.Algorithm,
			report.InterceptNote(p.Config.Model.Model, d.Names, p.Config.Data.Bounds, report.ReferenceCodes(p.Config.Data.Categories), d.Values, p.Config.Data.Bounds[p.Config.Model.Outcome])); err != nil {
			return err
		}
		// The gaussian model's theta1, theta2, … are its columns' means, in
		// the order of its data columns (named in the resolved config).
		if note := report.MeanColumnsNote(p.Config.Model.Model, d.Names, p.Config.Model.Predictors); note != "" {
			fmt.Fprintln(stdout, note)
		}
		// Advice, not part of the summary (which equals `dpmcmc summary`'s,
		// but for the heading of a sampler without warmup and a linear
		// mean outcome undetermined against the outcome's bound, which the
		// draws file alone does not tell):
		// on stderr, even with --quiet, like a forecast that warns.
		if hint := run.ScaleAutoHint(p.Config, d.Names, verdict.Converged); hint != "" {
			fmt.Fprintln(stderr, hint)
		}
		if report.Regression(p.Config.Model.Model) {
			prior := run.PriorSDs(p.Config, d.Names)
			if note := report.PriorNote(rows, prior, run.PriorCentres(p.Config, d.Names), private); note != "" {
				fmt.Fprintln(stdout, note)
			}
			if verdict.Converged {
				_, scaled := run.ModelPrior(p.Config)
				if note := report.PriorPullNote(rows, prior, run.PriorCentres(p.Config, d.Names), scaled, run.PriorShifts(p.Config, d)); note != "" {
					fmt.Fprintln(stdout, note)
				}
			}
		}
		// Converged or not: chains pinned to the box can agree.
		if note := run.BoxNote(p.Config, d, "--box"); note != "" {
			fmt.Fprintln(stdout, note)
		}
	} else {
		// Not a silent end: say why there is no table.
		more := "More --draws give one."
		if p.Config.Algorithm == "ops" {
			more = "More --draws give one (ops: every draw is an independent posterior sample, so more --chains, read by dpmcmc summary, do too)."
		}
		fmt.Fprintf(stdout, "\n%s: no summary table (R-hat and ESS need at least 2 draws per chain); the draws are in %s. %s\n",
			runHeading(p.Config, d), drawsFiles(f.out, f.format, d.NumChains()), more)
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "%s:\n", report.LocalHeading)
		for c, ch := range res.Chains {
			fmt.Fprintln(stderr, report.Local(c, report.Chain{Iterations: ch.Iterations, Accepted: ch.Accepted, Clipped: ch.Clipped, Rows: ch.Rows, Divergent: ch.Divergent, DivergentWarmup: ch.DivergentWarmup,
				IndependentDraws: run.IndependentDraws(p.Config.Algorithm)}))
		}
	}
	if res.Cancelled {
		return errInterrupted
	}
	return nil
}

// writeDraws writes the draws in the chosen format.
func writeDraws(out, format string, cfg *run.Config, res *run.Result, withWarmup bool, rep *run.PrivacyReport) error {
	d := res.Draws(withWarmup)
	if format == "draws" {
		return writeFile(out, func(w io.Writer) error { return export.WriteDrawsCSV(w, d) })
	}
	e := export.Export{
		Draws:  d,
		Header: export.RunHeader(cfg.Model.Model, cfg.Algorithm, d, cfg.Warmup),
		Config: cfg,
	}
	if rep != nil {
		e.Privacy = rep
	}
	for c := range d.NumChains() {
		name := out
		if d.NumChains() > 1 {
			name = stanChainPath(out, c)
		}
		if err := writeFile(name, func(w io.Writer) error { return export.WriteStanCSV(w, e, c) }); err != nil {
			return err
		}
	}
	return nil
}

// reportPath is the privacy report's file: --report, or --out with its
// extension replaced by .privacy.json.
func reportPath(out, report string) string {
	if report != "" {
		return report
	}
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".privacy.json"
}

// runHeading is the summary's heading of a run: "after warmup", or "(no
// warmup)" for a run that ran none.
func runHeading(cfg *run.Config, d *export.Draws) string {
	if cfg.Warmup == 0 {
		return report.HeadingNoWarmup(d.NumChains(), d.NumIterations())
	}
	return report.Heading(d.NumChains(), d.NumIterations(), 0)
}

// drawsFiles names the files writeDraws wrote: OUT, or one Stan CSV per
// chain (OUT_1.csv … OUT_4.csv).
func drawsFiles(out, format string, chains int) string {
	if format == "draws" || chains == 1 {
		return out
	}
	if chains == 2 {
		return stanChainPath(out, 0) + " and " + stanChainPath(out, 1)
	}
	return stanChainPath(out, 0) + " … " + stanChainPath(out, chains-1)
}

// stanChainPath is chain c's (0-based) file of a Stan CSV export with more
// than one chain: OUT_1.csv, OUT_2.csv, …
func stanChainPath(out string, c int) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + "_" + strconv.Itoa(c+1) + ext
}

// checkOutputs refuses, before the data are read, outputs that would
// overwrite the data file or each other (the draws and the privacy
// report), and directories where they cannot be written: a private run
// spends its budget, so its outputs must not fail only at the end.
func checkOutputs(data, out, report, format string, chains int, private bool) error {
	type output struct{ flag, path string }
	var outs []output
	if format == "stan" && chains > 1 {
		for c := range chains {
			outs = append(outs, output{"--out", stanChainPath(out, c)})
		}
	} else {
		outs = append(outs, output{"--out", out})
	}
	if private {
		flag := "--report"
		if report == "" {
			flag = "--out (its default privacy report)"
		}
		outs = append(outs, output{flag, reportPath(out, report)})
	}
	same := func(a, b string) bool {
		if fa, err := os.Stat(a); err == nil {
			if fb, err := os.Stat(b); err == nil {
				return os.SameFile(fa, fb)
			}
		}
		aa, err1 := filepath.Abs(a)
		bb, err2 := filepath.Abs(b)
		return err1 == nil && err2 == nil && aa == bb
	}
	for i, o := range outs {
		if same(o.path, data) {
			return fmt.Errorf("%s %s is the data file: writing it would overwrite the data; choose another output path", o.flag, o.path)
		}
		for _, p := range outs[:i] {
			if same(o.path, p.path) {
				return fmt.Errorf("%s %s is also the output of %s: one would overwrite the other; choose different paths", o.flag, o.path, p.flag)
			}
		}
		if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
			return fmt.Errorf("%s %s is a directory; give a file path", o.flag, o.path)
		}
		dir := filepath.Dir(o.path)
		tmp, err := os.CreateTemp(dir, ".dpmcmc-check-*")
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("%s %s: cannot write in %s: %w", o.flag, o.path, dir, err)
		}
		tmp.Close()
		os.Remove(tmp.Name())
	}
	return nil
}

// writeFile writes through a temporary file and renames it, so a failed
// write never leaves a truncated export behind.
func writeFile(name string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".dpmcmc-*")
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func privateAlgorithms() []string {
	var out []string
	for _, a := range run.Algorithms() {
		if run.IsPrivate(a) {
			out = append(out, a)
		}
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, p := range splitList(s) {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		out = append(out, v)
	}
	return out, nil
}

// readMatrix reads a numeric CSV matrix without a header (a covariance).
func readMatrix(path string) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.TrimLeadingSpace = true
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([][]float64, len(recs))
	for i, rec := range recs {
		for j, cell := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: line %d, column %d: %q is not a number", path, i+1, j+1, cell)
			}
			out[i] = append(out[i], v)
		}
	}
	return out, nil
}

// applyImpute adds the --impute values (COL=V or COL=mid, several per flag
// separated by commas) to cfg.Data.Impute; mid is the middle of COL's
// public bound, which must then be given, and a text value of COL's
// declared coding (cfg.Data.Categories) is its number. The values are public: the
// config, and so every export, states them.
func applyImpute(cfg *run.Config, list []string) error {
	seen := map[string]bool{}
	for _, item := range list {
		for _, kv := range strings.Split(item, ",") {
			col, v, ok := strings.Cut(kv, "=")
			col, v = strings.TrimSpace(col), strings.TrimSpace(v)
			if !ok || col == "" || v == "" {
				if _, err := strconv.ParseFloat(strings.TrimSpace(kv), 64); err == nil && strings.Contains(item, "=") {
					// "bmi=27,5": a decimal comma split the value.
					return fmt.Errorf("--impute %q: want COL=VALUE or COL=mid (a comma separates COL=VALUE pairs: typed values use '.' as the decimal point, even when the file uses decimal commas)", item)
				}
				return fmt.Errorf("--impute %q: want COL=VALUE or COL=mid", kv)
			}
			if seen[col] {
				// As a repeated --bound: which value was meant is not known.
				return fmt.Errorf("--impute %s is given twice: give one value for its missing cells", col)
			}
			seen[col] = true
			var x float64
			if strings.EqualFold(v, "mid") {
				b, bounded := cfg.Data.Bounds[col]
				if !bounded {
					return fmt.Errorf("--impute %s=mid: %s has no public bound (give --bound %s=LO:HI, or a value)", col, col, col)
				}
				x = b[0] + (b[1]-b[0])/2
			} else if code, coded := cfg.Data.Categories[col][v]; coded {
				// A text value of the column's declared coding (sex=F
				// with --category sex=F:0,M:1) is its number.
				x = code
			} else {
				var err error
				if x, err = strconv.ParseFloat(v, 64); err != nil {
					if len(cfg.Data.Categories[col]) > 0 {
						return fmt.Errorf("--impute %s=%s: not a number, mid or a value of %s's coding (%s)", col, v, col, strings.Join(slices.Sorted(maps.Keys(cfg.Data.Categories[col])), ", "))
					}
					return fmt.Errorf("--impute %s=%s: not a number (or mid)", col, v)
				}
			}
			if cfg.Data.Impute == nil {
				cfg.Data.Impute = map[string]float64{}
			}
			cfg.Data.Impute[col] = x
		}
	}
	return nil
}

// countNoun is "1 missing cell", "2 missing cells".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// clipLines says, per column, how many values the public bounds clipped
// (a local diagnostic: not private, never exported). A bound must come
// from what the column can take; the count shows a typo or a unit mix-up
// in it, or data-entry errors that the clip already contains. A 0/1
// outcome's values above 1 are most likely a 1/2 coding, which the clip
// would fit as all ones: that line says how to map it.
func clipLines(c dataset.ClipCounts, cfg *run.Config) []string {
	var out []string
	for _, col := range slices.Sorted(maps.Keys(c)) {
		n := c[col]
		if n.Below+n.Above == 0 {
			continue
		}
		b := cfg.Data.Bounds[col]
		var parts []string
		if n.Above > 0 {
			parts = append(parts, fmt.Sprintf("%s above %v", countNoun(n.Above, "value"), b[1]))
		}
		if n.Below > 0 {
			parts = append(parts, fmt.Sprintf("%s below %v", countNoun(n.Below, "value"), b[0]))
		}
		advice := fmt.Sprintf("keep a bound that comes from what %s can take, and fix it only if it was mistyped or in other units", col)
		if col == cfg.Model.Outcome && strings.EqualFold(strings.TrimSpace(cfg.Model.Model), "logistic") {
			advice = fmt.Sprintf("a 0/1 outcome outside 0:1 was fitted as its nearest end; if %s is coded otherwise, e.g. 1/2, map it to 0/1 with --category %s=1:0,2:1, or in the config: \"data\": {\"categories\": {%q: {\"1\": 0, \"2\": 1}}}", col, col, col)
		}
		out = append(out, fmt.Sprintf("clipped %s of %s to its bound %v:%v (this count is not private and is not exported; %s)",
			strings.Join(parts, " and "), col, b[0], b[1], advice))
	}
	return out
}

// interruptContext is cancelled by the first Ctrl-C (os.Interrupt), which
// lets every chain finish its current iteration and the run write what ran
// (all of it charged). A single iteration can take long (many rows, many
// leapfrog steps), so the first Ctrl-C also says so and restores the
// default action: a second one ends the process at once, writing nothing
// (nothing is released, so nothing needs a report). stop releases the
// signal.
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			fmt.Fprintln(stderr, "\ninterrupt: each chain stops after its current iteration, then what ran is written and charged; Ctrl-C again quits at once and writes nothing")
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		cancel()
	}
}

// randomSeed is a public seed from the system's random source, in
// [1, 2³¹ − 1] like the page's (never 0, which means "not given").
func randomSeed() uint64 {
	var b [8]byte
	_, _ = cryptorand.Read(b[:]) // never fails on supported platforms (Go 1.24+)
	return 1 + binary.LittleEndian.Uint64(b[:])%2147483647
}

// zeroMeansDefault are the flags whose zero value stands for "the
// algorithm's default" in the config: typed explicitly, 0 is refused rather
// than silently replaced by the default.
var zeroMeansDefault = []string{"prior-sd", "temper", "step", "leapfrog", "target-accept", "lambda", "chi", "box",
	"clip", "grad-clip", "tau", "tau-grad", "mala-a", "inner-iterations", "batch", "barker-c", "batch-cap",
	"step-epsilon", "step-delta", "noise-multiplier", "friction", "ops-share", "init-share"}

// refuseExplicitZero refuses a flag of zeroMeansDefault given as 0.
func refuseExplicitZero(fs *flag.FlagSet, set map[string]bool) error {
	for _, name := range zeroMeansDefault {
		fl := fs.Lookup(name)
		if !set[name] || fl == nil {
			continue
		}
		if v, err := strconv.ParseFloat(fl.Value.String(), 64); err == nil && v == 0 {
			return fmt.Errorf("--%s 0: give a value > 0, or leave the flag out for its default", name)
		}
	}
	return nil
}
