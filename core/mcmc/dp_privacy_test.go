package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// Unit tests of the DP plumbing: grid snapping, exact clipped sums, and the
// mapping of each kernel's PrivacyParams to core/privacy's per-algorithm
// accounting functions.

func TestDPSnapToGrid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 10000; it++ {
		std := math.Exp(20 * (r.Float64() - 0.5))
		h := gridFor(std, DefaultGridBits)
		if !(h <= std*math.Ldexp(1, -DefaultGridBits) && h > std*math.Ldexp(1, -DefaultGridBits-1)) {
			t.Fatalf("gridFor(%v) = %v", std, h)
		}
		if f, _ := math.Frexp(h); f != 0.5 {
			t.Fatalf("grid %v is not a power of two", h)
		}
		x := std * 10 * r.NormFloat64()
		y := snapToGrid(x, h)
		if math.Abs(y-x) > h/2 || math.Mod(y, h) != 0 {
			t.Fatalf("snapToGrid(%v, %v) = %v", x, h, y)
		}
	}
	if snapToGrid(1.234, 0) != 1.234 || gridFor(0, 20) != 0 {
		t.Error("zero grid must be the identity")
	}
}

// TestDPClipSumSensitivity: replacing one row of n moves the computed
// clipped sum by at most 2c (and adding one by at most c), whatever the
// other rows, even with adversarial magnitudes near the bound.
func TestDPClipSumSensitivity(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 1000, 100000} {
		cl := newClipper(n, 1)
		a, b := make([]float64, n), make([]float64, n)
		for trial := 0; trial < 20; trial++ {
			c := math.Exp(10 * (r.Float64() - 0.5))
			for i := range a {
				// Terms just inside and outside ±c, and random ones.
				switch r.IntN(3) {
				case 0:
					a[i] = c * (1 - 1e-13*r.Float64())
				case 1:
					a[i] = -c * (1 + r.Float64())
				default:
					a[i] = c * (2*r.Float64() - 1)
				}
				b[i] = 0
			}
			a[0] = 1e300
			s1, k1 := cl.sumDiff(a, b, c)
			a[0] = -1e300
			s0, k0 := cl.sumDiff(a, b, c)
			if d := s1 - s0; !(d <= 2*c) || d < 2*c*(1-1e-9) {
				t.Fatalf("n=%d: replace-one difference %v, bound 2c = %v", n, d, 2*c)
			}
			if k1 != k0 || k1 < 1 {
				t.Fatalf("clip counts %d, %d", k1, k0)
			}
			a[0] = math.NaN()
			sn, _ := cl.sumDiff(a, b, c)
			if !(math.Abs(sn-s0) <= 2*c) {
				t.Fatalf("NaN row: %v vs %v", sn, s0)
			}
			if !(math.Abs(s1) <= float64(n)*c) {
				t.Fatalf("|sum| %v > n·c", s1)
			}
		}
	}
}

// gradRowsModel has fixed per-row gradients (for the gradient clip test).
type gradRowsModel struct {
	auditModel
	g [][]float64
}

func (m *gradRowsModel) Dim() int { return len(m.g[0]) }
func (m *gradRowsModel) N() int   { return len(m.g) }
func (m *gradRowsModel) GradLogLikRow(theta []float64, i int, grad []float64) {
	copy(grad, m.g[i])
}

func TestDPGradSumSensitivity(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{1, 3, 10} {
		n := 5000
		G := 0.37
		m := &gradRowsModel{g: make([][]float64, n)}
		for i := range m.g {
			v := make([]float64, d)
			s := 0.0
			for j := range v {
				v[j] = r.NormFloat64()
				s += v[j] * v[j]
			}
			// Norms at, just below and far above G.
			scale := G / math.Sqrt(s) * []float64{1, 1 - 1e-15, 1e6, 0.5}[r.IntN(4)]
			for j := range v {
				v[j] *= scale
			}
			m.g[i] = v
		}
		gs := newGradSum(n, d, G)
		out0, out1 := make([]float64, d), make([]float64, d)
		theta := make([]float64, d)
		for trial := 0; trial < 10; trial++ {
			x := make([]float64, d)
			for j := range x {
				x[j] = 1e3 * r.NormFloat64()
			}
			m.g[0] = x
			gs.eval(m, theta, out1)
			for j := range x {
				x[j] = -x[j]
			}
			gs.eval(m, theta, out0)
			diff := 0.0
			for j := range out0 {
				diff += (out1[j] - out0[j]) * (out1[j] - out0[j])
			}
			if diff = math.Sqrt(diff); !(diff <= 2*G) || diff < 2*G*(1-1e-9) {
				t.Fatalf("d=%d: replace-one L2 difference %v, bound %v", d, diff, 2*G)
			}
		}
	}
}

// TestDPPrivacyParams checks each kernel's per-iteration cost against the
// formulas of core/privacy (nominal μ) and that AccountParams reproduces
// the grid-inflated μ through those functions.
func TestDPPrivacyParams(t *testing.T) {
	m, mean, _ := dpGaussModel(t, 100, dpGaussSigma, 0.5, 1)
	n := m.N()
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
	for _, rel := range []string{"replace", "add-remove"} {
		pen, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 3, Tau: 0.2, Relation: rel})
		if err != nil {
			t.Fatal(err)
		}
		pc := pen.PrivacyParams()
		nominal, _ := privacy.PenaltyStepMu(n, 0.2)
		if !close(pc.Gaussian[0].NominalMu, nominal) || !(pc.StepMu() > nominal) || pc.StepMu()-nominal > 1e-6 {
			t.Errorf("penalty %s: μ = %v, nominal %v, privacy %v", rel, pc.StepMu(), pc.Gaussian[0].NominalMu, nominal)
		}
		nn, tau := pen.AccountParams()
		if mu, _ := privacy.PenaltyStepMu(nn, tau); !close(mu, pc.StepMu()) {
			t.Errorf("penalty AccountParams: μ %v vs %v", mu, pc.StepMu())
		}

		hmc, err := NewDPHMC(m, DPHMCConfig{Step: 0.01, Leapfrog: 7, Clip: 3, GradClip: 2, Tau: 0.2, TauGrad: 0.6, Relation: rel})
		if err != nil {
			t.Fatal(err)
		}
		pc = hmc.PrivacyParams()
		nominal, _ = privacy.HMCStepMu(n, 0.2, 0.6, 7)
		nomComposed := math.Sqrt(pc.Gaussian[0].NominalMu*pc.Gaussian[0].NominalMu + 8*pc.Gaussian[1].NominalMu*pc.Gaussian[1].NominalMu)
		if !close(nomComposed, nominal) || pc.StepMu()-nominal > 1e-5 || !(pc.StepMu() > nominal) {
			t.Errorf("hmc %s: μ = %v, nominal %v, privacy %v", rel, pc.StepMu(), nomComposed, nominal)
		}
		nn, tl, tg, L := hmc.AccountParams()
		if mu, _ := privacy.HMCStepMu(nn, tl, tg, L); !close(mu, pc.StepMu()) {
			t.Errorf("hmc AccountParams: μ %v vs %v", mu, pc.StepMu())
		}
		if len(pc.Events(10)) != 2 || pc.Events(10)[1].Count != 80 {
			t.Errorf("hmc events %+v", pc.Events(10))
		}

		mala, err := NewDPMALA(m, DPMALAConfig{Step: 0.01, A: 2, Clip: 3, GradClip: 2, Tau: 4, Relation: rel})
		if err != nil {
			t.Fatal(err)
		}
		pc = mala.PrivacyParams()
		f := 2.0
		if rel == "add-remove" {
			f = 1
		}
		nominal, _ = privacy.MALAStepMu(0.01, 2, f*2, 4)
		nomComposed = math.Hypot(pc.Gaussian[0].NominalMu, pc.Gaussian[1].NominalMu)
		if !close(nomComposed, nominal) || pc.StepMu()-nominal > 1e-5 || !(pc.StepMu() > nominal) {
			t.Errorf("mala %s: μ = %v, nominal %v, privacy %v", rel, pc.StepMu(), nomComposed, nominal)
		}
		sp, a, gsens, tau := mala.AccountParams()
		if mu, _ := privacy.MALAStepMu(sp, a, gsens, tau); !close(mu, pc.StepMu()) {
			t.Errorf("mala AccountParams: μ %v vs %v", mu, pc.StepMu())
		}
	}
	// The ledger gives the same ε as the per-algorithm function.
	pen, _ := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 3, Tau: 0.2})
	l := &privacy.Ledger{Relation: privacy.Replace}
	for _, e := range pen.PrivacyParams().Events(500) {
		if err := l.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := l.Epsilon(1e-5)
	if err != nil {
		t.Fatal(err)
	}
	nn, tau := pen.AccountParams()
	want, _ := privacy.PenaltyAccount(nn, tau, 500, 1e-5)
	if math.Abs(rep.Epsilon-want.Epsilon) > 1e-9 {
		t.Errorf("ledger ε %v vs PenaltyAccount %v", rep.Epsilon, want.Epsilon)
	}
	_ = mean
}

// TestDPAdaptUsesAcceptBitOnly: adaptation must depend only on the released
// accept bit, so two Infos that differ in everything else give the same step.
func TestDPAdaptUsesAcceptBitOnly(t *testing.T) {
	m, _, _ := dpGaussModel(t, 20, dpGaussSigma, 0.5, 1)
	mk := func() []Adaptive {
		p, _ := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 3, Tau: 0.2, Adapt: true})
		h, _ := NewDPHMC(m, DPHMCConfig{Step: 0.01, Leapfrog: 3, Clip: 3, GradClip: 2, Tau: 0.2, TauGrad: 0.6, Adapt: true})
		a, _ := NewDPMALA(m, DPMALAConfig{Step: 0.01, Clip: 3, GradClip: 2, Tau: 4, Adapt: true})
		return []Adaptive{p, h, a}
	}
	k1, k2 := mk(), mk()
	r := rand.New(rand.NewPCG(1, 1))
	for it := 0; it < 200; it++ {
		acc := r.IntN(2) == 0
		for i := range k1 {
			k1[i].Adapt(it, Info{Accepted: acc, AcceptProb: r.Float64(), Clipped: r.IntN(9), Rows: 5})
			k2[i].Adapt(it, Info{Accepted: acc, AcceptProb: r.Float64(), Clipped: 0, Rows: 77})
		}
	}
	for i := range k1 {
		k1[i].EndWarmup()
		k2[i].EndWarmup()
		s1 := k1[i].(interface{ StepSize() float64 }).StepSize()
		s2 := k2[i].(interface{ StepSize() float64 }).StepSize()
		if s1 != s2 {
			t.Errorf("kernel %d: steps %v vs %v", i, s1, s2)
		}
	}
	// DP-MALA's step never exceeds the configured (accounted) one.
	if s := k1[2].(*DPMALA).StepSize(); s > 0.01 {
		t.Errorf("dp-mala step %v > configured 0.01", s)
	}
}

func TestDPConfigErrors(t *testing.T) {
	m, _, _ := dpGaussModel(t, 10, dpGaussSigma, 0.5, 1)
	bad := []func() error{
		func() error { _, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 0, Tau: 1}); return err },
		func() error { _, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 1, Tau: 0}); return err },
		func() error {
			_, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 1, Tau: 1, Relation: "swap"})
			return err
		},
		func() error {
			_, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 1, Tau: 1, Box: []model.Interval{{Lo: 0, Hi: 1}}})
			return err
		},
		func() error {
			_, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 1, Tau: 1, GridBits: 99})
			return err
		},
		func() error {
			_, err := NewDPHMC(m, DPHMCConfig{Step: 0.1, Leapfrog: 0, Clip: 1, GradClip: 1, Tau: 1, TauGrad: 1})
			return err
		},
		func() error {
			_, err := NewDPHMC(m, DPHMCConfig{Step: 0.1, Leapfrog: 3, Clip: 1, GradClip: 0, Tau: 1, TauGrad: 1})
			return err
		},
		func() error {
			_, err := NewDPMALA(m, DPMALAConfig{Step: 0.1, Clip: 1, GradClip: 1, Tau: 0})
			return err
		},
		func() error {
			_, err := NewOPS(m, OPSConfig{Epsilon: 0, Box: []model.Interval{{Lo: -1, Hi: 1}, {Lo: -1, Hi: 1}, {Lo: -1, Hi: 1}}})
			return err
		},
	}
	for i, f := range bad {
		if f() == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	// Init outside the box is refused.
	k, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 1, Tau: 1, Box: []model.Interval{{Lo: 0, Hi: 1}, {Lo: 0, Hi: 1}, {Lo: 0, Hi: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if k.Init([]float64{2, 0.5, 0.5}) == nil {
		t.Error("Init outside the box: no error")
	}
}
