package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Data generators, exactly as the papers describe them (settings from
// /work/shared/testdata/README.md, "Experiment anchors"). Every generator is
// deterministic in its seed (PCG). The data sets are synthetic: they play the
// role of the private data, and nothing computed from them (posterior means,
// reference samples) is ever fed back into a sampler's settings.

func newRand(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0xda3e39cb94b95bdb^stream))
}

// BananaData draws n rows of the DP-HMC paper's banana model (§4 "Banana
// Model"): x1 ~ N(θ1, σ1²), x2 ~ N(θ2 + aθ1², σ2²) with the true θ = (0, 3),
// a = 20, σ1² = 2000, σ2² = 2500. Columns x1, x2.
func BananaData(n int, seed uint64) *dataset.Table {
	r := newRand(seed, 1)
	const a, v1, v2 = 20.0, 2000.0, 2500.0
	th1, th2 := 0.0, 3.0
	x1 := make([]float64, n)
	x2 := make([]float64, n)
	s1, s2 := math.Sqrt(v1), math.Sqrt(v2)
	for i := range x1 {
		x1[i] = th1 + s1*r.NormFloat64()
		x2[i] = th2 + a*th1*th1 + s2*r.NormFloat64()
	}
	t, err := dataset.FromColumns([]string{"x1", "x2"}, [][]float64{x1, x2})
	if err != nil {
		panic(err)
	}
	return t
}

// BananaTruth is the banana experiment's true parameter.
var BananaTruth = []float64{0, 3}

// GaussCov draws the DP-HMC paper's known covariance (§4 "Gaussian Model",
// after Hoffman et al.): eigenvalues ~ Gamma(shape 0.5, scale 1), eigenvectors
// the orthonormalised columns (QR) of a d × d matrix of U(0, 1) entries;
// Σ = Q diag(λ) Qᵀ.
func GaussCov(d int, seed uint64) [][]float64 {
	r := newRand(seed, 2)
	g := distuv.Gamma{Alpha: 0.5, Beta: 1, Src: rand.NewPCG(seed, 3)}
	lam := make([]float64, d)
	for i := range lam {
		lam[i] = g.Rand()
		for lam[i] < 1e-300 { // a zero eigenvalue would make Σ singular
			lam[i] = g.Rand()
		}
	}
	u := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			u.Set(i, j, r.Float64())
		}
	}
	var qr mat.QR
	qr.Factorize(u)
	var q mat.Dense
	qr.QTo(&q)
	cov := make([][]float64, d)
	for i := range cov {
		cov[i] = make([]float64, d)
		for j := range cov[i] {
			s := 0.0
			for k := 0; k < d; k++ {
				s += q.At(i, k) * lam[k] * q.At(j, k)
			}
			cov[i][j] = s
		}
	}
	for i := range cov { // exact symmetry
		for j := 0; j < i; j++ {
			m := (cov[i][j] + cov[j][i]) / 2
			cov[i][j], cov[j][i] = m, m
		}
	}
	return cov
}

// GaussTruth is the 10-d Gaussian experiment's true mean: the DP-HMC
// reference code's (0, 3, 0, …, 0) (the paper does not state it).
func GaussTruth(d int) []float64 {
	t := make([]float64, d)
	if d > 1 {
		t[1] = 3
	}
	return t
}

// GaussData draws n rows x_i ~ N_d(truth, Σ). Columns x1…xd.
func GaussData(n int, truth []float64, cov [][]float64, seed uint64) (*dataset.Table, error) {
	d := len(truth)
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, cov[i][j])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return nil, fmt.Errorf("experiment: covariance not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	r := newRand(seed, 4)
	cols := make([][]float64, d)
	names := make([]string, d)
	for j := range cols {
		cols[j] = make([]float64, n)
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	z := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := range z {
			z[j] = r.NormFloat64()
		}
		for j := 0; j < d; j++ {
			s := truth[j]
			for k := 0; k <= j; k++ {
				s += l.At(j, k) * z[k]
			}
			cols[j][i] = s
		}
	}
	return dataset.FromColumns(names, cols)
}

// GMMData draws n rows of the Welling–Teh mixture used by Heikkilä et al.
// (§4) and DP-Fast MH (§6.1): x ~ ½N(θ1, σx²) + ½N(θ1 + θ2, σx²) with
// θ = (0, 1), σx² = 2. Column x.
func GMMData(n int, seed uint64) *dataset.Table {
	r := newRand(seed, 5)
	sx := math.Sqrt2
	x := make([]float64, n)
	for i := range x {
		m := 0.0
		if r.Float64() >= 0.5 {
			m = 1
		}
		x[i] = m + sx*r.NormFloat64()
	}
	t, err := dataset.FromColumns([]string{"x"}, [][]float64{x})
	if err != nil {
		panic(err)
	}
	return t
}

// normalStarts draws k starting points from N(center, s²I), the DP-HMC
// paper's rule (§4.1: s = mean componentwise posterior sd of the reference
// sample). The public seed drives them.
func normalStarts(center []float64, s float64, k int, seed uint64) [][]float64 {
	r := newRand(seed, 6)
	out := make([][]float64, k)
	for i := range out {
		p := make([]float64, len(center))
		for j := range p {
			p[j] = center[j] + s*r.NormFloat64()
		}
		out[i] = p
	}
	return out
}

// tableOf is a one-column table.
func tableOf(name string, x []float64) (*dataset.Table, error) {
	return dataset.FromColumns([]string{name}, [][]float64{x})
}
