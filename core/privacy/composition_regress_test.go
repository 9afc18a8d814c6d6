package privacy

import (
	"math"
	"testing"
)

// Regression: with a large per-step ε the optimal composition's δ' is ≈ 1
// and its log-space sum rounded above 1, giving NaN, which the bisection
// took as "fits": 2000 steps of ε = 1.87 were reported as ε ≈ 3e-9. No
// composition may ever report less than the largest single step's ε, nor
// more than basic composition.
func TestCompositionNeverBelowOneStep(t *testing.T) {
	for _, tc := range []struct {
		eps, delta float64
		k          int
	}{{1.87, 2.5e-9, 2000}, {0.5, 1e-9, 5000}, {3, 1e-10, 100}, {0.05, 1e-10, 20000}, {1e-3, 1e-12, 100000}} {
		for _, total := range []float64{1e-5, 1e-3} {
			e, m, err := BestComposition(tc.eps, tc.delta, tc.k, total)
			if err != nil {
				t.Fatal(err)
			}
			basic := float64(tc.k) * tc.eps
			if e < tc.eps || e > basic*(1+1e-9) || math.IsNaN(e) {
				t.Errorf("%+v at δ %g: %s gives ε = %v (one step %v, basic %v)", tc, total, m, e, tc.eps, basic)
			}
			if d, err := OptimalCompositionDelta(tc.eps, tc.delta, tc.k, 0); err != nil || math.IsNaN(d) || d < 0 || d > 1 {
				t.Errorf("%+v: δ(0) = %v, %v", tc, d, err)
			}
		}
	}
}
