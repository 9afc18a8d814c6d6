package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// wdbc5Config is the utility experiment's setting (core/experiment
// utility.go): logistic regression on the 569 breast-cancer rows, five
// features scaled to [−1, 1] (testdata/wdbc5_scaled.csv, scaled by the
// public ranges of core/experiment WDBCRanges), public bounds [−1, 1],
// 4 chains, iterations and noise planned.
func wdbc5Config(alg string, eps float64) *Config {
	names := []string{"mean_radius", "mean_texture", "mean_smoothness", "mean_compactness", "mean_symmetry"}
	bounds := map[string][2]float64{}
	for _, nm := range names {
		bounds[nm] = [2]float64{-1, 1}
	}
	return &Config{
		Model:     model.Spec{Model: "logistic", Outcome: "malignant", Predictors: names},
		Data:      DataSpec{Bounds: bounds},
		Algorithm: alg, Chains: 4, Seed: 11,
		Privacy: &Budget{Epsilon: eps, Delta: 1e-5},
	}
}

func prepareWDBC5(t *testing.T, cfg *Config) (*Prepared, error) {
	t.Helper()
	f, err := os.Open("testdata/wdbc5_scaled.csv")
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

// The SG-MCMC samplers at default settings on the utility experiment's
// design produce finite draws at every budget the experiment uses. dp-sgnht
// at ε ≤ 3 used to become NaN: the planned noise far exceeded the
// dynamics' own (step 1e-4), the thermostat α grew past 2 trying to absorb
// it and v ← (1 − α)v diverged.
func TestSGMCMCDefaultsFiniteOnWDBC5(t *testing.T) {
	algs := []string{"dp-sgnht"}
	epss := []float64{0.5, 1, 3, 8}
	if !testing.Short() {
		algs = append(algs, "dp-sgld", "dp-sghmc")
	}
	for _, alg := range algs {
		for _, eps := range epss {
			p, err := prepareWDBC5(t, wdbc5Config(alg, eps))
			if err != nil {
				t.Fatalf("%s ε = %g: %v", alg, eps, err)
			}
			res, err := p.run(context.Background(), testKey, nil)
			if err != nil {
				t.Fatalf("%s ε = %g (step %g, noise multiplier %g): %v", alg, eps, p.Config.Settings.Step, p.Config.Settings.NoiseMultiplier, err)
			}
			for c, ch := range res.Chains {
				for _, x := range append(ch.Warmup, ch.Draws...) {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("%s ε = %g: chain %d has a non-finite draw", alg, eps, c+1)
					}
				}
			}
			t.Logf("%s ε = %g: step %g, noise multiplier %g, %d+%d iterations", alg, eps, p.Config.Settings.Step, p.Config.Settings.NoiseMultiplier, p.Config.Warmup, p.Config.Draws)
		}
	}
}

// A chain whose state becomes non-finite stops with a *NonFiniteError
// naming the chain, the iteration and the setting to change; the other
// chains stop too, no stored draw is non-finite, and the privacy report
// counts every iteration that ran (the failing one included). dp-sgnht with
// dp-sgld with the step 1e4 diverges: the prior's pull (h/2)·θ/σ²
// overshoots.
func TestNonFiniteStateStopsTheRun(t *testing.T) {
	cfg := wdbc5Config("dp-sgld", 1)
	cfg.Settings.Step = 1e4
	p, err := prepareWDBC5(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.run(context.Background(), testKey, nil)
	var nf *NonFiniteError
	if !errors.As(err, &nf) {
		t.Fatalf("want a *NonFiniteError, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"dp-sgld", fmt.Sprintf("chain %d", nf.Chain), fmt.Sprintf("iteration %d", nf.Iteration), "--step", "non-finite"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if res == nil || res.Aborted != err {
		t.Fatalf("want the partial result with Aborted set, got %+v", res)
	}
	total := p.Config.Warmup + p.Config.Draws
	if nf.Chain < 1 || nf.Chain > cfg.Chains || nf.Iteration < 1 || nf.Iteration > total {
		t.Fatalf("error names chain %d iteration %d", nf.Chain, nf.Iteration)
	}
	if got := res.Chains[nf.Chain-1].Iterations; got != nf.Iteration {
		t.Fatalf("chain %d ran %d iterations, the error says %d", nf.Chain, got, nf.Iteration)
	}
	ran := 0
	for c, ch := range res.Chains {
		ran += ch.Iterations
		if ch.Iterations >= total {
			t.Logf("chain %d finished before the abort", c+1)
		}
		for _, x := range append(ch.Warmup, ch.Draws...) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("chain %d stored a non-finite draw", c+1)
			}
		}
	}
	rep, err := p.Report(res)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, it := range rep.Iterations {
		sum += it
	}
	if sum != ran || !rep.Cancelled || !(rep.Epsilon > 0) || rep.Epsilon > p.Plan.Epsilon {
		t.Fatalf("report: iterations %v (ran %d), ε = %v (plan %v), cancelled %v", rep.Iterations, ran, rep.Epsilon, p.Plan.Epsilon, rep.Cancelled)
	}
	// The statement says the run stopped and where, that what ran was
	// spent, and that its draws are not a posterior sample.
	where := fmt.Sprintf("dp-sgld chain %d, at iteration %d of %d, step 10000", nf.Chain, nf.Iteration, total)
	if rep.Aborted != where || slices.Contains(rep.Notes, cancelledNote) {
		t.Errorf("report aborted %q (want %q), notes %q", rep.Aborted, where, rep.Notes)
	}
	for _, want := range []string{"This dp-sgld run stopped before its end because a chain's state became non-finite (" + where + ")",
		"its draws are not a posterior sample and were not released", fmt.Sprintf("The %d iterations that ran (%d chains, warmup included) spent (ε = ", ran, cfg.Chains)} {
		if !strings.Contains(rep.Statement, want) {
			t.Errorf("statement %q lacks %q", rep.Statement, want)
		}
	}
	if strings.Contains(rep.Statement, "The released posterior draws") {
		t.Errorf("statement of an aborted run calls its draws released: %q", rep.Statement)
	}
	// The ε of what ran, not of nothing and not of the plan.
	its := make([]int, cfg.Chains)
	for c, ch := range res.Chains {
		its[c] = ch.Iterations
	}
	want, err := NewReport(p.Config, p.Model.N(), p.Model.Dim(), its, true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Epsilon != want.Epsilon {
		t.Fatalf("report ε %v, ε of the iterations that ran %v", rep.Epsilon, want.Epsilon)
	}
	t.Logf("%v; iterations %v, ε = %.4g of planned %.4g", nf, rep.Iterations, rep.Epsilon, p.Plan.Epsilon)
}

// dp-sgnht refuses, before spending anything, a step at which its
// thermostat cannot absorb the planned noise (the old default 1e-4 at
// ε = 1 on the utility design: the chain diverged after ~370 iterations).
func TestSGNHTRefusesUnabsorbableNoise(t *testing.T) {
	cfg := wdbc5Config("dp-sgnht", 1)
	cfg.Settings.Step = 1e-4
	_, err := prepareWDBC5(t, cfg)
	if err == nil || !strings.Contains(err.Error(), "thermostat") || !strings.Contains(err.Error(), "step below") {
		t.Fatalf("want the thermostat refusal, got %v", err)
	}
}
