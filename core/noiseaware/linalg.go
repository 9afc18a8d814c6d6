package noiseaware

import (
	"errors"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

var errNotPD = errors.New("noise-aware: matrix is not positive definite")

// cholesky overwrites the lower triangle of the d × d row-major matrix a
// with L, a = LLᵀ (mathx.Cholesky). It allocates nothing.
func cholesky(a []float64, d int) error {
	if !mathx.Cholesky(a, d) {
		return errNotPD
	}
	return nil
}

// forward solves L x = b in place (L lower triangular in a).
func forward(a []float64, d int, b []float64) { mathx.SolveLower(a, d, b) }

// backward solves Lᵀ x = b in place.
func backward(a []float64, d int, b []float64) { mathx.SolveLowerT(a, d, b) }

// cholSolve solves a x = b for symmetric positive definite a (copied).
func cholSolve(a []float64, d int, b, x []float64) error {
	l := append([]float64(nil), a...)
	if err := cholesky(l, d); err != nil {
		return err
	}
	copy(x, b)
	forward(l, d, x)
	backward(l, d, x)
	return nil
}

// psdPart returns the symmetric matrix with the eigenvalues of a clipped
// below at 0 (jacobiPSD on a copy). It is plain Go, like everything on the
// path from the data to a draw: the expansion points it shapes must be the
// same bits natively and in the browser (gonum's eigensolver runs amd64
// assembly and moved them in the last bits).
func psdPart(a []float64, d int) []float64 {
	return clippedPart(a, d, math.Inf(1))
}

// clippedPart returns the projection of the symmetric d × d matrix a on
// {A ⪰ 0, tr A ≤ hi} (jacobiClip), leaving a unchanged.
func clippedPart(a []float64, d int, hi float64) []float64 {
	out := append([]float64(nil), a...)
	jacobiClip(out, make([]float64, d*d), make([]float64, d), d, hi)
	return out
}

// jacobiPSD overwrites the symmetric d × d matrix a with its projection on
// the positive semi-definite cone (eigenvalues clipped at 0), by cyclic
// Jacobi rotations; v (d × d) and w (d) are scratch. It allocates nothing.
func jacobiPSD(a, v, w []float64, d int) { jacobiClip(a, v, w, d, math.Inf(1)) }

// jacobiClip is jacobiPSD onto the matrices with 0 ⪯ A and tr A ≤ hi:
// the Frobenius-nearest such matrix, whose eigenvalues are the projection
// of A's on {λ ≥ 0, Σλ ≤ hi} (max(λ − t, 0), t ≥ 0 the smallest shift
// that brings the sum to hi; shrinkToSum). Where the PSD part's trace is
// at most hi it is jacobiPSD to the last bit.
func jacobiClip(a, v, w []float64, d int, hi float64) {
	jacobiEigen(a, v, w, d)
	sum := 0.0
	for i := range d {
		w[i] = math.Max(w[i], 0)
		sum += w[i]
	}
	if sum > hi {
		shrinkToSum(w, hi)
	}
	for i := range d {
		for j := range d {
			s := 0.0
			for k := range d {
				s += v[i*d+k] * w[k] * v[j*d+k]
			}
			a[i*d+j] = s
		}
	}
}

// jacobiEigen diagonalises the symmetric d × d matrix a in place by cyclic
// Jacobi rotations: afterwards w holds its eigenvalues and v (d × d) the
// eigenvectors as columns (a = V diag(w) Vᵀ), and a is diagonal up to
// rounding. It allocates nothing.
func jacobiEigen(a, v, w []float64, d int) {
	for i := range d {
		for j := range d {
			v[i*d+j] = 0
		}
		v[i*d+i] = 1
	}
	for sweep := 0; sweep < 50; sweep++ {
		off, scale := 0.0, 0.0
		for i := range d {
			scale += a[i*d+i] * a[i*d+i]
			for j := i + 1; j < d; j++ {
				off += a[i*d+j] * a[i*d+j]
			}
		}
		if off <= 1e-30*scale || off == 0 {
			break
		}
		for p := 0; p < d; p++ {
			for q := p + 1; q < d; q++ {
				apq := a[p*d+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*d+q] - a[p*d+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range d { // columns p, q of a
					akp, akq := a[k*d+p], a[k*d+q]
					a[k*d+p], a[k*d+q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := range d { // rows p, q of a
					apk, aqk := a[p*d+k], a[q*d+k]
					a[p*d+k], a[q*d+k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := range d {
					vkp, vkq := v[k*d+p], v[k*d+q]
					v[k*d+p], v[k*d+q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	for i := range d {
		w[i] = a[i*d+i]
	}
}

// shrinkToSum replaces the non-negative w (sum above total) by
// max(w_i − t, 0) with t such that the sum is total: the Euclidean
// projection on {w ≥ 0, Σw = total} (Held, Wolfe and Crowder 1974). It
// allocates nothing: t is found by bisection on the monotone sum, to the
// last bits of total.
func shrinkToSum(w []float64, total float64) {
	lo, hi := 0.0, 0.0
	for _, x := range w {
		hi = math.Max(hi, x)
	}
	for range 200 {
		t := (lo + hi) / 2
		if t == lo || t == hi {
			break
		}
		s := 0.0
		for _, x := range w {
			s += math.Max(x-t, 0)
		}
		if s > total {
			lo = t
		} else {
			hi = t
		}
	}
	for i, x := range w {
		w[i] = math.Max(x-hi, 0)
	}
}
