package audit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
)

// DESIGN.md rule 4, checked from the outside: released noisy floats lie on
// the grid 2^(⌊log₂ σ⌋ − k) of their noise std σ (k = 24). The unit tests of
// the grid itself are core/mcmc TestDPSnapToGrid; these check that the
// kernels' released positions carry it.

// dp-mala releases θ′ = θ + snap(D(θ) + √a·σ_p·z): from θ = 0 the position
// itself is a multiple of the grid step of √a·σ_p.
func TestReleasedMALAPositionOnGrid(t *testing.T) {
	const sp, a = 0.3, 1.0
	pair := Neighbours([][]float64{{0.5}, {-0.2}}, []float64{3}, []float64{-0.1}, nil)
	cfg := mcmc.DPMALAConfig{Step: sp, A: a, Clip: 1, GradClip: 1, Tau: 0.01}
	h := gridStep(math.Sqrt(a)*sp, mcmc.DefaultGridBits)
	mech := KernelSpec{New: func(nb int) (mcmc.Kernel, error) { return mcmc.NewDPMALA(pair[nb], cfg) },
		Theta0: []float64{0}, PublicSeed: 3}.Mechanism()
	moved := 0
	for i := range 2000 {
		out, err := mech(i%2, rand.New(rand.NewChaCha8(trialKey(5, 0, 0, i))))
		if err != nil {
			t.Fatal(err)
		}
		if out[0] == 0 {
			continue
		}
		moved++
		if q := out[0] / h; q != math.Round(q) {
			t.Fatalf("released θ′ = %v is not on the grid %v (θ′/h = %v)", out[0], h, q)
		}
	}
	if moved < 100 {
		t.Fatalf("only %d of 2000 proposals accepted", moved)
	}
}

// dp-hmc with L = 1 releases θ′ = θ + η(p + (η/2)·ĝ(θ)) with ĝ the snapped
// noisy gradient (flat prior): with η a power of two and θ = 0, ĝ is
// recovered from θ′ and the public momentum p up to rounding far below the
// grid step, so it must be within 1e-3 grid steps of a grid point (an
// unsnapped Gaussian would be off by 0.25 steps on average).
func TestReleasedHMCGradientOnGrid(t *testing.T) {
	const eta, G, tauG, n = 1.0 / 16, 1.0, 0.5, 4
	pair := Neighbours([][]float64{{0}, {0}, {0}}, []float64{advSlope}, []float64{0}, nil)
	cfg := mcmc.DPHMCConfig{Step: eta, Leapfrog: 1, Jitter: mcmc.JitterConfig{Kind: "none"},
		Clip: 1e-9, GradClip: G, Tau: 5, TauGrad: tauG}
	sigmaG := tauG * math.Sqrt(n) * 2 * G
	h := gridStep(sigmaG, mcmc.DefaultGridBits)
	const seed = 23
	p := publicNorm(seed, 0)
	mech := KernelSpec{New: func(nb int) (mcmc.Kernel, error) { return mcmc.NewDPHMC(pair[nb], cfg) },
		Theta0: []float64{0}, PublicSeed: seed}.Mechanism()
	moved := 0
	for i := range 2000 {
		out, err := mech(i%2, rand.New(rand.NewChaCha8(trialKey(6, 0, 0, i))))
		if err != nil {
			t.Fatal(err)
		}
		if out[0] == 0 {
			continue
		}
		moved++
		g := (out[0]/eta - p) * 2 / eta
		if q := g / h; math.Abs(q-math.Round(q)) > 1e-3 {
			t.Fatalf("recovered gradient release %v is %v grid steps from the grid %v", g, q-math.Round(q), h)
		}
	}
	if moved < 100 {
		t.Fatalf("only %d of 2000 trajectories accepted", moved)
	}
}

// gridStep is 2^(⌊log₂ std⌋ − bits), as core/mcmc's gridFor.
func gridStep(std float64, bits int) float64 {
	_, e := math.Frexp(std)
	return math.Ldexp(1, e-1-bits)
}
