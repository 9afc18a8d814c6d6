package run

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// bloodPressure is n rows of sbp = 95 + 0.5·age + 0.8·bmi + N(0, σ²).
func bloodPressure(t *testing.T, n int, sigma float64, seed uint64) *dataset.Table {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	age, bmi, sbp := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		age[i] = 18 + 72*r.Float64()
		bmi[i] = 18 + 20*r.Float64()
		sbp[i] = 95 + 0.5*age[i] + 0.8*bmi[i] + sigma*r.NormFloat64()
	}
	tab, err := dataset.FromColumns([]string{"age", "bmi", "sbp"}, [][]float64{age, bmi, sbp})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// A non-private linear run without a noise sd uses the least-squares
// residual sd of its rows (a review: the silent default σ = 1 made the
// intervals of an outcome in mmHg, σ = 12, twelve times too narrow); one
// with σ given keeps it; a private one without it is still refused.
func TestNonPrivateLinearEstimatesNoiseSD(t *testing.T) {
	const n, sigma = 800, 12.0
	spec := model.Spec{Model: "linear", Outcome: "sbp", Predictors: []string{"age", "bmi"}}
	cfg := &Config{Model: spec, Algorithm: "hmc", Chains: 1, Warmup: 10, Draws: 10, Seed: 1}
	p, err := Prepare(cfg, bloodPressure(t, n, sigma, 3))
	if err != nil {
		t.Fatal(err)
	}
	// σ̂ has sd about σ/√(2(n − d)) = 0.30: 4 of them.
	s := p.NoiseSDFromRows
	if math.Abs(s-sigma) > 4*sigma/math.Sqrt(2*(n-3)) || p.Model.(*model.Linear).NoiseSD() != s {
		t.Fatalf("σ̂ = %v (model %v), want %v ± 1.2", s, p.Model.(*model.Linear).NoiseSD(), sigma)
	}
	// Recorded as an estimate, never as the public option a private run
	// reads (a review: an exported config of this run, rerun with a
	// budget, was accepted and its report called σ̂ "public and known").
	if _, in := p.Config.Model.Options["noise-sd"]; in || p.Config.NoiseSDFromRows != s {
		t.Errorf("the resolved config: options %v, noise_sd_from_rows %v, want only the latter = σ̂ %v", p.Config.Model.Options, p.Config.NoiseSDFromRows, s)
	}
	b, err := p.Config.PublicJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	back.Algorithm, back.Privacy = NoiseAware, &Budget{Epsilon: 1, Delta: 1e-5}
	back.Data.Bounds = map[string][2]float64{"age": {18, 90}, "bmi": {15, 50}, "sbp": {70, 250}}
	if err := back.Validate(); err == nil || !strings.Contains(err.Error(), "noise_sd_from_rows") {
		t.Errorf("a private run of the exported config: %v", err)
	}
	if _, ok := cfg.Model.Options["noise-sd"]; ok {
		t.Error("the caller's config was modified")
	}
	if note := NoiseSDFromRowsNote(s, n, 3); !strings.Contains(note, "the residual sd of least squares on these 800 rows (797 degrees of freedom)") || !strings.Contains(note, "A private run needs σ from public knowledge") {
		t.Errorf("note %q", note)
	}
	given := *cfg
	given.Model.Options = map[string]string{"noise-sd": "5"}
	if p, err := Prepare(&given, bloodPressure(t, n, sigma, 3)); err != nil || p.NoiseSDFromRows != 0 || p.Model.(*model.Linear).NoiseSD() != 5 {
		t.Errorf("a given σ = 5: %v, plug-in %v", err, p.NoiseSDFromRows)
	}
	// A recorded estimate on a model that is not linear (an edited
	// config) is not carried into its resolved config.
	poisson := *cfg
	poisson.Model = model.Spec{Model: "poisson", Outcome: "visits", Predictors: []string{"age"}}
	poisson.NoiseSDFromRows = s
	visits, err := dataset.FromColumns([]string{"age", "visits"}, [][]float64{{30, 40, 50, 60}, {0, 1, 3, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := Prepare(&poisson, visits); err != nil || p.Config.NoiseSDFromRows != 0 || p.NoiseSDFromRows != 0 {
		t.Errorf("a poisson run with a recorded σ̂: %v, resolved %v", err, p.Config.NoiseSDFromRows)
	}
	priv := *cfg
	priv.Algorithm, priv.Privacy = NoiseAware, &Budget{Epsilon: 1, Delta: 1e-5}
	priv.Data.Bounds = map[string][2]float64{"age": {18, 90}, "bmi": {15, 50}, "sbp": {70, 250}}
	if _, err := Prepare(&priv, bloodPressure(t, n, sigma, 3)); err == nil || !strings.Contains(err.Error(), "never from these data") {
		t.Errorf("a private run without σ: %v", err)
	}
	// Too few rows for a residual: refused, naming the option.
	if _, err := Prepare(cfg, bloodPressure(t, 3, sigma, 3)); err == nil || !strings.Contains(err.Error(), "3 rows for 3 coefficients") || !strings.Contains(err.Error(), "noise-sd=S") {
		t.Errorf("3 rows: %v", err)
	}
}

// A missing outcome's error gives the outcome's remedy, not a predictor's
// replacement value (a review: it listed --impute, which refuses the
// outcome).
func TestMissingOutcomeAdvice(t *testing.T) {
	cfg := &Config{Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x"}}, Algorithm: "hmc", Chains: 1, Draws: 10}
	_, _, err := LoadData(strings.NewReader("y,x\n1,0.5\n,3\n"), cfg)
	if err == nil || !strings.Contains(err.Error(), "the outcome cannot be given a value for its missing cells") || strings.Contains(err.Error(), "--impute") {
		t.Errorf("missing outcome: %v", err)
	}
	_, _, err = LoadData(strings.NewReader("y,x\n1,0.5\n0,NA\n"), cfg)
	if err == nil || !strings.Contains(err.Error(), "--impute COL=V") {
		t.Errorf("missing predictor: %v", err)
	}
}

// A bound or coding of a column the model does not use is refused as
// such, naming what was typed (a review: a coding of an unused column was
// called "a bound" of a column "not loaded", though it is in the file).
func TestBoundOfAnUnusedColumn(t *testing.T) {
	csv := "y,age,sex\n1,40,F\n0,50,M\n1,60,F\n"
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Data: DataSpec{Bounds: map[string][2]float64{"age": {18, 90}, "sex": {0, 1}}, Categories: map[string]map[string]float64{"sex": {"F": 0, "M": 1}}}},
			`column "sex" has a text coding (--category, the config's data.categories) but is neither the outcome nor a predictor of this model (outcome "y", predictors "age")`},
		{Config{Data: DataSpec{Bounds: map[string][2]float64{"age": {18, 90}, "agee": {0, 1}}}},
			`column "agee" has a public bound (--bound, the config's data.bounds) but is neither the outcome nor a predictor`},
	} {
		cfg := c.cfg
		cfg.Model = model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"age"}}
		cfg.Algorithm, cfg.Chains, cfg.Draws = "hmc", 1, 10
		tab, _, err := LoadData(strings.NewReader(csv), &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Prepare(&cfg, tab); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Prepare: %v, want %q", err, c.want)
		}
		if _, _, err := PrepareStream(strings.NewReader(csv), &cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PrepareStream: %v, want %q", err, c.want)
		}
	}
}
