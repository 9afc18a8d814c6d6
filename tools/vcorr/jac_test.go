package main

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestJacobian(t *testing.T) {
	K := 3
	p := []float64{0.5, 1.5, 2.5, -0.3, 0.1, 0.4, 0.2, -0.1, 0.3}
	x := gridX()
	r := make([]float64, gridN)
	J := mat.NewDense(gridN, len(p), nil)
	residuals(p, K, 1.5, x, r, J)
	r2 := make([]float64, gridN)
	for i := range p {
		q := append([]float64(nil), p...)
		q[i] += 1e-6
		residuals(q, K, 1.5, x, r2, nil)
		for _, j := range []int{0, 300, 400, 700} {
			fd := (r2[j] - r[j]) / 1e-6
			if math.Abs(fd-J.At(j, i)) > 1e-4*(1+math.Abs(fd)) {
				t.Errorf("p%d x%d: fd %v J %v", i, j, fd, J.At(j, i))
			}
		}
	}
}
