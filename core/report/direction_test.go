package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

func TestDirections(t *testing.T) {
	rows := []diag.ParamSummary{
		{Name: "intercept", Q2_5: 1, Q97_5: 2}, // never a slope
		{Name: "glucose", Q2_5: 0.01, Q97_5: 0.05},
		{Name: "insulin", Q2_5: -0.004, Q97_5: -0.0006},
		{Name: "skin", Q2_5: -0.02, Q97_5: 0.01},
		{Name: "edge", Q2_5: 0, Q97_5: 0.3}, // touches no effect: open
		{Name: "nan", Q2_5: math.NaN(), Q97_5: 1},
	}
	up, down, open := Directions(rows)
	if strings.Join(up, ",") != "glucose" || strings.Join(down, ",") != "insulin" || strings.Join(open, ",") != "skin,edge" {
		t.Errorf("up %v, down %v, open %v", up, down, open)
	}
	note := DirectionNote(rows, "logistic", true, true)
	for _, want := range []string{"raises the odds: glucose", "lowers the odds: insulin", "not determined (the interval includes no effect): skin, edge"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if n := DirectionNote(rows, "poisson", false, true); !strings.Contains(n, "raises the rate: glucose") {
		t.Errorf("poisson note %q", n)
	}
	if n := DirectionNote(rows, "banana", true, true); n != "" {
		t.Errorf("non-regression note %q", n)
	}
	// Nothing determined: one sentence that says so, with the budget's
	// remedy only for a private run.
	wide := []diag.ParamSummary{{Name: "intercept", Q2_5: -50, Q97_5: 40}, {Name: "a", Q2_5: -3, Q97_5: 2}, {Name: "b", Q2_5: -1, Q97_5: 1}}
	if n := DirectionNote(wide, "logistic", true, true); !strings.Contains(n, "not determined for any predictor") || !strings.Contains(n, "ε") {
		t.Errorf("private, nothing determined: %q", n)
	}
	if n := DirectionNote(wide, "linear", false, true); !strings.Contains(n, "raises or lowers the outcome") || strings.Contains(n, "ε") {
		t.Errorf("non-private, nothing determined: %q", n)
	}
	if n := DirectionNote(wide[:1], "logistic", true, true); n != "" {
		t.Errorf("intercept only: %q", n)
	}
	// Chains that did not converge (stuck chains give narrow, confident
	// intervals around where they were): no direction is stated.
	if n := DirectionNote(rows, "logistic", true, false); strings.Contains(n, "raises") || strings.Contains(n, "glucose") || !strings.Contains(n, "did not converge") {
		t.Errorf("not converged: %q", n)
	}
	if n := DirectionNote(wide[:1], "logistic", true, false); n != "" {
		t.Errorf("intercept only, not converged: %q", n)
	}
}
