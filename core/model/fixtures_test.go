package model

import (
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

// fixture is a model spec with a generator of tables whose rows lie inside
// the public column bounds, and a parameter box for the bound tests.
type fixture struct {
	name string
	spec Spec
	gen  func(r *rand.Rand, n int) *dataset.Table
	box  []Interval
}

// col describes one generated column: uniform in [lo, hi] (integer when
// integer is set), with endpoints hit with positive probability so that
// the bound tests probe the corners.
type col struct {
	name    string
	lo, hi  float64
	integer bool
	binary  bool
}

func genTable(cols []col) func(r *rand.Rand, n int) *dataset.Table {
	return func(r *rand.Rand, n int) *dataset.Table {
		t := &dataset.Table{Rows: n}
		for _, c := range cols {
			t.Names = append(t.Names, c.name)
			t.Bounds = append(t.Bounds, &dataset.Bound{Lo: c.lo, Hi: c.hi})
		}
		t.Data = make([]float64, n*len(cols))
		for i := 0; i < n; i++ {
			for j, c := range cols {
				var v float64
				switch u := r.Float64(); {
				case c.binary:
					v = float64(r.IntN(2))
				case u < 0.15:
					v = c.lo
				case u < 0.3:
					v = c.hi
				default:
					v = c.lo + (c.hi-c.lo)*r.Float64()
				}
				if c.integer {
					v = math.Round(v)
				}
				t.Data[i*len(cols)+j] = v
			}
		}
		return t
	}
}

func ivs(c ...float64) []Interval {
	out := make([]Interval, len(c)/2)
	for k := range out {
		out[k] = Interval{c[2*k], c[2*k+1]}
	}
	return out
}

// testCov is a fixed symmetric positive definite 3 × 3 covariance.
var testCov = [][]float64{
	{2.0, 0.6, -0.3},
	{0.6, 1.0, 0.2},
	{-0.3, 0.2, 0.5},
}

func fixtures() []fixture {
	return []fixture{
		{
			name: "logistic",
			spec: Spec{Model: "logistic", Outcome: "y"},
			gen: genTable([]col{{name: "a", lo: -2, hi: 3}, {name: "y", binary: true, lo: 0, hi: 1},
				{name: "b", lo: 0, hi: 1}, {name: "c", lo: -1, hi: 1}}),
			box: ivs(-1, 1, -0.5, 2, -3, 0, 0.5, 1),
		},
		{
			name: "logistic-tempered-nointercept",
			spec: Spec{Model: "logistic", Outcome: "y", Predictors: []string{"c", "a"}, NoIntercept: true, Temper: 0.3, PriorSD: 2},
			gen: genTable([]col{{name: "a", lo: -2, hi: 3}, {name: "y", binary: true, lo: 0, hi: 1},
				{name: "b", lo: 0, hi: 1}, {name: "c", lo: -1, hi: 1}}),
			box: ivs(-2, 2, -1, 1),
		},
		{
			name: "linear",
			spec: Spec{Model: "linear", Outcome: "y", Options: map[string]string{"noise-sd": "0.7", "temper": "0.5"}},
			gen:  genTable([]col{{name: "a", lo: -1, hi: 2}, {name: "b", lo: -3, hi: 3}, {name: "y", lo: -5, hi: 5}}),
			box:  ivs(-1, 1, -2, 2, 0, 0.5),
		},
		{
			name: "poisson",
			spec: Spec{Model: "poisson", Outcome: "y"},
			gen:  genTable([]col{{name: "a", lo: -1, hi: 1}, {name: "b", lo: 0, hi: 2}, {name: "y", lo: 0, hi: 12, integer: true}}),
			box:  ivs(-1, 1.5, -0.5, 0.5, -1, 0.2),
		},
		{
			name: "gaussian",
			spec: Spec{Model: "gaussian", Cov: testCov, Options: map[string]string{"prior-sd": "3"}},
			gen:  genTable([]col{{name: "u", lo: -3, hi: 3}, {name: "v", lo: -1, hi: 2}, {name: "w", lo: 0, hi: 1}}),
			box:  ivs(-1, 1, 0, 1, -2, 2),
		},
		{
			name: "gaussian-identity-2of3",
			spec: Spec{Model: "gaussian", Predictors: []string{"w", "u"}, Temper: 0.8},
			gen:  genTable([]col{{name: "u", lo: -3, hi: 3}, {name: "v", lo: -1, hi: 2}, {name: "w", lo: 0, hi: 1}}),
			box:  ivs(-1, 1, -2, 2),
		},
		{
			name: "gmm",
			spec: Spec{Model: "gmm"},
			gen:  genTable([]col{{name: "x", lo: -3, hi: 3}}),
			box:  ivs(-2, 2, -3, 3),
		},
		{
			name: "gmm-tempered",
			spec: Spec{Model: "gmm", Options: map[string]string{"var-x": "0.5", "temper": "0.01"}},
			gen:  genTable([]col{{name: "z", lo: -1, hi: 3}, {name: "x", lo: -3, hi: 3}}),
			box:  ivs(-1, 1, 0, 2),
		},
		{
			name: "banana",
			spec: Spec{Model: "banana"},
			gen:  genTable([]col{{name: "x1", lo: -150, hi: 150}, {name: "x2", lo: -150, hi: 160}}),
			box:  ivs(-1, 1, -5, 8),
		},
		{
			name: "banana-sharp-3d",
			spec: Spec{Model: "banana", Predictors: []string{"x1", "x2", "x3"},
				Options: map[string]string{"a": "-2", "var1": "1", "var2": "0.5", "var-rest": "2", "prior-var": "4"}},
			gen: genTable([]col{{name: "x3", lo: -2, hi: 1}, {name: "x1", lo: -3, hi: 3}, {name: "x2", lo: -4, hi: 5}}),
			box: ivs(-1.5, 1, -1, 2, -1, 1),
		},
	}
}
