package model

import "github.com/dpmcmc/dpmcmc/core/mathx"

// Per-row gradients of a block of rows. The DP gradient kernels clip every
// row's ∇ℓ_i(θ) before summing, so they cannot use GradLogLik's sum; with
// GradLogLikRows a model evaluates a block in one call and computes its
// θ-dependent constants once per block rather than once per row (Σ⁻¹θ for
// the Gaussian mean: d² multiplications per row saved; aθ₁² for the
// banana), and the logistic model uses its batch kernels. Every value is
// bit for bit GradLogLikRow's (TestGradLogLikRowsMatchRow), so samplers
// give the same draws either way.

// RowGrader is implemented by models that write the per-row gradients of a
// block of rows in one call.
type RowGrader interface {
	// GradLogLikRows writes ∇ℓ_i(θ) into out[k·d : (k+1)·d] for
	// i = rows[lo+k] (i = lo+k when rows is nil), k < len(out)/d, d = Dim(),
	// bit for bit GradLogLikRow. It must not allocate.
	GradLogLikRows(theta []float64, rows []int, lo int, out []float64)
}

var (
	_ RowGrader = (*Banana)(nil)
	_ RowGrader = (*GaussianMean)(nil)
	_ RowGrader = (*Logistic)(nil)
	_ RowGrader = (*Linear)(nil)
	_ RowGrader = (*Poisson)(nil)
	_ RowGrader = (*GMM)(nil)
)

// GradLogLikRows writes the per-row gradients ∇ℓ_i(θ), i = rows[lo+k]
// (lo+k when rows is nil), into out[k·d : (k+1)·d] for k < len(out)/d: in
// one call for a RowGrader, row by row otherwise.
func GradLogLikRows(m Model, theta []float64, rows []int, lo int, out []float64) {
	if rg, ok := m.(RowGrader); ok {
		rg.GradLogLikRows(theta, rows, lo, out)
		return
	}
	d := m.Dim()
	for k := 0; k < len(out)/d; k++ {
		i := lo + k
		if rows != nil {
			i = rows[lo+k]
		}
		m.GradLogLikRow(theta, i, out[k*d:k*d+d])
	}
}

// rowIndex is i = rows[lo+k], or lo+k when rows is nil.
func rowIndex(rows []int, lo, k int) int {
	if rows == nil {
		return lo + k
	}
	return rows[lo+k]
}

// GradLogLikRows implements RowGrader: r1 = (x1 − θ1)/σ1², r2 =
// (x2 − θ2 − aθ1²)/σ2², ∇ℓ = F·(r1 + 2aθ1·r2, r2, (x_j − θ_j)/σ_j²…).
func (m *Banana) GradLogLikRows(theta []float64, rows []int, lo int, out []float64) {
	d := m.d
	th := theta[:d]
	v := m.v[:d]
	t0, t1 := th[0], th[1]
	at2 := m.a * t0 * t0
	a2t := 2 * m.a * t0
	v0, v1 := v[0], v[1]
	f := m.f
	for k := 0; k < len(out)/d; k++ {
		i := rowIndex(rows, lo, k)
		x := m.x[i*d : i*d+d]
		g := out[k*d : k*d+d]
		r1 := (x[0] - t0) / v0
		r2 := (x[1] - t1 - at2) / v1
		// 0 + … as GradLogLikRow's clear-and-add (the sign of a zero).
		g[0] = (0 + (r1 + a2t*r2)) * f
		g[1] = (0 + r2) * f
		for j := 2; j < d; j++ {
			g[j] = (0 + (x[j]-th[j])/v[j]) * f
		}
	}
}

// GradLogLikRows implements RowGrader: F·(w_i − Σ⁻¹θ), Σ⁻¹θ once per call
// (for d ≤ 64; larger d goes row by row, as there is no scratch space in an
// immutable model).
func (m *GaussianMean) GradLogLikRows(theta []float64, rows []int, lo int, out []float64) {
	d := m.d
	var pbuf [64]float64
	if d > len(pbuf) {
		for k := 0; k < len(out)/d; k++ {
			m.GradLogLikRow(theta, rowIndex(rows, lo, k), out[k*d:k*d+d])
		}
		return
	}
	p := pbuf[:d]
	for j := range p {
		p[j] = dot(m.prec[j*d:j*d+d], theta)
	}
	f := m.f
	for k := 0; k < len(out)/d; k++ {
		i := rowIndex(rows, lo, k)
		w := m.w[i*d : i*d+d]
		g := out[k*d : k*d+d]
		for j, pj := range p {
			g[j] = f * (w[j] - pj)
		}
	}
}

// GradLogLikRows implements RowGrader: η by matVec, the coefficients
// −F·sgn·σ(sgn·η) by gradCoefBatch, then coefficient × x̃_i.
func (m *Logistic) GradLogLikRows(theta []float64, rows []int, lo int, out []float64) {
	var zb, sb, cb [batchLen]float64
	for b := 0; b < len(out)/m.d; b += batchLen {
		z := zb[:min(batchLen, len(out)/m.d-b)]
		sg, c := sb[:len(z)], cb[:len(z)]
		matVec(m.x, m.d, theta, rows, lo+b, z)
		for k := range sg {
			sg[k] = m.sgn[rowIndex(rows, lo+b, k)]
		}
		gradCoefBatch(z, sg, c, m.f)
		m.scaledRows(rows, lo+b, c, out[b*m.d:])
	}
}

// GradLogLikRows implements RowGrader: F·(y_i − η_i)/σ²·x̃_i.
func (m *Linear) GradLogLikRows(theta []float64, rows []int, lo int, out []float64) {
	var cb [batchLen]float64
	s2 := m.sigma * m.sigma
	for b := 0; b < len(out)/m.d; b += batchLen {
		c := cb[:min(batchLen, len(out)/m.d-b)]
		matVec(m.x, m.d, theta, rows, lo+b, c)
		for k, eta := range c {
			c[k] = m.f * (m.y[rowIndex(rows, lo+b, k)] - eta) / s2
		}
		m.scaledRows(rows, lo+b, c, out[b*m.d:])
	}
}

// GradLogLikRows implements RowGrader: F·(y_i − e^{η_i})·x̃_i.
func (m *Poisson) GradLogLikRows(theta []float64, rows []int, lo int, out []float64) {
	var cb [batchLen]float64
	for b := 0; b < len(out)/m.d; b += batchLen {
		c := cb[:min(batchLen, len(out)/m.d-b)]
		matVec(m.x, m.d, theta, rows, lo+b, c)
		for k, eta := range c {
			c[k] = m.f * (m.y[rowIndex(rows, lo+b, k)] - mathx.Exp(eta))
		}
		m.scaledRows(rows, lo+b, c, out[b*m.d:])
	}
}

// scaledRows writes c[k]·x̃_i into out[k·d : (k+1)·d] for i = rows[lo+k]
// (lo+k when rows is nil): a GLM's per-row gradient is a coefficient times
// its row.
func (m *regression) scaledRows(rows []int, lo int, c, out []float64) {
	d := m.d
	for k, ck := range c {
		i := rowIndex(rows, lo, k)
		x := m.x[i*d : i*d+d]
		g := out[k*d : k*d+d]
		for j, v := range x {
			g[j] = ck * v
		}
	}
}

// GradLogLikRows implements RowGrader (rowGrad for each row).
func (m *GMM) GradLogLikRows(theta []float64, rows []int, lo int, out []float64) {
	for k := 0; k < len(out)/2; k++ {
		out[2*k], out[2*k+1] = m.rowGrad(theta, m.x[rowIndex(rows, lo, k)])
	}
}
