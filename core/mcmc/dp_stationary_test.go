package mcmc

import (
	"math"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// Stationary-distribution tests of the DP kernels on the conjugate
// Gaussian-mean model (d = 3, n = 50, correlated posterior): with the noise
// switched off each kernel is its non-private counterpart, and with the
// noise on (clip bounds large enough that no log-likelihood ratio is
// clipped) the penalty-type kernels keep the posterior invariant. Means and
// variances must match the analytic posterior within 4 Monte Carlo standard
// errors (batch means), with a power guard against stuck chains.

type dpCase struct {
	name          string
	kernel        func(m model.Model) (Kernel, error)
	warmup, draws int
	noLLClip      bool // assert that nothing was clipped
}

const dpTestN = 50

var dpStationaryCases = []dpCase{
	{"penalty/noise-off", func(m model.Model) (Kernel, error) {
		return NewDPPenalty(m, DPPenaltyConfig{Step: 0.08, Clip: 1e3, Tau: 1, NoiseOff: true})
	}, 2000, 200000, true},
	{"penalty/noise", func(m model.Model) (Kernel, error) {
		return NewDPPenalty(m, DPPenaltyConfig{Step: 0.08, Clip: 20, Tau: 0.02})
	}, 2000, 200000, true},
	{"penalty/noise-add-remove-adapt", func(m model.Model) (Kernel, error) {
		return NewDPPenalty(m, DPPenaltyConfig{Step: 0.2, Clip: 20, Tau: 0.04, Relation: "add-remove", Adapt: true})
	}, 3000, 200000, true},
	{"penalty/noise-ocu", func(m model.Model) (Kernel, error) {
		return NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 20, Tau: 0.02, OCU: true})
	}, 2000, 300000, true},
	{"penalty/noise-grw", func(m model.Model) (Kernel, error) {
		return NewDPPenalty(m, DPPenaltyConfig{Step: 0.1, Clip: 20, Tau: 0.02, GRW: true})
	}, 2000, 300000, true},
	{"penalty/noise-adapt-metric", func(m model.Model) (Kernel, error) {
		return NewDPPenalty(m, DPPenaltyConfig{Step: 0.08, Clip: 20, Tau: 0.02, Adapt: true, AdaptMetric: true})
	}, 3000, 200000, true},
	{"hmc/noise-off", func(m model.Model) (Kernel, error) {
		return NewDPHMC(m, DPHMCConfig{Step: 0.04, Leapfrog: 8, Clip: 1e3, GradClip: 1e3, Tau: 1, TauGrad: 1, NoiseOff: true})
	}, 500, 40000, true},
	{"hmc/noise", func(m model.Model) (Kernel, error) {
		return NewDPHMC(m, DPHMCConfig{Step: 0.04, Leapfrog: 8, Clip: 20, GradClip: 20, Tau: 0.003, TauGrad: 0.005})
	}, 500, 40000, true},
	{"hmc/noise-gradclip-adapt", func(m model.Model) (Kernel, error) {
		// Gradient clipping does not change the target (Thm 3.3).
		return NewDPHMC(m, DPHMCConfig{Step: 0.04, Leapfrog: 8, Clip: 20, GradClip: 1, Tau: 0.003, TauGrad: 0.005, Adapt: true})
	}, 1000, 40000, false},
	{"hmc/noise-adapt-metric", func(m model.Model) (Kernel, error) {
		// Some per-row gradients are clipped once the metric lengthens the
		// trajectory; gradient clipping does not change the target.
		return NewDPHMC(m, DPHMCConfig{Step: 0.04, Leapfrog: 8, Clip: 20, GradClip: 20, Tau: 0.003, TauGrad: 0.005, Adapt: true, AdaptMetric: true})
	}, 1000, 40000, false},
	{"mala/noise-off", func(m model.Model) (Kernel, error) {
		return NewDPMALA(m, DPMALAConfig{Step: 0.1, Clip: 1e3, GradClip: 1e3, Tau: 1, NoiseOff: true})
	}, 1000, 100000, true},
	{"mala/noise", func(m model.Model) (Kernel, error) {
		// Gradient clipping (G = 2) only changes the proposal, which the
		// released λ accounts for.
		return NewDPMALA(m, DPMALAConfig{Step: 0.05, Clip: 20, GradClip: 2, Tau: 0.01})
	}, 2000, 200000, false},
	{"mala/noise-adapt-metric", func(m model.Model) (Kernel, error) {
		// The preconditioned proposal θ + W^½v with the Q of W (dp_mala.go).
		return NewDPMALA(m, DPMALAConfig{Step: 0.1, Clip: 20, GradClip: 2, Tau: 0.01, Adapt: true, AdaptMetric: true})
	}, 2000, 200000, false},
}

func TestDPStationary(t *testing.T) {
	for _, c := range dpStationaryCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, mean, cov := dpGaussModel(t, dpTestN, dpGaussSigma, 0.5, 42)
			k, err := c.kernel(m)
			if err != nil {
				t.Fatal(err)
			}
			theta0 := []float64{mean[0] + 0.3, mean[1] - 0.3, mean[2] + 0.2}
			draws, acc, clipped := dpRun(t, k, theta0, 3, c.warmup, c.draws)
			t.Logf("acceptance %.3f, clipped rows %d", acc, clipped)
			if c.noLLClip && clipped != 0 {
				t.Errorf("%d rows clipped: the test needs clip bounds that never bind", clipped)
			}
			dpCheckMoments(t, draws, 3, mean, cov, 0.05)
		})
	}
}

// TestDPNoiseOffIsMH checks that dp-penalty with the noise off and a clip
// that never binds makes exactly MH's decisions on the same streams.
func TestDPNoiseOffIsMH(t *testing.T) {
	m, mean, _ := dpGaussModel(t, dpTestN, dpGaussSigma, 0.5, 42)
	dp, err := NewDPPenalty(m, DPPenaltyConfig{Step: 0.08, Clip: 1e3, Tau: 1, NoiseOff: true})
	if err != nil {
		t.Fatal(err)
	}
	mh, err := NewMH(m, MHConfig{Step: 0.08})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kernel{dp, mh} {
		if err := k.Init(mean); err != nil {
			t.Fatal(err)
		}
	}
	r1, r2 := dpStreams(9), dpStreams(9)
	same := 0
	for it := 0; it < 5000; it++ {
		a, b := dp.Step(r1), mh.Step(r2)
		if a.Accepted != b.Accepted {
			// The exact clipped sum quantizes each term to 2^−b of the clip
			// bound; a decision can differ only when the uniform falls
			// within that rounding of the threshold.
			t.Logf("iteration %d: decisions differ (p = %.9f vs %.9f)", it, a.AcceptProb, b.AcceptProb)
			continue
		}
		same++
		for j, v := range dp.Position() {
			if math.Abs(v-mh.Position()[j]) > 1e-12 {
				t.Fatalf("iteration %d: positions differ", it)
			}
		}
	}
	if same != 5000 {
		t.Errorf("%d of 5000 decisions differ", 5000-same)
	}
}

// TestOPSStationary: with ρ = 1 (noise off) OPS draws come from the
// posterior restricted to the box; with ρ < 1 from the tempered posterior
// N(mean, cov/ρ) (the Gaussian posterior tempered with its prior keeps its
// mean), the box being wide enough not to matter.
func TestOPSStationary(t *testing.T) {
	for _, c := range []struct {
		name      string
		eps       float64
		half      float64
		inner     int
		innerStep float64
		noiseOff  bool
		draws     int
	}{
		{"noise-off", 0, 1.5, 20, 0.1, true, 20000},
		{"tempered", 0, 4, 30, 0.4, false, 20000},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, mean, cov := dpGaussModel(t, dpTestN, dpGaussSigma, 0.5, 42)
			box := make([]model.Interval, 3)
			for j := range box {
				box[j] = model.Interval{Lo: mean[j] - c.half, Hi: mean[j] + c.half}
			}
			B := m.RowBounds(box).AbsLogLik
			eps := c.eps
			if !c.noiseOff {
				eps = 4 * 0.05 * B // ρ = 0.05
			}
			k, err := NewOPS(m, OPSConfig{Epsilon: eps, Box: box, InnerIterations: c.inner, InnerStep: c.innerStep, NoiseOff: c.noiseOff})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("B = %.3f, ε = %.3f, ρ = %.4f, ε per draw = %.3f", B, eps, k.Rho(), k.Epsilon())
			if !c.noiseOff {
				if math.Abs(k.Rho()-0.05) > 1e-12 || k.Epsilon() > eps*(1+1e-12) {
					t.Fatalf("ρ = %v, ε = %v", k.Rho(), k.Epsilon())
				}
				if pc := k.PrivacyParams(); pc.PureEpsilon != k.Epsilon() || len(pc.Events(3)) != 1 {
					t.Errorf("PrivacyParams = %+v", pc)
				}
			}
			tc := make([]float64, len(cov))
			for i, v := range cov {
				tc[i] = v / k.Rho()
			}
			draws, acc, _ := dpRun(t, k, mean, 5, 10, c.draws)
			t.Logf("draws that moved: %.3f", acc)
			dpCheckMoments(t, draws, 3, mean, tc, 0.05)
		})
	}
}

func TestOPSNeedsBox(t *testing.T) {
	m, _, _ := dpGaussModel(t, 10, dpGaussSigma, 0.5, 1)
	if _, err := NewOPS(m, OPSConfig{Epsilon: 1}); err == nil {
		t.Error("NewOPS without a box: no error")
	}
}
