package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// base holds what every model shares.
type base struct {
	name  string
	n, d  int
	names []string
	f     float64 // tempering F: ℓ_i = F·log p(x_i | θ)
}

func (b *base) Name() string { return b.name }
func (b *base) Dim() int     { return b.d }
func (b *base) N() int       { return b.n }

// ParamNames returns a copy of the parameter names.
func (b *base) ParamNames() []string { return append([]string(nil), b.names...) }

// Temper is the tempering factor F.
func (b *base) Temper() float64 { return b.f }

// regression is the shared part of the generalized linear models: a
// contiguous row-major design matrix x (n × d, column 0 is the constant 1
// when the model has an intercept), the outcome y, and the N(0, s²) prior on
// every coefficient (the intercept included).
type regression struct {
	base
	x       []float64
	y       []float64
	priorSD float64
	// xiv[k] is the public range of design column k ([1,1] for the
	// intercept); yiv the public range of the outcome.
	xiv []Interval
	yiv Interval
	// scaling is non-nil when the design columns are stored scaled to
	// [−1, 1] by their public bounds (Spec.Scale = bounds): the model's
	// coefficients are then those of the scaled predictors.
	scaling *Scaling
	// userPrior (with scaling, Spec.Scale = auto) puts the N(0, s²) prior on
	// the coefficients in the user's units θ = T(β) instead of on β.
	userPrior bool
	// logDetUser is log|det ∂θ/∂β| = −Σ_j log h_j (userPrior only).
	logDetUser float64
}

// dot is Σ_k a_k b_k with len(b) ≥ len(a); unrolled by four.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(a); k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < len(a); k++ {
		s0 += a[k] * b[k]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy is y += c·x with len(y) ≥ len(x).
func axpy(c float64, x, y []float64) {
	y = y[:len(x)]
	for k, v := range x {
		y[k] += c * v
	}
}

func (m *regression) row(i int) []float64 { return m.x[i*m.d : i*m.d+m.d] }

// LogPrior is Σ_k log N(θ_k; 0, s²) (normalized). With a user-unit prior
// on a scaled model (userPrior) the parameters are β and the prior is on
// θ = T(β) (Scaling.ToUser: θ_j = β_j/h_j, θ_0 = β_0 − Σ_j β_j c_j/h_j), so
// the density of β is Σ_k log N(θ_k; 0, s²) + log|det ∂θ/∂β|, with
// log|det ∂θ/∂β| = −Σ_j log h_j (triangular).
func (m *regression) LogPrior(theta []float64) float64 {
	s2 := m.priorSD * m.priorSD
	c := -float64(m.d) * (mathx.Log(m.priorSD) + halfLog2Pi)
	if m.userPrior {
		return -0.5*m.userPriorSq(theta)/s2 + c + m.logDetUser
	}
	q := 0.0
	for _, v := range theta[:m.d] {
		q += v * v
	}
	return -0.5*q/s2 + c
}

// userPriorSq returns Σ_k θ_k² for θ = T(β).
func (m *regression) userPriorSq(beta []float64) (q float64) {
	sc := m.scaling
	shift := 0.0
	for j, b := range beta[:m.d] {
		if j == 0 && sc.Intercept {
			continue
		}
		t := b / sc.Half[j]
		q += t * t
		shift += t * sc.Centre[j]
	}
	if sc.Intercept {
		t0 := beta[0] - shift
		q += t0 * t0
	}
	return q
}

// GradLogPrior writes −θ/s² (userPrior: the chain rule through T,
// ∂/∂β_0 = −θ_0/s², ∂/∂β_j = (−θ_j + θ_0·c_j)/(s²·h_j)).
func (m *regression) GradLogPrior(theta []float64, grad []float64) {
	s2 := m.priorSD * m.priorSD
	grad = grad[:m.d]
	if m.userPrior {
		sc := m.scaling
		t0 := 0.0
		if sc.Intercept {
			t0 = theta[0]
			for j := 1; j < m.d; j++ {
				t0 -= theta[j] * sc.Centre[j] / sc.Half[j]
			}
			grad[0] = -t0 / s2
		}
		for j := range grad {
			if j == 0 && sc.Intercept {
				continue
			}
			grad[j] = (-theta[j]/sc.Half[j] + t0*sc.Centre[j]) / (s2 * sc.Half[j])
		}
		return
	}
	for k, v := range theta[:m.d] {
		grad[k] = -v / s2
	}
}

// priorPrecision returns the prior's precision matrix on the model's
// parameters (d × d, row-major): I/s², or JᵀJ/s² with J = ∂θ/∂β for a
// user-unit prior on a scaled model.
func (m *regression) priorPrecision() []float64 {
	d := m.d
	lam := make([]float64, d*d)
	s2 := m.priorSD * m.priorSD
	if !m.userPrior {
		for j := 0; j < d; j++ {
			lam[j*d+j] = 1 / s2
		}
		return lam
	}
	sc := m.scaling
	J := make([]float64, d*d) // J[k*d+a] = ∂θ_k/∂β_a
	for j := 0; j < d; j++ {
		if j == 0 && sc.Intercept {
			J[0] = 1
			continue
		}
		J[j*d+j] = 1 / sc.Half[j]
		if sc.Intercept {
			J[j] = -sc.Centre[j] / sc.Half[j]
		}
	}
	for a := 0; a < d; a++ {
		for b := 0; b < d; b++ {
			v := 0.0
			for k := 0; k < d; k++ {
				v += J[k*d+a] * J[k*d+b]
			}
			lam[a*d+b] = v / s2
		}
	}
	return lam
}

// hasIntercept reports whether design column 0 is the constant 1 of an
// intercept.
func (m *regression) hasIntercept() bool {
	return len(m.names) > 0 && m.names[0] == "intercept" && m.xiv[0] == Interval{1, 1}
}

// PriorSD is the prior standard deviation s of every coefficient.
func (m *regression) PriorSD() float64 { return m.priorSD }

// etaRange encloses η = x̃ᵀθ over the public data bounds and the box.
func (m *regression) etaRange(box []Interval) Interval {
	eta := Interval{0, 0}
	for k := 0; k < m.d; k++ {
		eta = ivAdd(eta, ivMul(m.xiv[k], boxIv(box, k)))
	}
	return eta
}

// xNorm bounds ‖x̃‖₂ = sqrt(Σ_k x̃_k²) over the public data bounds (the
// intercept contributes 1).
func (m *regression) xNorm() float64 {
	s := 0.0
	for _, iv := range m.xiv {
		a := ivMaxAbs(iv)
		s += a * a
	}
	return math.Sqrt(s)
}

const halfLog2Pi = 0.91893853320467274178032973640561763986139747363778 // ½·log(2π)

// softplus(z) = log(1 + e^z) = max(z, 0) + log1p(e^{−|z|}), computed stably
// and without a data-dependent branch (the sign of z is unpredictable).
func softplus(z float64) float64 {
	return max(z, 0) + log1pExpNeg(math.Abs(z))
}

// sigmoid(z) = 1/(1+e^{−z}), computed stably.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + mathx.Exp(-z))
	}
	e := mathx.Exp(z)
	return e / (1 + e)
}

// Logistic is Bernoulli regression with the logit link:
//
//	P(y_i = 1 | θ) = σ(η_i),  η_i = x̃_iᵀθ,  x̃_i = (1, x_i) (intercept by default)
//	ℓ_i(θ) = F·(y_i η_i − log(1 + e^{η_i})) = −F·softplus((1 − 2y_i)·η_i)
//	∇ℓ_i(θ) = F·(y_i − σ(η_i))·x̃_i
//	prior θ_k ~ N(0, s²) independently (s = 10 by default).
//
// Bounds (RowBounds): over the public column bounds, ‖x̃‖ ≤ X̄ =
// sqrt(1 + Σ_j max(lo_j², hi_j²)); interval arithmetic over the box and the
// column bounds gives η ∈ [η⁻, η⁺]. Then |y − σ(η)| ≤ max(σ(η⁺), σ(−η⁻))
// (≤ 1; exactly 1 for a nil box), so GradNorm = Lipschitz =
// F·X̄·max(σ(η⁺), σ(−η⁻)), and AbsLogLik = F·max(softplus(η⁺), softplus(−η⁻))
// (+Inf for a nil box).
type Logistic struct {
	regression
	sgn []float64 // 1 − 2y_i
}

// The logistic passes work in batches of batchLen rows: z_i = sgn_i·η_i by
// matVec, then one branch-free loop for the log-likelihood (negSoftplusBatch,
// z = sgn·η and the table-driven log(1 + e^{−|z|}), softplus.go) and, for
// the gradient, one for t = e^{−|z|} (expNegBatch). With t:
//
//	ℓ_i = −F·(max(z, 0) + log1p(t)),  ∂ℓ_i/∂η_i = F·(y_i − σ(η_i)) = −F·sgn_i·σ(z)
//
// and σ(z) = 1/(1+t) or t/(1+t) by the sign of z (no cancellation, unlike
// 1 − σ(η) for y = 1).

// LogLik implements Model.
func (m *Logistic) LogLik(theta []float64, rows []int, out []float64) {
	m.pass(theta, rows, nil, out, nil, false)
}

// logLikFused implements fusedPasser (LogLikDiff, LogLikSum).
func (m *Logistic) logLikFused(theta []float64, rows []int, cur, out []float64, sum bool) float64 {
	return m.pass(theta, rows, cur, out, nil, sum)
}

// logLikRatio implements ratioPasser: η at θ and θ' from the same row
// loads (matVecPair), cur = ℓ(θ), out = ℓ(θ') − ℓ(θ); bit for bit two
// LogLik calls.
func (m *Logistic) logLikRatio(thetaNew, theta []float64, rows []int, cur, out []float64) {
	n := m.n
	if rows != nil {
		n = len(rows)
	}
	out, cur = out[:n], cur[:n]
	var zb, z2b, sb [batchLen]float64
	for lo := 0; lo < n; lo += batchLen {
		hi := min(lo+batchLen, n)
		z, z2 := zb[:hi-lo], z2b[:hi-lo]
		matVecPair(m.x, m.d, theta, thetaNew, rows, lo, z, z2)
		sg := sb[:len(z)]
		if rows == nil {
			sg = m.sgn[lo:hi]
		} else {
			for k, i := range rows[lo:hi] {
				sg[k] = m.sgn[i]
			}
		}
		c, o := cur[lo:hi], out[lo:hi]
		negSoftplusBatch(z, sg, c, m.f)
		negSoftplusBatch(z2, sg, o, m.f)
		for k, v := range c[:len(o)] {
			o[k] -= v
		}
	}
}

// pass is the batched pass over rows (all when nil). With out not nil it
// writes out[k] = ℓ_i(θ) − cur[k] (ℓ_i(θ) when cur is nil); with sum set
// it returns the sum of those values in row order; with grad not nil it
// writes Σ ∇ℓ_i into grad. The subtraction and the sum happen while the
// batch is in cache, bit for bit the same as separate passes.
func (m *Logistic) pass(theta []float64, rows []int, cur, out, grad []float64, sum bool) float64 {
	th := theta[:m.d]
	n := m.n
	if rows != nil {
		n = len(rows)
	}
	if out != nil {
		out = out[:n]
	}
	if cur != nil {
		cur = cur[:n]
	}
	if grad != nil {
		grad = grad[:m.d]
		clear(grad)
	}
	f := m.f
	var zb, tb, lb, sb [batchLen]float64
	s := 0.0
	for lo := 0; lo < n; lo += batchLen {
		hi := min(lo+batchLen, n)
		z := zb[:hi-lo]
		matVec(m.x, m.d, th, rows, lo, z)
		l := lb[:len(z)]
		if out != nil {
			l = out[lo:hi]
		}
		sg := sb[:len(z)]
		if rows == nil {
			sg = m.sgn[lo:hi]
		} else {
			for k, i := range rows[lo:hi] {
				sg[k] = m.sgn[i]
			}
		}
		negSoftplusBatch(z, sg, l, f)
		if cur != nil {
			c := cur[lo:hi]
			for k, v := range c[:len(l)] {
				l[k] -= v
			}
		}
		if sum {
			for _, v := range l {
				s += v
			}
		}
		if grad != nil {
			c := tb[:len(z)]
			gradCoefBatch(z, sg, c, f)
			m.gradBatch(rows, lo, c, grad)
		}
	}
	return s
}

// LogLikGrad returns Σ_i ℓ_i(θ) over all rows and writes Σ_i ∇ℓ_i(θ) into
// grad, in one pass over the data (HMC's last leapfrog step needs both).
// The values are those of LogLik (summed in row order) and GradLogLik.
func (m *Logistic) LogLikGrad(theta, grad []float64) float64 {
	return m.pass(theta, nil, nil, nil, grad, true)
}

// GradLogLikRow implements Model.
func (m *Logistic) GradLogLikRow(theta []float64, i int, grad []float64) {
	row := m.row(i)
	z := m.sgn[i] * dot(row, theta)
	c := -m.f * m.sgn[i] * sigmoidFromExp(z, expNeg(math.Abs(z)))
	grad = grad[:m.d]
	for k, v := range row {
		grad[k] = c * v
	}
}

// GradLogLik implements Model.
func (m *Logistic) GradLogLik(theta []float64, rows []int, grad []float64) {
	grad = grad[:m.d]
	clear(grad)
	th := theta[:m.d]
	n := m.n
	if rows != nil {
		n = len(rows)
	}
	var zb, tb, sb [batchLen]float64
	for lo := 0; lo < n; lo += batchLen {
		hi := min(lo+batchLen, n)
		z := zb[:hi-lo]
		t := tb[:len(z)]
		matVec(m.x, m.d, th, rows, lo, z)
		sg := sb[:len(z)]
		if rows == nil {
			sg = m.sgn[lo:hi]
		} else {
			for k, i := range rows[lo:hi] {
				sg[k] = m.sgn[i]
			}
		}
		gradCoefBatch(z, sg, t, m.f)
		m.gradBatch(rows, lo, t, grad)
	}
}

// gradBatch adds Σ_k c_k·x̃_i (i = lo+k or rows[lo+k]) into grad, with
// c_k = −F·sgn_i·σ(z_k) from gradCoefBatch. The rows are added two at a
// time (grad[j] += c₀x₀ⱼ + c₁x₁ⱼ, an odd last row alone), which halves the
// chain of dependent additions through grad.
//
// Each grad[j] only ever sees its own additions, in row order, so the loops
// are nested column-outer: four columns at a time held in locals, the rows
// in the inner loop (addressed by index arithmetic on the flat x). That is
// bit for bit the row-outer order, with one loop iteration per pair of rows
// and four columns instead of one per column; the wasm build (where every
// loop iteration costs a dispatch) gains most.
func (m *Logistic) gradBatch(rows []int, lo int, c, grad []float64) {
	if gradBatchFixed(m.x, m.d, rows, lo, c, grad) { // the same sums, written out (kernels_gen.go)
		return
	}
	gradBatchLoop(m.x, m.d, rows, lo, c, grad)
}

// gradBatchLoop is gradBatch for any row length d.
func gradBatchLoop(x []float64, d int, rows []int, lo int, c, grad []float64) {
	n := len(c)
	grad = grad[:d]
	np := n &^ 1
	if rows == nil {
		base := lo * d
		j := 0
		for ; j+4 <= d; j += 4 {
			g0, g1, g2, g3 := grad[j], grad[j+1], grad[j+2], grad[j+3]
			p := base + j
			for k := 0; k < np; k += 2 {
				c0, c1 := c[k], c[k+1]
				q := p + d
				g0 += c0*x[p] + c1*x[q]
				g1 += c0*x[p+1] + c1*x[q+1]
				g2 += c0*x[p+2] + c1*x[q+2]
				g3 += c0*x[p+3] + c1*x[q+3]
				p = q + d
			}
			if np < n {
				c0 := c[np]
				g0 += c0 * x[p]
				g1 += c0 * x[p+1]
				g2 += c0 * x[p+2]
				g3 += c0 * x[p+3]
			}
			grad[j], grad[j+1], grad[j+2], grad[j+3] = g0, g1, g2, g3
		}
		for ; j < d; j++ {
			g0 := grad[j]
			p := base + j
			for k := 0; k < np; k += 2 {
				q := p + d
				g0 += c[k]*x[p] + c[k+1]*x[q]
				p = q + d
			}
			if np < n {
				g0 += c[np] * x[p]
			}
			grad[j] = g0
		}
		return
	}
	rs := rows[lo : lo+n]
	j := 0
	for ; j+4 <= d; j += 4 {
		g0, g1, g2, g3 := grad[j], grad[j+1], grad[j+2], grad[j+3]
		for k := 0; k < np; k += 2 {
			c0, c1 := c[k], c[k+1]
			p, q := rs[k]*d+j, rs[k+1]*d+j
			g0 += c0*x[p] + c1*x[q]
			g1 += c0*x[p+1] + c1*x[q+1]
			g2 += c0*x[p+2] + c1*x[q+2]
			g3 += c0*x[p+3] + c1*x[q+3]
		}
		if np < n {
			c0, p := c[np], rs[np]*d+j
			g0 += c0 * x[p]
			g1 += c0 * x[p+1]
			g2 += c0 * x[p+2]
			g3 += c0 * x[p+3]
		}
		grad[j], grad[j+1], grad[j+2], grad[j+3] = g0, g1, g2, g3
	}
	for ; j < d; j++ {
		g0 := grad[j]
		for k := 0; k < np; k += 2 {
			g0 += c[k]*x[rs[k]*d+j] + c[k+1]*x[rs[k+1]*d+j]
		}
		if np < n {
			g0 += c[np] * x[rs[np]*d+j]
		}
		grad[j] = g0
	}
}

// RowBounds implements Model; see the type's doc comment.
func (m *Logistic) RowBounds(box []Interval) RowBounds {
	checkBox(box, m.d, m.name)
	eta := m.etaRange(box)
	s := max(sigmoid(eta.Hi), sigmoid(-eta.Lo))
	g := m.f * mulz(s, m.xNorm())
	a := m.f * max(softplus(eta.Hi), softplus(-eta.Lo))
	return finalize(g, a)
}

// Linear is Gaussian linear regression with a known noise scale σ
// (option noise-sd, default 1):
//
//	y_i ~ N(η_i, σ²),  η_i = x̃_iᵀθ
//	ℓ_i(θ) = F·(−(y_i − η_i)²/(2σ²) − log σ − ½log 2π)
//	∇ℓ_i(θ) = F·(y_i − η_i)/σ² · x̃_i
//	prior θ_k ~ N(0, s²) independently (s = 10 by default).
//
// Bounds: with η ∈ [η⁻, η⁺] by interval arithmetic over the box and the
// column bounds, the residual r = y − η lies in [y⁻ − η⁺, y⁺ − η⁻], so
// |r| ≤ R. GradNorm = Lipschitz = F·R·X̄/σ² (X̄ as for Logistic) and
// AbsLogLik = F·max(|c|, |R²/(2σ²) + c|) with c = log σ + ½log 2π.
// Both are +Inf for a nil box or an unbounded column.
type Linear struct {
	regression
	sigma float64
	c     float64 // log σ + ½ log 2π
}

// NoiseSD is the known noise standard deviation σ.
func (m *Linear) NoiseSD() float64 { return m.sigma }

// RowHessianTrace is F·X̄²/σ², a public bound on the trace of every row's
// log-likelihood Hessian −F·x̃x̃ᵀ/σ² (trace F·‖x̃‖²/σ², X̄ the bound on ‖x̃‖
// from the public column bounds in the sampled parameterization; +Inf for
// an unbounded column). The mixing forecast bounds the posterior's widest
// sd with it (core/run/forecast.go), as for the Gaussian mean model.
func (m *Linear) RowHessianTrace() float64 {
	x := m.xNorm()
	return m.f * x * x / (m.sigma * m.sigma)
}

// LogLik implements Model.
func (m *Linear) LogLik(theta []float64, rows []int, out []float64) {
	th := theta[:m.d]
	h := -0.5 * m.f / (m.sigma * m.sigma)
	fc := m.f * m.c
	if rows == nil {
		out = out[:m.n]
		y := m.y[:m.n]
		for i := range out {
			r := y[i] - dot(m.x[i*m.d:i*m.d+m.d], th)
			out[i] = h*r*r - fc
		}
		return
	}
	out = out[:len(rows)]
	for k, i := range rows {
		r := m.y[i] - dot(m.row(i), th)
		out[k] = h*r*r - fc
	}
}

// GradLogLikRow implements Model.
func (m *Linear) GradLogLikRow(theta []float64, i int, grad []float64) {
	row := m.row(i)
	c := m.f * (m.y[i] - dot(row, theta)) / (m.sigma * m.sigma)
	grad = grad[:m.d]
	for k, v := range row {
		grad[k] = c * v
	}
}

// GradLogLik implements Model.
func (m *Linear) GradLogLik(theta []float64, rows []int, grad []float64) {
	grad = grad[:m.d]
	clear(grad)
	th := theta[:m.d]
	fs := m.f / (m.sigma * m.sigma)
	if rows == nil {
		for i := 0; i < m.n; i++ {
			row := m.x[i*m.d : i*m.d+m.d]
			axpy(fs*(m.y[i]-dot(row, th)), row, grad)
		}
		return
	}
	for _, i := range rows {
		row := m.row(i)
		axpy(fs*(m.y[i]-dot(row, th)), row, grad)
	}
}

// RowBounds implements Model; see the type's doc comment.
func (m *Linear) RowBounds(box []Interval) RowBounds {
	checkBox(box, m.d, m.name)
	r := ivMaxAbs(ivSub(m.yiv, m.etaRange(box)))
	s2 := m.sigma * m.sigma
	g := m.f * mulz(r, m.xNorm()) / s2
	a := m.f * absRange(m.c, r*r/(2*s2)+m.c)
	return finalize(g, a)
}

// Poisson is Poisson regression with the log link:
//
//	y_i ~ Poisson(λ_i),  λ_i = exp(η_i),  η_i = x̃_iᵀθ
//	ℓ_i(θ) = F·(y_i η_i − e^{η_i} − log y_i!)
//	∇ℓ_i(θ) = F·(y_i − e^{η_i})·x̃_i
//	prior θ_k ~ N(0, s²) independently (s = 10 by default).
//
// Bounds: η ∈ [η⁻, η⁺] by interval arithmetic and y ∈ [y⁻, y⁺] ∩ [0, ∞)
// (public bound of the outcome), so |y − e^η| ≤ R = max(|y⁻ − e^{η⁺}|,
// |y⁺ − e^{η⁻}|) and GradNorm = Lipschitz = F·R·X̄. By the triangle
// inequality, AbsLogLik = F·(y⁺·max(|η⁻|, |η⁺|) + e^{η⁺} + log Γ(y⁺ + 1)),
// using 0 ≤ log y! ≤ log Γ(y⁺+1) for integer 0 ≤ y ≤ y⁺. +Inf for a nil box
// or an unbounded outcome/predictor.
type Poisson struct {
	regression
	lfact []float64 // log y_i!
}

// LogLik implements Model.
func (m *Poisson) LogLik(theta []float64, rows []int, out []float64) {
	th := theta[:m.d]
	f := m.f
	if rows == nil {
		out = out[:m.n]
		y := m.y[:m.n]
		lf := m.lfact[:m.n]
		for i := range out {
			eta := dot(m.x[i*m.d:i*m.d+m.d], th)
			out[i] = f * (y[i]*eta - mathx.Exp(eta) - lf[i])
		}
		return
	}
	out = out[:len(rows)]
	for k, i := range rows {
		eta := dot(m.row(i), th)
		out[k] = f * (m.y[i]*eta - mathx.Exp(eta) - m.lfact[i])
	}
}

// GradLogLikRow implements Model.
func (m *Poisson) GradLogLikRow(theta []float64, i int, grad []float64) {
	row := m.row(i)
	c := m.f * (m.y[i] - mathx.Exp(dot(row, theta)))
	grad = grad[:m.d]
	for k, v := range row {
		grad[k] = c * v
	}
}

// GradLogLik implements Model.
func (m *Poisson) GradLogLik(theta []float64, rows []int, grad []float64) {
	grad = grad[:m.d]
	clear(grad)
	th := theta[:m.d]
	if rows == nil {
		for i := 0; i < m.n; i++ {
			row := m.x[i*m.d : i*m.d+m.d]
			axpy(m.f*(m.y[i]-mathx.Exp(dot(row, th))), row, grad)
		}
		return
	}
	for _, i := range rows {
		row := m.row(i)
		axpy(m.f*(m.y[i]-mathx.Exp(dot(row, th))), row, grad)
	}
}

// ExpectedRowHessianTrace is F·X̄²·y⁺, a public bound on the posterior
// expectation of the average row's log-likelihood Hessian trace,
// (1/n)·E_π[Σ_i F·λ_i‖x̃_i‖²] ≤ F·X̄²·E_π[Σ_i λ_i]/n (X̄ the bound on ‖x̃‖
// from the public column bounds, y⁺ the outcome's public upper bound).
// No per-row bound exists (λ_i = e^{η_i} is unbounded in θ), but with an
// intercept the posterior expectation of its score is zero (π vanishes at
// infinity): F·Σ_i (y_i − E_π λ_i) − E_π[θ_0]/s² = 0, so
// E_π Σ_i λ_i = Σ_i y_i − E_π[θ_0]/(F s²) ≤ n·y⁺ − E_π[θ_0]/(F s²). The
// last term, the prior's pull on the intercept, is left out: it is below
// 0.1 for a posterior intercept mean within two prior sds of 0 at the
// scaled prior's s = 20 (0.2 at s = 10), against n·y⁺. By the Cramér–Rao
// inequality for location families, Cov_π ≥ (E_π[−∇² log π])⁻¹, so the
// mixing forecast's posterior-sd bounds (core/run/forecast.go) hold with
// this expected trace as with a per-row one. 0 without an intercept (no
// such identity) and +Inf for an unbounded outcome or predictor.
func (m *Poisson) ExpectedRowHessianTrace() float64 {
	if !m.hasIntercept() {
		return 0
	}
	x := m.xNorm()
	return m.f * x * x * max(m.yiv.Hi, 0)
}

// RowBounds implements Model; see the type's doc comment.
func (m *Poisson) RowBounds(box []Interval) RowBounds {
	checkBox(box, m.d, m.name)
	eta := m.etaRange(box)
	y := Interval{max(m.yiv.Lo, 0), max(m.yiv.Hi, 0)}
	lam := Interval{mathx.Exp(eta.Lo), mathx.Exp(eta.Hi)}
	r := ivMaxAbs(ivSub(y, lam))
	g := m.f * mulz(r, m.xNorm())
	lg := mathx.LogFactorial(math.Ceil(max(y.Hi, 0))) // ≥ lgamma(y.Hi + 1): still an upper bound
	a := m.f * (mulz(y.Hi, ivMaxAbs(eta)) + lam.Hi + lg)
	return finalize(g, a)
}

// LeastSquaresResidualSD returns the residual sd of the least-squares fit
// of the outcome on the design, √(Σ_i (y_i − x̃_iᵀb)²/(n − d)) with b
// solving x̃ᵀx̃·b = x̃ᵀy (n − d degrees of freedom: unbiased for σ² under
// the model). Only a non-private run may use it, as a plug-in for σ: it
// reads every row. It refuses n ≤ d and a design whose columns are
// collinear on these rows.
func (m *Linear) LeastSquaresResidualSD() (float64, error) {
	n, d := m.n, m.d
	if n <= d {
		return 0, fmt.Errorf("%d rows for %d coefficients leave no residual degrees of freedom", n, d)
	}
	a := make([]float64, d*d)
	b := make([]float64, d)
	for i := range n {
		row := m.x[i*d : (i+1)*d]
		for j, v := range row {
			b[j] += v * m.y[i]
			for k := range j + 1 {
				a[j*d+k] += v * row[k]
			}
		}
	}
	if !mathx.Cholesky(a, d) {
		return 0, errors.New("the predictors are collinear on these rows (least squares has no unique fit)")
	}
	mathx.SolveLower(a, d, b)
	mathx.SolveLowerT(a, d, b)
	rss := 0.0
	for i := range n {
		r := m.y[i] - dot(m.x[i*d:(i+1)*d], b)
		rss += r * r
	}
	s := math.Sqrt(rss / float64(n-d))
	if !(s > 0) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("the least-squares residual sd is %v (the outcome is fitted exactly or overflows)", s)
	}
	return s, nil
}

// WithNoiseSD returns a copy of m whose known noise sd is s (> 0), sharing
// its data.
func (m *Linear) WithNoiseSD(s float64) *Linear {
	c := *m
	c.sigma, c.c = s, mathx.Log(s)+halfLog2Pi
	return &c
}
