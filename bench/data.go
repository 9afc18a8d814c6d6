package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// syntheticLogistic is the benchmark's logistic regression: n rows, d
// standard-normal predictors, true coefficients N(0, 1/d) and intercept
// −0.5, y ~ Bernoulli(σ(η)). The model has d+1 parameters (intercept).
func syntheticLogistic(n, d int, seed uint64) (*dataset.Table, model.Spec) {
	r := rand.New(rand.NewPCG(seed, 7))
	beta := make([]float64, d)
	for j := range beta {
		beta[j] = r.NormFloat64() / math.Sqrt(float64(d))
	}
	cols := d + 1
	t := &dataset.Table{Rows: n, Data: make([]float64, n*cols)}
	for j := 0; j < d; j++ {
		t.Names = append(t.Names, fmt.Sprintf("x%d", j+1))
	}
	t.Names = append(t.Names, "y")
	for i := 0; i < n; i++ {
		row := t.Data[i*cols : (i+1)*cols]
		eta := -0.5
		for j := 0; j < d; j++ {
			row[j] = r.NormFloat64()
			eta += row[j] * beta[j]
		}
		if r.Float64() < 1/(1+math.Exp(-eta)) {
			row[d] = 1
		}
	}
	return t, model.Spec{Model: "logistic", Outcome: "y"}
}

// syntheticGMM is the Welling–Teh mixture data: x ~ ½N(0, 2) + ½N(1, 2)
// (θ = (0, 1)), n rows.
func syntheticGMM(n int, seed uint64) (*dataset.Table, model.Spec) {
	r := rand.New(rand.NewPCG(seed, 9))
	t := &dataset.Table{Rows: n, Names: []string{"x"}, Data: make([]float64, n)}
	for i := range t.Data {
		mu := 0.0
		if r.IntN(2) == 1 {
			mu = 1
		}
		t.Data[i] = mu + math.Sqrt2*r.NormFloat64()
	}
	return t, model.Spec{Model: "gmm", Predictors: []string{"x"}}
}
