package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

func norm2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestRowBoundsValid samples rows inside the public column bounds (corners
// included) and θ, θ' in the box, and checks the three inequalities of
// RowBounds.
func TestRowBoundsValid(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			m := mustBuild(t, f, 400, 11)
			b := m.RowBounds(f.box)
			for _, v := range []float64{b.Lipschitz, b.GradNorm, b.AbsLogLik} {
				if !(v >= 0) || math.IsInf(v, 1) {
					t.Fatalf("bounds %+v not finite for box %v and bounded data", b, f.box)
				}
			}
			d := m.Dim()
			r := rand.New(rand.NewPCG(12, 13))
			th, th2 := make([]float64, d), make([]float64, d)
			diff := make([]float64, d)
			grad := make([]float64, d)
			l1, l2 := make([]float64, 1), make([]float64, 1)
			const tol = 1 // the bounds carry their own rounding slack
			var maxRatio, maxGrad, maxAbs float64
			for i := 0; i < m.N(); i++ {
				for trial := 0; trial < 25; trial++ {
					sampleBox(r, f.box, th)
					sampleBox(r, f.box, th2)
					m.LogLik(th, []int{i}, l1)
					m.LogLik(th2, []int{i}, l2)
					for k := range diff {
						diff[k] = th[k] - th2[k]
					}
					if dist := norm2(diff); dist > 0 {
						ratio := math.Abs(l1[0]-l2[0]) / dist
						maxRatio = max(maxRatio, ratio)
						if ratio > b.Lipschitz*tol {
							t.Fatalf("row %d: |Δℓ|/‖Δθ‖ = %g > Lipschitz %g (θ=%v θ'=%v)", i, ratio, b.Lipschitz, th, th2)
						}
					}
					m.GradLogLikRow(th, i, grad)
					g := norm2(grad)
					maxGrad = max(maxGrad, g)
					if g > b.GradNorm*tol {
						t.Fatalf("row %d: ‖∇ℓ‖ = %g > GradNorm %g (θ=%v)", i, g, b.GradNorm, th)
					}
					maxAbs = max(maxAbs, math.Abs(l1[0]))
					if math.Abs(l1[0]) > b.AbsLogLik*tol {
						t.Fatalf("row %d: |ℓ| = %g > AbsLogLik %g (θ=%v)", i, math.Abs(l1[0]), b.AbsLogLik, th)
					}
				}
			}
			t.Logf("observed max |Δℓ|/‖Δθ‖ %.4g ≤ %.4g, ‖∇ℓ‖ %.4g ≤ %.4g, |ℓ| %.4g ≤ %.4g",
				maxRatio, b.Lipschitz, maxGrad, b.GradNorm, maxAbs, b.AbsLogLik)
		})
	}
}

func TestRowBoundsUnbounded(t *testing.T) {
	inf := math.Inf(1)
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			m := mustBuild(t, f, 5, 1)
			b := m.RowBounds(nil)
			if b.AbsLogLik != inf {
				t.Errorf("nil box: AbsLogLik %g, want +Inf", b.AbsLogLik)
			}
			if _, ok := m.(*Logistic); ok {
				// Logistic: F·sqrt(intercept + Σ max(lo², hi²)) without a box.
				if math.IsInf(b.GradNorm, 1) || b.GradNorm != b.Lipschitz {
					t.Errorf("logistic nil box: %+v", b)
				}
			} else if b.GradNorm != inf || b.Lipschitz != inf {
				t.Errorf("nil box: %+v, want +Inf", b)
			}
			// A used column without a public bound: everything +Inf.
			tab := f.gen(rand.New(rand.NewPCG(1, 1)), 5)
			for j := range tab.Bounds {
				if tab.Names[j] != "y" {
					tab.Bounds[j] = nil
				}
			}
			m2, err := Build(f.spec, tab)
			if err != nil {
				t.Fatal(err)
			}
			b2 := m2.RowBounds(f.box)
			if b2.GradNorm != inf || b2.Lipschitz != inf || b2.AbsLogLik != inf {
				t.Errorf("unbounded column: %+v, want +Inf", b2)
			}
		})
	}
}

func TestLogisticBoundFormula(t *testing.T) {
	tab := &dataset.Table{
		Names:  []string{"a", "b", "y"},
		Rows:   2,
		Data:   []float64{-2, 0.5, 1, 1, 0, 0},
		Bounds: []*dataset.Bound{{Lo: -3, Hi: 1}, {Lo: 0, Hi: 2}, {Lo: 0, Hi: 1}},
	}
	m, err := Build(Spec{Model: "logistic", Outcome: "y", Temper: 0.5}, tab)
	if err != nil {
		t.Fatal(err)
	}
	b := m.RowBounds(nil)
	want := 0.5 * math.Sqrt(1+9+4)
	if math.Abs(b.GradNorm-want) > 2e-9*want || b.Lipschitz != b.GradNorm || !math.IsInf(b.AbsLogLik, 1) {
		t.Fatalf("nil box: %+v, want GradNorm = Lipschitz = %g, AbsLogLik = +Inf", b, want)
	}
	// Box: η ∈ [−1 − 3·1 − 0, 1 + 3 + 2·2] = [−4, 8] (interval arithmetic).
	box := ivs(-1, 1, -1, 1, 0, 2)
	b = m.RowBounds(box)
	s := max(sigmoid(8), sigmoid(4))
	if math.Abs(b.GradNorm-want*s) > 2e-9*want {
		t.Fatalf("box: GradNorm %g, want %g", b.GradNorm, want*s)
	}
	if a := 0.5 * softplus(8); math.Abs(b.AbsLogLik-a) > 2e-9*a {
		t.Fatalf("box: AbsLogLik %g, want %g", b.AbsLogLik, a)
	}
}

func TestRowBoundsBadBoxPanics(t *testing.T) {
	m := mustBuild(t, fixtures()[0], 5, 1)
	for _, box := range [][]Interval{ivs(0, 1), ivs(0, 1, 0, 1, 2, 1, 0, 1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("box %v: no panic", box)
				}
			}()
			m.RowBounds(box)
		}()
	}
}
