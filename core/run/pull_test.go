package run

import (
	"context"
	"math"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// The joint prior shifts match what the prior actually does: on 60 rows
// of blood pressure in mmHg under N(0, 10²) per unit, the prior pulls the
// intercept (about 100 mmHg) toward 0 and, through its correlation with
// them, moves the age and bmi slopes away from 0 (a review: bmi 1.99
// against least squares' 0.73, with only the intercept named). The
// reference is the same run under a flat prior (sd 10⁴): its means are
// where the data alone put them. Tolerance 0.2 posterior sds: the Monte
// Carlo error of each mean is about 0.02 sds (ESS ≥ 2,000), and the
// covariance's error moves the estimate by less.
func TestPriorShiftsMatchAFlatPriorRun(t *testing.T) {
	run := func(priorSD float64) (*Config, *Result) {
		cfg := &Config{Model: model.Spec{Model: "linear", Outcome: "sbp", Predictors: []string{"age", "bmi"}, PriorSD: priorSD,
			Options: map[string]string{"noise-sd": "12"}}, Algorithm: "hmc", Chains: 4, Warmup: 1000, Draws: 1500, Seed: 7}
		return runWithKey(t, cfg, bloodPressure(t, 60, 12, 5))
	}
	cfg, res := run(10)
	_, flat := run(1e4)
	d := res.Draws(false)
	shifts := PriorShifts(cfg, d)
	rows := compareShifts(t, shifts, d, flat.Draws(false), 0.2)
	pulls := report.PriorPull(rows, PriorSDs(cfg, d.Names), PriorCentres(cfg, d.Names), shifts)
	kinds := map[string]report.PullKind{}
	for _, p := range pulls {
		kinds[p.Name] = p.Kind
	}
	if len(pulls) != 3 || kinds["intercept"] != report.Toward || kinds["bmi"] != report.Away || kinds["age"] != report.Away {
		t.Errorf("want the intercept pulled toward 0 and the slopes moved away: %+v", pulls)
	}
}

// Noise-aware's linear regression centres its intercept's prior at the
// outcome's bound's centre (a review: the shift was computed as if it were
// centred at 0); no other run has a prior centre.
func TestPriorCentres(t *testing.T) {
	cfg := &Config{Model: model.Spec{Model: "linear", Outcome: "sbp", Predictors: []string{"age"}}, Algorithm: NoiseAware,
		Data: DataSpec{Bounds: map[string][2]float64{"age": {18, 90}, "sbp": {70, 250}}}}
	if c := PriorCentres(cfg, []string{"intercept", "age"}); c["intercept"] != 160 || len(c) != 1 {
		t.Errorf("noise-aware linear: %v, want intercept 160", c)
	}
	cfg.Algorithm = "hmc"
	if c := PriorCentres(cfg, []string{"intercept", "age"}); len(c) != 0 {
		t.Errorf("hmc: %v", c)
	}
}

// The joint shifts of a noise-aware linear run, whose intercept prior is
// centred at the outcome bound's centre (160 mmHg) and not at 0, match
// where the same release alone puts the means: a run with the same noise
// key (the same release) under a flat prior. Tolerance 0.25 posterior sds:
// each mean's Monte Carlo error is about 0.02 sds, and the posterior
// given the release is only near normal.
func TestPriorShiftsCentredNoiseAware(t *testing.T) {
	run := func(priorSD float64) (*Config, *Result) {
		cfg := &Config{Model: model.Spec{Model: "linear", Outcome: "sbp", Predictors: []string{"age", "bmi"}, PriorSD: priorSD,
			Options: map[string]string{"noise-sd": "12"}}, Algorithm: NoiseAware, Chains: 4, Warmup: 500, Draws: 1000, Seed: 11,
			Privacy: &Budget{Epsilon: 3, Delta: 1e-5},
			Data:    DataSpec{Bounds: map[string][2]float64{"age": {18, 90}, "bmi": {15, 50}, "sbp": {70, 250}}}}
		return runWithKey(t, cfg, bloodPressure(t, 2000, 12, 5))
	}
	cfg, res := run(0.05)
	_, flat := run(100)
	d := res.Draws(false)
	compareShifts(t, PriorShifts(cfg, d), d, flat.Draws(false), 0.25)
}

// runWithKey prepares cfg on tab and runs it with a fixed noise key (the
// same release for the same plan), returning the resolved config.
func runWithKey(t *testing.T, cfg *Config, tab *dataset.Table) (*Config, *Result) {
	t.Helper()
	p, err := Prepare(cfg, tab)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.run(context.Background(), rng.KeyFromBytes([32]byte{5}), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Config, res
}

// compareShifts checks each joint shift (PriorShifts of d) against where
// the flat-prior run's mean is, both in d's posterior sds, to within tol,
// and returns d's summary.
func compareShifts(t *testing.T, shifts []float64, d, flat *export.Draws, tol float64) []diag.ParamSummary {
	t.Helper()
	rows, frows := diag.Summary(d.Names, d.Sampling()), diag.Summary(flat.Names, flat.Sampling())
	if len(shifts) != len(rows) {
		t.Fatalf("shifts %v for %d parameters", shifts, len(rows))
	}
	for j, r := range rows {
		got, want := shifts[j]/r.SD, (frows[j].Mean-r.Mean)/r.SD
		t.Logf("%s: mean %.4g (flat %.4g), sd %.3g, shift %.2f sds (flat run %.2f)", r.Name, r.Mean, frows[j].Mean, r.SD, got, want)
		if math.Abs(got-want) > tol {
			t.Errorf("%s: joint shift %.3f sds, the flat-prior run's %.3f", r.Name, got, want)
		}
	}
	return rows
}
