package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

func TestNum(t *testing.T) {
	for _, c := range []struct {
		v    float64
		f    byte
		p    int
		want string
	}{
		{math.NaN(), 'g', 4, "NA"}, {math.Inf(1), 'g', 4, "Inf"}, {math.Inf(-1), 'f', 0, "-Inf"},
		{-0.123456, 'g', 4, "-0.1235"}, {465.136, 'f', 0, "465"}, {1.00780272, 'f', 4, "1.0078"},
		{1e-5, 'g', -1, "1e-05"},
	} {
		if got := Num(c.v, c.f, c.p); got != c.want {
			t.Errorf("Num(%v, %c, %d) = %q, want %q", c.v, c.f, c.p, got, c.want)
		}
	}
}

func TestUpNeverUnderstates(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{1.9999, "2"}, {1.2341, "1.24"}, {1.23, "1.23"}, {0.0012301, "0.00124"}, {2, "2"}, {123456, "1.24e+05"}, {0, "0"}} {
		if got := Up(c.v, 3); got != c.want {
			t.Errorf("Up(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	for v := 0.001; v < 100; v *= 1.0137 {
		s := Up(v, 3)
		var x float64
		if _, err := fmtSscan(s, &x); err != nil || x < v {
			t.Fatalf("Up(%v) = %q < v", v, s)
		}
	}
	if got := Budget(1.2341, 2, 1e-5); got != "ε spent 1.24 of 2 (δ = 1e-05)" {
		t.Errorf("Budget: %q", got)
	}
}

func rows() []diag.ParamSummary {
	return []diag.ParamSummary{
		{Name: "intercept", Mean: -1.01234, SD: 0.0567, Median: -1.01, Q2_5: -1.12, Q5: -1.1, Q95: -0.92, Q97_5: -0.9, Rhat: 1.0012, ESSBulk: 812.4, ESSTail: 699.6, MCSEMean: 0.00213},
		{Name: "age10", Mean: 0.5, SD: 0.05, Median: 0.5, Q2_5: 0.4, Q5: 0.42, Q95: 0.58, Q97_5: 0.6, Rhat: 1.0213, ESSBulk: 90, ESSTail: math.NaN(), MCSEMean: 0.004},
	}
}

func TestSummaryTable(t *testing.T) {
	tab := Summary(rows(), "logistic", map[string]float64{"age10": 0.1})
	if tab.RatioName != "odds ratio" || len(tab.Columns) != 11 || tab.Columns[9].Key != "step" ||
		tab.Columns[10].Key != "odds_ratio_per_step" || tab.Columns[10].Label != "odds ratio per step (95% interval)" {
		t.Fatalf("columns %+v", tab.Columns)
	}
	want := [][]string{
		{"intercept", "-1.012", "0.0567", "-1.12", "-0.9", "1.0012", "812", "700", "0.0021", "", ""},
		// exp(0.1·0.5) = 1.051, exp(0.04) = 1.041, exp(0.06) = 1.062.
		{"age10", "0.5", "0.05", "0.4", "0.6", "1.0213", "90", "NA", "0.004", "0.1", "1.05 (1.04–1.06)"},
	}
	for i := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, tab.Rows[i], want[i])
		}
	}
	// Without a bound, per 1: exp(median) (exp(2.5%)–exp(97.5%)).
	if got := Summary(rows(), "poisson", nil).Rows[1][9:]; strings.Join(got, "|") != "1|1.65 (1.49–1.82)" {
		t.Errorf("per 1: %q", got)
	}
	// Linear regression: the change of the outcome per step, step × the
	// coefficient's median and 2.5%–97.5% quantiles (no exp); the
	// coefficient columns stay per unit.
	lin := Summary(rows(), "linear", map[string]float64{"age10": 10})
	if len(lin.Columns) != 11 || lin.RatioName != "" || !lin.PerStep || lin.Columns[9].Key != "step" ||
		lin.Columns[10] != (Column{"change_per_step", "change per step (95% interval)"}) || lin.Rows[1][1] != "0.5" {
		t.Errorf("linear: %+v", lin)
	}
	if got := strings.Join(lin.Rows[1][9:], "|"); got != "10|5 (4 to 6)" {
		t.Errorf("linear per 10: %q", got)
	}
	if got := strings.Join(lin.Rows[0][9:], "|"); got != "|" {
		t.Errorf("linear intercept's per-step cells: %q", got)
	}
	if got := Summary(rows(), "gaussian", nil); got.PerStep || len(got.Columns) != 9 {
		t.Errorf("gaussian: %+v", got)
	}
	if !RhatOK(rows()[0]) || RhatOK(rows()[1]) || RhatOK(diag.ParamSummary{Rhat: math.NaN()}) {
		t.Error("RhatOK")
	}
}

func TestSentences(t *testing.T) {
	if got := Heading(1, 500, 0); got != "1 chain × 500 draws after warmup" {
		t.Error(got)
	}
	if got := HeadingNoWarmup(4, 1000); got != "4 chains × 1000 draws (no warmup)" {
		t.Errorf("HeadingNoWarmup: %q", got)
	}
	if got := Heading(2, 1000, 10); got != "2 chains × 1000 draws after warmup (10 saved warmup draws per chain skipped)" {
		t.Error(got)
	}
	if got := Verdict(diag.Verdict{Message: "not converged: x."}, false, ""); got != "Not converged: x." {
		t.Error(got)
	}
	// A private run is not told to run longer chains: at the same ε that
	// spreads the budget thinner.
	nc := diag.Assess([]diag.ParamSummary{{Name: "a", Rhat: 3, ESSBulk: 4, ESSTail: 4}}, 4)
	if got := Verdict(nc, false, ""); !strings.Contains(got, diag.LongerChainsAdvice) {
		t.Errorf("non-private: %q", got)
	}
	if got := Verdict(nc, true, "dp-hmc"); strings.Contains(got, "Run longer chains") || !strings.Contains(got, PrivateNotConvergedAdvice) || !strings.HasPrefix(got, "Not converged: R-hat") {
		t.Errorf("private: %q", got)
	}
	// A private run with a chain that never moved gets the private advice
	// too, not the non-private remedies.
	if got := Verdict(nc.WithStuck([]int{1}), true, "dp-hmc"); strings.Contains(got, diag.StuckAdvice) || !strings.Contains(got, PrivateNotConvergedAdvice) || !strings.HasPrefix(got, "Not converged: chain 1 never moved") {
		t.Errorf("private, stuck: %q", got)
	}
	// noise-aware is not told to use noise-aware: its draws are free after
	// its release, but a new run is a new release.
	if got := Verdict(nc, true, "noise-aware"); strings.Contains(got, "use noise-aware") || !strings.Contains(got, NoiseAwareNotConvergedAdvice) {
		t.Errorf("noise-aware: %q", got)
	}
	if got := Local(0, Chain{Iterations: 1000, Accepted: 312, Clipped: 5, Rows: 2000, Divergent: 2, Seconds: 1.234}); got != "chain 1: acceptance 0.312 over 1000 iterations, 0.25% of row terms clipped, 2 divergent, in 1.23 s" {
		t.Error(got)
	}
	if got := Local(1, Chain{Iterations: 3000, Accepted: 2700, Divergent: 3, DivergentWarmup: 21}); got != "chain 2: acceptance 0.900 over 3000 iterations, 3 divergent after warmup, 21 divergent during warmup (while the step adapts)" {
		t.Errorf("Local = %q", got)
	}
	if got := Local(1, Chain{Iterations: 3000, Accepted: 2700, DivergentWarmup: 21}); got != "chain 2: acceptance 0.900 over 3000 iterations, 21 divergent during warmup (while the step adapts)" {
		t.Errorf("Local = %q", got)
	}
	if got := Local(2, Chain{Iterations: 1000, Accepted: 1000, IndependentDraws: true, Seconds: 0.5}); got != "chain 3: 1000 independent draws (no accept step), in 0.5 s" {
		t.Errorf("independent draws: %q", got)
	}
	if got := Local(1, Chain{}); got != "chain 2: acceptance 0.000 over 0 iterations" {
		t.Error(got)
	}
}

func TestForest(t *testing.T) {
	f := NewForest(rows(), "logistic", nil)
	if !f.Log || f.Ref != 1 || !f.HasRef || len(f.Rows) != 1 || f.Rows[0].Name != "age10" {
		t.Fatalf("%+v", f)
	}
	r := f.Rows[0]
	if math.Abs(r.Lo-math.Exp(0.42)) > 1e-12 || math.Abs(r.Hi-math.Exp(0.58)) > 1e-12 || r.Label != "1.65 (1.52–1.79) per 1" || !r.Defined || r.CoversRef {
		t.Errorf("row %+v", r)
	}
	if r := NewForest(rows(), "logistic", map[string]float64{"age10": 10}).Rows[0]; r.Step != 10 ||
		math.Abs(r.Mid-math.Exp(5)) > 1e-9*math.Exp(5) || math.Abs(r.Lo-math.Exp(4.2)) > 1e-9*math.Exp(4.2) || r.Label != "148 (66.7–330) per 10" {
		t.Errorf("per 10: %+v", r)
	}
	if f.Min > 1 || f.Max < r.Hi || f.Pos(f.Min) != 0 || math.Abs(f.Pos(f.Max)-1) > 1e-12 {
		t.Errorf("axis %v..%v", f.Min, f.Max)
	}
	for _, x := range f.Ticks {
		if x < f.Min*(1-1e-9) || x > f.Max*(1+1e-9) {
			t.Errorf("tick %v outside %v..%v", x, f.Min, f.Max)
		}
	}
	if len(f.Ticks) < 2 {
		t.Errorf("ticks %v", f.Ticks)
	}
	lin := NewForest(rows(), "linear", map[string]float64{"age10": 10})
	if lin.Log || !lin.PerStep || lin.Ref != 0 || lin.Rows[0].Mid != 5 || lin.Rows[0].Step != 10 ||
		math.Abs(lin.Rows[0].Hi-5.8) > 1e-12 || lin.Rows[0].Label != "5 (4.2 to 5.8) per 10" || lin.Min > 0 || lin.Max < 5.8 {
		t.Errorf("linear %+v", lin)
	}
	g := NewForest(rows(), "gaussian", nil)
	if g.HasRef || len(g.Rows) != 2 {
		t.Errorf("gaussian %+v", g)
	}
	nan := NewForest([]diag.ParamSummary{{Name: "b", Median: math.NaN(), Q5: math.NaN(), Q95: math.NaN()}}, "poisson", nil)
	if nan.Rows[0].Defined || nan.Rows[0].Label != "NA (NA–NA) per 1" || !(nan.Min > 0) {
		t.Errorf("undefined %+v", nan)
	}
}

func fmtSscan(s string, x *float64) (int, error) { return fmt.Sscan(s, x) }

// A log axis over hundreds of decades (weakly informed odds ratios in large
// units: the noise-aware breast-cancer run on the page, 1e-102 to 1e+110)
// gets a handful of ticks, not one per decade; short ranges keep theirs.
func TestLogAxisTickCount(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{7.7e-102, 7.4e110}, {1e-6, 1e6}, {1e-3, 1e4}, {0.5, 2}, {1, 30}, {2e-7, 3e-2}} {
		lo, hi, ticks := axis(c.lo, c.hi, true)
		if len(ticks) < 2 || len(ticks) > 8 {
			t.Errorf("%v..%v: %d ticks %v", c.lo, c.hi, len(ticks), ticks)
		}
		for _, x := range ticks {
			if x < lo*(1-1e-9) || x > hi*(1+1e-9) {
				t.Errorf("%v..%v: tick %v outside %v..%v", c.lo, c.hi, x, lo, hi)
			}
		}
	}
}
