package mcmc

import (
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// Test-only models, so the tests do not depend on core/model's concrete
// models.

// gaussMean is the conjugate Gaussian-mean model: x_i ~ N(θ, Σ) with known
// precision P = Σ⁻¹, prior θ ~ N(μ0, P0⁻¹). The posterior is Gaussian with
// precision Λ = P0 + N·P and mean Λ⁻¹(P0μ0 + P Σ_i x_i), whatever the data.
type gaussMean struct {
	d, n     int
	x        []float64 // n×d, row-major
	p, p0    []float64 // d×d
	mu0      []float64
	xlo, xhi []float64 // column bounds (public in a real run; fixed by construction here)
	sumX     []float64
	r, g     []float64 // scratch
}

// newGaussMean draws n rows uniformly in center ± spread (per coordinate), so
// the per-row Lipschitz bound over a box is small and known.
func newGaussMean(sigma []float64, d, n int, center []float64, spread float64, priorSD float64, seed uint64) *gaussMean {
	rg := rand.New(rand.NewPCG(seed, 7))
	m := &gaussMean{d: d, n: n, x: make([]float64, n*d), p: inverse(sigma, d), p0: make([]float64, d*d),
		mu0: make([]float64, d), xlo: make([]float64, d), xhi: make([]float64, d), sumX: make([]float64, d),
		r: make([]float64, d), g: make([]float64, d)}
	for j := 0; j < d; j++ {
		m.p0[j*d+j] = 1 / (priorSD * priorSD)
		m.xlo[j], m.xhi[j] = center[j]-spread, center[j]+spread
	}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := center[j] + spread*(2*rg.Float64()-1)
			m.x[i*d+j] = v
			m.sumX[j] += v
		}
	}
	return m
}

func (m *gaussMean) Name() string         { return "gauss-mean-test" }
func (m *gaussMean) Dim() int             { return m.d }
func (m *gaussMean) ParamNames() []string { return nil }
func (m *gaussMean) N() int               { return m.n }

func (m *gaussMean) rowLL(theta []float64, i int) float64 {
	d := m.d
	for j := 0; j < d; j++ {
		m.r[j] = m.x[i*d+j] - theta[j]
	}
	return -0.5 * quad(m.p, m.r, d)
}

func (m *gaussMean) LogLik(theta []float64, rows []int, out []float64) {
	if rows == nil {
		for i := 0; i < m.n; i++ {
			out[i] = m.rowLL(theta, i)
		}
		return
	}
	for k, i := range rows {
		out[k] = m.rowLL(theta, i)
	}
}

func (m *gaussMean) GradLogLikRow(theta []float64, i int, grad []float64) {
	d := m.d
	for j := 0; j < d; j++ {
		m.r[j] = m.x[i*d+j] - theta[j]
	}
	matVec(m.p, m.r, grad, d)
}

func (m *gaussMean) GradLogLik(theta []float64, rows []int, grad []float64) {
	d := m.d
	if rows == nil {
		for j := 0; j < d; j++ {
			m.r[j] = m.sumX[j] - float64(m.n)*theta[j]
		}
		matVec(m.p, m.r, grad, d)
		return
	}
	for j := range m.g {
		m.g[j] = 0
	}
	for _, i := range rows {
		for j := 0; j < d; j++ {
			m.g[j] += m.x[i*d+j] - theta[j]
		}
	}
	matVec(m.p, m.g, grad, d)
}

func (m *gaussMean) LogPrior(theta []float64) float64 {
	for j := range m.r {
		m.r[j] = theta[j] - m.mu0[j]
	}
	return -0.5 * quad(m.p0, m.r, m.d)
}

func (m *gaussMean) GradLogPrior(theta []float64, grad []float64) {
	for j := range m.r {
		m.r[j] = m.mu0[j] - theta[j]
	}
	matVec(m.p0, m.r, grad, m.d)
}

// RowBounds: ∇ℓ_i = P(x_i − θ), so ‖∇ℓ_i‖ ≤ ‖P‖_F · max ‖x − θ‖ over the
// column bounds and the box.
func (m *gaussMean) RowBounds(box []model.Interval) model.RowBounds {
	inf := math.Inf(1)
	if box == nil {
		return model.RowBounds{Lipschitz: inf, GradNorm: inf, AbsLogLik: inf}
	}
	pf := 0.0
	for _, v := range m.p {
		pf += v * v
	}
	pf = math.Sqrt(pf)
	r2 := 0.0
	for j := 0; j < m.d; j++ {
		a := math.Max(math.Abs(m.xhi[j]-box[j].Lo), math.Abs(box[j].Hi-m.xlo[j]))
		r2 += a * a
	}
	l := pf * math.Sqrt(r2)
	return model.RowBounds{Lipschitz: l, GradNorm: l, AbsLogLik: 0.5 * pf * r2}
}

// posterior returns the analytic posterior mean and covariance.
func (m *gaussMean) posterior() (mean, cov []float64) {
	d := m.d
	lam := make([]float64, d*d)
	for k := range lam {
		lam[k] = m.p0[k] + float64(m.n)*m.p[k]
	}
	cov = inverse(lam, d)
	b := make([]float64, d)
	t1, t2 := make([]float64, d), make([]float64, d)
	matVec(m.p0, m.mu0, t1, d)
	matVec(m.p, m.sumX, t2, d)
	for j := range b {
		b[j] = t1[j] + t2[j]
	}
	mean = make([]float64, d)
	matVec(cov, b, mean, d)
	return mean, cov
}

func quad(a, v []float64, d int) float64 {
	s := 0.0
	for i := 0; i < d; i++ {
		row := a[i*d : i*d+d]
		t := 0.0
		for j, x := range v {
			t += row[j] * x
		}
		s += v[i] * t
	}
	return s
}

func matVec(a, v, out []float64, d int) {
	for i := 0; i < d; i++ {
		row := a[i*d : i*d+d]
		t := 0.0
		for j, x := range v {
			t += row[j] * x
		}
		out[i] = t
	}
}

// inverse inverts a small d×d matrix by Gauss–Jordan with partial pivoting.
func inverse(a []float64, d int) []float64 {
	m := append([]float64(nil), a...)
	inv := make([]float64, d*d)
	for i := 0; i < d; i++ {
		inv[i*d+i] = 1
	}
	for c := 0; c < d; c++ {
		piv := c
		for r := c + 1; r < d; r++ {
			if math.Abs(m[r*d+c]) > math.Abs(m[piv*d+c]) {
				piv = r
			}
		}
		for j := 0; j < d; j++ {
			m[c*d+j], m[piv*d+j] = m[piv*d+j], m[c*d+j]
			inv[c*d+j], inv[piv*d+j] = inv[piv*d+j], inv[c*d+j]
		}
		p := m[c*d+c]
		for j := 0; j < d; j++ {
			m[c*d+j] /= p
			inv[c*d+j] /= p
		}
		for r := 0; r < d; r++ {
			if r == c {
				continue
			}
			f := m[r*d+c]
			for j := 0; j < d; j++ {
				m[r*d+j] -= f * m[c*d+j]
				inv[r*d+j] -= f * inv[c*d+j]
			}
		}
	}
	return inv
}

// logistic regression for the benchmarks: y_i ∈ {0, 1}, x_i ∈ [−1, 1]^d,
// ℓ_i = y_i·η_i − log(1 + e^{η_i}), η_i = x_iᵀθ, prior N(0, 5²I).
type logisticModel struct {
	d, n int
	x    []float64
	y    []float64
}

func newLogistic(d, n int, seed uint64) *logisticModel {
	rg := rand.New(rand.NewPCG(seed, 11))
	m := &logisticModel{d: d, n: n, x: make([]float64, n*d), y: make([]float64, n)}
	beta := make([]float64, d)
	for j := range beta {
		beta[j] = rg.NormFloat64() / math.Sqrt(float64(d))
	}
	for i := 0; i < n; i++ {
		eta := 0.0
		for j := 0; j < d; j++ {
			v := 2*rg.Float64() - 1
			m.x[i*d+j] = v
			eta += v * beta[j]
		}
		if rg.Float64() < 1/(1+math.Exp(-eta)) {
			m.y[i] = 1
		}
	}
	return m
}

func (m *logisticModel) Name() string         { return "logistic-test" }
func (m *logisticModel) Dim() int             { return m.d }
func (m *logisticModel) ParamNames() []string { return nil }
func (m *logisticModel) N() int               { return m.n }

func (m *logisticModel) eta(theta []float64, i int) float64 {
	row := m.x[i*m.d : i*m.d+m.d]
	s := 0.0
	for j, v := range row {
		s += v * theta[j]
	}
	return s
}

func log1pExp(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

func (m *logisticModel) LogLik(theta []float64, rows []int, out []float64) {
	if rows == nil {
		for i := 0; i < m.n; i++ {
			e := m.eta(theta, i)
			out[i] = m.y[i]*e - log1pExp(e)
		}
		return
	}
	for k, i := range rows {
		e := m.eta(theta, i)
		out[k] = m.y[i]*e - log1pExp(e)
	}
}

func (m *logisticModel) GradLogLikRow(theta []float64, i int, grad []float64) {
	w := m.y[i] - 1/(1+math.Exp(-m.eta(theta, i)))
	for j, v := range m.x[i*m.d : i*m.d+m.d] {
		grad[j] = w * v
	}
}

func (m *logisticModel) GradLogLik(theta []float64, rows []int, grad []float64) {
	for j := range grad {
		grad[j] = 0
	}
	add := func(i int) {
		w := m.y[i] - 1/(1+math.Exp(-m.eta(theta, i)))
		for j, v := range m.x[i*m.d : i*m.d+m.d] {
			grad[j] += w * v
		}
	}
	if rows == nil {
		for i := 0; i < m.n; i++ {
			add(i)
		}
		return
	}
	for _, i := range rows {
		add(i)
	}
}

func (m *logisticModel) LogPrior(theta []float64) float64 {
	s := 0.0
	for _, t := range theta {
		s += t * t
	}
	return -s / (2 * 25)
}

func (m *logisticModel) GradLogPrior(theta []float64, grad []float64) {
	for j, t := range theta {
		grad[j] = -t / 25
	}
}

// RowBounds: |∂ℓ_i/∂η| ≤ 1 and ‖x_i‖ ≤ √d.
func (m *logisticModel) RowBounds(box []model.Interval) model.RowBounds {
	l := math.Sqrt(float64(m.d))
	return model.RowBounds{Lipschitz: l, GradNorm: l, AbsLogLik: math.Inf(1)}
}
