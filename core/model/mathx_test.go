package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLog1pUnit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pts := []float64{0, 1, 5e-324, 1e-300, 1e-20, 0.41421356237309503, math.Nextafter(0.41421356237309503, 0), math.Nextafter(0.41421356237309503, 1), math.Nextafter(1, 0)}
	for i := 0; i < 200000; i++ {
		pts = append(pts, r.Float64(), math.Exp(-40*r.Float64()))
	}
	for _, x := range pts {
		got, want := log1pUnit(x), math.Log1p(x)
		ulp := math.Nextafter(want, 2) - want
		if math.Abs(got-want) > ulp {
			t.Fatalf("log1pUnit(%g) = %.17g, math.Log1p %.17g", x, got, want)
		}
	}
	for _, z := range []float64{math.Inf(1), math.Inf(-1), 0, 800, -800, 1e-300} {
		want := math.Log1p(math.Exp(z))
		if z > 0 {
			want = z + math.Log1p(math.Exp(-z))
		}
		if got := softplus(z); got != want && math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Fatalf("softplus(%g) = %g, want %g", z, got, want)
		}
	}
}
