package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradLogLikRowsMatchRow checks that every model's block evaluation is
// bit for bit GradLogLikRow, for all rows (several block lengths crossing
// the batch edge) and for a row list with repeats, including extreme θ
// where the logistic coefficients take their large-|z| path.
func TestGradLogLikRowsMatchRow(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			const n = 600
			m := mustBuild(t, f, n, 8)
			if _, ok := m.(RowGrader); !ok {
				t.Fatalf("%s does not implement RowGrader", m.Name())
			}
			d := m.Dim()
			r := rand.New(rand.NewPCG(9, 10))
			theta := make([]float64, d)
			want := make([]float64, d)
			rows := make([]int, 700)
			for k := range rows {
				rows[k] = r.IntN(n)
			}
			for trial := 0; trial < 4; trial++ {
				sampleBox(r, f.box, theta)
				if trial == 3 {
					for j := range theta {
						theta[j] *= 300
					}
				}
				for _, blk := range []struct{ lo, k int }{{0, n}, {0, 1}, {255, 3}, {17, 513}} {
					out := make([]float64, blk.k*d)
					GradLogLikRows(m, theta, nil, blk.lo, out)
					for k := 0; k < blk.k; k++ {
						m.GradLogLikRow(theta, blk.lo+k, want)
						sameBits(t, "all rows", blk.lo+k, out[k*d:k*d+d], want)
					}
					out = make([]float64, blk.k*d)
					GradLogLikRows(m, theta, rows, blk.lo, out)
					for k := 0; k < blk.k; k++ {
						m.GradLogLikRow(theta, rows[blk.lo+k], want)
						sameBits(t, "row list", rows[blk.lo+k], out[k*d:k*d+d], want)
					}
				}
			}
		})
	}
}

func sameBits(t *testing.T, what string, i int, got, want []float64) {
	t.Helper()
	for j := range want {
		if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
			t.Fatalf("%s, row %d, coordinate %d: GradLogLikRows %v, GradLogLikRow %v", what, i, j, got[j], want[j])
		}
	}
}
