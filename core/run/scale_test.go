package run

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

var bc5Bounds = map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}, "mean_smoothness": {-3, 5}, "mean_compactness": {-3, 5}, "mean_symmetry": {-3, 5}}

// meansAndSDs pools the post-warmup draws of every chain.
func meansAndSDs(res *Result) (mean, sd []float64) {
	d := len(res.Names)
	mean, sd = make([]float64, d), make([]float64, d)
	cnt := 0
	for _, ch := range res.Chains {
		for i := 0; i+d <= len(ch.Draws); i += d {
			for j := range d {
				mean[j] += ch.Draws[i+j]
				sd[j] += ch.Draws[i+j] * ch.Draws[i+j]
			}
			cnt++
		}
	}
	for j := range d {
		mean[j] /= float64(cnt)
		sd[j] = math.Sqrt(sd[j]/float64(cnt) - mean[j]*mean[j])
	}
	return mean, sd
}

// HMC on the scaled coefficients reports draws in the user's units: with a
// prior too wide to matter (sd 1000 in either parameterization) the two
// runs sample the same posterior, so their means agree within Monte Carlo
// error (4 × 1000 draws, ESS ≥ 1000 per coordinate: MCSE ≤ sd/30; allow
// 0.2 sd). Without the back-transform the slopes differ by the
// half-range 4 and the intercept by Σ β·centre.
func TestScaledRunReportsUserUnits(t *testing.T) {
	run1 := func(scale string) *Result {
		cfg := &Config{
			Model:     model.Spec{Model: "logistic", Outcome: "y", PriorSD: 1000, Scale: scale},
			Data:      DataSpec{Bounds: bc5Bounds},
			Algorithm: "hmc", Chains: 4, Seed: 5, Warmup: 500, Draws: 1000,
		}
		p, err := tryPrepare(t, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if sc := model.ScalingOf(p.Model); (sc != nil) != (scale == model.ScaleBounds) {
			t.Fatalf("scale %q: model scaling %v", scale, sc)
		}
		res, err := p.run(context.Background(), testKey, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	mu, su := meansAndSDs(run1(model.ScaleNone))
	ms, _ := meansAndSDs(run1(model.ScaleBounds))
	for j := range mu {
		if math.Abs(mu[j]-ms[j]) > 0.2*su[j] {
			t.Errorf("coefficient %d: user-unit run mean %.4f, scaled run mean %.4f (sd %.4f)", j, mu[j], ms[j], su[j])
		}
	}
}

// A private regression run samples the scaled coefficients unless the
// config says none; its report says so and states the prior; init values
// are read in the user's units.
func TestPrivateRunScaledByDefault(t *testing.T) {
	base := Config{
		Model:     model.Spec{Model: "logistic", Outcome: "y"},
		Data:      DataSpec{Bounds: bc5Bounds},
		Algorithm: "dp-penalty", Chains: 1, Seed: 2, Warmup: 0, Draws: 1,
		Init:    Init{Kind: "values", Values: []float64{-1, 2, 0.5, 0, 0, 0}},
		Privacy: &Budget{Epsilon: 1, Delta: 1e-5},
	}
	cfg := base
	p, err := tryPrepare(t, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Config.Model.Scale != model.ScaleBounds || model.ScalingOf(p.Model) == nil {
		t.Fatalf("private run: scale %q", p.Config.Model.Scale)
	}
	theta := p.initial(rng.ForChain(1, testKey, 0))
	model.ScalingOf(p.Model).ToUser(theta)
	for j, v := range base.Init.Values {
		if math.Abs(theta[j]-v) > 1e-12 {
			t.Fatalf("init values read as %v, want %v", theta, base.Init.Values)
		}
	}
	rep, err := NewReport(p.Config, 569, 6, []int{1}, false)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "scaled to [-1, 1]") || !strings.Contains(notes, "N(0, 20²)") {
		t.Errorf("report notes do not state the parameterization and prior:\n%s", notes)
	}
	none := base
	none.Model.Scale = model.ScaleNone
	p, err = tryPrepare(t, &none)
	if err != nil {
		t.Fatal(err)
	}
	if model.ScalingOf(p.Model) != nil {
		t.Error("scale none: the model is scaled")
	}
	if rep, _ := NewReport(p.Config, 569, 6, []int{1}, false); strings.Contains(strings.Join(rep.Notes, "\n"), "N(0, 20²)") || !strings.Contains(strings.Join(rep.Notes, "\n"), "prior: N(0, 10²) on every coefficient, in the user's units") {
		t.Errorf("scale none: the report does not state the prior in the user's units:\n%s", strings.Join(rep.Notes, "\n"))
	}
	na := none
	na.Algorithm = NoiseAware
	if err := na.Validate(); err == nil || !strings.Contains(err.Error(), "noise-aware always samples the coefficients of the predictors scaled") {
		t.Errorf("scale none accepted for noise-aware, whose release is on the scaled space (err %v)", err)
	}
	pub := Config{Model: model.Spec{Model: "logistic", Outcome: "y"}, Data: DataSpec{Bounds: bc5Bounds}, Algorithm: "hmc", Chains: 1, Warmup: 1, Draws: 1}
	if p, err = tryPrepare(t, &pub); err != nil || model.ScalingOf(p.Model) != nil {
		t.Errorf("non-private run scaled by default (err %v)", err)
	}
	// scale = auto (opt-in): with every predictor bounded, the scaled space
	// with the prior left in the user's units (the posterior of scale
	// none); without a bound for every predictor, the user's units.
	pub.Model.Scale = model.ScaleAuto
	if p, err = tryPrepare(t, &pub); err != nil || model.ScalingOf(p.Model) == nil {
		t.Errorf("scale auto with every bound: not sampled on the scaled space (err %v)", err)
	} else if sd, scaled := ModelPrior(p.Config); sd != 10 || scaled {
		t.Errorf("scale auto: prior %v (scaled %v), want 10 in the user's units", sd, scaled)
	}
	priv := pub
	priv.Privacy = &Budget{Epsilon: 3, Delta: 1e-5}
	priv.Algorithm = "dp-penalty"
	if err := priv.Validate(); err == nil || !strings.Contains(err.Error(), "scale auto") {
		t.Errorf("scale auto accepted for a private run (err %v)", err)
	}
	partial := pub
	partial.Data.Bounds = map[string][2]float64{"mean_radius": {-3, 5}}
	if p, err = tryPrepare(t, &partial); err != nil || model.ScalingOf(p.Model) != nil {
		t.Errorf("scale auto with a missing bound scaled (err %v)", err)
	}
}
