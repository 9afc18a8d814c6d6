package model

import (
	"math"
)

// GMM is the two-component Gaussian mixture of Welling & Teh (2011, §5.1),
// used for DP-MCMC by Heikkilä et al. (2019, §5) and Zhang et al. (DP-fast
// MH, §6.1):
//
//	x_i ~ ½N(θ1, σ_x²) + ½N(θ1 + θ2, σ_x²)      (σ_x² = var-x, default 2)
//	ℓ_i(θ) = F·log(½N(x_i; θ1, σ_x²) + ½N(x_i; θ1+θ2, σ_x²))
//	∂ℓ_i/∂θ1 = F·(r1·d1 + r2·d2)/σ_x²,  ∂ℓ_i/∂θ2 = F·r2·d2/σ_x²
//	prior θ1 ~ N(0, 10), θ2 ~ N(0, 1)   (options prior-var1, prior-var2)
//
// where d1 = x − θ1, d2 = x − θ1 − θ2 and r1, r2 (r1 + r2 = 1) are the
// components' responsibilities.
//
// Bounds: with D1 = max|x − θ1| and D2 = max|x − θ1 − θ2| over the public
// bound of x and the box, ‖∇ℓ‖² = F²((r1d1 + r2d2)² + r2²d2²)/σ_x⁴, so
// GradNorm = Lipschitz = F·sqrt(max(D1,D2)² + D2²)/σ_x². The mixture
// density lies between ½·N(x; θ1 or θ1+θ2, σ_x²) and the mode density, so
// with K = ½log(2πσ_x²), −log 2 − K − min(D1,D2)²/(2σ_x²) ≤ log p ≤ −K and
// AbsLogLik = F·max(|K|, |log 2 + K + min(D1,D2)²/(2σ_x²)|). All +Inf for a
// nil box or an unbounded x.
type GMM struct {
	base
	x              []float64
	varX, pv1, pv2 float64
	k              float64 // ½ log(2π σ_x²)
	h              float64 // 1/(2σ_x²)
	xiv            Interval
}

func (m *GMM) rowLogLik(theta []float64, x float64) float64 {
	d1 := x - theta[0]
	d2 := d1 - theta[1]
	a := -d1 * d1 * m.h
	b := -d2 * d2 * m.h
	// log(½eᵃ + ½eᵇ) = max(a,b) + log1p(e^{−|a−b|}) − log 2
	return max(a, b) + log1pExpNeg(math.Abs(a-b)) - math.Ln2 - m.k
}

// LogLik implements Model. It works in batches of batchLen rows: a, b and
// |a − b| in one loop, log1p(e^{−|a−b|}) by the table kernel
// log1pExpNegBatch, then the sum in rowLogLik's order: bit for bit
// rowLogLik, the scalar reference.
func (m *GMM) LogLik(theta []float64, rows []int, out []float64) {
	m.logLikFused(theta, rows, nil, out, false)
}

// logLikFused implements fusedPasser (LogLikDiff, LogLikSum).
func (m *GMM) logLikFused(theta []float64, rows []int, cur, out []float64, sum bool) float64 {
	n := m.n
	if rows != nil {
		n = len(rows)
	}
	out = out[:n]
	var xb, mb, tb [batchLen]float64
	s := 0.0
	for lo := 0; lo < n; lo += batchLen {
		o := out[lo:min(lo+batchLen, n)]
		m.batch(m.gather(rows, lo, xb[:len(o)]), theta, o, mb[:len(o)], tb[:len(o)])
		if cur != nil {
			c := cur[lo : lo+len(o)]
			for k, v := range c {
				o[k] -= v
			}
		}
		if sum {
			for _, v := range o {
				s += v
			}
		}
	}
	return s
}

// logLikRatio implements ratioPasser: each batch of rows is gathered once
// and evaluated at θ (into cur) and θ' (out = ℓ(θ') − ℓ(θ)).
func (m *GMM) logLikRatio(thetaNew, theta []float64, rows []int, cur, out []float64) {
	n := m.n
	if rows != nil {
		n = len(rows)
	}
	out, cur = out[:n], cur[:n]
	var xb, mb, tb [batchLen]float64
	for lo := 0; lo < n; lo += batchLen {
		hi := min(lo+batchLen, n)
		o, c := out[lo:hi], cur[lo:hi]
		x := m.gather(rows, lo, xb[:len(o)])
		m.batch(x, theta, c, mb[:len(o)], tb[:len(o)])
		m.batch(x, thetaNew, o, mb[:len(o)], tb[:len(o)])
		for k, v := range c[:len(o)] {
			o[k] -= v
		}
	}
}

// gather returns the data of rows lo… (len(buf) of them): a view of m.x
// for rows == nil, else the gathered values in buf (a loop of independent
// loads, so that many cache misses are in flight: minibatch rows are
// scattered over the data).
func (m *GMM) gather(rows []int, lo int, buf []float64) []float64 {
	if rows == nil {
		return m.x[lo : lo+len(buf)]
	}
	for k, i := range rows[lo : lo+len(buf)] {
		buf[k] = m.x[i]
	}
	return buf
}

// batch writes o[k] = ℓ(θ) for the data values x (len(o) = len(x)), using
// mx and t (same length) as scratch.
func (m *GMM) batch(x, theta, o, mx, t []float64) {
	th := theta[:2]
	t0, t1 := th[0], th[1]
	o, mx = o[:len(x)], mx[:len(x)]
	for k, xv := range x {
		d1 := xv - t0
		d2 := d1 - t1
		a := -d1 * d1 * m.h
		b := -d2 * d2 * m.h
		mx[k] = max(a, b)
		o[k] = math.Abs(a - b)
	}
	log1pExpNegBatch(o, t)
	for k, v := range t[:len(o)] {
		o[k] = m.f * (mx[k] + v - math.Ln2 - m.k)
	}
}

func (m *GMM) rowGrad(theta []float64, x float64) (g1, g2 float64) {
	d1 := x - theta[0]
	d2 := d1 - theta[1]
	// r2 = e^b/(e^a+e^b) = σ(b − a)
	r2 := sigmoid((d1*d1 - d2*d2) * m.h)
	r1 := 1 - r2
	s := m.f / m.varX
	return s * (r1*d1 + r2*d2), s * r2 * d2
}

// GradLogLikRow implements Model.
func (m *GMM) GradLogLikRow(theta []float64, i int, grad []float64) {
	grad[0], grad[1] = m.rowGrad(theta, m.x[i])
}

// GradLogLik implements Model.
func (m *GMM) GradLogLik(theta []float64, rows []int, grad []float64) {
	var s1, s2 float64
	if rows == nil {
		for _, x := range m.x[:m.n] {
			g1, g2 := m.rowGrad(theta, x)
			s1 += g1
			s2 += g2
		}
	} else {
		for _, i := range rows {
			g1, g2 := m.rowGrad(theta, m.x[i])
			s1 += g1
			s2 += g2
		}
	}
	grad[0], grad[1] = s1, s2
}

// LogPrior is log N(θ1; 0, prior-var1) + log N(θ2; 0, prior-var2).
func (m *GMM) LogPrior(theta []float64) float64 {
	return isoNormalLogPdf(theta[0:1], m.pv1) + isoNormalLogPdf(theta[1:2], m.pv2)
}

// GradLogPrior implements Model.
func (m *GMM) GradLogPrior(theta []float64, grad []float64) {
	grad[0] = -theta[0] / m.pv1
	grad[1] = -theta[1] / m.pv2
}

// WidestPosteriorSDLower is a public lower bound on the posterior sd in
// its widest direction with n rows: GMMWidestPosteriorSDLower with the
// model's temper, σ_x² and prior variances.
func (m *GMM) WidestPosteriorSDLower(n int) float64 {
	return GMMWidestPosteriorSDLower(n, m.f, m.varX, m.pv1, m.pv2)
}

// GMMWidestPosteriorSDLower bounds the mixture posterior's widest sd from
// public inputs only (n, F, σ_x², the prior variances v1, v2), for every
// dataset of n rows.
//
// A mixture row's Hessian is −∇²ℓ_i = F·(Σ_k r_k a_k a_kᵀ/σ_x² − Cov_r(∇log
// N_k)) ⪯ F·Σ_k r_k a_k a_kᵀ/σ_x², with a_1 = (1, 0), a_2 = (1, 1) the
// components' mean directions and r_k ≥ 0, Σr_k = 1 (the variance of the
// components' scores under the responsibilities is subtracted). So for any
// unit u and every θ, uᵀ(−∇² log π(θ))u ≤ g(u) = n·F/σ_x²·max_k (a_kᵀu)² +
// u_1²/v1 + u_2²/v2, and by the Cramér–Rao inequality for the location
// family of π (Cov_π ⪰ E_π[−∇² log π]⁻¹) the posterior's largest variance is
// at least 1/λ_min(E_π[−∇² log π]) ≥ 1/g(u). The bound takes the smallest
// g over a grid of directions u = (cos φ, sin φ) (any u gives a valid
// bound; u ∝ (1, −2), where max_k(a_kᵀu)² = 1/5, is among the best).
func GMMWidestPosteriorSDLower(n int, f, varX, pv1, pv2 float64) float64 {
	if n < 1 || !(f > 0) || !(varX > 0) || !(pv1 > 0) || !(pv2 > 0) {
		return 0
	}
	h := float64(n) * f / varX
	g := func(u1, u2 float64) float64 {
		return h*max(u1*u1, (u1+u2)*(u1+u2)) + u1*u1/pv1 + u2*u2/pv2
	}
	best := g(1/math.Sqrt(5), -2/math.Sqrt(5))
	const steps = 3600
	for k := range steps {
		phi := math.Pi * float64(k) / steps
		best = min(best, g(math.Cos(phi), math.Sin(phi)))
	}
	if !(best > 0) || math.IsInf(best, 0) {
		return 0
	}
	return 1 / math.Sqrt(best)
}

// RowBounds implements Model; see the type's doc comment.
func (m *GMM) RowBounds(box []Interval) RowBounds {
	checkBox(box, 2, m.name)
	t1, t2 := boxIv(box, 0), boxIv(box, 1)
	d1 := ivMaxAbs(ivSub(m.xiv, t1))
	d2 := ivMaxAbs(ivSub(m.xiv, ivAdd(t1, t2)))
	dm := max(d1, d2)
	g := m.f * math.Sqrt(dm*dm+d2*d2) / m.varX
	mn := min(d1, d2)
	a := m.f * absRange(m.k, math.Ln2+m.k+mn*mn/(2*m.varX))
	return finalize(g, a)
}
