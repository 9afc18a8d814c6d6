package run

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
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
		res, rep := runAndReport(t, p)
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

// dpMapMeanConfig is a dp-map run of dp-penalty on a mean-statistic model
// with public bounds on x1 and x2.
func dpMapMeanConfig(modelName string, bounds map[string][2]float64) *Config {
	return &Config{
		Model:     model.Spec{Model: modelName},
		Data:      DataSpec{Bounds: bounds},
		Algorithm: "dp-penalty", Chains: 4, Seed: 3, Warmup: 5, Draws: 5,
		Settings: Settings{Box: 10},
		Init:     Init{Kind: "dp-map"},
		Privacy:  &Budget{Epsilon: 4, Delta: 1e-6},
	}
}

// runDPMapMeanStatistic prepares and runs cfg on the columns x1 and x2 and
// checks that the start is planned, charged and reported as one release
// of the two column sums (plan ε = report ε ≤ 4).
func runDPMapMeanStatistic(t *testing.T, cfg *Config, x1, x2 []float64) (*Prepared, *Result) {
	t.Helper()
	tab, err := dataset.FromColumns([]string{"x1", "x2"}, [][]float64{x1, x2})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(cfg, tab)
	if err != nil {
		t.Fatal(err)
	}
	res, rep := runAndReport(t, p)
	if rep.Epsilon > 4 || math.Abs(rep.Epsilon-p.Plan.Epsilon) > 1e-8*p.Plan.Epsilon {
		t.Fatalf("ε reported %v, planned %v", rep.Epsilon, p.Plan.Epsilon)
	}
	if !slices.ContainsFunc(rep.Notes, func(s string) bool {
		return strings.Contains(s, "one release of the 2 data columns' sums, each clipped to its public bound")
	}) {
		t.Errorf("notes %v", rep.Notes)
	}
	if !slices.ContainsFunc(p.Plan.Notes, func(s string) bool {
		return strings.Contains(s, "one release of the 2 data columns' clipped sums, then the posterior mode given them")
	}) {
		t.Errorf("plan notes %v", p.Plan.Notes)
	}
	return p, res
}

// On the banana with public bounds on x1 and x2, dp-map is one release of
// the two column sums (planned, charged and reported as such), and every
// chain starts within about a posterior sd of the mode; the gradient
// ascent it replaces lands about 6 away (mcmc.TestDPInitBananaFromPublicStarts).
func TestDPMapBananaMeanStatistic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0xba))
	const n = 20000
	x1, x2 := make([]float64, n), make([]float64, n)
	for i := range x1 {
		x1[i] = 44.721359549995796 * r.NormFloat64()
		x2[i] = 3 + 50*r.NormFloat64()
	}
	cfg := dpMapMeanConfig("banana", map[string][2]float64{"x1": {-200, 200}, "x2": {-220, 230}})
	p, res := runDPMapMeanStatistic(t, cfg, x1, x2)
	b := p.Model.(*model.Banana)
	mu, v := b.Posterior()
	for c, ch := range res.Chains {
		th := ch.Warmup[:2]
		y1, y2 := th[0], th[1]+b.A()*th[0]*th[0]
		if d := math.Hypot((y1-mu[0])/math.Sqrt(v[0]), (y2-mu[1])/math.Sqrt(v[1])); d > 2.5 {
			t.Errorf("chain %d starts %.2f posterior sds from the mode", c+1, d)
		}
	}
}

// The gaussian model reads its data through the column means too: with a
// bound on every column (named by the loaded header, no predictors given)
// dp-map's start is one release of their sums, planned and charged as
// such, and every chain starts within 2.5 posterior sds of the mode.
func TestDPMapGaussianMeanStatistic(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 0xba))
	const n = 20000
	x1, x2 := make([]float64, n), make([]float64, n)
	for i := range x1 {
		x1[i], x2[i] = 1+r.NormFloat64(), -0.5+r.NormFloat64()
	}
	cfg := dpMapMeanConfig("gaussian", map[string][2]float64{"x1": {-4, 4}, "x2": {-4, 4}})
	if _, err := MakePlan(cfg, n, 2); err == nil || !strings.Contains(err.Error(), "dp-map on the gaussian model needs its data columns named") {
		t.Fatalf("a plan without the gaussian's columns: %v", err)
	}
	p, res := runDPMapMeanStatistic(t, cfg, x1, x2)
	mean, cov := p.Model.(*model.GaussianMean).Posterior()
	for c, ch := range res.Chains {
		th := ch.Warmup[:2]
		if d := math.Hypot((th[0]-mean[0])/math.Sqrt(cov[0][0]), (th[1]-mean[1])/math.Sqrt(cov[1][1])); d > 2.5 {
			t.Errorf("chain %d starts %.2f posterior sds from the mode", c+1, d)
		}
	}
}
