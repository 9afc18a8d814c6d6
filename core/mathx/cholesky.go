package mathx

import "math"

// Cholesky overwrites the lower triangle of the d × d row-major symmetric
// matrix a with its Cholesky factor L, a = LLᵀ (the upper triangle is left
// as is), and reports whether a is positive definite (on false, a is partly
// overwritten). Plain Go (math.Sqrt is exact on every platform), so the
// factor is the same bits natively and in the browser. It allocates nothing.
func Cholesky(a []float64, d int) bool {
	for j := range d {
		s := a[j*d+j]
		for k := range j {
			s -= a[j*d+k] * a[j*d+k]
		}
		if !(s > 0) {
			return false
		}
		ljj := math.Sqrt(s)
		a[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			s := a[i*d+j]
			for k := range j {
				s -= a[i*d+k] * a[j*d+k]
			}
			a[i*d+j] = s / ljj
		}
	}
	return true
}

// SolveLower overwrites b with L⁻¹b, for L the lower triangle of the d × d
// row-major l (forward substitution).
func SolveLower(l []float64, d int, b []float64) {
	for i := range d {
		s := b[i]
		for k := range i {
			s -= l[i*d+k] * b[k]
		}
		b[i] = s / l[i*d+i]
	}
}

// SolveLowerT overwrites b with L⁻ᵀb, for L the lower triangle of the
// d × d row-major l (back substitution).
func SolveLowerT(l []float64, d int, b []float64) {
	for i := d - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < d; k++ {
			s -= l[k*d+i] * b[k]
		}
		b[i] = s / l[i*d+i]
	}
}

// MulLower writes Lx into out, for L the lower triangle of the d × d
// row-major l (out and x must not overlap).
func MulLower(l []float64, d int, x, out []float64) {
	for i := range d {
		s := 0.0
		for k := 0; k <= i; k++ {
			s += l[i*d+k] * x[k]
		}
		out[i] = s
	}
}

// MulLowerT writes Lᵀx into out, for L the lower triangle of the d × d
// row-major l (out and x must not overlap).
func MulLowerT(l []float64, d int, x, out []float64) {
	for i := range d {
		s := 0.0
		for k := i; k < d; k++ {
			s += l[k*d+i] * x[k]
		}
		out[i] = s
	}
}
