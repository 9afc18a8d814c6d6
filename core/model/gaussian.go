package model

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// GaussianMean is the d-dimensional Gaussian mean model with known
// covariance of the DP-HMC paper (Räisä et al., §4 "Gaussian Model"; d = 10
// there):
//
//	x_i ~ N_d(θ, Σ)   (Σ known; option cov, identity by default)
//	ℓ_i(θ) = F·(−½(x_i − θ)ᵀΣ⁻¹(x_i − θ) − ½log det(2πΣ))
//	∇ℓ_i(θ) = F·Σ⁻¹(x_i − θ)
//	prior θ ~ N_d(0, s²I), s = prior-sd (100 in the paper).
//
// The posterior is Gaussian; see Posterior / GaussianMeanPosterior.
//
// Internally the rows are stored as w_i = Σ⁻¹x_i and q_i = ½x_iᵀΣ⁻¹x_i, so
// that ℓ_i(θ)/F = w_iᵀθ − q_i − ½θᵀΣ⁻¹θ − ½log det(2πΣ) costs one length-d
// dot product per row and the hot loops need no scratch space.
//
// Bounds: with D² = Σ_j max_{x_j, θ_j} (x_j − θ_j)² over the public column
// bounds and the box (so ‖x − θ‖ ≤ D) and λ = λ_max(Σ⁻¹) = 1/λ_min(Σ),
// ‖∇ℓ_i‖ ≤ F·‖Σ⁻¹‖₂·‖x − θ‖, so GradNorm = Lipschitz = F·λ·D, and since
// 0 ≤ (x−θ)ᵀΣ⁻¹(x−θ) ≤ λD², AbsLogLik = F·max(|c|, |½λD² + c|) with
// c = ½log det(2πΣ). All +Inf for a nil box or an unbounded column.
type GaussianMean struct {
	base
	w       []float64 // n × d, row i = Σ⁻¹ x_i
	q       []float64 // ½ x_iᵀ Σ⁻¹ x_i
	sumW    []float64 // Σ_i w_i
	prec    []float64 // Σ⁻¹, d × d row-major
	cov     [][]float64
	c       float64 // ½ log det(2πΣ)
	lamMax  float64 // λ_max(Σ⁻¹)
	priorSD float64
	xiv     []Interval
}

// quad is ½θᵀΣ⁻¹θ.
func (m *GaussianMean) quad(theta []float64) float64 {
	d := m.d
	s := 0.0
	for j := 0; j < d; j++ {
		s += theta[j] * dot(m.prec[j*d:j*d+d], theta)
	}
	return 0.5 * s
}

// LogLik implements Model.
func (m *GaussianMean) LogLik(theta []float64, rows []int, out []float64) {
	d := m.d
	th := theta[:d]
	f := m.f
	k0 := f * (m.quad(th) + m.c)
	if rows == nil {
		out = out[:m.n]
		q := m.q[:m.n]
		for i := range out {
			out[i] = f*(dot(m.w[i*d:i*d+d], th)-q[i]) - k0
		}
		return
	}
	out = out[:len(rows)]
	for k, i := range rows {
		out[k] = f*(dot(m.w[i*d:i*d+d], th)-m.q[i]) - k0
	}
}

// GradLogLikRow implements Model: F·(w_i − Σ⁻¹θ).
func (m *GaussianMean) GradLogLikRow(theta []float64, i int, grad []float64) {
	d := m.d
	w := m.w[i*d : i*d+d]
	grad = grad[:d]
	for j := range grad {
		grad[j] = m.f * (w[j] - dot(m.prec[j*d:j*d+d], theta))
	}
}

// GradLogLik implements Model: F·(Σ_{i∈rows} w_i − |rows|·Σ⁻¹θ).
func (m *GaussianMean) GradLogLik(theta []float64, rows []int, grad []float64) {
	d := m.d
	grad = grad[:d]
	cnt := float64(len(rows))
	if rows == nil {
		copy(grad, m.sumW)
		cnt = float64(m.n)
	} else {
		clear(grad)
		for _, i := range rows {
			axpy(1, m.w[i*d:i*d+d], grad)
		}
	}
	for j := range grad {
		grad[j] = m.f * (grad[j] - cnt*dot(m.prec[j*d:j*d+d], theta))
	}
}

// LogPrior is log N(θ; 0, s²I).
func (m *GaussianMean) LogPrior(theta []float64) float64 {
	return isoNormalLogPdf(theta[:m.d], m.priorSD*m.priorSD)
}

// GradLogPrior writes −θ/s².
func (m *GaussianMean) GradLogPrior(theta []float64, grad []float64) {
	s2 := m.priorSD * m.priorSD
	grad = grad[:m.d]
	for j, v := range theta[:m.d] {
		grad[j] = -v / s2
	}
}

// RowBounds implements Model; see the type's doc comment.
func (m *GaussianMean) RowBounds(box []Interval) RowBounds {
	checkBox(box, m.d, m.name)
	d2 := 0.0
	for j := 0; j < m.d; j++ {
		r := ivMaxAbs(ivSub(m.xiv[j], boxIv(box, j)))
		d2 += r * r
	}
	g := m.f * m.lamMax * math.Sqrt(d2)
	a := m.f * absRange(m.c, 0.5*m.lamMax*d2+m.c)
	return finalize(g, a)
}

// PriorSD is the prior standard deviation s.
func (m *GaussianMean) PriorSD() float64 { return m.priorSD }

// Cov returns a copy of the known covariance Σ.
func (m *GaussianMean) Cov() [][]float64 { return copyMat(m.cov) }

// RowHessianTrace is F·tr(Σ⁻¹), the trace of every row's log-likelihood
// Hessian (−F·Σ⁻¹ for every row and θ): public, from the known covariance
// and the temper. The mixing forecast bounds the posterior's widest sd
// with it (core/run/forecast.go).
func (m *GaussianMean) RowHessianTrace() float64 {
	t := 0.0
	for j := 0; j < m.d; j++ {
		t += m.prec[j*m.d+j]
	}
	return m.f * t
}

// MeanBounds implements MeanStatistic: the public bounds of the data columns.
func (m *GaussianMean) MeanBounds() []Interval { return append([]Interval(nil), m.xiv...) }

// AppendColumn implements MeanStatistic: x_ij = (Σ·w_i)_j, recovered from
// the stored w_i = Σ⁻¹x_i (exact for a diagonal Σ with power-of-two
// entries, identity included; otherwise within rounding, and every value
// is clipped to its bound again where it is summed).
func (m *GaussianMean) AppendColumn(j int, dst []float64) []float64 {
	d := m.d
	row := m.cov[j]
	for i := 0; i < m.n; i++ {
		dst = append(dst, dot(row, m.w[i*d:i*d+d]))
	}
	return dst
}

// MeanVariances implements MeanStatistic: Σ_jj/F.
func (m *GaussianMean) MeanVariances() []float64 {
	v := make([]float64, m.d)
	for j := range v {
		v[j] = m.cov[j][j] / m.f
	}
	return v
}

// FromGaussian implements MeanStatistic: θ = y (μ(θ) = θ).
func (m *GaussianMean) FromGaussian(y, theta []float64) { copy(theta[:m.d], y[:m.d]) }

// PosteriorGivenNoisyMeans implements MeanStatistic: with the released
// means' covariance A = Σ/(n·F) + diag(noiseVar) and the prior N(0, s²I),
//
//	cov = (A⁻¹ + I/s²)⁻¹,  mean = cov·A⁻¹·m̃
//
// (with noiseVar = 0 this is Posterior, as A⁻¹m̃ = F·Σ⁻¹Σ_i x_i).
func (m *GaussianMean) PosteriorGivenNoisyMeans(means, noiseVar []float64) (mean, cov []float64, err error) {
	d := m.d
	if len(means) != d || len(noiseVar) != d {
		return nil, nil, fmt.Errorf("gaussian: %d released means and %d noise variances for %d columns", len(means), len(noiseVar), d)
	}
	nf := float64(m.n) * m.f
	a := make([][]float64, d)
	for i := range a {
		a[i] = make([]float64, d)
		for j := range a[i] {
			a[i][j] = m.cov[i][j] / nf
		}
		a[i][i] += noiseVar[i]
	}
	ainv, _, _, err := invertSPD(a, d)
	if err != nil {
		return nil, nil, fmt.Errorf("gaussian: the released means' covariance: %w", err)
	}
	b := make([]float64, d)
	for i := range b {
		b[i] = dot(ainv[i*d:i*d+d], means)
		ainv[i*d+i] += 1 / (m.priorSD * m.priorSD)
	}
	mu, c := gaussianFromPrecision(ainv, b, d)
	cov = make([]float64, d*d)
	for i, r := range c {
		copy(cov[i*d:i*d+d], r)
	}
	return mu, cov, nil
}

// isoNormalLogPdf is log N(θ; 0, v·I).
func isoNormalLogPdf(theta []float64, v float64) float64 {
	q := 0.0
	for _, t := range theta {
		q += t * t
	}
	return -0.5*q/v - float64(len(theta))*(0.5*mathx.Log(v)+halfLog2Pi)
}

func copyMat(a [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i, r := range a {
		out[i] = append([]float64(nil), r...)
	}
	return out
}
