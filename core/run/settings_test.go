package run

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// settingValues are valid non-default values of every setting, by JSON name.
var settingValues = map[string]any{
	"step": 0.037, "leapfrog": 3, "no_adapt": true, "target_accept": 0.7, "jitter": "halton", "metric": "diag",
	"lambda": 0.5, "chi": 1e-4, "box": 7.0, "clip": 0.9, "grad_clip": 0.8, "tau": 0.3, "tau_grad": 0.4,
	"ocu": true, "grw": true, "mala_a": 0.5, "inner_iterations": 20, "batch": 50, "sampling": "poisson",
	"barker_c": 1.5, "batch_cap": 30, "step_epsilon": 0.01, "step_delta": 1e-7, "noise_multiplier": 2.0,
	"friction": 0.2, "ops_share": 0.3,
}

// with returns s with the setting named k (JSON) set to v.
func with(t *testing.T, s Settings, k string, v any) Settings {
	t.Helper()
	b, _ := json.Marshal(s)
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m[k] = v
	b, _ = json.Marshal(m)
	var out Settings
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIgnoredSettingsChangeNothing checks settingsRead against the code:
// for every algorithm, each setting it is said to ignore, given, changes
// neither the plan nor a chain's draws (same seed, same noise key), and the
// plan's note names it. A setting read by the plan or the kernel and
// missing from the list fails here.
func TestIgnoredSettingsChangeNothing(t *testing.T) {
	if len(settingValues) != strings.Count(string(must(json.Marshal(allSettings()))), ":") {
		t.Fatalf("settingValues does not cover every field of Settings: %s", must(json.Marshal(allSettings())))
	}
	for _, alg := range Algorithms() {
		read, ok := settingsRead[alg]
		if !ok {
			t.Errorf("%s: not in settingsRead", alg)
			continue
		}
		base := &Config{
			Model:     model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"mean_radius", "mean_texture"}},
			Algorithm: alg, Chains: 1, Warmup: 5, Draws: 8, Seed: 9,
		}
		if alg == Exact { // the closed-form posteriors: gaussian and banana only
			base.Model = model.Spec{Model: "gaussian", Predictors: []string{"mean_radius", "mean_texture"}}
		}
		if slices.Contains(read, "box") {
			base.Settings.Box = 20
		}
		base.Data.Bounds = map[string][2]float64{"mean_radius": {-3, 4}, "mean_texture": {-3, 4}, "y": {0, 1}}
		if alg == Exact {
			delete(base.Data.Bounds, "y")
		}
		if IsPrivate(alg) {
			base.Privacy = &Budget{Epsilon: 8, Delta: 1e-5}
		}
		draws := func(cfg *Config) (*Prepared, []float64) {
			p, err := tryPrepare(t, cfg)
			if err != nil {
				t.Fatalf("%s: %v", alg, err)
			}
			ch, err := p.NewChainSharedKey(0, rng.KeyFromBytes([32]byte{3}))
			if err != nil {
				t.Fatalf("%s: %v", alg, err)
			}
			return p, slices.Clone(ch.Advance(1 << 20))
		}
		p0, d0 := draws(base)
		if slices.ContainsFunc(p0.Plan.Notes, func(n string) bool { return strings.Contains(n, " ignores the setting") }) {
			t.Errorf("%s: the base config's plan notes an ignored setting: %v", alg, p0.Plan.Notes)
		}
		for k, v := range settingValues {
			if slices.Contains(read, k) {
				continue
			}
			cfg := *base
			cfg.Settings = with(t, base.Settings, k, v)
			if got := IgnoredSettings(&cfg); !slices.Equal(got, []string{k}) {
				t.Errorf("%s with %s: IgnoredSettings %v", alg, k, got)
			}
			p1, d1 := draws(&cfg)
			want := IgnoredNote(alg, []string{k})
			notes := slices.DeleteFunc(slices.Clone(p1.Plan.Notes), func(n string) bool { return n == want })
			if p1.Plan.Warmup != p0.Plan.Warmup || p1.Plan.Draws != p0.Plan.Draws || p1.Plan.Epsilon != p0.Plan.Epsilon ||
				!slices.Equal(d0, d1) || !slices.Equal(notes, p0.Plan.Notes) || string(must(json.Marshal(p1.Plan.Forecast))) != string(must(json.Marshal(p0.Plan.Forecast))) {
				t.Errorf("%s: the setting %s is read (the plan, its notes or forecast, or the draws changed): list it in settingsRead", alg, k)
			}
			if len(notes) == len(p1.Plan.Notes) {
				t.Errorf("%s with %s: plan notes %v lack %q", alg, k, p1.Plan.Notes, want)
			}
			// The plan states only the settings that act (a review read
			// noise-aware's plan as "noise τ = 1" for an ignored --tau).
			if g, w := string(must(json.Marshal(p1.Plan.Settings))), string(must(json.Marshal(p0.Plan.Settings))); g != w {
				t.Errorf("%s with %s: the plan's settings %s, without it %s", alg, k, g, w)
			}
		}
	}
}

// allSettings is a Settings with every field non-zero.
func allSettings() Settings {
	var s Settings
	b, _ := json.Marshal(settingValues)
	_ = json.Unmarshal(b, &s)
	return s
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// ParseCoding reads the page's "text coding" syntax; CodedBounds gives a
// coded column without a bound the range of its numbers.
func TestParseCodingAndCodedBounds(t *testing.T) {
	for _, text := range []string{"F=0,M=1", " F : 0 ; M : 1 ", "F=0, M=1,"} {
		m, err := ParseCoding(text)
		if err != nil || len(m) != 2 || m["F"] != 0 || m["M"] != 1 {
			t.Errorf("%q: %v %v", text, m, err)
		}
	}
	for text, want := range map[string]string{
		"F=0":             "at least two",
		"F=0,M=x":         `"x" is not a number`,
		"F=0,F=1":         `"F" is coded twice`,
		"F0,M1":           "value=number pairs",
		"F=0,M=NaN":       "is not a number",
		"low=1,high=∞":    "is not a number",
		"10:00=1,11:00=2": `"00=1" is not a number`, // as the page's parseCoding
	} {
		if _, err := ParseCoding(text); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
	c := &Config{Data: DataSpec{
		Bounds:     map[string][2]float64{"grade": {0, 4}},
		Categories: map[string]map[string]float64{"sex": {"F": 0, "M": 1}, "grade": {"low": 1, "high": 2}, "site": {"a": 3, "b": 3}, "stage": {"I": 1, "II": 2, "III": 3}},
	}}
	if got := CodedBounds(c); strings.Join(got, ",") != "sex,stage" {
		t.Errorf("filled %v", got)
	}
	if c.Data.Bounds["sex"] != [2]float64{0, 1} || c.Data.Bounds["stage"] != [2]float64{1, 3} || c.Data.Bounds["grade"] != [2]float64{0, 4} {
		t.Errorf("bounds %v", c.Data.Bounds)
	}
	if _, ok := c.Data.Bounds["site"]; ok {
		t.Error("a coding whose numbers are all equal gave a bound")
	}
}
