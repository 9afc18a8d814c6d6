package privacy

import (
	"math"
	"testing"
)

// An ε far beyond any privacy budget gives δ = 0, not NaN (the CLI audit's
// account gaussian --noise-multiplier 1 --epsilon 1e300 failed to print
// its JSON).
func TestTightGaussianDeltaHugeEpsilon(t *testing.T) {
	for _, eps := range []float64{1e155, 1e300, math.MaxFloat64} {
		if d := (TightGaussian{Mu: 1}).Delta(eps); d != 0 {
			t.Errorf("δ(%g) = %v, want 0", eps, d)
		}
	}
}
