package run

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// reportConfig is a private run on the breast-cancer data (n = 569, d = 3).
func reportConfig(alg string, s Settings) *Config {
	return &Config{
		Model:     model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"mean_radius", "mean_texture"}},
		Data:      DataSpec{Bounds: map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}}},
		Algorithm: alg, Chains: 2, Seed: 4, Warmup: 20, Draws: 30, Settings: s,
		Privacy: &Budget{Epsilon: 3, Delta: 1e-5},
	}
}

// preparedReport prepares cfg on the data and reports a finished run of the
// planned iterations (no chain is run: the report depends on the counts
// only).
func preparedReport(t *testing.T, cfg *Config) *PrivacyReport {
	t.Helper()
	p, err := tryPrepare(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	it := p.Config.Warmup + p.Config.Draws
	r, err := NewReport(p.Config, 569, 3, []int{it, it}, false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Issue #15 item 2: a run is private under replace-one only (its kernels
// and its report use the exact n), so every entry point refuses
// add-remove: Validate, MakePlan, Prepare and NewReport, with a message
// that names the setting, says why and what to do.
func TestAddRemoveRefusedForSampling(t *testing.T) {
	for _, rel := range []string{"add-remove", "add/remove", "addremove"} {
		cfg := reportConfig("dp-penalty", Settings{})
		cfg.Privacy.Relation = rel
		err := cfg.Validate()
		if !errors.Is(err, ErrAddRemoveSampling) && (err == nil || !strings.Contains(err.Error(), ErrAddRemoveSampling.Error())) {
			t.Fatalf("%s: Validate gave %v", rel, err)
		}
		for _, want := range []string{`relation "add-remove" is not available for sampling`, "exact number of rows n", "replace", "dpmcmc account"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: message %q lacks %q", rel, err, want)
			}
		}
		if _, err := MakePlan(cfg, 569, 3); err == nil || !strings.Contains(err.Error(), "not available for sampling") {
			t.Errorf("%s: MakePlan gave %v", rel, err)
		}
		if _, err := tryPrepare(t, cfg); err == nil || !strings.Contains(err.Error(), "not available for sampling") {
			t.Errorf("%s: Prepare gave %v", rel, err)
		}
		if _, err := NewReport(cfg, 569, 3, []int{50, 50}, false); !errors.Is(err, ErrAddRemoveSampling) {
			t.Errorf("%s: NewReport gave %v", rel, err)
		}
	}
	// The config file path: JSON with add-remove parses, then is refused.
	cfg, err := ParseConfig([]byte(`{"algorithm":"dp-hmc","chains":1,"privacy":{"epsilon":1,"delta":1e-5,"relation":"add-remove"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "not available for sampling") {
		t.Errorf("config file: Validate gave %v", err)
	}
	// Unknown relations get their own message; replace and "" pass.
	if err := CheckSamplingRelation("swap"); err == nil || !strings.Contains(err.Error(), `relation must be replace (got "swap")`) {
		t.Errorf("swap: %v", err)
	}
	for _, rel := range []string{"", "replace"} {
		if err := CheckSamplingRelation(rel); err != nil {
			t.Errorf("%q refused: %v", rel, err)
		}
		cfg := reportConfig("dp-penalty", Settings{})
		cfg.Privacy.Relation = rel
		if r := preparedReport(t, cfg); r.Relation != "replace" {
			t.Errorf("%q: report relation %q", rel, r.Relation)
		}
	}
}

// Issue #15 item 5: ops and hybrid release the final state of a finite MH
// run; their guarantee holds only if that run has converged, and the
// pasteable statement itself (not only a note) says so, as do the JSON's
// condition and the Stan CSV comment lines. Kernels with a worst-case
// guarantee carry no such condition.
func TestConditionalGuaranteeInStatement(t *testing.T) {
	for _, tc := range []struct {
		alg         string
		s           Settings
		conditional bool
	}{
		{"ops", Settings{Box: 10, InnerIterations: 100}, true},
		{"hybrid", Settings{Box: 10, Batch: 100}, true},
		{"dp-penalty", Settings{}, false},
		{"dp-sgld", Settings{Batch: 100}, false},
	} {
		t.Run(tc.alg, func(t *testing.T) {
			cfg := reportConfig(tc.alg, tc.s)
			if tc.alg == "ops" {
				cfg.Warmup, cfg.Draws = 0, 3
			}
			r := preparedReport(t, cfg)
			lines := strings.Join(r.ReportLines(), "\n")
			if !tc.conditional {
				if r.Condition != "" || strings.Contains(r.Statement, "worst-case") || strings.Contains(lines, "condition =") {
					t.Fatalf("unconditional kernel with a condition: %q / %q", r.Condition, r.Statement)
				}
				return
			}
			inner := "1000 iterations"
			if tc.alg == "ops" {
				inner = "100 iterations"
			}
			for _, want := range []string{"if the inner Metropolis–Hastings run", inner, "has converged to the tempered posterior", "not a worst-case guarantee"} {
				if !strings.Contains(r.Statement, want) {
					t.Errorf("statement lacks %q: %s", want, r.Statement)
				}
			}
			if !strings.Contains(r.Condition, "has converged") || !strings.Contains(lines, "  condition = "+r.Condition) {
				t.Errorf("condition %q not in the JSON field / Stan lines:\n%s", r.Condition, lines)
			}
			// The condition qualifies the ε claim in the same sentence.
			if i, j := strings.Index(r.Statement, "has converged"), strings.Index(r.Statement, "-differential privacy"); i < 0 || j < 0 || i > j {
				t.Errorf("condition does not precede the claim: %s", r.Statement)
			}
		})
	}
}

// Issue #15 item 5: a dpmcmc_testkey build draws its noise from a fixed,
// published key; its report must say so (seed policy and statement), never
// "fresh crypto/rand key". Run also with -tags dpmcmc_testkey.
func TestSeedPolicyNamesTheKey(t *testing.T) {
	r := preparedReport(t, reportConfig("dp-penalty", Settings{}))
	lines := strings.Join(r.ReportLines(), "\n")
	if rng.FixedTestKey {
		if strings.Contains(r.SeedPolicy, "fresh crypto/rand") || !strings.Contains(r.SeedPolicy, "fixed TEST key") || !strings.Contains(r.SeedPolicy, "NOT private") {
			t.Errorf("test-key build, seed policy: %s", r.SeedPolicy)
		}
		if !strings.Contains(r.Statement, "TEST BUILD") || !strings.Contains(r.Statement, "not private") {
			t.Errorf("test-key build, statement: %s", r.Statement)
		}
	} else {
		if !strings.Contains(r.SeedPolicy, "fresh crypto/rand key per run") || strings.Contains(r.SeedPolicy, "TEST") || strings.Contains(r.Statement, "TEST BUILD") {
			t.Errorf("production build: seed policy %q, statement %q", r.SeedPolicy, r.Statement)
		}
	}
	if !strings.Contains(lines, "  seed_policy = "+r.SeedPolicy) {
		t.Errorf("seed policy not in the Stan lines:\n%s", lines)
	}
}

// Issue #15 item 5: a report lists only the settings its kernel uses.
// DP-Fast MH draws its minibatch size each iteration (no batch setting) and
// reports the cap K it used (⌈ε_step·n/6⌉ by default, §6.2); the full-batch
// kernels report neither; the minibatch kernels report b.
func TestReportSettingsAreTheKernels(t *testing.T) {
	for _, tc := range []struct {
		alg          string
		s            Settings
		batch, kcap  bool
		wantBatchCap func(s Settings) float64
	}{
		{"dp-fastmh", Settings{Box: 10}, false, true, func(s Settings) float64 { return math.Ceil(s.StepEpsilon * 569 / 6) }},
		{"dp-fastmh", Settings{Box: 10, BatchCap: 7, Batch: 50}, false, true, func(Settings) float64 { return 7 }},
		{"dp-fastmh-full", Settings{Box: 10, Batch: 50}, false, false, nil},
		{"dp-barker-full", Settings{Clip: 0.01, Batch: 50}, false, false, nil},
		{"dp-penalty-sub", Settings{Batch: 100, BatchCap: 7}, true, false, nil},
		{"dp-sgld", Settings{Batch: 100}, true, false, nil},
	} {
		t.Run(tc.alg, func(t *testing.T) {
			cfg := reportConfig(tc.alg, tc.s)
			p, err := tryPrepare(t, cfg)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReport(p.Config, 569, 3, []int{50, 50}, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := r.Settings["batch"]; ok != tc.batch {
				t.Errorf("settings %v: batch present %v, want %v", r.Settings, ok, tc.batch)
			}
			k, ok := r.Settings["batch_cap"]
			if ok != tc.kcap {
				t.Errorf("settings %v: batch_cap present %v, want %v", r.Settings, ok, tc.kcap)
			}
			if tc.wantBatchCap != nil {
				if w := tc.wantBatchCap(p.Config.Settings); k != w || !(k >= 1) {
					t.Errorf("batch_cap %v, want %v", k, w)
				}
			}
		})
	}
}

// Issue #15 item 5: the one-line descriptions (the CLI's -h, the page's
// algorithm list) do not call the one-posterior-sample draws exact.
func TestAlgorithmDocsDoNotClaimExactDraws(t *testing.T) {
	for _, alg := range []string{"ops", "hybrid"} {
		if d := AlgorithmDoc(alg); strings.Contains(d, "exact") {
			t.Errorf("%s: %q", alg, d)
		}
	}
	if d := AlgorithmDoc("ops"); !strings.Contains(d, "finite MH run") || !strings.Contains(d, "converged") {
		t.Errorf("ops doc does not state the finite run and its condition: %q", d)
	}
}

// A run that spends ε above LargeEpsilon carries the plan's note on it in
// its report too (the report travels with the draws; the plan does not);
// one at ε = 3 does not.
func TestReportNotesLargeEpsilon(t *testing.T) {
	big := reportConfig("dp-penalty", Settings{})
	big.Privacy = &Budget{Epsilon: 50, Delta: 1e-5}
	r := preparedReport(t, big)
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "is large: it lets one person's row change the probability of any output") {
		t.Errorf("ε = %v: no note on weak protection:\n%s", r.Epsilon, notes)
	}
	if notes := strings.Join(preparedReport(t, reportConfig("dp-penalty", Settings{})).Notes, "\n"); strings.Contains(notes, "is large") {
		t.Errorf("ε = 3 noted as large:\n%s", notes)
	}
}

// The statement names the guarantee's domain (rows the run can read; a
// privacy audit found "two files that differ in one row give the same
// exports" too strong) and the declared text codings, in code order.
func TestStatementNamesRowDomainAndCodings(t *testing.T) {
	p, err := tryPrepare(t, reportConfig("dp-penalty", Settings{}))
	if err != nil {
		t.Fatal(err)
	}
	it := p.Config.Warmup + p.Config.Draws
	r, err := NewReport(p.Config, 569, 3, []int{it, it}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Statement, "The guarantee covers files whose rows this run can read: values outside the public bounds, the outcome's included, are clipped into them, while a value the model cannot take inside them (such as a missing outcome, 2.5 for a count or a text value outside a declared coding) stops the run before anything is released.") || strings.Contains(r.Statement, "Text values were coded") {
		t.Errorf("statement without codings: %s", r.Statement)
	}
	cfg := *p.Config
	cfg.Data.Categories = map[string]map[string]float64{"sex": {"M": 1, "F": 0}, "smoker": {"yes": 1, "no": 0, "former": 0.5}}
	r, err = NewReport(&cfg, 569, 3, []int{it, it}, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Text values were coded as declared by the analyst (sex: F = 0, M = 1; smoker: no = 0, former = 0.5, yes = 1); like the bounds, a coding chosen after seeing which values the rows hold is outside the guarantee."; !strings.Contains(r.Statement, want) {
		t.Errorf("statement lacks %q:\n%s", want, r.Statement)
	}
}

// Minibatch dp-barker rounds its batch-dependent normal variance up to the
// discrete-Gaussian grid, which Thm 2 does not cover: the report says so;
// the full-data kernel's variance is the constant C and needs no note.
func TestBarkerReportNamesGridRounding(t *testing.T) {
	const note = "rounded up to the exact discrete-Gaussian grid"
	has := func(r *PrivacyReport) bool {
		return slices.ContainsFunc(r.Notes, func(s string) bool { return strings.Contains(s, note) })
	}
	barker := reportConfig("dp-barker", Settings{})
	barker.Warmup, barker.Draws = 0, 0 // planned from the budget
	if r := preparedReport(t, barker); !has(r) {
		t.Errorf("dp-barker notes lack the grid rounding: %q", r.Notes)
	}
	if r := preparedReport(t, reportConfig("dp-barker-full", Settings{})); has(r) {
		t.Errorf("dp-barker-full notes name a rounding it does not make: %q", r.Notes)
	}
}

// Typed initial values of a private run are listed in its report as
// declared public (a review pasted a non-private fit's means and nothing
// said they had to be public); noise-aware, which has no chain to start,
// does not list them.
func TestReportListsTypedInitialValues(t *testing.T) {
	for _, c := range []struct {
		alg  string
		want bool
	}{{"dp-penalty", true}, {NoiseAware, false}} {
		cfg := &Config{Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x"}},
			Data:      DataSpec{Bounds: map[string][2]float64{"x": {-1, 1}}},
			Algorithm: c.alg, Chains: 1, Warmup: 10, Draws: 10,
			Init:    Init{Kind: "values", Values: []float64{-1.5, 0.25}},
			Privacy: &Budget{Epsilon: 3, Delta: 1e-5}}
		if c.alg == "dp-penalty" {
			cfg.Settings = Settings{Tau: 2, Clip: 1.5, Step: 0.1}
		}
		r, err := NewReport(cfg, 100, 2, []int{20}, false)
		if err != nil {
			t.Fatalf("%s: %v", c.alg, err)
		}
		got := slices.Contains(r.Notes, InitValuesNote("-1.5, 0.25"))
		if got != c.want {
			t.Errorf("%s: notes %q", c.alg, r.Notes)
		}
	}
}
