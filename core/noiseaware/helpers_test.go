package noiseaware

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// bc5 are the five bc5 features of the Wisconsin breast-cancer data in raw
// units, with public bounds typed from what each measures (docs/SAMPLERS.md,
// "Noise-aware sampler"), not from the data.
var bc5 = []string{"mean_radius", "mean_texture", "mean_smoothness", "mean_compactness", "mean_symmetry"}

var bc5Bounds = map[string]dataset.Bound{
	"mean_radius":      {Lo: 0, Hi: 30},
	"mean_texture":     {Lo: 0, Hi: 40},
	"mean_smoothness":  {Lo: 0, Hi: 0.2},
	"mean_compactness": {Lo: 0, Hi: 0.4},
	"mean_symmetry":    {Lo: 0, Hi: 0.4},
}

// loadBC loads the breast-cancer table clipped to the bc5 bounds.
func loadBC(t testing.TB) *dataset.Table {
	t.Helper()
	return loadBounded(t, "../../testdata/logistic/breast_cancer_wdbc.csv", dataset.Options{}, bc5Bounds)
}

// loadBounded loads the CSV at path with opts, clipped to bounds.
func loadBounded(t testing.TB, path string, opts dataset.Options, bounds map[string]dataset.Bound) *dataset.Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, _, err := dataset.Load(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.ApplyBounds(bounds); err != nil {
		t.Fatal(err)
	}
	return tab
}

// resample returns a table of n rows drawn with replacement (fixed seed).
func resample(tab *dataset.Table, n int, seed uint64) *dataset.Table {
	r := rand.New(rand.NewPCG(seed, 7))
	c := len(tab.Names)
	out := &dataset.Table{Names: tab.Names, Rows: n, Bounds: tab.Bounds, Data: make([]float64, 0, n*c)}
	for range n {
		i := r.IntN(tab.Rows)
		out.Data = append(out.Data, tab.Data[i*c:(i+1)*c]...)
	}
	return out
}

func col(tab *dataset.Table, name string) int {
	for j, n := range tab.Names {
		if n == name {
			return j
		}
	}
	panic(name)
}

// buildLogistic builds the bc5 logistic model on tab with outcome malignant.
func buildLogistic(t testing.TB, tab *dataset.Table) model.Model {
	t.Helper()
	return buildLogisticOf(t, tab, "malignant", bc5)
}

// buildLogisticOf builds the logistic model of outcome on predictors.
func buildLogisticOf(t testing.TB, tab *dataset.Table, outcome string, predictors []string) model.Model {
	t.Helper()
	m, err := model.Build(model.Spec{Model: "logistic", Outcome: outcome, Predictors: predictors}, tab)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// specFor is the public spec of a regression model at (ε, δ).
func specFor(t testing.TB, m model.Model, eps, delta float64) Spec {
	t.Helper()
	rd, _ := model.RegressionDataOf(m)
	mu, err := privacy.MuFor(eps, delta)
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Family: rd.Family, N: rd.N, D: rd.D, Intercept: rd.Intercept, XRanges: rd.XRanges, YRange: rd.YRange, NoiseSD: rd.NoiseSD, Mu: mu}
}

// laplace returns the non-private posterior mode and covariance (user
// units) of the logistic model with the N(0, s²) prior on the scaled
// coefficients of plan p: Newton iterations on the exact log posterior,
// then the inverse Hessian. For n in the hundreds and d = 6 it is the
// non-private posterior to within a few percent of an sd.
func laplace(m model.Model, p *Plan) (mean []float64, sd []float64) {
	rd, _ := model.RegressionDataOf(m)
	d := rd.D
	theta := make([]float64, d)
	var H []float64
	for range 50 {
		S, M := p.statistics(&rd, theta)
		H = append([]float64(nil), M...)
		g := make([]float64, d)
		for j := range d {
			H[j*d+j] += 1 / (p.PriorSD * p.PriorSD)
			g[j] = S[j] - theta[j]/(p.PriorSD*p.PriorSD)
		}
		step := make([]float64, d)
		if err := cholSolve(H, d, g, step); err != nil {
			panic(err)
		}
		for j := range d {
			theta[j] += step[j]
		}
	}
	// covariance of the scaled coefficients, then the user-unit sd by the
	// linear map ToUser (Jacobian applied to unit vectors).
	cov := make([]float64, d*d)
	for k := range d {
		e := make([]float64, d)
		e[k] = 1
		x := make([]float64, d)
		_ = cholSolve(H, d, e, x)
		copy(cov[k*d:], x)
	}
	J := make([]float64, d*d) // J[:, k] = ToUser(e_k) − ToUser(0)
	zero := make([]float64, d)
	p.ToUser(zero, rd.Intercept)
	for k := range d {
		e := make([]float64, d)
		e[k] = 1
		p.ToUser(e, rd.Intercept)
		for j := range d {
			J[j*d+k] = e[j] - zero[j]
		}
	}
	sd = make([]float64, d)
	for j := range d {
		s := 0.0
		for a := range d {
			for b := range d {
				s += J[j*d+a] * cov[a*d+b] * J[j*d+b]
			}
		}
		sd[j] = math.Sqrt(s)
	}
	mean = append([]float64(nil), theta...)
	p.ToUser(mean, rd.Intercept)
	return mean, sd
}

// bcTruth is the simulations' fixed truth: the non-private posterior mean
// (user units) of the 569 breast-cancer rows under the ε = 3 plan's prior,
// and that plan (for FromUser).
func bcTruth(t testing.TB) ([]float64, *Plan) {
	t.Helper()
	m := buildLogistic(t, loadBC(t))
	p, err := NewPlan(specFor(t, m, 3, 1e-5))
	if err != nil {
		t.Fatal(err)
	}
	truth, _ := laplace(m, p)
	return truth, p
}

// drawsUser returns k posterior draws (user units) as k × d.
func drawsUser(rel *Release, k int, r *rand.Rand, intercept bool) [][]float64 {
	q := NewPosterior(rel)
	out := make([][]float64, k)
	for i := range out {
		v := make([]float64, rel.D)
		q.DrawScaled(r, v)
		rel.Plan.ToUser(v, intercept)
		out[i] = v
	}
	return out
}

// quantile of column j of draws.
func quantiles(draws [][]float64, j int, ps ...float64) []float64 {
	v := make([]float64, len(draws))
	for i, row := range draws {
		v[i] = row[j]
	}
	sort.Float64s(v)
	out := make([]float64, len(ps))
	for k, p := range ps {
		out[k] = v[int(p*float64(len(v)-1)+0.5)]
	}
	return out
}

// simulateLogistic overwrites the outcome of tab with y ~ Bernoulli(σ(η))
// at the true coefficients theta (user units, intercept first).
func simulateLogistic(tab *dataset.Table, theta []float64, r *rand.Rand) {
	c := len(tab.Names)
	yj := col(tab, "malignant")
	idx := make([]int, len(bc5))
	for k, n := range bc5 {
		idx[k] = col(tab, n)
	}
	for i := 0; i < tab.Rows; i++ {
		eta := theta[0]
		for k, j := range idx {
			eta += theta[k+1] * tab.Data[i*c+j]
		}
		y := 0.0
		if r.Float64() < 1/(1+math.Exp(-eta)) {
			y = 1
		}
		tab.Data[i*c+yj] = y
	}
}
