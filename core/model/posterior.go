package model

import (
	"fmt"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"gonum.org/v1/gonum/mat"
)

// Exact posteriors of the conjugate models, for testing samplers. They are
// computed from the private data and must never be exported.

// gaussianFromPrecision returns mean = Λ⁻¹b and cov = Λ⁻¹ for the d × d
// precision Λ (row-major).
func gaussianFromPrecision(lambda, b []float64, d int) ([]float64, [][]float64) {
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, 0.5*(lambda[i*d+j]+lambda[j*d+i]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		panic("model: posterior precision is not positive definite")
	}
	var mv mat.VecDense
	if err := ch.SolveVecTo(&mv, mat.NewVecDense(d, append([]float64(nil), b...))); err != nil {
		panic(err)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		panic(err)
	}
	mean := make([]float64, d)
	cov := make([][]float64, d)
	for i := range cov {
		mean[i] = mv.AtVec(i)
		cov[i] = make([]float64, d)
		for j := range cov[i] {
			cov[i][j] = inv.At(i, j)
		}
	}
	return mean, cov
}

// Posterior is the exact (tempered) posterior N(mean, cov) of the Gaussian
// mean model: with P = Σ⁻¹ and prior N(0, s²I),
//
//	cov = (I/s² + n·F·P)⁻¹,  mean = cov · F·P·Σ_i x_i.
func (m *GaussianMean) Posterior() (mean []float64, cov [][]float64) {
	d := m.d
	lam := make([]float64, d*d)
	b := make([]float64, d)
	s2 := m.priorSD * m.priorSD
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			lam[i*d+j] = float64(m.n) * m.f * m.prec[i*d+j]
		}
		lam[i*d+i] += 1 / s2
		b[i] = m.f * m.sumW[i]
	}
	return gaussianFromPrecision(lam, b, d)
}

// Posterior is the exact (tempered) posterior N(mean, cov) of the linear
// regression with known noise σ and prior N(0, s²I): with design X̃ (intercept
// column included),
//
//	cov = (Λ + F·X̃ᵀX̃/σ²)⁻¹,  mean = cov · F·X̃ᵀy/σ²,
//
// Λ = I/s² (on a scaled model with the prior in the user's units, scale
// auto, Λ = JᵀJ/s² with J = ∂θ/∂β; mean and cov are then β's).
func (m *Linear) Posterior() (mean []float64, cov [][]float64) {
	d := m.d
	lam := make([]float64, d*d)
	b := make([]float64, d)
	c := m.f / (m.sigma * m.sigma)
	for i := 0; i < m.n; i++ {
		row := m.row(i)
		for j, v := range row {
			b[j] += c * m.y[i] * v
			axpy(c*v, row, lam[j*d:j*d+d])
		}
	}
	for j, v := range m.priorPrecision() {
		lam[j] += v
	}
	return gaussianFromPrecision(lam, b, d)
}

// Posterior returns the underlying Gaussian of the banana posterior
// Ban(μ, diag(v), a) (thesis Theorem 5 with temper T = F, DP-HMC paper §4):
//
//	μ_j = F·n·τ_j·x̄_j / (F·n·τ_j + τ0),  v_j = 1/(F·n·τ_j + τ0),
//
// τ_j = 1/σ_j², τ0 = 1/σ0². Exact draws: y ~ N(μ, diag(v)), then
// FromGaussian(y) (θ2 = y2 − a·y1²).
func (m *Banana) Posterior() (mu, variance []float64) {
	d := m.d
	sum := make([]float64, d)
	for i := 0; i < m.n; i++ {
		axpy(1, m.x[i*d:i*d+d], sum)
	}
	mu = make([]float64, d)
	variance = make([]float64, d)
	n := float64(m.n)
	for j := range mu {
		tj := 1 / m.v[j]
		p := m.f*n*tj + 1/m.pv
		mu[j] = m.f * tj * sum[j] / p
		variance[j] = 1 / p
	}
	return mu, variance
}

// GaussianMeanPosterior builds the gaussian model from spec and t and
// returns its exact posterior mean and covariance (see GaussianMean.Posterior).
func GaussianMeanPosterior(spec Spec, t *dataset.Table) (mean []float64, cov [][]float64, err error) {
	m, err := Build(spec, t)
	if err != nil {
		return nil, nil, err
	}
	g, ok := m.(*GaussianMean)
	if !ok {
		return nil, nil, fmt.Errorf("model %s is not gaussian", m.Name())
	}
	mean, cov = g.Posterior()
	return mean, cov, nil
}

// LinearPosterior builds the linear model from spec and t and returns its
// exact posterior mean and covariance (see Linear.Posterior).
func LinearPosterior(spec Spec, t *dataset.Table) (mean []float64, cov [][]float64, err error) {
	m, err := Build(spec, t)
	if err != nil {
		return nil, nil, err
	}
	l, ok := m.(*Linear)
	if !ok {
		return nil, nil, fmt.Errorf("model %s is not linear", m.Name())
	}
	mean, cov = l.Posterior()
	return mean, cov, nil
}

// BananaPosterior builds the banana model from spec and t and returns the
// mean and variances of the Gaussian underlying its exact posterior (see
// Banana.Posterior).
func BananaPosterior(spec Spec, t *dataset.Table) (mu, variance []float64, err error) {
	m, err := Build(spec, t)
	if err != nil {
		return nil, nil, err
	}
	b, ok := m.(*Banana)
	if !ok {
		return nil, nil, fmt.Errorf("model %s is not banana", m.Name())
	}
	mu, variance = b.Posterior()
	return mu, variance, nil
}
