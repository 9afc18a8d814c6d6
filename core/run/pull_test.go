package run

import (
	"context"
	"math"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
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
		p, err := Prepare(cfg, bloodPressure(t, 60, 12, 5))
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return p.Config, res
	}
	cfg, res := run(10)
	_, flat := run(1e4)
	d, f := res.Draws(false), flat.Draws(false)
	shifts := PriorShifts(cfg, d)
	if len(shifts) != 3 {
		t.Fatalf("shifts %v", shifts)
	}
	rows, frows := diag.Summary(d.Names, d.Sampling()), diag.Summary(f.Names, f.Sampling())
	for j, r := range rows {
		want := (frows[j].Mean - r.Mean) / r.SD
		if r.Mean < 0 {
			want = -want
		}
		if math.Abs(shifts[j]-want) > 0.2 {
			t.Errorf("%s: joint shift %.3f sds, the flat-prior run's %.3f", r.Name, shifts[j], want)
		}
		t.Logf("%s: mean %.4g (flat %.4g), shift %.2f sds (flat run %.2f)", r.Name, r.Mean, frows[j].Mean, shifts[j], want)
	}
	if !(shifts[0] > 1) || !(shifts[2] < -0.5) {
		t.Errorf("want the intercept pulled toward 0 and bmi moved away: %v", shifts)
	}
}
