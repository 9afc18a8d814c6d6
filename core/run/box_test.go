package run

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// Draws the box holds against its edge on the sampled scale are named;
// draws well inside it, or a run without a box, are not.
func TestBoxNoteNamesPinnedParameters(t *testing.T) {
	names := []string{"intercept", "age", "bmi"}
	cfg := &Config{Model: model.Spec{Model: "linear", Outcome: "sbp", Predictors: names[1:], Scale: model.ScaleBounds},
		Data:      DataSpec{Bounds: map[string][2]float64{"age": {18, 90}, "bmi": {15, 50}, "sbp": {70, 250}}},
		Algorithm: "dp-penalty", Settings: Settings{Box: 5}}
	sc := sampledScaling(cfg, names)
	if sc == nil {
		t.Fatal("no scaling for scale bounds with every predictor bounded")
	}
	r := rand.New(rand.NewPCG(1, 2))
	d := &export.Draws{Names: names}
	for range 2 {
		var ch [][]float64
		for range 200 {
			// Sampled: the intercept against +5, age free, bmi against −5
			// in 80% of the draws.
			bmi := -4.999
			if r.Float64() < 0.2 {
				bmi = -2
			}
			row := []float64{5 - 0.02*r.Float64(), r.NormFloat64(), bmi}
			sc.ToUser(row)
			ch = append(ch, row)
		}
		d.Values = append(d.Values, ch)
	}
	note := BoxNote(cfg, d, "--box")
	for _, want := range []string{"The parameter box ±5 holds these parameters against its edge (the share of draws within 1% of it): intercept 100%, bmi 7", "slopes per half-range of their predictor's public bound, the intercept at the bounds' centre", "at the predictors' bounds' centres, in the outcome's units, so the box must be larger than that", "Widen --box (it is"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "age ") {
		t.Errorf("age, inside the box, named:\n%s", note)
	}
	// A sampler that does not read the box is not held by it (a review:
	// hmc with --box 5 was told its intercept of 60 was the box's).
	hmc := *cfg
	hmc.Algorithm = "hmc"
	if note := BoxNote(&hmc, d, "--box"); note != "" {
		t.Errorf("hmc, which ignores the box: %q", note)
	}
	wide := *cfg
	wide.Settings.Box = 500
	if note := BoxNote(&wide, d, "--box"); note != "" {
		t.Errorf("box 500: %q", note)
	}
	wide.Settings.Box = 0
	if note := BoxNote(&wide, d, "--box"); note != "" {
		t.Errorf("no box: %q", note)
	}
}
