package run

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// stanReference reads bc5_stan_summary.csv: param → (mean, sd).
func stanReference(t *testing.T) map[string][2]float64 {
	t.Helper()
	f, err := os.Open("../../testdata/logistic/bc5_stan_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string][2]float64{}
	for _, r := range recs[1:] {
		m, _ := strconv.ParseFloat(r[1], 64)
		s, _ := strconv.ParseFloat(r[2], 64)
		name := r[0]
		if name == "alpha" {
			name = "intercept"
		}
		ref[name] = [2]float64{m, s}
	}
	return ref
}

// TestBC5MatchesStan checks the non-private samplers against the Stan NUTS
// reference posterior of the Wisconsin breast-cancer logistic regression
// (testdata/logistic, N(0, 10²) priors): every posterior mean within 0.1
// posterior sd and every sd within 10%. With ≥ 2000 (HMC) or ≥ 1000 (MH)
// effective draws the Monte Carlo error of a mean is ≤ 0.032 sd and of an sd
// ≤ 2.3%, so the tolerances are ≥ 3 MCSE wide (≥ 4.5 for HMC); a sampler targeting the wrong distribution
// (e.g. a missing prior, a wrong gradient) misses them.
func TestBC5MatchesStan(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	ref := stanReference(t)
	for _, tc := range []struct {
		alg           string
		warmup, draws int
		minESS        float64
		bounds        bool
	}{
		{"hmc", 1000, 5000, 2000, false},
		{"mh", 2000, 40000, 1000, false},
		// scale = auto with a public bound for every predictor samples the
		// scaled space with the prior kept in the user's units: the same
		// posterior.
		{"hmc", 1000, 5000, 2000, true},
	} {
		name := tc.alg
		if tc.bounds {
			name += "-scale-auto"
		}
		t.Run(name, func(t *testing.T) {
			f, err := os.Open("../../testdata/logistic/bc5_design_std.csv")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cfg := &Config{
				Model:     model.Spec{Model: "logistic", Outcome: "y"},
				Algorithm: tc.alg, Chains: 4, Warmup: tc.warmup, Draws: tc.draws, Seed: 42,
			}
			if tc.bounds {
				cfg.Model.Scale = model.ScaleAuto
				cfg.Data.Bounds = map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}, "mean_smoothness": {-3, 5}, "mean_compactness": {-3, 5}, "mean_symmetry": {-3, 5}}
			}
			tab, _, err := LoadData(f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Prepare(cfg, tab)
			if err != nil {
				t.Fatal(err)
			}
			if (model.ScalingOf(p.Model) != nil) != tc.bounds {
				t.Fatalf("scaled %v, want %v", model.ScalingOf(p.Model) != nil, tc.bounds)
			}
			res, err := p.run(context.Background(), testKey, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The divergent transitions HMC meets on this posterior are all
			// during warmup (18–26 per chain), while the step adapts: none
			// after it, where they would bias the draws.
			for c, ch := range res.Chains {
				if tc.alg == "hmc" && ch.Divergent > 0 {
					t.Errorf("chain %d: %d divergent transitions after warmup (%d during)", c+1, ch.Divergent, ch.DivergentWarmup)
				}
			}
			d := res.Draws(false)
			sum := diag.Summary(d.Names, d.Values)
			for _, s := range sum {
				r, ok := ref[s.Name]
				if !ok {
					t.Fatalf("parameter %q not in the reference", s.Name)
				}
				if s.ESSBulk < tc.minESS {
					t.Errorf("%s: bulk ESS %.0f too small for the tolerance", s.Name, s.ESSBulk)
				}
				if dm := math.Abs(s.Mean-r[0]) / r[1]; dm > 0.1 {
					t.Errorf("%s: mean %.4f vs Stan %.4f (%.3f sd)", s.Name, s.Mean, r[0], dm)
				}
				if ds := math.Abs(s.SD/r[1] - 1); ds > 0.1 {
					t.Errorf("%s: sd %.4f vs Stan %.4f (%.1f%%)", s.Name, s.SD, r[1], 100*ds)
				}
				t.Logf("%-17s mean %8.4f (Stan %8.4f)  sd %.4f (Stan %.4f)  rhat %.4f  ess %.0f", s.Name, s.Mean, r[0], s.SD, r[1], s.Rhat, s.ESSBulk)
			}
		})
	}
}

// TestHMCDenseMetricRawUnits: non-private HMC at its defaults (a dense
// metric learnt in warmup) converges on the raw breast-cancer predictors,
// whose coefficients are strongly correlated in the user's units (the
// intercept moves with every slope, and the slopes' scales differ 80-fold);
// the diagonal metric (--metric diag) does not, with the same seed. The
// dense metric's bulk-ESS must also be at least 3000 of 8000 draws: with
// the ±20% step jitter of the diagonal metric, L·ε sat near a full orbit
// and it was 1,456–1,679 (DenseJitterWidth). The scaled posterior of
// TestBC5MatchesStan checks the dense draws' values.
func TestHMCDenseMetricRawUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, metric := range []string{"", "diag"} {
		f, err := os.Open("../../testdata/logistic/breast_cancer_wdbc.csv")
		if err != nil {
			t.Fatal(err)
		}
		cfg := &Config{
			Model: model.Spec{Model: "logistic", Outcome: "malignant",
				Predictors: []string{"mean_radius", "mean_texture", "mean_smoothness", "mean_compactness", "mean_symmetry"}},
			Algorithm: "hmc", Chains: 4, Warmup: 1000, Draws: 2000, Seed: 2,
			Settings: Settings{Metric: metric},
		}
		tab, _, err := LoadData(f, cfg)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(cfg, tab)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.run(context.Background(), testKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := res.Draws(false)
		maxRhat, minESS := 0.0, math.Inf(1)
		for _, s := range diag.Summary(d.Names, d.Values) {
			maxRhat, minESS = max(maxRhat, s.Rhat), min(minESS, s.ESSBulk)
		}
		t.Logf("metric %q: max R-hat %.4f, min bulk-ESS %.0f", metric, maxRhat, minESS)
		converged := maxRhat < 1.01 && minESS >= 400
		if metric == "" && !(converged && minESS >= 3000) {
			t.Errorf("dense metric: max R-hat %.4f, min bulk-ESS %.0f: want below 1.01 and at least 3000 of 8000", maxRhat, minESS)
		}
		if metric == "diag" && converged {
			t.Errorf("diagonal metric converged (max R-hat %.4f, min bulk-ESS %.0f): the test cannot tell the metrics apart", maxRhat, minESS)
		}
	}
}
