package privacy

import (
	"math"
	"testing"
)

// Vectors A1–A17 from ../shared/testdata/README.md (copied here so the tests
// pass on a fresh clone).

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.12g, want %.12g ± %g", name, got, want, tol)
	}
}

func nearRel(t *testing.T, name string, got, want, rtol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > rtol*math.Abs(want) {
		t.Errorf("%s = %.12g, want %.12g (rtol %g)", name, got, want, rtol)
	}
}

func TestA1A2GaussianRDP(t *testing.T) {
	near(t, "A1", GaussianRDP(20, 10), 0.1, 1e-15)
	near(t, "A2", GaussianRDP(3.14159, 2.71828), 0.2125842722, 1e-7)
}

func TestA3A4PoissonSubsampledGaussianRDP(t *testing.T) {
	v, err := PoissonSubsampledGaussianRDP(0.1, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A3", 10*v, 0.0773697, 1e-5)
	want := map[float64]float64{1.5: 6.50070897e-4, 2.5: 1.08541806e-3, 5: 2.18075656e-3, 50: 2.38460375e-2, 100: 167.416308}
	for a, w := range want {
		v, err := PoissonSubsampledGaussianRDP(0.01, 2.5, a)
		if err != nil {
			t.Fatal(err)
		}
		nearRel(t, "A4", 50*v, w, 1e-4)
	}
}

func TestA5Conversions(t *testing.T) {
	c := RDPCurve{Orders: IntegerOrders(2, 32)}
	for range c.Orders {
		c.Eps = append(c.Eps, 1.1)
	}
	e, o, err := RDPToEpsilon(c, 1e-5, Improved)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A5 improved", e, 1.32783806176, 1e-7)
	if o != 32 {
		t.Errorf("A5 order %v, want 32", o)
	}
	e, _, _ = RDPToEpsilon(c, 1e-5, Classic)
	near(t, "A5 classic", e, 1.4713846924, 1e-7)
}

func TestA6GaussianGrid(t *testing.T) {
	sigma := 4.530877117
	var ord []float64
	for i := 1001; i <= 99999; i++ {
		ord = append(ord, float64(i)/1000)
	}
	c, _ := NewRDPCurve(ord, func(a float64) (float64, error) { return GaussianRDP(a, sigma), nil })
	e, _, _ := RDPToEpsilon(c, 1e-6, Improved)
	near(t, "A6 grid", e, 1.0, 1e-7)
	e2, _, _ := GaussianRDPEpsilon(1/(2*sigma*sigma), 1e-6, Improved)
	near(t, "A6 continuous", e2, 1.0, 1e-7)
	if e2 > e+1e-12 {
		t.Errorf("continuous optimum %v above grid %v", e2, e)
	}
}

func TestA7ZCDPComposition(t *testing.T) {
	z := ZCDP{Rho: 2.71828, Xi: 3.14159}.Compose(ZCDP{Rho: 6.28319, Xi: 1.23456})
	near(t, "A7", z.RDP(2), 22.37909, 1e-5)
}

func TestA8A9Orderings(t *testing.T) {
	z := ZCDP{Rho: 0.5}
	bs, _ := z.EpsilonBunSteinke(1e-5)
	near(t, "A8 zCDP", bs, 5.298525912, 1e-6)
	imp, _, _ := GaussianRDPEpsilon(0.5, 1e-5, Improved)
	near(t, "A8 improved RDP", imp, 4.728386985, 1e-6)
	zt, _ := z.Epsilon(1e-5)
	near(t, "A8 zCDP tighter", zt, 4.728386985, 1e-6)
	tight, _ := TightGaussian{1}.Epsilon(1e-5)
	near(t, "A8 tight", tight, 4.377178096, 1e-6)
	rho, _ := RhoForBunSteinke(1, 1e-6)
	near(t, "A9", rho, 0.0174689048, 1e-9)
}

func TestA10A11TightDelta(t *testing.T) {
	eps := []float64{-2, -1, 0, 1, 2}
	a10 := []float64{0.86749642, 0.67881797, 0.38292492, 0.12693674, 0.020923636}
	a11 := []float64{0.90958223, 0.81968818, 0.68268949, 0.50986166, 0.331897999}
	for i, e := range eps {
		mu, _ := GaussianMu(AddRemove.SensitivityFactor()*1, 1)
		near(t, "A10", TightGaussian{mu}.Delta(e), a10[i], 1e-7)
		mu, _ = GaussianMu(Replace.SensitivityFactor()*1, 1)
		near(t, "A11", TightGaussian{mu}.Delta(e), a11[i], 1e-7)
	}
}

func TestA12A13Calibration(t *testing.T) {
	s, err := CalibrateGaussian(1, 0.78760074, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A12", s, 1.0/3, 1e-7)
	e, _ := TightGaussian{1}.Epsilon(1e-5)
	near(t, "A13 ε", e, 4.377178096, 1e-7)
	g := ComposeGaussians(0.1).Repeat(1000)
	near(t, "A13 μ", g.Mu, 3.16228, 1e-5)
	near(t, "A13 δ(1)", g.Delta(1), 0.8185178155, 1e-7)
	e, _ = g.Epsilon(1e-5)
	near(t, "A13 ε(1e-5)", e, 17.85658683, 1e-7)
}

func TestA14SommerForm(t *testing.T) {
	sommer := func(m, eps float64) float64 {
		return 0.5 * (math.Erfc((eps-m)/(2*math.Sqrt(m))) - math.Exp(eps)*math.Erfc((eps+m)/(2*math.Sqrt(m))))
	}
	for _, c := range []struct{ m, eps, want float64 }{{0.5, 1, 0.1269367375}, {0.125, 2, 9.4391686e-6}} {
		g := TightGaussian{math.Sqrt(2 * c.m)}
		near(t, "A14", g.Delta(c.eps), c.want, 1e-9)
		near(t, "A14 Sommer closed form", sommer(c.m, c.eps), c.want, 1e-9)
		near(t, "A14 m", g.SommerM(), c.m, 1e-15)
	}
}

func TestA15Advanced(t *testing.T) {
	a, err := AdvancedComposition(0.1, 0, 100, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A15", a.Epsilon, 5.8502350929, 1e-9)
	near(t, "A15 δ", a.Delta, 1e-5, 1e-15)
}

func TestA16BarkerRDP(t *testing.T) {
	for _, c := range []struct{ a, want float64 }{{2, 0.3581391622}, {10, 0.0649104357}, {50, 0.1458417951}} {
		v, err := BarkerRDP(1000, c.a, 2)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "A16", v, c.want, 1e-10)
	}
	if _, err := BarkerRDP(1000, 200, 2); err == nil {
		t.Error("α = b/5 accepted")
	}
	if _, err := BarkerRDP(1000, 2, 1); err == nil {
		t.Error("C ≠ 2 accepted")
	}
}

func TestA17BarkerChain(t *testing.T) {
	c, err := BarkerChainRDP(1000000, 1000, 20000, BarkerOrders(1000))
	if err != nil {
		t.Fatal(err)
	}
	e, o, _ := RDPToEpsilon(c, 1e-6, Classic)
	near(t, "A17", e, 1.0004195705, 1e-9)
	if o != 29 {
		t.Errorf("A17 order %v, want 29", o)
	}
	best, classic, err := BarkerAccount(1000000, 1000, 20000, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A17 via BarkerAccount", classic.Epsilon, 1.0004195705, 1e-9)
	if best.Epsilon > classic.Epsilon {
		t.Errorf("best %v above classic %v", best.Epsilon, classic.Epsilon)
	}
}

// Banana anchors (testdata README, experiment anchors): total iterations
// allowed at ε = 2/6/10/15, δ = 0.1/n, n = 1e5.
func TestBananaAnchors(t *testing.T) {
	n := 100000
	delta := 0.1 / float64(n)
	eps := []float64{2, 6, 10, 15}
	pen := []int{580, 4136, 9871, 19180}
	hmc := []int{108, 769, 1836, 3569}
	for i, e := range eps {
		k, err := PlanPenaltyIterations(n, 0.17, e, delta)
		if err != nil {
			t.Fatal(err)
		}
		if d := k - pen[i]; d < -1 || d > 1 {
			t.Errorf("penalty at ε=%v: %d iterations, want %d ± 1", e, k, pen[i])
		}
		k, err = PlanHMCIterations(n, 0.1, 0.55, 25, e, delta)
		if err != nil {
			t.Fatal(err)
		}
		if d := k - hmc[i]; d < -1 || d > 1 {
			t.Errorf("DP-HMC at ε=%v: %d iterations, want %d ± 1", e, k, hmc[i])
		}
		// the planned count is within budget, one more is not
		r, _ := PenaltyAccount(n, 0.17, k, delta)
		_ = r
	}
}
