package privacy

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// tight ≤ improved RDP ≤ classic RDP (continuous α) = Bun–Steinke, and on a
// finite grid classic RDP ≥ Bun–Steinke (README's grid note).
func TestGaussianOrdering(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 300; i++ {
		sigma := math.Exp(r.Float64()*6 - 2) // 0.14 … 55
		k := 1 + r.IntN(5000)
		delta := math.Exp(-r.Float64()*25 - 1)
		rho := float64(k) / (2 * sigma * sigma)
		tight, err := TightGaussian{math.Sqrt(2 * rho)}.Epsilon(delta)
		if err != nil {
			t.Fatal(err)
		}
		imp, _, _ := GaussianRDPEpsilon(rho, delta, Improved)
		cls, _, _ := GaussianRDPEpsilon(rho, delta, Classic)
		bs, _ := ZCDP{Rho: rho}.EpsilonBunSteinke(delta)
		slack := 1e-9 * (1 + bs)
		if !(tight <= imp+slack && imp <= cls+slack && math.Abs(cls-bs) <= slack) {
			t.Fatalf("σ=%g k=%d δ=%g: tight %g, improved %g, classic %g, BS %g", sigma, k, delta, tight, imp, cls, bs)
		}
		c, _ := NewRDPCurve(DefaultOrders(), func(a float64) (float64, error) { return rho * a, nil })
		cg, _, _ := RDPToEpsilon(c, delta, Classic)
		ig, _, _ := RDPToEpsilon(c, delta, Improved)
		if cg < bs-slack || ig < imp-slack {
			t.Fatalf("grid below continuous optimum: classic %g < BS %g or improved %g < %g", cg, bs, ig, imp)
		}
	}
}

// δ(ε(δ)) ≤ δ and ε(δ(ε)) ≤ ε within rounding (round trips).
func TestTightRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 500; i++ {
		g := TightGaussian{math.Exp(r.Float64()*8 - 5)}
		delta := math.Exp(-r.Float64()*30 - 0.1)
		e, err := g.Epsilon(delta)
		if err != nil {
			t.Fatal(err)
		}
		if e == 0 {
			continue
		}
		d := g.Delta(e)
		if d > delta*(1+1e-9) || d < delta*(1-1e-6) {
			t.Fatalf("μ=%g δ=%g: ε=%g, δ(ε)=%g", g.Mu, delta, e, d)
		}
	}
}

func TestMaxReleasesAndCalibration(t *testing.T) {
	k, err := MaxGaussianReleases(0.1, 1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	g := TightGaussian{0.1}
	if g.Repeat(float64(k)).Delta(1) > 1e-5 || g.Repeat(float64(k+1)).Delta(1) <= 1e-5 {
		t.Errorf("max releases %d not the boundary", k)
	}
	s, _ := CalibrateGaussian(1, 1e-5, 1, 100)
	if d := (TightGaussian{math.Sqrt(100) / s}).Delta(1); d > 1e-5 {
		t.Errorf("calibrated σ %g gives δ %g", s, d)
	}
}

// PLD lies between the tight Gaussian at q = 1 and the RDP bound.
func TestPLDBetweenTightAndRDP(t *testing.T) {
	cases := []struct {
		z, q  float64
		k     int
		s     Sampling
		rel   Relation
		delta float64
	}{
		{1, 1, 1, Poisson, AddRemove, 1e-5},
		{2, 1, 50, Poisson, AddRemove, 1e-6},
		{1.5, 1, 20, Poisson, Replace, 1e-5},
		{1, 0.01, 1000, Poisson, AddRemove, 1e-5},
		{2, 0.05, 500, Poisson, Replace, 1e-6},
		{2, 0.01, 2000, WithoutReplacement, Replace, 1e-5},
	}
	for _, c := range cases {
		p, err := NewSubsampledGaussianPLD(c.z, c.q, c.k, c.s, c.rel, PLDOptions{})
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		e, err := p.Epsilon(c.delta)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		tight, _ := TightGaussian{c.rel.SensitivityFactor() / c.z}.Repeat(float64(c.k)).Epsilon(c.delta)
		ord := DefaultOrders()
		if c.s == WithoutReplacement {
			ord = IntegerOrders(2, 256)
		}
		curve, err := subsampledCurve(c.z, c.q, c.s, c.rel, ord)
		if err != nil {
			t.Fatal(err)
		}
		rdp, _, _ := RDPToEpsilon(curve.Scale(float64(c.k)), c.delta, Improved)
		lowerOK := e >= tight-1e-9
		if c.q < 1 {
			lowerOK = true // subsampling makes it smaller than the q = 1 bound
			if e > tight+1e-9 {
				t.Errorf("%+v: PLD %g above the unsubsampled tight bound %g", c, e, tight)
			}
		}
		if !lowerOK || e > rdp {
			t.Errorf("%+v: PLD %g not in [tight %g, RDP %g]", c, e, tight, rdp)
		}
		if c.q == 1 && e > tight*1.01+0.02 {
			t.Errorf("%+v: PLD %g much looser than tight %g", c, e, tight)
		}
		// δ(ε) round trip
		if d := p.Delta(e); d > c.delta*1.01 {
			t.Errorf("%+v: δ(ε(δ)) = %g > δ = %g", c, d, c.delta)
		}
	}
}

func TestPLDFailureAndFallback(t *testing.T) {
	// a grid far too small cannot hold the distribution: PLD must say so
	_, err := NewSubsampledGaussianPLD(0.3, 0.5, 100000, Poisson, AddRemove, PLDOptions{GridSize: 1024, MaxPieces: 1000})
	if err == nil {
		t.Fatal("PLD did not detect a grid too small")
	}
	l := &Ledger{Relation: AddRemove, PLD: PLDOptions{GridSize: 1024, MaxPieces: 1000}}
	if err := l.Add(Event{Kind: SubsampledGaussianEvent, NoiseMultiplier: 0.3, Rate: 0.5, Count: 100000}); err != nil {
		t.Fatal(err)
	}
	r, err := l.Epsilon(1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodRDP && r.Method != MethodRDPClassic || r.Note == "" {
		t.Errorf("fallback report %+v", r)
	}
}

func TestLedgerChoosesTightest(t *testing.T) {
	l := &Ledger{Relation: Replace}
	l.Add(Event{Kind: GaussianEvent, Sensitivity: 2, Std: 10, Count: 100})
	r, err := l.Epsilon(1e-6)
	if err != nil || r.Method != MethodTight {
		t.Fatalf("%+v %v", r, err)
	}
	l.Add(Event{Kind: ApproxDPEvent, Epsilon: 0.1, Delta: 1e-7})
	r2, err := l.Epsilon(1e-6)
	if err != nil || r2.Epsilon <= r.Epsilon {
		t.Fatalf("mixed ledger %+v %v", r2, err)
	}
	d, err := l.Delta(r2.Epsilon)
	if err != nil || d.Delta > 1e-6*1.001 {
		t.Errorf("Delta(Epsilon(δ)) = %+v", d)
	}
	if err := l.Add(Event{Kind: SubsampledGaussianEvent, NoiseMultiplier: 1, Rate: 2}); !errors.Is(err, ErrInvalid) {
		t.Errorf("rate 2 accepted: %v", err)
	}
}

func TestOptimalComposition(t *testing.T) {
	// optimal ≤ advanced ≤ basic, and k = 1 gives ε back
	o, _ := OptimalComposition(0.1, 0, 100, 1e-5)
	a, _ := AdvancedEpsilon(0.1, 0, 100, 1e-5)
	if !(o <= a && a <= 10+1e-9) {
		t.Errorf("optimal %g advanced %g", o, a)
	}
	o1, _ := OptimalComposition(0.5, 1e-6, 1, 2e-6)
	if math.Abs(o1-0.5) > 1e-6 && o1 > 0.5 {
		t.Errorf("k=1: %g", o1)
	}
	r, err := FastMHAccount(0.05, 1e-5/20000, 20000, 1e-5)
	if err != nil || r.Method != MethodOptimal {
		t.Errorf("%+v %v", r, err)
	}
}

func TestOPS(t *testing.T) {
	e, _ := OPSEpsilon(0.25, 2)
	if math.Abs(e-2) > 1e-9 {
		t.Errorf("OPS ε = %g", e)
	}
	rho, _ := OPSTemper(1, 2)
	if e, _ := OPSEpsilon(rho, 2); e > 1+1e-9 {
		t.Errorf("OPS temper gives ε %g", e)
	}
}

func TestMALAAndSGLD(t *testing.T) {
	r, err := MALAAccount(0.1, 1, 2, 100, 1000, 1e-5)
	if err != nil || r.Method != MethodTight {
		t.Fatalf("%+v %v", r, err)
	}
	// thesis Theorem 10 (zCDP) must never beat the tight report
	rho := 0.1*0.1*4/8*1000 + 1000/(2*100.0)
	bs, _ := ZCDP{Rho: rho}.EpsilonBunSteinke(1e-5)
	if r.Epsilon > bs {
		t.Errorf("tight %g above zCDP %g", r.Epsilon, bs)
	}
	s, err := SGLDAccount(1, 0.01, WithoutReplacement, Replace, 1000, 1e-5)
	if err != nil || s.Relation != Replace {
		t.Fatalf("%+v %v", s, err)
	}
	if _, err := SGLDAccount(1, 0.01, WithoutReplacement, AddRemove, 1000, 1e-5); err == nil {
		t.Error("fixed-size batches with add/remove accepted")
	}
}

func TestInvalidInputs(t *testing.T) {
	if _, err := PoissonSubsampledGaussianRDP(0, 1, 2); err == nil {
		t.Error("q = 0")
	}
	if _, err := PoissonSubsampledGaussianRDP(0.1, -1, 2); err == nil {
		t.Error("σ < 0")
	}
	if _, err := (TightGaussian{1}).Epsilon(0); err == nil {
		t.Error("δ = 0")
	}
	if _, err := NewSubsampledGaussianPLD(1, 0.1, 0, Poisson, AddRemove, PLDOptions{}); err == nil {
		t.Error("k = 0")
	}
	if _, err := PenaltyAccount(0, 0.1, 10, 1e-5); err == nil {
		t.Error("n = 0")
	}
}
