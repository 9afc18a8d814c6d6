package run

import (
	"math"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// The DP-HMC paper's banana settings (testdata/README): total iterations
// over 4 chains at ε = 2/6/10/15, n = 1e5, δ = 0.1/n. The plan floors per
// chain, so totals may fall short of the anchors by up to chains−1; the grid
// inflation (μ + 2^-20 per release) may cost one more.
func TestPlanBananaAnchors(t *testing.T) {
	for _, tc := range []struct {
		alg     string
		s       Settings
		anchors []int
	}{
		{"dp-penalty", Settings{Tau: 0.17, Clip: 0.15, Step: 0.06}, []int{580, 4136, 9871, 19180}},
		{"dp-hmc", Settings{Tau: 0.1, TauGrad: 0.55, Leapfrog: 25, Clip: 0.1, GradClip: 0.05, Step: 0.006}, []int{108, 769, 1836, 3569}},
	} {
		for i, eps := range []float64{2, 6, 10, 15} {
			cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: tc.alg, Chains: 4, Seed: 1,
				Settings: tc.s, Privacy: &Budget{Epsilon: eps, Delta: 0.1 / 1e5}}
			p, err := MakePlan(cfg, 100000, 2)
			if err != nil {
				t.Fatal(err)
			}
			total := 4 * p.IterationsPerChain()
			if total > tc.anchors[i] || total < tc.anchors[i]-4 {
				t.Errorf("%s ε=%g: %d iterations in total, anchor %d", tc.alg, eps, total, tc.anchors[i])
			}
			if p.Epsilon > eps || p.Warmup < 1 || p.Draws < 1 {
				t.Errorf("%s ε=%g: plan %+v", tc.alg, eps, p)
			}
		}
	}
}

// With the iterations fixed, the noise is calibrated so that the run spends
// at most the budget and not much less.
func TestPlanCalibratesNoise(t *testing.T) {
	for _, alg := range []string{"dp-penalty", "dp-hmc", "dp-mala"} {
		cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: alg, Chains: 3, Warmup: 200, Draws: 300,
			Settings: Settings{Clip: 1, GradClip: 1, Step: 0.001}, Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
		p, err := MakePlan(cfg, 5000, 3)
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		if p.Warmup != 200 || p.Draws != 300 {
			t.Errorf("%s: iterations changed: %+v", alg, p)
		}
		if p.Epsilon > 1 || p.Epsilon < 0.999 {
			t.Errorf("%s: calibrated run spends ε = %v of 1", alg, p.Epsilon)
		}
		if p.Settings.Tau <= 0 {
			t.Errorf("%s: no τ", alg)
		}
	}
	// Too many iterations for the given noise is an error naming the limit.
	cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: "dp-penalty", Chains: 4, Warmup: 500, Draws: 5000,
		Settings: Settings{Tau: 0.17, Clip: 1}, Privacy: &Budget{Epsilon: 2, Delta: 1e-6}}
	if _, err := MakePlan(cfg, 100000, 2); err == nil {
		t.Fatal("over-budget plan accepted")
	}
	// Invalid budgets are refused.
	for _, b := range []Budget{{Epsilon: 0, Delta: 1e-6}, {Epsilon: 1, Delta: 1}, {Epsilon: -1, Delta: 1e-6}, {Epsilon: 1, Delta: 0}} {
		cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: "dp-penalty", Chains: 1, Privacy: &b, Settings: Settings{Clip: 1}}
		if _, err := MakePlan(cfg, 100, 2); err == nil {
			t.Errorf("budget %+v accepted", b)
		}
	}
}

// A private run on the breast-cancer data end to end: bounds required, the
// plan applied, ε computed from what ran, and a cancelled run reports less.
func TestPrivateRunReport(t *testing.T) {
	bounds := map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}}
	base := Config{
		Model:     model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"mean_radius", "mean_texture"}},
		Algorithm: "dp-penalty", Chains: 2, Seed: 3, Warmup: 100, Draws: 200,
		Privacy: &Budget{Epsilon: 2, Delta: 1e-5},
	}
	noBounds := base
	if _, err := tryPrepare(t, &noBounds); err == nil {
		t.Fatal("private run without public bounds accepted")
	}
	cfg := base
	cfg.Data.Bounds = bounds
	p, err := tryPrepare(t, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Settings.Clip <= 0 || p.Config.Settings.Tau <= 0 {
		t.Fatalf("settings not resolved: %+v", p.Config.Settings)
	}
	// A private regression run samples the coefficients of the predictors
	// scaled to [−1, 1] by their bounds, so the default clip is the public
	// Lipschitz bound there, √(1 + 1² + 1²) (√(1 + 5² + 5²) = 7.14 in the
	// user's units).
	if p.Config.Model.Scale != model.ScaleBounds {
		t.Errorf("scale %q, want bounds by default in a private run", p.Config.Model.Scale)
	}
	if want := math.Sqrt(3); math.Abs(p.Config.Settings.Clip-want) > 1e-6 {
		t.Errorf("clip %v, want %v", p.Config.Settings.Clip, want)
	}
	_, rep := runAndReport(t, p)
	if rep.Epsilon > 2 || rep.Epsilon < 1.99 || rep.Iterations[0] != 300 || rep.N != 569 || rep.Statement == "" {
		t.Fatalf("report %+v", rep)
	}
	half, err := NewReport(p.Config, 569, 3, []int{150, 0}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !(half.Epsilon < rep.Epsilon/1.5) || !half.Cancelled {
		t.Fatalf("cancelled report ε = %v vs full %v", half.Epsilon, rep.Epsilon)
	}
	zero, _ := NewReport(p.Config, 569, 3, []int{0, 0}, true)
	if zero.Epsilon != 0 {
		t.Fatalf("nothing ran but ε = %v", zero.Epsilon)
	}
}

func tryPrepare(t *testing.T, cfg *Config) (*Prepared, error) {
	t.Helper()
	f, err := openBC5()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, _, err := LoadData(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Prepare(cfg, tab)
}

func TestRoundUpSig(t *testing.T) {
	for _, v := range []float64{1.9999812729745101, 1.9999812729745128, 3, 9.9999999999999, 1e-7, 0.5000000000004} {
		r := roundUpSig(v, 12)
		if r < v || r > v*(1+2e-11) {
			t.Errorf("roundUpSig(%v) = %v", v, r)
		}
	}
	if roundUpSig(1.99995184119, 9) != roundUpSig(1.99995184121, 9) {
		t.Error("nearby values round apart")
	}
}

// dp-barker-full's privacy knob is the clip (its noise is fixed by C): with
// the clip unset and the iterations fixed, the plan picks the largest clip
// that fits the budget; a setting the accountant refuses at any noise is
// reported as such, not as "no noise level fits".
func TestPlanCalibratesBarkerClip(t *testing.T) {
	cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: "dp-barker-full", Chains: 2, Warmup: 100, Draws: 100,
		Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
	p, err := MakePlan(cfg, 5000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Warmup != 100 || p.Draws != 100 || p.Settings.Clip <= 0 || p.Epsilon > 1 || p.Epsilon < 0.999 {
		t.Fatalf("plan %+v: want the iterations kept, a clip, and ε in [0.999, 1]", p)
	}
	// A 1% larger clip would not fit.
	cfg2 := &Config{Model: model.Spec{Model: "banana"}, Algorithm: "dp-barker-full", Chains: 2, Warmup: 100, Draws: 100,
		Settings: Settings{Clip: 1.01 * p.Settings.Clip}, Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
	if _, err := MakePlan(cfg2, 5000, 2); err == nil {
		t.Fatalf("clip %v (1%% above the calibrated one) fits the budget: calibration not tight", cfg2.Settings.Clip)
	}
	t.Logf("calibrated clip %.6g, ε = %.6g", p.Settings.Clip, p.Epsilon)
	cfg3 := &Config{Model: model.Spec{Model: "banana"}, Algorithm: "dp-sgld", Chains: 2, Warmup: 100, Draws: 100,
		Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
	if _, err := MakePlan(cfg3, 5000, 2); err == nil || !strings.Contains(err.Error(), "grad_clip") {
		t.Fatalf("dp-sgld without a gradient clip: err = %v, want the grad_clip error", err)
	}
}

// A bound in a config file is exactly two numbers: Go would drop a third or
// fill a missing one with 0, and the report would state a bound nobody
// wrote (the CLI audit's "age": [18, 90, 3] ran as 18:90).
func TestParseConfigBoundIsAPair(t *testing.T) {
	for _, b := range []string{`[18, 90, 3]`, `[18]`, `[]`} {
		_, err := ParseConfig([]byte(`{"data": {"bounds": {"age": ` + b + `}}}`))
		if err == nil || !strings.Contains(err.Error(), `the bound of column "age" must be two numbers [lo, hi]`) {
			t.Errorf("%s: %v", b, err)
		}
	}
	if c, err := ParseConfig([]byte(`{"data": {"bounds": {"age": [18, 90]}}}`)); err != nil || c.Data.Bounds["age"] != [2]float64{18, 90} {
		t.Errorf("a pair: %v %v", c, err)
	}
}

// A malformed config file is refused with where, as the CSV loader's
// errors say.
func TestParseConfigSyntaxErrorsSayWhere(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"chains\": 4,\n  bad\n}": "line 3, column 3: invalid character 'b'",
		"":                              "the file is empty",
		" \n":                           "the file is empty",
		"[]":                            "want a JSON object {...} at the top level",
		`{"chains": 4`:                  "the JSON ends before its object is closed",
	} {
		if _, err := ParseConfig([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// null in a bound decodes to 0 in Go: refused, not run with a bound nobody
// wrote (a review's {"x": [null, 10]} ran as 0:10).
func TestParseConfigBoundNull(t *testing.T) {
	for _, b := range []string{`[null, 10]`, `[0, null]`} {
		_, err := ParseConfig([]byte(`{"data": {"bounds": {"x": ` + b + `}}}`))
		if err == nil || !strings.Contains(err.Error(), "data.bounds.x[") || !strings.Contains(err.Error(), "must be a number (got null)") {
			t.Errorf("%s: %v", b, err)
		}
	}
}

// DP-HMC with only one of its two noise scales given plans with the other
// at the documented ratio τ_g = 5.5·τ (a lone --tau used to be replaced by
// the calibrated noise without a word).
func TestPlanHMCOneNoiseScale(t *testing.T) {
	for _, s := range []Settings{{Tau: 3}, {TauGrad: 16.5}} {
		s.Clip, s.GradClip = 1, 1
		cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: "dp-hmc", Chains: 2, Settings: s,
			Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
		p, err := MakePlan(cfg, 5000, 2)
		if err != nil {
			t.Fatal(err)
		}
		if p.Settings.Tau != 3 || p.Settings.TauGrad != 16.5 || p.Epsilon > 1 || p.Draws < 1 {
			t.Errorf("given %+v: planned τ = %v, τ_g = %v, ε = %v, draws %d; want τ = 3, τ_g = 16.5", s, p.Settings.Tau, p.Settings.TauGrad, p.Epsilon, p.Draws)
		}
	}
}

// A config file saved with a byte-order mark reads like one without.
func TestParseConfigByteOrderMark(t *testing.T) {
	c, err := ParseConfig([]byte("\xef\xbb\xbf{\"chains\": 3}"))
	if err != nil || c.Chains != 3 {
		t.Fatalf("%v %+v", err, c)
	}
}

// A value of the wrong JSON type is named by its field as the file spells
// it (the CLI audit saw Go's "struct field Budget.privacy.epsilon").
func TestParseConfigTypeErrorNamesField(t *testing.T) {
	for in, want := range map[string]string{
		`{"privacy": {"epsilon": "1"}}`: "run config: privacy.epsilon must be a number (got a JSON string) at line 1, column 27",
		`{"chains": 2.5}`:               "run config: chains must be a whole number (got a JSON number 2.5) at line 1, column 14",
		`{"model": {"model": 3}}`:       "run config: model.model must be a string (got a JSON number) at line 1, column 21",
		"{\"model\": {\"model\": \"linear\",\n \"options\": {\"noise-sd\": 1}}}": `run config: each value of model.options (e.g. "noise-sd": "1.5") must be a string (got a JSON number) at line 2, column 26`,
	} {
		if _, err := ParseConfig([]byte(in)); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// A 0/1 outcome's coding must give 0 and 1 only, and a count's whole
// numbers: the outcome's bound would otherwise clip a 1/2 coding to all
// ones (the clinician audit's control=1, case=2 ran as every row a case).
func TestOutcomeCodingFitsTheFamily(t *testing.T) {
	for _, tc := range []struct {
		family string
		coding map[string]float64
		want   string
	}{
		{"logistic", map[string]float64{"control": 1, "case": 2}, `maps "case" to 2: a 0/1 outcome's coding must give 0 and 1 only`},
		{"logistic", map[string]float64{"control": -1, "case": 1}, `maps "control" to -1`},
		{"poisson", map[string]float64{"none": 0, "some": 1.5}, "counts are whole numbers ≥ 0"},
		{"logistic", map[string]float64{"control": 0, "case": 1}, ""},
	} {
		c := &Config{Model: model.Spec{Model: tc.family, Outcome: "y"}, Algorithm: "hmc", Chains: 1, Draws: 10,
			Data: DataSpec{Categories: map[string]map[string]float64{"y": tc.coding}}}
		err := c.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %v: %v, want %q", tc.family, tc.coding, err, tc.want)
		}
	}
}
