package run

import (
	"math"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// TestReportChargesDiscreteGaussian: the reported ε of a run is the
// continuous accountant's ε at the reduced δ plus 2Na (N the run's
// discrete-Gaussian coordinates), strictly above the uncharged value, and
// the report says so. Before the charge the report was the uncharged
// value and this test failed.
func TestReportChargesDiscreteGaussian(t *testing.T) {
	const n, d = 5000, 3
	for _, tc := range []struct {
		alg   string
		s     Settings
		iters int // per chain
	}{
		{"dp-hmc", Settings{Tau: 30, TauGrad: 150, Leapfrog: 5, Clip: 1, GradClip: 1, Step: 0.001}, 1000000},
		{"dp-sgld", Settings{GradClip: 1, Step: 1e-4, NoiseMultiplier: 3, Batch: 100}, 100000},
	} {
		cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: tc.alg, Chains: 2, Warmup: tc.iters / 2, Draws: tc.iters / 2,
			Settings: tc.s, Privacy: &Budget{Epsilon: 50, Delta: 1e-6}}
		iters := []int{tc.iters, tc.iters}
		T := 2 * tc.iters
		rep, err := NewReport(cfg, n, d, iters, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.alg, err)
		}
		per, _ := noiseCoordsPerIter(tc.alg, tc.s, "replace", n, d)
		coords := float64(T * per)
		ch, err := privacy.NewDiscreteGaussianCharge(coords, 24, 1e-6, 100)
		if err != nil {
			t.Fatal(err)
		}
		var plain, atDc float64
		if tc.alg == "dp-hmc" {
			cost, _ := stepCost(tc.alg, tc.s, "replace", n, d)
			g := privacy.TightGaussian{Mu: math.Sqrt(float64(T)) * cost.StepMu()}
			plain, _ = g.Epsilon(1e-6)
			atDc, _ = g.Epsilon(ch.ContinuousDelta(1e-6))
			if per != 1+6*d {
				t.Errorf("dp-hmc coordinates per iteration %d, want %d", per, 1+6*d)
			}
		} else {
			acc := sgldConfig(cfg, n, "sgld")
			r1, _ := acc.Account(n, d, T, 1e-6)
			r2, _ := acc.Account(n, d, T, ch.ContinuousDelta(1e-6))
			plain, atDc = r1.Epsilon, r2.Epsilon
		}
		want := atDc + ch.Epsilon
		t.Logf("%s: N = %.3g coordinates, charge %.3g, ε %.10g → %.10g", tc.alg, coords, ch.Epsilon, plain, rep.Epsilon)
		if rep.Epsilon-plain < ch.Epsilon/2 || math.Abs(rep.Epsilon-want) > 1e-8*want+1e-15 {
			t.Errorf("%s: reported ε %.12g, want %.12g (uncharged %.12g, charge %.3g)", tc.alg, rep.Epsilon, want, plain, ch.Epsilon)
		}
		text := strings.Join(rep.Notes, " ")
		if !strings.Contains(text, "discrete Gaussian") {
			t.Errorf("%s: the report does not state the discrete-Gaussian charge: %q", tc.alg, text)
		}
	}
}

// TestPlanWithinBudgetAfterCharge: calibrated plans (noise for fixed
// iterations, and iterations for fixed noise) of Gaussian and accounted
// kernels spend at most the budget with the charge included.
func TestPlanWithinBudgetAfterCharge(t *testing.T) {
	for _, alg := range []string{"dp-penalty", "dp-hmc", "dp-mala", "dp-sgld", "dp-penalty-sub", "dp-fastmh", "dp-fastmh-full", "dp-barker", "dp-barker-full", "hybrid"} {
		for _, iters := range []int{0, 300} {
			if alg == "dp-barker" && iters > 0 {
				continue // no noise knob: 300 iterations do not fit ε = 1
			}
			cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: alg, Chains: 2, Warmup: iters / 3, Draws: iters - iters/3,
				Settings: Settings{Clip: 1, GradClip: 1, Step: 0.001}, Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
			switch alg {
			case "dp-barker":
				cfg.Settings.Clip = 0.5
			case "dp-barker-full":
				cfg.Settings.Clip = 0 // calibrated to the budget
			case "hybrid":
				cfg.Settings.Box = 5 // its one-posterior-sample start needs one
			}
			p, err := MakePlan(cfg, 5000, 3)
			if err != nil {
				t.Fatalf("%s: %v", alg, err)
			}
			if p.Epsilon > 1 {
				t.Errorf("%s (iters %d): planned ε %v > 1", alg, iters, p.Epsilon)
			}
			c2 := *cfg
			c2.Settings = p.Settings
			c2.Warmup, c2.Draws = p.Warmup, p.Draws
			rep, err := NewReport(&c2, 5000, 3, []int{p.IterationsPerChain(), p.IterationsPerChain()}, false)
			if err != nil {
				t.Fatalf("%s: %v", alg, err)
			}
			if rep.Epsilon > 1 {
				t.Errorf("%s (iters %d): reported ε %v > 1 for the planned run", alg, iters, rep.Epsilon)
			}
		}
	}
}
