package privacy

import (
	"math"
	"testing"
)

// With almost no noise the accountants must report an unbounded (or huge)
// ε, never a small one. Before the guard, the Poisson-subsampled Gaussian's
// RDP series divided 0 by 0 once σ² underflowed (σ ≤ 1e−162) and the
// ledger reported ε = 0 at σ = 1e−200 and 1e−300; the PLD accountant
// panicked (an int64 overflow in its grid size) or ran for minutes at
// σ = 0.01.
func TestTinyNoiseNeverLooksPrivate(t *testing.T) {
	for _, s := range []Sampling{Poisson, WithoutReplacement} {
		prev := math.Inf(1)
		for _, z := range []float64{1e-300, 1e-200, 1e-163, 1e-100, 1e-20, 1e-5, 1e-2, 0.5, 2} {
			l := &Ledger{Relation: AddRemove}
			if s == WithoutReplacement {
				l = &Ledger{Relation: Replace, Orders: IntegerOrders(2, 256)}
			}
			if err := l.Add(Event{Kind: SubsampledGaussianEvent, NoiseMultiplier: z, Rate: 0.01, Sampling: s, Count: 10}); err != nil {
				t.Fatal(err)
			}
			r, err := l.Epsilon(1e-5)
			eps := r.Epsilon
			if err != nil {
				eps = math.Inf(1) // "no finite ε": the honest answer here
			}
			if z < 1e-2 && !(eps > 1e6) {
				t.Errorf("%v, σ = %g: ε = %g (err %v), want unbounded or huge", s, z, r.Epsilon, err)
			}
			if eps > prev*(1+1e-9) {
				t.Errorf("%v: ε rises from %g to %g as σ grows to %g", s, prev, eps, z)
			}
			prev = eps
		}
	}
	for _, z := range []float64{1e-300, 1e-200, 1e-5} {
		v, err := PoissonSubsampledGaussianRDP(0.01, z, 1.5)
		if err != nil || !(v > 1e6) {
			t.Errorf("RDP at σ = %g, α = 1.5: %g, %v", z, v, err)
		}
		if _, err := NewSubsampledGaussianPLD(z, 0.01, 10, Poisson, AddRemove, PLDOptions{}); err == nil {
			t.Errorf("PLD accepted σ = %g (below MinPLDNoiseMultiplier)", z)
		}
	}
}
