package run

import (
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// Every private algorithm plans, runs and reports on the breast-cancer data
// within its budget, counting every iteration that ran.
func TestEveryPrivateAlgorithmRunsWithinBudget(t *testing.T) {
	bounds := map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}}
	for _, tc := range []struct {
		alg string
		s   Settings
		f   float64 // temper
	}{
		{"dp-penalty", Settings{}, 0},
		{"dp-hmc", Settings{Leapfrog: 3}, 0},
		{"dp-mala", Settings{}, 0},
		{"ops", Settings{Box: 10, InnerIterations: 100}, 0},
		{"dp-barker", Settings{Batch: 100}, 0.2},
		{"dp-barker-full", Settings{Clip: 0.01}, 0},
		{"dp-fastmh", Settings{Box: 10}, 0},
		{"dp-fastmh-full", Settings{Box: 10}, 0},
		{"dp-penalty-sub", Settings{Batch: 100}, 0},
		{"dp-sgld", Settings{Batch: 100}, 0},
		{"dp-sgnht", Settings{Batch: 100}, 0},
		{"dp-sghmc", Settings{Batch: 100}, 0},
		{"hybrid", Settings{Box: 10, Batch: 100, InnerIterations: 100}, 0},
	} {
		t.Run(tc.alg, func(t *testing.T) {
			cfg := &Config{
				Model:     model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"mean_radius", "mean_texture"}, Temper: tc.f},
				Data:      DataSpec{Bounds: bounds},
				Algorithm: tc.alg, Chains: 2, Seed: 4, Settings: tc.s,
				Privacy: &Budget{Epsilon: 3, Delta: 1e-5},
			}
			switch tc.alg {
			case "ops":
				cfg.Draws = 3
			case "dp-barker":
				// planned: b/N = 0.18 allows only a few iterations
			default:
				cfg.Warmup, cfg.Draws = 20, 30
			}
			p, err := tryPrepare(t, cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, rep := runAndReport(t, p)
			want := p.Config.Warmup + p.Config.Draws
			if rep.Epsilon > 3 || !(rep.Epsilon > 0) || rep.Iterations[0] != want || rep.Iterations[1] != want {
				t.Fatalf("report ε = %v, iterations %v (want %d each), accountant %s", rep.Epsilon, rep.Iterations, want, rep.Accountant)
			}
			// The planned ε equals the reported one for a run that finished.
			// The report rounds up to 9 significant digits.
			if d := rep.Epsilon - p.Plan.Epsilon; d < 0 || d > 1e-8*p.Plan.Epsilon {
				t.Fatalf("plan ε %v vs report ε %v", p.Plan.Epsilon, rep.Epsilon)
			}
			t.Logf("%s: ε = %.4g (%s), %d iterations/chain", tc.alg, rep.Epsilon, rep.Accountant, want)
		})
	}
}

// A hybrid run cancelled before every chain drew its OPS start still gets a
// report, charged every chain's OPS draw.
func TestHybridCancelledEarlyReports(t *testing.T) {
	cfg := &Config{
		Model:     model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"mean_radius", "mean_texture"}},
		Data:      DataSpec{Bounds: map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}}},
		Algorithm: "hybrid", Chains: 2, Seed: 4, Warmup: 20, Draws: 30,
		Settings: Settings{Box: 10, Batch: 100, InnerIterations: 100},
		Privacy:  &Budget{Epsilon: 3, Delta: 1e-5},
	}
	p, err := tryPrepare(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	one, err := NewReport(p.Config, 569, 3, []int{1, 0}, true)
	if err != nil {
		t.Fatal(err)
	}
	both, err := NewReport(p.Config, 569, 3, []int{1, 1}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !(one.Epsilon > 0) || one.Epsilon < both.Epsilon {
		t.Fatalf("ε after one OPS draw %v, after two %v", one.Epsilon, both.Epsilon)
	}
}
