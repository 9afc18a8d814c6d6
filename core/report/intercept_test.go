package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// The intercept is the linear predictor where every predictor is 0. With
// age bound 18:90 and glucose 50:250 that point is outside the bounds, and
// the note gives the mean at age 54, glucose 150 (the centres) and smoker
// (bound 0:1, which holds 0) at 0: per draw η = β0 + 54·β_age +
// 150·β_glucose, on the outcome's scale, median and 2.5%–97.5%.
func TestInterceptNote(t *testing.T) {
	names := []string{"intercept", "age", "glucose", "smoker"}
	bounds := map[string][2]float64{"age": {18, 90}, "glucose": {50, 250}, "smoker": {0, 1}, "y": {0, 1}}
	r := rand.New(rand.NewPCG(1, 2))
	chains := make([][][]float64, 2)
	var eta []float64
	for c := range chains {
		for range 2000 {
			x := []float64{-6 + 0.5*r.NormFloat64(), 0.03 + 0.002*r.NormFloat64(), 0.02 + 0.001*r.NormFloat64(), 0.6 + 0.1*r.NormFloat64()}
			chains[c] = append(chains[c], x)
			eta = append(eta, x[0]+54*x[1]+150*x[2])
		}
	}
	q := diag.Quantiles(eta, 0.025, 0.5, 0.975)
	logistic := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	got := InterceptNote("logistic", names, bounds, chains)
	want := "The intercept is the log odds when age and glucose are 0, outside their public bounds: it is not a baseline, and its interval is that of an extrapolation. At age 54 and glucose 150 (the centres of their bounds) and smoker at 0, the probability of the outcome is " +
		Num(logistic(q[1]), 'g', 3) + " (95% interval " + Num(logistic(q[0]), 'g', 3) + "–" + Num(logistic(q[2]), 'g', 3) + ")."
	if got != want {
		t.Errorf("logistic:\n got %q\nwant %q", got, want)
	}
	if got := InterceptNote("poisson", names, bounds, chains); !strings.Contains(got, "the log of the expected count when") ||
		!strings.Contains(got, "the expected count is "+Num(math.Exp(q[1]), 'g', 3)+" (95% interval "+Num(math.Exp(q[0]), 'g', 3)) {
		t.Errorf("poisson: %q", got)
	}
	if got := InterceptNote("linear", names, bounds, chains); !strings.Contains(got, "The intercept is the outcome when") ||
		!strings.Contains(got, "the mean outcome is "+Num(q[1], 'g', 3)+" (95% interval "+Num(q[0], 'g', 3)+"–"+Num(q[2], 'g', 3)+")") {
		t.Errorf("linear: %q", got)
	}
	// One predictor outside: singular wording.
	one := map[string][2]float64{"age": {18, 90}, "glucose": {-1, 1}, "smoker": {0, 1}}
	if got := InterceptNote("logistic", names, one, chains); !strings.HasPrefix(got, "The intercept is the log odds when age is 0, outside its public bound: ") ||
		!strings.Contains(got, "At age 54 (the centre of its bound) and glucose and smoker at 0, ") {
		t.Errorf("one outside: %q", got)
	}
	// No note: every bound holds 0, a predictor without a bound (its 0 is
	// unknown), no intercept, or a model without predictors.
	zero := map[string][2]float64{"age": {-1, 1}, "glucose": {0, 5}, "smoker": {0, 1}}
	noBound := map[string][2]float64{"age": {18, 90}, "glucose": {50, 250}}
	for name, got := range map[string]string{
		"0 inside":     InterceptNote("logistic", names, zero, chains),
		"no bound":     InterceptNote("logistic", names, noBound, chains),
		"no intercept": InterceptNote("logistic", names[1:], bounds, chains),
		"gaussian":     InterceptNote("gaussian", names, bounds, chains),
	} {
		if got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
}
