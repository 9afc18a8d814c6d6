package model

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model/internal/kernels"
)

// TestFixedKernelsMatchLoops checks every generated fixed-dimension kernel
// against the generic loop for its d, bit for bit (signs of zeros
// included), for all rows and for a row list, at batch-edge lengths, with
// θ = 0 and negative data (the sums are then signed zeros) as well as
// random values; and that kernels_gen.go is what the generator writes
// (run `go generate ./core/model` after changing internal/kernels).
func TestFixedKernelsMatchLoops(t *testing.T) {
	if maxFixedD != kernels.MaxD {
		t.Fatalf("maxFixedD %d, generator %d", maxFixedD, kernels.MaxD)
	}
	r := rand.New(rand.NewPCG(21, 22))
	same := func(what string, d int, got, want []float64) {
		t.Helper()
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("d=%d %s[%d]: fixed %v (%#x), loop %v (%#x)", d, what, k, got[k], math.Float64bits(got[k]), want[k], math.Float64bits(want[k]))
			}
		}
	}
	const n = 301
	for d := 1; d <= maxFixedD; d++ {
		x := make([]float64, n*d)
		for trial := 0; trial < 3; trial++ {
			th1, th2 := make([]float64, d), make([]float64, d)
			for i := range x {
				switch trial {
				case 0: // zero θ, non-positive data: every product is a signed zero
					x[i] = -math.Abs(r.NormFloat64())
					if i%7 == 0 {
						x[i] = math.Copysign(0, -1)
					}
				default:
					x[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3))
				}
			}
			if trial > 0 {
				for j := range th1 {
					th1[j], th2[j] = r.NormFloat64(), -r.NormFloat64()
				}
			} else {
				th2[0] = math.Copysign(0, -1)
			}
			rows := make([]int, n)
			for k := range rows {
				rows[k] = r.IntN(n)
			}
			for _, rs := range [][]int{nil, rows} {
				for _, blk := range []struct{ lo, k int }{{0, n}, {0, 1}, {3, 256}, {44, 257}, {100, 0}} {
					a1, a2 := make([]float64, blk.k), make([]float64, blk.k)
					b1, b2 := make([]float64, blk.k), make([]float64, blk.k)
					matVecFixed(x, d, th1, rs, blk.lo, a1)
					matVecLoop(x, d, th1, rs, blk.lo, b1)
					same("matVec", d, a1, b1)
					matVecPairFixed(x, d, th1, th2, rs, blk.lo, a1, a2)
					matVecPairLoop(x, d, th1, th2, rs, blk.lo, b1, b2)
					same("matVecPair 1", d, a1, b1)
					same("matVecPair 2", d, a2, b2)
					c := make([]float64, blk.k)
					for k := range c {
						c[k] = r.NormFloat64()
						if trial == 0 {
							c[k] = math.Copysign(0, -1)
						}
					}
					g1, g2 := make([]float64, d), make([]float64, d)
					for j := range g1 {
						g1[j] = float64(j) - 0.5
						if trial == 0 {
							g1[j] = math.Copysign(0, -1)
						}
						g2[j] = g1[j]
					}
					gradBatchFixed(x, d, rs, blk.lo, c, g1)
					gradBatchLoop(x, d, rs, blk.lo, c, g2)
					same("gradBatch", d, g1, g2)
				}
			}
		}
	}
	src, err := kernels.Source()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("kernels_gen.go"); err != nil || !bytes.Equal(got, src) {
		t.Fatalf("kernels_gen.go is not what internal/kernels generates (err %v): run go generate ./core/model", err)
	}
}
