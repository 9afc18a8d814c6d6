package model

import "math"

// LogLikRatio writes out[k] = ℓ_i(θ') − ℓ_i(θ) for i = rows[k] (every row
// when rows is nil), with θ' = thetaNew. cur is scratch of the same length as
// out; on return cur[k] = ℓ_i(θ), so a sampler that accepts can keep
// ℓ(θ') = cur + out, and one that rejects can reuse cur with LogLikDiff.
// The values are bit for bit LogLik's (out[k] is the difference of the two
// doubles); models with a fused pass (GMM) evaluate both parameters on
// each row while it is in cache. It allocates nothing.
func LogLikRatio(m Model, thetaNew, theta []float64, rows []int, cur, out []float64) {
	if fm, ok := m.(ratioPasser); ok {
		fm.logLikRatio(thetaNew, theta, rows, cur, out)
		return
	}
	m.LogLik(theta, rows, cur)
	LogLikDiff(m, thetaNew, rows, cur, out)
}

// fusedPasser is implemented by models whose LogLik pass can subtract
// cached values and sum while each batch of rows is in cache:
// logLikFused writes out[k] = ℓ_i(θ) − cur[k] (ℓ_i(θ) when cur is nil) and,
// when sum is set, returns Σ_k out[k] in row order; bit for bit LogLik
// followed by the subtraction and the sum.
type fusedPasser interface {
	logLikFused(theta []float64, rows []int, cur, out []float64, sum bool) float64
}

// ratioPasser is implemented by models that evaluate LogLikRatio in one
// pass over the rows (bit for bit the two LogLik calls).
type ratioPasser interface {
	logLikRatio(thetaNew, theta []float64, rows []int, cur, out []float64)
}

// LogLikDiff writes out[k] = ℓ_i(θ') − cur[k] for i = rows[k] (every row when
// rows is nil), where cur holds cached values ℓ_i(θ) for the same rows.
func LogLikDiff(m Model, thetaNew []float64, rows []int, cur, out []float64) {
	n := len(rows)
	if rows == nil {
		n = m.N()
	}
	out = out[:n]
	cur = cur[:n]
	if fm, ok := m.(fusedPasser); ok {
		fm.logLikFused(thetaNew, rows, cur, out, false)
		return
	}
	m.LogLik(thetaNew, rows, out)
	for k := range out {
		out[k] -= cur[k]
	}
}

// LogPosterior is log p(θ) + Σ_i ℓ_i(θ) over all rows, using buf (len ≥ N())
// as scratch. It is −Inf outside the prior's support.
func LogPosterior(m Model, theta []float64, buf []float64) float64 {
	lp := m.LogPrior(theta)
	if math.IsInf(lp, -1) {
		return lp
	}
	return lp + LogLikSum(m, theta, nil, buf)
}

// GradLogPosterior writes ∇ log p(θ) + Σ_i ∇ℓ_i(θ) (all rows) into grad,
// using scratch (len ≥ Dim()).
func GradLogPosterior(m Model, theta, grad, scratch []float64) {
	d := m.Dim()
	m.GradLogLik(theta, nil, grad)
	m.GradLogPrior(theta, scratch[:d])
	for k := range grad[:d] {
		grad[k] += scratch[k]
	}
}
