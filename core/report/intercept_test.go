package report

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// interceptDraws are 2 chains × 2000 draws of (intercept, age, glucose,
// smoker, sex) and, per draw, η at age 54 and glucose 150.
func interceptDraws(interceptSD float64) ([][][]float64, []float64) {
	r := rand.New(rand.NewPCG(1, 2))
	chains := make([][][]float64, 2)
	var eta []float64
	for c := range chains {
		for range 2000 {
			x := []float64{-6 + interceptSD*r.NormFloat64(), 0.03 + 0.002*r.NormFloat64(), 0.02 + 0.001*r.NormFloat64(), 0.6 + 0.1*r.NormFloat64(), 0.2 + 0.1*r.NormFloat64()}
			chains[c] = append(chains[c], x)
			eta = append(eta, x[0]+54*x[1]+150*x[2])
		}
	}
	return chains, eta
}

// The intercept is the linear predictor where every predictor is 0. With
// age bound 18:90 (0 outside) and glucose 0:300 (0 at its edge) that point
// is far from the bounds' centres, and the note gives the mean at age 54,
// glucose 150 (the centres), smoker (bound 0:1) at 0 and sex at the text
// coded 0: per draw η = β0 + 54·β_age + 150·β_glucose, on the outcome's
// scale, median and 2.5%–97.5%.
func TestInterceptNote(t *testing.T) {
	names := []string{"intercept", "age", "glucose", "smoker", "sex"}
	bounds := map[string][2]float64{"age": {18, 90}, "glucose": {0, 300}, "smoker": {0, 1}, "sex": {0, 1}, "y": {0, 1}}
	codes := ReferenceCodes(map[string]map[string]float64{"sex": {"F": 0, "M": 1}})
	chains, eta := interceptDraws(0.5)
	q := diag.Quantiles(eta, 0.025, 0.5, 0.975)
	logistic := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	got := InterceptNote("logistic", names, bounds, codes, chains, [2]float64{})
	want := "The intercept is the log odds when age and glucose are 0, far from the centres of their public bounds: it is not a baseline, and its interval is that of an extrapolation. At age 54 and glucose 150 (the centres of their bounds), with smoker 0 and sex F, the probability of the outcome is " +
		Num(logistic(q[1]), 'g', 3) + " (95% interval " + Num(logistic(q[0]), 'g', 3) + "–" + Num(logistic(q[2]), 'g', 3) + ")."
	if got != want {
		t.Errorf("logistic:\n got %q\nwant %q", got, want)
	}
	if got := InterceptNote("poisson", names, bounds, codes, chains, [2]float64{}); !strings.Contains(got, "the log of the expected count when") ||
		!strings.Contains(got, "the expected count is "+Num(math.Exp(q[1]), 'g', 3)+" (95% interval "+Num(math.Exp(q[0]), 'g', 3)) {
		t.Errorf("poisson: %q", got)
	}
	if got := InterceptNote("linear", names, bounds, nil, chains, [2]float64{}); !strings.Contains(got, "The intercept is the outcome when") ||
		!strings.Contains(got, "with smoker 0 and sex 0, the mean outcome is "+Num(q[1], 'g', 3)+" (95% interval "+Num(q[0], 'g', 3)+" to "+Num(q[2], 'g', 3)+")") {
		// Negative ends: "to", not a dash that reads as a minus.
		t.Errorf("linear: %q", got)
	}
	// One predictor far from 0: singular wording. glucose's bound -200:300
	// holds 0 in its middle half: it stays at 0.
	one := map[string][2]float64{"age": {18, 90}, "glucose": {-200, 300}, "smoker": {0, 1}, "sex": {0, 1}}
	if got := InterceptNote("logistic", names, one, nil, chains, [2]float64{}); !strings.HasPrefix(got, "The intercept is the log odds when age is 0, far from the centre of its public bound: ") ||
		!strings.Contains(got, "At age 54 (the centre of its bound), with glucose 0, smoker 0 and sex 0, ") {
		t.Errorf("one centred: %q", got)
	}
	// Draws that barely inform the mean there: the probability or count is
	// said to be undetermined, with its interval, not stated as a value.
	wide, _ := interceptDraws(40)
	if got := InterceptNote("logistic", names, bounds, codes, wide, [2]float64{}); !strings.Contains(got, ", these draws do not determine the probability of the outcome (95% interval ") {
		t.Errorf("undetermined probability: %q", got)
	}
	if got := InterceptNote("poisson", names, bounds, codes, wide, [2]float64{}); !strings.Contains(got, ", these draws do not determine the expected count (95% interval ") {
		t.Errorf("undetermined count: %q", got)
	}
	// A linear mean outcome whose interval reaches past the outcome's
	// public bound on both sides says less than the bound; inside it, it
	// is a value.
	if got := InterceptNote("linear", names, bounds, codes, wide, [2]float64{-1, 1}); !strings.Contains(got, ", these draws do not determine the mean outcome (95% interval ") || !strings.Contains(got, ", wider than its public bound -1–1).") {
		t.Errorf("undetermined linear mean: %q", got)
	}
	if got := InterceptNote("linear", names, bounds, codes, wide, [2]float64{-1e6, 1e6}); strings.Contains(got, "do not determine") || !strings.Contains(got, "the mean outcome is ") {
		t.Errorf("linear mean inside a wide bound: %q", got)
	}
	// No note: every 0 near its bound's centre or a category, a predictor
	// without a bound (its 0 is unknown), no intercept, or a model without
	// predictors.
	zero := map[string][2]float64{"age": {-1, 1}, "glucose": {-5, 10}, "smoker": {0, 1}, "sex": {0, 1}}
	noBound := map[string][2]float64{"age": {18, 90}, "glucose": {50, 250}}
	for name, got := range map[string]string{
		"0 inside":     InterceptNote("logistic", names, zero, nil, chains, [2]float64{}),
		"no bound":     InterceptNote("logistic", names, noBound, nil, chains, [2]float64{}),
		"no intercept": InterceptNote("logistic", names[1:], bounds, nil, chains, [2]float64{}),
		"gaussian":     InterceptNote("gaussian", names, bounds, nil, chains, [2]float64{}),
	} {
		if got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
	// A coded column without a text coded 0: the intercept's point is no
	// category of it, so the note sets it to its lowest code (sex F = 1,
	// M = 2 is a common coding; a review got no note for it).
	grade := ReferenceCodes(map[string]map[string]float64{"sex": {"low": 1, "high": 2}})
	if grade["sex"] != (Code{Text: "low", Value: 1}) {
		t.Errorf("ReferenceCodes %v", grade)
	}
	graded := map[string][2]float64{"age": {18, 90}, "glucose": {0, 300}, "smoker": {0, 1}, "sex": {1, 2}}
	got = InterceptNote("logistic", names, graded, grade, chains, [2]float64{})
	q = diag.Quantiles(etaWith(chains, 1), 0.025, 0.5, 0.975)
	want = "The intercept is the log odds when age, glucose and sex are 0, far from the centres of their public bounds: it is not a baseline, and its interval is that of an extrapolation. At age 54 and glucose 150 (the centres of their bounds), sex low (its lowest code, 1), with smoker 0, the probability of the outcome is " +
		Probability(logistic(q[1])) + " (95% interval " + Probability(logistic(q[0])) + "–" + Probability(logistic(q[2])) + ")."
	if got != want {
		t.Errorf("a coding without 0:\n got %q\nwant %q", got, want)
	}
	// Only the coded column away from 0: still a note, at its lowest code.
	if got := InterceptNote("logistic", []string{"intercept", "smoker", "sex"}, graded, grade, chains, [2]float64{}); !strings.Contains(got, "At sex low (its lowest code, 1), with smoker 0,") {
		t.Errorf("only a coding without 0: %q", got)
	}
}

// etaWith is η of interceptDraws' chains at age 54, glucose 150 and sex s.
func etaWith(chains [][][]float64, s float64) []float64 {
	var eta []float64
	for _, ch := range chains {
		for _, x := range ch {
			eta = append(eta, x[0]+54*x[1]+150*x[2]+s*x[4])
		}
	}
	return eta
}

// A probability near 1 keeps two significant digits of its distance from 1
// (a review found "1 (95% interval 1–1)" for 0.99994 (0.99959–0.999995)).
func TestProbabilityNearOne(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{{0.99994, "0.99994"}, {0.99959, "0.99959"}, {0.999995, "0.999995"}, {1 - 1.6e-9, "1 − 1.6e-09"}, {0.9999999999999956, "1 − 4.4e-15"}, {0.996, "0.996"}, {0.9951, "0.9951"},
		{0.995, "0.995"}, {0.589, "0.589"}, {0.00037, "0.00037"}, {1, "1"}, {1 - 1e-17, "1"}, {math.NaN(), "NA"}} {
		if got := Probability(c.p); got != c.want {
			t.Errorf("Probability(%v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// The ε spent never reads above the budget it is within, and stays
// rounded up (a review found "ε spent 2.35 of 2.346" for a typed 2.34567).
func TestBudgetSpentWithinTypedBudget(t *testing.T) {
	for _, c := range []struct {
		spent, budget float64
		want          string
	}{
		{2.34566974, 2.34567, "ε spent 2.34567 of 2.34567 (δ = 1e-05)"},
		{0.98765399, 0.987654, "ε spent 0.987654 of 0.987654 (δ = 1e-05)"},
		{2.9999999994, 3, "ε spent 3 of 3 (δ = 1e-05)"},
		{2.956, 3, "ε spent 2.96 of 3 (δ = 1e-05)"},
		{1.5, 3, "ε spent 1.5 of 3 (δ = 1e-05)"},
	} {
		if got := Budget(c.spent, c.budget, 1e-5); got != c.want {
			t.Errorf("Budget(%v, %v) = %q, want %q", c.spent, c.budget, got, c.want)
		}
		if x, _ := strconv.ParseFloat(Up(c.spent, SpentDigits(c.spent, c.budget)), 64); x < c.spent || x > c.budget {
			t.Errorf("%v of %v spelled %v", c.spent, c.budget, x)
		}
	}
}
