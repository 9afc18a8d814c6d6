package run

import (
	"context"
	"math"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// A dp-map initialisation is planned and reported inside the budget, and it
// starts the chains near the posterior mode (the Stan reference mean of the
// breast-cancer model), far closer than the public uniform start.
func TestDPMapInit(t *testing.T) {
	ref := stanReference(t)
	for _, alg := range []string{"dp-penalty", "dp-hmc"} {
		cfg := &Config{
			// In the user's units, as the Stan reference (its prior is
			// N(0, 10²) there, not on the scaled predictors).
			Model:     model.Spec{Model: "logistic", Outcome: "y", Scale: model.ScaleNone},
			Data:      DataSpec{Bounds: map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}, "mean_smoothness": {-3, 5}, "mean_compactness": {-3, 5}, "mean_symmetry": {-3, 5}}},
			Algorithm: alg, Chains: 2, Seed: 8, Warmup: 5, Draws: 5,
			Init:    Init{Kind: "dp-map", Share: 0.3},
			Privacy: &Budget{Epsilon: 8, Delta: 1e-5},
		}
		p, err := tryPrepare(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.run(context.Background(), testKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := p.Report(res)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Epsilon > 8 || rep.Epsilon < 7.99 || rep.Epsilon < p.Plan.Epsilon || rep.Epsilon-p.Plan.Epsilon > 1e-8*p.Plan.Epsilon {
			t.Fatalf("%s: ε reported %v, planned %v", alg, rep.Epsilon, p.Plan.Epsilon)
		}
		// Distance of the first warmup position from the reference mean,
		// in posterior sds, averaged over parameters.
		d := res.Chains[0].Dim
		dist := 0.0
		for j, name := range res.Names {
			r := ref[name]
			dist += math.Abs(res.Chains[0].Warmup[j]-r[0]) / r[1]
		}
		dist /= float64(d)
		t.Logf("%s: start %.2f posterior sds from the mode on average; ε = %.3f", alg, dist, rep.Epsilon)
		// The public uniform start of the same seed is 5.4 sds away on
		// average; the private estimate must do much better.
		if dist > 3 {
			t.Errorf("%s: dp-map start is %.1f posterior sds from the mode", alg, dist)
		}
	}
	// Only Gaussian-accounted samplers take it.
	cfg := &Config{Model: model.Spec{Model: "banana"}, Algorithm: "dp-barker", Chains: 1, Init: Init{Kind: "dp-map"}, Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
	if err := cfg.Validate(); err == nil {
		t.Error("dp-map accepted for dp-barker")
	}
}
