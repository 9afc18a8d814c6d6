package experiment

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
	"gonum.org/v1/gonum/mat"
)

// problem is one of the DP-HMC paper's two posteriors with its data, its
// exact reference sample (1000 i.i.d. draws, as in the paper) and the
// starting-point scale.
type problem struct {
	name    string
	n, d    int
	m       model.Model
	ref     [][]float64 // i.i.d. draws from the exact posterior
	truth   []float64   // centre of the starting points (true parameter)
	startSD float64     // mean componentwise sd of ref (§4.1)
}

const refDraws = 1000

func bananaProblem(n int, seed uint64) (*problem, error) {
	t := BananaData(n, seed)
	m, err := model.Build(model.Spec{Model: "banana"}, t)
	if err != nil {
		return nil, err
	}
	b := m.(*model.Banana)
	mu, v := b.Posterior()
	r := newRand(seed, 11)
	ref := make([][]float64, refDraws)
	y := make([]float64, 2)
	for i := range ref {
		for j := range y {
			y[j] = mu[j] + math.Sqrt(v[j])*r.NormFloat64()
		}
		ref[i] = make([]float64, 2)
		b.FromGaussian(y, ref[i])
	}
	return finishProblem("banana", m, ref, BananaTruth), nil
}

func gaussProblem(n, d int, seed uint64) (*problem, error) {
	cov := GaussCov(d, seed)
	truth := GaussTruth(d)
	t, err := GaussData(n, truth, cov, seed)
	if err != nil {
		return nil, err
	}
	m, err := model.Build(model.Spec{Model: "gaussian", PriorSD: 100, Cov: cov}, t)
	if err != nil {
		return nil, err
	}
	mean, pc := m.(*model.GaussianMean).Posterior()
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, (pc[i][j]+pc[j][i])/2)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return nil, fmt.Errorf("experiment: gaussian posterior covariance not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	r := newRand(seed, 12)
	ref := make([][]float64, refDraws)
	z := make([]float64, d)
	for i := range ref {
		for j := range z {
			z[j] = r.NormFloat64()
		}
		p := make([]float64, d)
		for j := 0; j < d; j++ {
			s := mean[j]
			for k := 0; k <= j; k++ {
				s += l.At(j, k) * z[k]
			}
			p[j] = s
		}
		ref[i] = p
	}
	return finishProblem("gauss", m, ref, truth), nil
}

func finishProblem(name string, m model.Model, ref [][]float64, truth []float64) *problem {
	d := m.Dim()
	sd := 0.0
	col := make([]float64, len(ref))
	for j := 0; j < d; j++ {
		for i, p := range ref {
			col[i] = p[j]
		}
		sd += diag.SD(col)
	}
	return &problem{name: name, n: m.N(), d: d, m: m, ref: ref, truth: truth, startSD: sd / float64(d)}
}
