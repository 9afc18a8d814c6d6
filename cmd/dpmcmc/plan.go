package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/run"
)

func init() {
	register("plan", "plan a private run's iterations or noise without data", runPlan)
}

// runPlan answers "how many iterations per chain do I get" (noise given) and
// "how much noise for N iterations" (iterations given) from public inputs
// only: n, the number of parameters, the budget and the settings.
func runPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plan", "--algorithm NAME --n N --epsilon E --delta D --chains C [--warmup W --draws D | --tau T] [settings]", stderr)
	var (
		cfg      run.Config
		n, dim   int
		eps, del float64
		relation string
	)
	fs.StringVar(&cfg.Algorithm, "algorithm", "", "private algorithm: "+strings.Join(privateAlgorithms(), ", ")+", or auto (the recommended one for the model, n and dim: what a private sample without --algorithm runs)")
	fs.IntVar(&n, "n", 0, "number of rows (public)")
	fs.IntVar(&dim, "dim", 0, "number of parameters, intercept included (needed by dp-hmc, dp-mala, noise-aware and auto; also by the logistic mixing forecast)")
	fs.Float64Var(&eps, "epsilon", 0, "total ε for all chains, warmup included")
	fs.Float64Var(&del, "delta", 0, "total δ")
	fs.StringVar(&relation, "relation", "replace", "neighbouring relation: replace (n public), the only one sampling supports; add/remove bounds: see \"dpmcmc account\"")
	fs.IntVar(&cfg.Chains, "chains", 4, "number of chains")
	fs.IntVar(&cfg.Warmup, "warmup", 0, "warmup iterations per chain (with --draws: fixes the iterations, and the noise is calibrated)")
	fs.IntVar(&cfg.Draws, "draws", 0, "draws per chain after warmup")
	s := &cfg.Settings
	fs.Float64Var(&s.Tau, "tau", 0, "noise scale τ (given: the iterations are planned)")
	fs.Float64Var(&s.TauGrad, "tau-grad", 0, "DP-HMC gradient noise scale τ_g (default: 5.5·τ; τ = τ_g/5.5 when only this is given)")
	fs.IntVar(&s.Leapfrog, "leapfrog", 0, "DP-HMC leapfrog steps L (default 10)")
	fs.Float64Var(&s.Step, "step", 0, "DP-MALA proposal step σ_p (its cost depends on it)")
	fs.Float64Var(&s.Clip, "clip", 0, "log-likelihood-ratio clip R (does not change the plan of dp-penalty and dp-hmc; dp-barker: the factor of √b/N₀, default 0.99; dp-barker-full: the per-row clip, calibrated to the budget when unset)")
	fs.Float64Var(&s.GradClip, "grad-clip", 0, "gradient clip G (needed by dp-mala, dp-sgld, dp-sgnht, hybrid)")
	fs.Float64Var(&s.MALAScale, "mala-a", 0, "DP-MALA proposal variance factor a (default 1)")
	fs.Float64Var(&s.Box, "box", 0, "parameter box (ops, hybrid)")
	fs.IntVar(&s.Batch, "batch", 0, "minibatch size b (minibatch samplers)")
	fs.StringVar(&s.Sampling, "sampling", "", "minibatch sampling: without-replacement (default) or poisson")
	fs.Float64Var(&s.BarkerC, "barker-c", 0, "DP Barker C (default 2)")
	fs.Float64Var(&s.StepEpsilon, "step-epsilon", 0, "DP-Fast MH per-iteration ε (given: the iterations are planned)")
	fs.Float64Var(&s.StepDelta, "step-delta", 0, "DP-Fast MH per-iteration δ")
	fs.Float64Var(&s.NoiseMultiplier, "noise-multiplier", 0, "DP-SGLD extra gradient noise multiplier")
	fs.Float64Var(&s.OPSShare, "ops-share", 0, "hybrid: share of ε for the one-posterior-sample start")
	fs.StringVar(&cfg.Model.Model, "model", "logistic", "the model, for the mixing forecast's bound on the posterior sd (logistic from --clip or --dim, linear from --noise-sd and --dim, poisson from --outcome-bound and --dim, gaussian and banana from --bound; the regressions' assume predictors scaled to [−1, 1] with an intercept, as in a private run); noise-aware: logistic, linear or poisson, or gaussian and banana with --bound on every data column")
	fs.Float64Var(&cfg.Model.PriorSD, "prior-sd", 0, "prior sd of every coefficient, for the mixing forecast (default: the model's; a private regression run's is 20 on the predictors scaled to [-1, 1] by their bounds)")
	fs.StringVar(&cfg.Model.Scale, "scale", "", "bounds (the default of a private regression run: coefficients of the predictors scaled to [-1, 1]), auto (scaled, with the prior in the user's units) or none (the user's units; the default of a non-private run)")
	outcomeBound := fs.String("outcome-bound", "", "linear and poisson: the outcome's public bound LO:HI, as a run's --bound OUTCOME=LO:HI (noise-aware: required; poisson: HI caps the mean and bounds the mixing forecast's posterior scale; linear: the outcome is scaled by it)")
	noiseSD := fs.Float64("noise-sd", 0, "linear model (required): the model's known noise sd in the outcome's units, as a run's --model-opt noise-sd=S")
	asText := fs.Bool("text", false, "print a sentence instead of JSON")
	var boundFlags listFlag
	fs.Var(&boundFlags, "bound", "gaussian and banana (noise-aware, and auto, which chooses it when every data column has one): public bound COL=LO:HI of a data column (repeatable, as in sample); the release's sensitivity comes from them")
	predictors := fs.String("predictors", "", "gaussian and banana: comma-separated data columns (banana default x1,x2; the gaussian's are required with --bound); --dim is then their number")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// As sample: 0 stands for "default" or "planned" in the config, so a
	// typed 0 is refused rather than silently replaced.
	if err := refuseExplicitZero(fs, set); err != nil {
		return err
	}
	if set["draws"] && cfg.Draws == 0 {
		return errors.New("--draws 0: give a value ≥ 1, or leave --draws and --warmup out to have them planned")
	}
	cfg.Model.Model = strings.ToLower(strings.TrimSpace(cfg.Model.Model))
	if err := checkPlanInputs(&cfg, dim); err != nil {
		return err
	}
	meanModel := cfg.Model.Model == "gaussian" || cfg.Model.Model == "banana"
	if len(boundFlags) > 0 || *predictors != "" {
		if !meanModel {
			return fmt.Errorf("--bound and --predictors are for the gaussian and banana models here (got --model %s; a regression's bounds enter its plan through --dim, --clip and --outcome-bound)", cfg.Model.Model)
		}
		bs, err := dataset.ParseBounds(boundFlags)
		if err != nil {
			return fmt.Errorf("--bound: %w", err)
		}
		cfg.Data.Bounds = map[string][2]float64{}
		for k, b := range bs {
			cfg.Data.Bounds[k] = [2]float64{b.Lo, b.Hi}
		}
		if *predictors != "" {
			cfg.Model.Predictors = strings.Split(*predictors, ",")
			for i, c := range cfg.Model.Predictors {
				cfg.Model.Predictors[i] = strings.TrimSpace(c)
			}
		}
		if cfg.Model.Model == "gaussian" && len(cfg.Model.Predictors) == 0 {
			// A run reads every column when none are named, bounded or
			// not: the plan cannot know them from the bounds.
			return errors.New("the gaussian model reads every column unless --predictors names them: give --predictors with its data columns for a plan (a run reads the data's header)")
		}
		// The number of parameters is the number of data columns.
		cols := len(cfg.Model.Predictors)
		if cols == 0 {
			cols = 2 // the banana's x1, x2
		}
		if dim != 0 && dim != cols {
			return fmt.Errorf("--dim %d: the %s model has one parameter per data column (%d)", dim, cfg.Model.Model, cols)
		}
		dim = cols
	}
	switch {
	case cfg.Algorithm == "" && n == 0:
		return errors.New("--algorithm and --n are required (--algorithm auto plans the recommended algorithm, what a private sample without --algorithm runs)")
	case cfg.Algorithm == "":
		// Not defaulted to auto: the settings a plan takes (--tau, --step,
		// --warmup, …) belong to a chosen sampler, and auto's choice
		// would silently ignore them (a review).
		return errors.New("--algorithm is required (a private algorithm, or --algorithm auto for the recommended one: what a private sample without --algorithm runs)")
	case n == 0:
		return errors.New("--n is required (the number of rows, public)")
	}
	var autoReason string
	if cfg.Algorithm == run.Auto {
		// Resolved here, from the public n and dim, so that the chosen
		// algorithm's own inputs (noise-aware's bounds) are read below.
		cfg.Algorithm, autoReason = run.Recommend(cfg.Model.Model, n, dim, true, run.MeanStatisticBounded(&cfg))
	}
	if !run.IsPrivate(cfg.Algorithm) {
		return fmt.Errorf("%q is not a private algorithm (private: %s)", cfg.Algorithm, strings.Join(privateAlgorithms(), ", "))
	}
	// The linear model's known noise sd, as a run's --model-opt noise-sd:
	// every private linear plan needs it (run.LinearNoiseSDMissing).
	if *noiseSD == 0 && cfg.Model.Model == "linear" {
		return errors.New("a private linear plan needs the model's noise sd (--noise-sd S, in the outcome's units), as a run does (--model-opt noise-sd=S): the model treats it as known, and it sets every interval's width")
	}
	if *noiseSD != 0 {
		if cfg.Model.Model != "linear" {
			return fmt.Errorf("--noise-sd is the linear model's (got --model %s)", cfg.Model.Model)
		}
		if !(*noiseSD > 0) || math.IsInf(*noiseSD, 0) {
			return fmt.Errorf("--noise-sd must be a positive number (got %v)", *noiseSD)
		}
		cfg.Model.Options = map[string]string{"noise-sd": strconv.FormatFloat(*noiseSD, 'g', -1, 64)}
	}
	if cfg.Algorithm == run.NoiseAware && !meanModel {
		if dim < 1 {
			return errors.New("--dim (the number of coefficients, intercept included) is required for noise-aware")
		}
		cfg.Model.Outcome = "y"
		if *outcomeBound == "" && cfg.Model.Model == "poisson" {
			return errors.New("noise-aware poisson needs the outcome's public bound (--outcome-bound 0:K): K caps the mean")
		}
		if *outcomeBound == "" && cfg.Model.Model == "linear" {
			// A run needs it too; the preview's effect unit depends on it.
			return errors.New("noise-aware linear needs the outcome's public bound (--outcome-bound LO:HI), as a run does: the release's sensitivities and the preview's noise-sd unit depend on it")
		}
	}
	if *outcomeBound != "" && (cfg.Model.Model == "linear" || cfg.Model.Model == "poisson") {
		b, err := dataset.ParseRange(*outcomeBound)
		if err != nil {
			return fmt.Errorf("--outcome-bound %s: %w", *outcomeBound, err)
		}
		cfg.Model.Outcome = "y"
		cfg.Data.Bounds = map[string][2]float64{"y": {b.Lo, b.Hi}}
	}
	if (cfg.Algorithm == "dp-hmc" || cfg.Algorithm == "dp-mala") && dim < 1 {
		return fmt.Errorf("--dim (the number of parameters) is required for %s", cfg.Algorithm)
	}
	switch cfg.Algorithm {
	case "dp-sgld", "dp-sgnht", "dp-sghmc", "hybrid":
		// A run derives the gradient clip from the public bounds; without
		// data the plan needs it.
		if s.GradClip <= 0 {
			return fmt.Errorf("--grad-clip is required to plan %s without data (a run derives it from the public column bounds)", cfg.Algorithm)
		}
	case "dp-penalty-sub":
		// Its variance term's sensitivity, and so its plan, depend on the
		// clip.
		if s.Clip <= 0 {
			return errors.New("--clip is required to plan dp-penalty-sub without data (a run derives it from the public column bounds)")
		}
	}
	// The mixing forecast of a logistic model needs the per-row bound c on
	// ‖x̃‖ (the default clip): without --clip, assume predictors scaled to
	// [−1, 1] with an intercept, c = √dim.
	var assumed string
	// With a parameter --box the plan derives both clips from the box, as
	// a run does.
	if s.Clip == 0 && s.Box == 0 && dim >= 1 && strings.EqualFold(cfg.Model.Model, "logistic") && (cfg.Algorithm == "dp-penalty" || cfg.Algorithm == "dp-hmc" || cfg.Algorithm == "dp-mala") {
		s.Clip = math.Sqrt(float64(dim))
		assumed = fmt.Sprintf("clip = √dim = %.4g assumed (the per-row bound of a logistic model whose %d predictors are scaled to [−1, 1], with an intercept); give --clip for other bounds", s.Clip, dim-1)
	}
	// Its gradient clip likewise: a logistic row's gradient (y − p)·x̃ has
	// norm at most ‖x̃‖, the same bound as the ratio's clip (a run derives
	// both from the same bounds: model.Logistic.RowBounds).
	if s.GradClip == 0 && s.Clip > 0 && s.Box == 0 && strings.EqualFold(cfg.Model.Model, "logistic") && (cfg.Algorithm == "dp-hmc" || cfg.Algorithm == "dp-mala") {
		s.GradClip = s.Clip
		g := fmt.Sprintf("grad clip = clip = %.4g assumed (a logistic row's gradient bound equals its ratio's)", s.GradClip)
		if assumed != "" {
			assumed += "; " + g
		} else {
			assumed = g
		}
	}
	if dim < 1 {
		dim = 1
	}
	if n < 2 {
		return fmt.Errorf("--n must be at least 2 (got %d)", n)
	}
	cfg.Privacy = &run.Budget{Epsilon: eps, Delta: del, Relation: relation}
	if cfg.Algorithm == "ops" && cfg.Draws == 0 {
		cfg.Draws = 1
	}
	p, err := run.MakePlan(&cfg, n, dim)
	if err != nil {
		return err
	}
	if assumed != "" {
		p.Notes = append(p.Notes, assumed)
	}
	if autoReason != "" {
		p.AutoReason = autoReason
		p.Notes = append(p.Notes, run.AutoNote(p.Algorithm, autoReason))
	}
	if *asText {
		fmt.Fprintf(stdout, "%s with %s on n = %d: %d warmup + %d draws per chain (%d iterations in total), spending ε = %.4g at δ = %g (%s accountant)",
			p.Algorithm, run.ChainsWord(p.Chains), p.N, p.Warmup, p.Draws, p.Chains*p.IterationsPerChain(), p.Epsilon, p.Delta, p.Accountant)
		// The privacy knobs the plan fixed or calibrated (only those the
		// algorithm has are set).
		sep := "; "
		knob := func(format string, v float64) {
			if v > 0 {
				fmt.Fprintf(stdout, sep+format, v)
				sep = ", "
			}
		}
		s := p.Settings
		knob("noise τ = %.6g", s.Tau)
		knob("τ_g = %.6g", s.TauGrad)
		knob("noise multiplier = %.6g", s.NoiseMultiplier)
		knob("per-step ε = %.6g", s.StepEpsilon)
		knob("per-step δ = %.3g", s.StepDelta)
		knob("clip = %.6g", s.Clip)
		fmt.Fprintln(stdout, ".")
		if p.Forecast != nil {
			fmt.Fprintf(stdout, "Forecast: %s.\n", p.Forecast.Text)
			if p.Forecast.Calibration != "" {
				fmt.Fprintln(stdout, p.Forecast.Calibration)
			}
		}
		for _, note := range p.Notes {
			fmt.Fprintf(stdout, "Note: %s\n", note)
		}
		return nil
	}
	out := struct {
		*run.Plan
		IterationsPerChain int `json:"iterations_per_chain"`
		TotalIterations    int `json:"total_iterations"`
	}{p, p.IterationsPerChain(), p.Chains * p.IterationsPerChain()}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// checkPlanInputs refuses what a run would refuse (an unknown model, a prior
// sd or scale a run rejects, a negative --dim) instead of planning with it.
func checkPlanInputs(cfg *run.Config, dim int) error {
	var names []string
	for _, m := range model.Models() {
		names = append(names, m.Name)
	}
	if !slices.Contains(names, cfg.Model.Model) {
		return fmt.Errorf("--model: unknown model %q (choose one of %s)", cfg.Model.Model, strings.Join(names, ", "))
	}
	if p := cfg.Model.PriorSD; p != 0 && !(p >= 1e-100 && p <= 1e100) {
		return fmt.Errorf("--prior-sd must be a number between 1e-100 and 1e100 (got %v)", p)
	}
	switch strings.ToLower(strings.TrimSpace(cfg.Model.Scale)) {
	case "", model.ScaleNone, model.ScaleBounds, model.ScaleAuto:
	default:
		return fmt.Errorf("--scale must be bounds, auto or none (got %q)", cfg.Model.Scale)
	}
	if dim < 0 {
		return fmt.Errorf("--dim must be ≥ 1 (got %d)", dim)
	}
	return nil
}
