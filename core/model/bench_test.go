package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

// benchModel builds a model over n rows: d predictors in [−1, 1] (regression
// models, plus an outcome) or d data columns (gaussian, banana, gmm).
func benchModel(b testing.TB, name string, n, d int) Model {
	r := rand.New(rand.NewPCG(1, 2))
	cols := d
	if name == "logistic" || name == "poisson" || name == "linear" {
		cols++
	}
	tab := &dataset.Table{Rows: n, Data: make([]float64, n*cols)}
	for j := 0; j < cols; j++ {
		tab.Names = append(tab.Names, fmt.Sprintf("x%d", j+1))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < cols; j++ {
			tab.Data[i*cols+j] = 2*r.Float64() - 1
		}
		switch name {
		case "logistic":
			tab.Data[i*cols+cols-1] = float64(r.IntN(2))
		case "poisson":
			tab.Data[i*cols+cols-1] = float64(r.IntN(5))
		}
	}
	spec := Spec{Model: name}
	if cols > d {
		spec.Outcome = tab.Names[cols-1]
	}
	if name == "gmm" {
		spec.Predictors = []string{"x1"}
	}
	m, err := Build(spec, tab)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkFullPass(b *testing.B) {
	const n = 100_000
	for _, c := range []struct {
		name string
		d    int
	}{{"logistic", 10}, {"linear", 10}, {"poisson", 10}, {"gaussian", 10}, {"gmm", 1}, {"banana", 2}} {
		m := benchModel(b, c.name, n, c.d)
		theta := make([]float64, m.Dim())
		for k := range theta {
			theta[k] = 0.1 * float64(k%3-1)
		}
		out := make([]float64, n)
		grad := make([]float64, m.Dim())
		b.Run(fmt.Sprintf("%s/d=%d/LogLik", c.name, m.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.LogLik(theta, nil, out)
			}
		})
		b.Run(fmt.Sprintf("%s/d=%d/GradLogLik", c.name, m.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.GradLogLik(theta, nil, grad)
			}
		})
	}
}

func BenchmarkMinibatch(b *testing.B) {
	const n, batch = 100_000, 1000
	m := benchModel(b, "logistic", n, 10)
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([]int, batch)
	for k := range rows {
		rows[k] = r.IntN(n)
	}
	theta := make([]float64, m.Dim())
	thetaNew := make([]float64, m.Dim())
	thetaNew[0] = 0.01
	cur, out := make([]float64, batch), make([]float64, batch)
	b.ReportAllocs()
	for b.Loop() {
		LogLikRatio(m, thetaNew, theta, rows, cur, out)
	}
}
