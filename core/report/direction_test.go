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

// A converged private regression that determines no direction says in its
// verdict that the intervals are too wide to act on; a non-private run, an unconverged
// one, a non-regression or one determined direction does not.
func TestLittleLearned(t *testing.T) {
	wide := []diag.ParamSummary{{Name: "intercept", Q2_5: 1, Q97_5: 3}, {Name: "a", Q2_5: -3, Q97_5: 2}, {Name: "b", Q2_5: -1, Q97_5: 1}}
	if s := LittleLearned(wide, "logistic", true, true); !strings.Contains(s, "too wide to act on") || !strings.Contains(s, "no predictor's direction is determined") {
		t.Errorf("private, converged, nothing determined: %q", s)
	}
	one := append([]diag.ParamSummary(nil), wide...)
	one[2] = diag.ParamSummary{Name: "b", Q2_5: 0.1, Q97_5: 1}
	for _, c := range []struct {
		rows               []diag.ParamSummary
		model              string
		private, converged bool
	}{{wide, "logistic", false, true}, {wide, "logistic", true, false}, {wide, "banana", true, true}, {one, "poisson", true, true}, {wide[:1], "linear", true, true}} {
		if s := LittleLearned(c.rows, c.model, c.private, c.converged); s != "" {
			t.Errorf("%s private %v converged %v: %q", c.model, c.private, c.converged, s)
		}
	}
}

// Ratio intervals never spell a value other than 1 as "1": whether the
// interval includes no effect stays readable.
func TestIntervalKeepsOneReadable(t *testing.T) {
	for _, c := range []struct {
		mid, lo, hi float64
		want        string
	}{
		{0.99, 0.979, 1.0016, "0.99 (0.979–1.002)"},
		{1, 0.99951, 1.2, "1 (0.9995–1.2)"},
		{1.0004, 1.0001, 1.00049, "1.0004 (1.0001–1.0005)"},
		{1.43, 1.33, 1.52, "1.43 (1.33–1.52)"},
		{1 + 1e-12, 1, 2, "1 (1–2)"},
	} {
		if got := Interval(c.mid, c.lo, c.hi); got != c.want {
			t.Errorf("Interval(%v, %v, %v) = %q, want %q", c.mid, c.lo, c.hi, got, c.want)
		}
	}
}
