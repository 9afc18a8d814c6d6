package model

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// Banana is the banana model of the DP-HMC paper (Räisä et al., §4 "Banana
// Model") and the thesis (§2.3, Theorem 5, with b = m = 0), whose posterior
// is a banana distribution Ban(μ, Σ, a):
//
//	θ ~ Ban(0, σ0²I, a), i.e. (θ1, θ2 + aθ1², θ3, …, θd) ~ N(0, σ0²I)
//	x1 ~ N(θ1, σ1²),  x2 ~ N(θ2 + aθ1², σ2²),  x_j ~ N(θ_j, σ_j²) (j ≥ 3)
//	ℓ_i(θ) = F·Σ_j log N(x_ij; μ_j(θ), σ_j²)   with μ = (θ1, θ2 + aθ1², θ3, …)
//	∂ℓ/∂θ1 = F·(r1 + 2aθ1·r2), ∂ℓ/∂θ2 = F·r2, ∂ℓ/∂θ_j = F·r_j,
//	r_j = (x_j − μ_j)/σ_j²
//	log p(θ) = Σ_j log N(g⁻¹(θ)_j; 0, σ0²)  (the Jacobian of g⁻¹ is 1)
//
// Options and defaults (the DP-HMC paper's experiment): a = 20,
// prior-var σ0² = 1000, var1 σ1² = 2000, var2 σ2² = 2500; data columns x1,
// x2. The thesis' d-dimensional version (§7.3) adds columns x3…xd with
// variance var-rest (default 1).
//
// Bounds: with D_j = max|x_j − μ_j| over the public column bounds and the
// box (μ_2's range from interval arithmetic on θ2 + aθ1²), R_j = D_j/σ_j² and
// T1 = max|θ1|, GradNorm = Lipschitz = F·sqrt((R1 + 2|a|T1R2)² + R2² +
// Σ_{j≥3} R_j²) and AbsLogLik = F·max(|c|, |c + ½Σ_j D_j²/σ_j²|) with
// c = Σ_j ½log(2πσ_j²). All +Inf for a nil box or an unbounded column.
type Banana struct {
	base
	x   []float64 // n × d
	a   float64
	pv  float64   // σ0²
	v   []float64 // σ_j²
	c   float64   // Σ_j ½ log(2π σ_j²)
	xiv []Interval
}

// A is the curvature a.
func (m *Banana) A() float64 { return m.a }

// LogLik implements Model.
func (m *Banana) LogLik(theta []float64, rows []int, out []float64) {
	d := m.d
	th := theta[:d]
	v := m.v[:d]
	mu2 := th[1] + m.a*th[0]*th[0]
	h := -0.5 * m.f
	fc := m.f * m.c
	one := func(x []float64) float64 {
		x = x[:d]
		r := x[0] - th[0]
		s := r * r / v[0]
		r = x[1] - mu2
		s += r * r / v[1]
		for j := 2; j < d; j++ {
			r = x[j] - th[j]
			s += r * r / v[j]
		}
		return h*s - fc
	}
	if rows == nil {
		out = out[:m.n]
		for i := range out {
			out[i] = one(m.x[i*d : i*d+d])
		}
		return
	}
	out = out[:len(rows)]
	for k, i := range rows {
		out[k] = one(m.x[i*d : i*d+d])
	}
}

// addRowGrad adds ∇ℓ_i/F into grad.
func (m *Banana) addRowGrad(th, x, grad []float64) {
	d := m.d
	x = x[:d]
	r1 := (x[0] - th[0]) / m.v[0]
	r2 := (x[1] - th[1] - m.a*th[0]*th[0]) / m.v[1]
	grad[0] += r1 + 2*m.a*th[0]*r2
	grad[1] += r2
	for j := 2; j < d; j++ {
		grad[j] += (x[j] - th[j]) / m.v[j]
	}
}

// GradLogLikRow implements Model.
func (m *Banana) GradLogLikRow(theta []float64, i int, grad []float64) {
	d := m.d
	grad = grad[:d]
	clear(grad)
	m.addRowGrad(theta, m.x[i*d:i*d+d], grad)
	for j := range grad {
		grad[j] *= m.f
	}
}

// GradLogLik implements Model.
func (m *Banana) GradLogLik(theta []float64, rows []int, grad []float64) {
	d := m.d
	grad = grad[:d]
	clear(grad)
	if rows == nil {
		for i := 0; i < m.n; i++ {
			m.addRowGrad(theta, m.x[i*d:i*d+d], grad)
		}
	} else {
		for _, i := range rows {
			m.addRowGrad(theta, m.x[i*d:i*d+d], grad)
		}
	}
	for j := range grad {
		grad[j] *= m.f
	}
}

// LogPrior is log Ban(θ; 0, σ0²I, a) = log N(g⁻¹(θ); 0, σ0²I).
func (m *Banana) LogPrior(theta []float64) float64 {
	th := theta[:m.d]
	u := th[1] + m.a*th[0]*th[0]
	q := th[0]*th[0] + u*u
	for _, t := range th[2:] {
		q += t * t
	}
	return -0.5*q/m.pv - float64(m.d)*(0.5*mathx.Log(m.pv)+halfLog2Pi)
}

// GradLogPrior implements Model.
func (m *Banana) GradLogPrior(theta []float64, grad []float64) {
	th := theta[:m.d]
	grad = grad[:m.d]
	u := th[1] + m.a*th[0]*th[0]
	grad[0] = -(th[0] + 2*m.a*th[0]*u) / m.pv
	grad[1] = -u / m.pv
	for j := 2; j < m.d; j++ {
		grad[j] = -th[j] / m.pv
	}
}

// RowBounds implements Model; see the type's doc comment.
func (m *Banana) RowBounds(box []Interval) RowBounds {
	checkBox(box, m.d, m.name)
	t1 := boxIv(box, 0)
	mu2 := ivAdd(boxIv(box, 1), ivScale(m.a, ivSq(t1)))
	g2, q := 0.0, 0.0
	var r1, r2 float64
	for j := 0; j < m.d; j++ {
		mu := boxIv(box, j)
		if j == 1 {
			mu = mu2
		}
		dj := ivMaxAbs(ivSub(m.xiv[j], mu))
		q += dj * dj / m.v[j]
		rj := dj / m.v[j]
		switch j {
		case 0:
			r1 = rj
		case 1:
			r2 = rj
		default:
			g2 += rj * rj
		}
	}
	t := r1 + 2*mulz(math.Abs(m.a)*ivMaxAbs(t1), r2)
	g := m.f * math.Sqrt(t*t+r2*r2+g2)
	a := m.f * absRange(m.c, m.c+0.5*q)
	return finalize(g, a)
}

// FromGaussian maps a point y of the underlying Gaussian to the banana:
// θ = g(y) = (y1, y2 − a·y1², y3, …). If y ~ N(μ, Σ) from Posterior, θ is a
// draw from the exact posterior.
func (m *Banana) FromGaussian(y, theta []float64) {
	copy(theta[:m.d], y[:m.d])
	theta[1] = y[1] - m.a*y[0]*y[0]
}

// MeanBounds implements MeanStatistic: the public bounds of x1, x2, ….
func (m *Banana) MeanBounds() []Interval { return append([]Interval(nil), m.xiv...) }

// AppendColumn implements MeanStatistic.
func (m *Banana) AppendColumn(j int, dst []float64) []float64 {
	for i := 0; i < m.n; i++ {
		dst = append(dst, m.x[i*m.d+j])
	}
	return dst
}

// WidestPosteriorSDLower is a public lower bound on the posterior sd in
// its widest direction with n rows: the posterior is Ban(μ, diag(v), a) with
// v_j = (n·F/σ_j² + 1/σ0²)⁻¹, which depend on n and the model's options
// only, and θ2 = y2 − a·y1² has variance v2 + a²(4μ1²v1 + 2v1²) ≥
// v2 + 2a²v1², a lower bound on the largest eigenvalue of the posterior
// covariance (at least any diagonal entry). The other coordinates' v_j
// count too, for a small a.
func (m *Banana) WidestPosteriorSDLower(n int) float64 {
	if n < 1 {
		return 0
	}
	v := make([]float64, m.d)
	for j := range v {
		v[j] = 1 / (float64(n)*m.f/m.v[j] + 1/m.pv)
	}
	w := v[1] + 2*m.a*m.a*v[0]*v[0]
	for _, vj := range v {
		w = math.Max(w, vj)
	}
	return math.Sqrt(w)
}

// MeanVariances implements MeanStatistic: σ_j²/F.
func (m *Banana) MeanVariances() []float64 {
	v := make([]float64, m.d)
	for j := range v {
		v[j] = m.v[j] / m.f
	}
	return v
}

// PosteriorGivenNoisyMeans implements MeanStatistic. In y = (θ1, θ2 + aθ1²,
// θ3, …) prior and likelihood are Gaussian and independent per coordinate:
// y_j ~ N(0, σ0²) and m̃_j ~ N(y_j, s_j²) with s_j² = σ_j²/(n·F) +
// noiseVar[j], so y_j | m̃ ~ N(m̃_j·σ0²/(σ0² + s_j²), σ0²s_j²/(σ0² + s_j²))
// (with noiseVar = 0 this is Posterior).
func (m *Banana) PosteriorGivenNoisyMeans(means, noiseVar []float64) (mean, cov []float64, err error) {
	if len(means) != m.d || len(noiseVar) != m.d {
		return nil, nil, fmt.Errorf("banana: %d released means and %d noise variances for %d columns", len(means), len(noiseVar), m.d)
	}
	nf := float64(m.n) * m.f
	mean, cov = make([]float64, m.d), make([]float64, m.d*m.d)
	for j := range mean {
		s2 := m.v[j]/nf + noiseVar[j]
		mean[j] = means[j] * m.pv / (m.pv + s2)
		cov[j*m.d+j] = m.pv * s2 / (m.pv + s2)
	}
	return mean, cov, nil
}
