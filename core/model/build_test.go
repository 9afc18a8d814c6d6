package model

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

func smallTable() *dataset.Table {
	return &dataset.Table{
		Names: []string{"age", "dose", "y"},
		Rows:  3,
		Data: []float64{
			40, 1.5, 1,
			55, 0.0, 0,
			61, 2.5, 1,
		},
	}
}

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
		tab  func() *dataset.Table
		is   error
		has  []string
	}{
		{"unknown model", Spec{Model: "probit", Outcome: "y"}, smallTable, ErrUnknownModel, []string{`"probit"`, "logistic", "banana"}},
		{"unknown option", Spec{Model: "logistic", Outcome: "y", Options: map[string]string{"noise-sd": "2"}}, smallTable, ErrUnknownOption, []string{`"noise-sd"`, "prior-sd", "temper"}},
		{"bad option value", Spec{Model: "linear", Outcome: "y", Options: map[string]string{"noise-sd": "abc"}}, smallTable, ErrBadOption, []string{"noise-sd", `"abc"`}},
		{"negative sd", Spec{Model: "linear", Outcome: "y", Options: map[string]string{"noise-sd": "-1"}}, smallTable, ErrBadOption, []string{"noise-sd"}},
		{"banana curvature overflows", Spec{Model: "banana", Options: map[string]string{"a": "1e308"}}, smallTable, ErrBadOption, []string{"a=1e+308", "between -1e100 and 1e100"}},
		{"temper > 1", Spec{Model: "logistic", Outcome: "y", Temper: 1.5}, smallTable, ErrBadOption, []string{"temper"}},
		{"temper option 0", Spec{Model: "gmm", Predictors: []string{"dose"}, Options: map[string]string{"temper": "0"}}, smallTable, ErrBadOption, []string{"temper"}},
		{"temper conflict", Spec{Model: "logistic", Outcome: "y", Temper: 0.5, Options: map[string]string{"temper": "0.4"}}, smallTable, ErrBadOption, []string{"conflicts"}},
		{"missing outcome", Spec{Model: "logistic", Outcome: "died"}, smallTable, ErrColumn, []string{`"died"`, "age, dose, y"}},
		{"no outcome", Spec{Model: "poisson"}, smallTable, ErrColumn, []string{"outcome", "age, dose, y"}},
		{"missing predictor", Spec{Model: "logistic", Outcome: "y", Predictors: []string{"age", "bmi"}}, smallTable, ErrColumn, []string{`"bmi"`, "age, dose, y"}},
		{"outcome as predictor", Spec{Model: "logistic", Outcome: "y", Predictors: []string{"y"}}, smallTable, ErrColumn, []string{"also a predictor"}},
		{"duplicate predictor", Spec{Model: "linear", Outcome: "y", Predictors: []string{"age", "age"}}, smallTable, ErrColumn, []string{"twice"}},
		{"gmm default column", Spec{Model: "gmm"}, smallTable, ErrColumn, []string{`"x"`, "age, dose, y"}},
		{"banana one column", Spec{Model: "banana", Predictors: []string{"age"}}, smallTable, ErrColumn, []string{"two"}},
		{"outcome on synthetic", Spec{Model: "gaussian", Outcome: "y"}, smallTable, ErrColumn, []string{"no outcome"}},
		{"prior_sd on gmm", Spec{Model: "gmm", Predictors: []string{"age"}, PriorSD: 3}, smallTable, ErrBadOption, []string{"prior_sd", "prior-var1"}},
		{"cov on logistic", Spec{Model: "logistic", Outcome: "y", Cov: [][]float64{{1}}}, smallTable, ErrBadOption, []string{"cov"}},
		{"cov file unread", Spec{Model: "gaussian", Options: map[string]string{"cov": "S.csv"}}, smallTable, ErrBadOption, []string{"S.csv", "Spec.Cov"}},
		{"cov wrong size", Spec{Model: "gaussian", Predictors: []string{"age", "dose"}, Cov: [][]float64{{1}}}, smallTable, ErrBadOption, []string{"cov"}},
		{"cov not symmetric", Spec{Model: "gaussian", Predictors: []string{"age", "dose"}, Cov: [][]float64{{1, 0.5}, {0.4, 1}}}, smallTable, ErrBadOption, []string{"symmetric"}},
		{"cov not PD", Spec{Model: "gaussian", Predictors: []string{"age", "dose"}, Cov: [][]float64{{1, 2}, {2, 1}}}, smallTable, ErrBadOption, []string{"positive definite"}},
		{"logistic outcome", Spec{Model: "logistic", Outcome: "dose"}, smallTable, ErrData, []string{`row 1, column 2 ("dose")`, "0 or 1"}},
		{"poisson outcome", Spec{Model: "poisson", Outcome: "dose"}, smallTable, ErrData, []string{`row 1, column 2 ("dose")`, "non-negative integer"}},
		{"poisson negative", Spec{Model: "poisson", Outcome: "age"}, func() *dataset.Table {
			tb := smallTable()
			tb.Data[6] = -3
			return tb
		}, ErrData, []string{`row 3, column 1 ("age")`}},
		{"nan predictor", Spec{Model: "linear", Outcome: "y"}, func() *dataset.Table {
			tb := smallTable()
			tb.Data[4] = math.NaN()
			return tb
		}, ErrData, []string{`row 2, column 2 ("dose")`, "finite"}},
		{"outside bound", Spec{Model: "linear", Outcome: "y"}, func() *dataset.Table {
			tb := smallTable()
			tb.Bounds = []*dataset.Bound{{Lo: 18, Hi: 60}, nil, nil}
			return tb
		}, ErrData, []string{`row 3, column 1 ("age")`, "[18, 60]"}},
		{"var-rest 2d", Spec{Model: "banana", Predictors: []string{"age", "dose"}, Options: map[string]string{"var-rest": "2"}}, smallTable, ErrBadOption, []string{"var-rest"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := c.tab()
			_, err := Build(c.spec, tab)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, c.is) {
				t.Errorf("error %q is not %v", err, c.is)
			}
			for _, s := range c.has {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			// Data values never appear in errors.
			if strings.Contains(err.Error(), "61") || strings.Contains(err.Error(), "2.5") {
				t.Errorf("error %q leaks a data value", err)
			}
		})
	}
	if _, err := Build(Spec{Model: "logistic"}, nil); err == nil {
		t.Error("nil table: no error")
	}
}

func TestBuildDefaults(t *testing.T) {
	tab := smallTable()
	m, err := Build(Spec{Model: " Logistic ", Outcome: "y"}, tab)
	if err != nil {
		t.Fatal(err)
	}
	lg := m.(*Logistic)
	if lg.PriorSD() != 10 || lg.Temper() != 1 || m.Dim() != 3 {
		t.Fatalf("defaults: prior sd %g temper %g dim %d", lg.PriorSD(), lg.Temper(), m.Dim())
	}
	// The model copies the table: mutating it afterwards changes nothing.
	out1 := make([]float64, 3)
	m.LogLik([]float64{0.1, 0.01, -0.2}, nil, out1)
	tab.Data[0] = 1000
	out2 := make([]float64, 3)
	m.LogLik([]float64{0.1, 0.01, -0.2}, nil, out2)
	if out1[0] != out2[0] {
		t.Fatal("model shares memory with the table")
	}

	m, err = Build(Spec{Model: "linear", Outcome: "y", PriorSD: 2}, smallTable())
	if err != nil {
		t.Fatal(err)
	}
	if l := m.(*Linear); l.NoiseSD() != 1 || l.PriorSD() != 2 {
		t.Fatalf("linear: noise sd %g prior sd %g", l.NoiseSD(), l.PriorSD())
	}
	m, err = Build(Spec{Model: "gaussian"}, smallTable())
	if err != nil {
		t.Fatal(err)
	}
	if g := m.(*GaussianMean); g.PriorSD() != 100 || m.Dim() != 3 || g.Cov()[1][1] != 1 || g.Cov()[0][1] != 0 {
		t.Fatalf("gaussian: prior sd %g dim %d cov %v", g.PriorSD(), m.Dim(), g.Cov())
	}
	bt := &dataset.Table{Names: []string{"x2", "x1"}, Rows: 1, Data: []float64{3, 0}}
	m, err = Build(Spec{Model: "banana", Options: map[string]string{"temper": "0.5"}}, bt)
	if err != nil {
		t.Fatal(err)
	}
	if b := m.(*Banana); b.a != 20 || b.pv != 1000 || b.v[0] != 2000 || b.v[1] != 2500 || b.x[0] != 0 || b.x[1] != 3 || b.Temper() != 0.5 {
		t.Fatalf("banana defaults: %+v", b)
	}
	gt := &dataset.Table{Names: []string{"id", "x"}, Rows: 1, Data: []float64{7, 0.5}}
	m, err = Build(Spec{Model: "gmm"}, gt)
	if err != nil {
		t.Fatal(err)
	}
	if g := m.(*GMM); g.varX != 2 || g.pv1 != 10 || g.pv2 != 1 || g.x[0] != 0.5 {
		t.Fatalf("gmm defaults: %+v", g)
	}
}

func TestSpecJSON(t *testing.T) {
	s := Spec{Model: "gaussian", Predictors: []string{"a"}, NoIntercept: false, PriorSD: 5,
		Options: map[string]string{"temper": "0.5"}, Temper: 0.5, Cov: [][]float64{{2}}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gaussian","predictors":["a"],"prior_sd":5,"options":{"temper":"0.5"},"temper":0.5,"cov":[[2]]}`
	if string(b) != want {
		t.Fatalf("json %s, want %s", b, want)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("round trip %+v, %v", back, err)
	}
}

func TestModelsCatalog(t *testing.T) {
	names := map[string]bool{}
	for _, m := range Models() {
		names[m.Name] = true
		for _, o := range m.Options {
			if o.Key == "temper" && o.Default != "1" {
				t.Errorf("%s temper default %s", m.Name, o.Default)
			}
		}
	}
	for _, n := range []string{"logistic", "linear", "poisson", "gaussian", "gmm", "banana"} {
		if !names[n] {
			t.Errorf("model %s missing from catalog", n)
		}
	}
	Models()[0].Options[0].Key = "mutated"
	if Models()[0].Options[0].Key == "mutated" {
		t.Error("Models exposes the catalog")
	}
}

func TestZeroRows(t *testing.T) {
	for _, f := range fixtures() {
		tab := f.gen(nil, 0)
		m, err := Build(f.spec, tab)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		theta := make([]float64, m.Dim())
		grad := make([]float64, m.Dim())
		m.LogLik(theta, nil, nil)
		m.GradLogLik(theta, nil, grad)
		for _, g := range grad {
			if g != 0 {
				t.Fatalf("%s: gradient %v with no rows", f.name, grad)
			}
		}
		if lp := LogPosterior(m, theta, nil); math.IsNaN(lp) || lp != m.LogPrior(theta) {
			t.Fatalf("%s: log posterior %g, prior %g", f.name, lp, m.LogPrior(theta))
		}
		_ = m.RowBounds(f.box)
	}
}
