package mathx

import (
	"math"
	"testing"
)

// TestCholeskyAndTriangular: on a 4 × 4 positive definite matrix A, the
// factor satisfies LLᵀ = A, the solves invert L and Lᵀ, and MulLower and
// MulLowerT multiply by them; a matrix with a negative eigenvalue is
// refused.
func TestCholeskyAndTriangular(t *testing.T) {
	const d = 4
	a := []float64{
		4, 2, 0.4, -1,
		2, 5, 1, 0.5,
		0.4, 1, 3, 0.2,
		-1, 0.5, 0.2, 2,
	}
	l := append([]float64(nil), a...)
	if !Cholesky(l, d) {
		t.Fatal("a positive definite matrix refused")
	}
	for i := range d {
		for j := range d {
			s := 0.0
			for c := 0; c <= min(i, j); c++ {
				s += l[i*d+c] * l[j*d+c]
			}
			if math.Abs(s-a[i*d+j]) > 1e-14 {
				t.Errorf("LLᵀ[%d,%d] = %.17g, want %g", i, j, s, a[i*d+j])
			}
		}
	}
	x := []float64{0.3, -1.2, 2.5, 0.7}
	lx, ltx := make([]float64, d), make([]float64, d)
	MulLower(l, d, x, lx)
	MulLowerT(l, d, x, ltx)
	for i := range d {
		s, st := 0.0, 0.0
		for c := range d {
			if c <= i {
				s += l[i*d+c] * x[c]
			}
			if c >= i {
				st += l[c*d+i] * x[c]
			}
		}
		if lx[i] != s || ltx[i] != st {
			t.Errorf("row %d: Lx %g (want %g), Lᵀx %g (want %g)", i, lx[i], s, ltx[i], st)
		}
	}
	SolveLower(l, d, lx)
	SolveLowerT(l, d, ltx)
	for i := range d {
		if math.Abs(lx[i]-x[i]) > 1e-14 || math.Abs(ltx[i]-x[i]) > 1e-14 {
			t.Errorf("solves: L⁻¹Lx[%d] = %g, L⁻ᵀLᵀx[%d] = %g, want %g", i, lx[i], i, ltx[i], x[i])
		}
	}
	bad := []float64{1, 2, 2, 1} // eigenvalues 3 and −1
	if Cholesky(bad, 2) {
		t.Error("an indefinite matrix was factored")
	}
}
