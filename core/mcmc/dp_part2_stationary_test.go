package mcmc

import (
	"math"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// Stationary tests of the "DP samplers, part 2" kernels on the conjugate
// Gaussian-mean model (n = 50, correlated Σ; dp_testutil_test.go):
// moments within 4 MCSE of the analytic posterior.
//
//   - exact kernels: dp-barker full with NoiseOff (= Barker), dp-fastmh
//     with NoiseOff (= TunaMH with the batch cap and full-batch fallback),
//     dp-fastmh with the free (Barker) branches forced, and the private
//     dp-fastmh / dp-fastmh-full (penalty correction: exact with noise);
//   - approximate: dp-barker full with V_corr (accept probability within
//     VCorrError(C) of Barker's: 2.4e-3 at C = 2; not detectable at this
//     MCSE).

func dpBox(mean []float64, half float64) []model.Interval {
	box := make([]model.Interval, len(mean))
	for j := range box {
		box[j] = model.Interval{Lo: mean[j] - half, Hi: mean[j] + half}
	}
	return box
}

type part2Case struct {
	name          string
	kernel        func(m model.Model, mean []float64) (Kernel, error)
	warmup, draws int
}

var part2Cases = []part2Case{
	{"dp-barker/full/noise-off(exact Barker)", func(m model.Model, _ []float64) (Kernel, error) {
		return NewDPBarker(m, DPBarkerConfig{Step: 0.08, Full: true, Clip: 1e3, NoiseOff: true})
	}, 2000, 150000},
	{"dp-barker/full/C=2(V_corr)", func(m model.Model, _ []float64) (Kernel, error) {
		return NewDPBarker(m, DPBarkerConfig{Step: 0.08, Full: true, Clip: 3, BarkerC: 2})
	}, 2000, 150000},
	{"dp-barker/full/C=1(V_corr)", func(m model.Model, _ []float64) (Kernel, error) {
		return NewDPBarker(m, DPBarkerConfig{Step: 0.08, Full: true, Clip: 3, BarkerC: 1})
	}, 2000, 150000},
	{"dp-fastmh/noise-off(TunaMH+cap)", func(m model.Model, mean []float64) (Kernel, error) {
		return NewDPFastMH(m, DPFastMHConfig{Step: 0.05, Lambda: 30, BatchCap: 60, Box: dpBox(mean, 0.6), NoiseOff: true})
	}, 1000, 100000},
	{"dp-fastmh/forced-free(Barker branches)", func(m model.Model, mean []float64) (Kernel, error) {
		return NewDPFastMH(m, DPFastMHConfig{Step: 0.05, Lambda: 30, BatchCap: 60, Box: dpBox(mean, 0.6), NoiseOff: true, forceFree: true})
	}, 1000, 100000},
	{"dp-fastmh/private", func(m model.Model, mean []float64) (Kernel, error) {
		return NewDPFastMH(m, DPFastMHConfig{Step: 0.05, Lambda: 30, BatchCap: 60, Box: dpBox(mean, 0.6), StepEpsilon: 2, StepDelta: 1e-3})
	}, 1000, 150000},
	{"dp-fastmh-full/private", func(m model.Model, mean []float64) (Kernel, error) {
		return NewDPFastMH(m, DPFastMHConfig{Step: 0.05, Full: true, Box: dpBox(mean, 0.6), StepEpsilon: 1, StepDelta: 1e-3})
	}, 1000, 100000},
}

func TestDPPart2Stationary(t *testing.T) {
	for _, c := range part2Cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, mean, cov := dpGaussModel(t, dpTestN, dpGaussSigma, 0.5, 42)
			k, err := c.kernel(m, mean)
			if err != nil {
				t.Fatal(err)
			}
			theta0 := []float64{mean[0] + 0.3, mean[1] - 0.3, mean[2] + 0.2}
			draws, acc, clipped := dpRun(t, k, theta0, 3, c.warmup, c.draws)
			t.Logf("acceptance %.3f, clipped rows %d", acc, clipped)
			if clipped != 0 {
				t.Errorf("%d rows clipped: the test needs bounds that never bind", clipped)
			}
			if f, ok := k.(*DPFastMH); ok {
				s := f.Stats()
				t.Logf("fastmh: K = %d, minibatch %d, full %d, free %d, rows touched/iter %.3f of n", f.BatchCap(), s.Minibatch, s.Full, s.Free, s.RowFraction(dpTestN))
			}
			dpCheckMoments(t, draws, 3, mean, cov, 0.05)
		})
	}
}

// TestDPBarkerNoiseOffIsBarker checks that the full-data kernel with the
// noise off makes exactly Barker's decisions on the same streams.
func TestDPBarkerNoiseOffIsBarker(t *testing.T) {
	m, mean, _ := dpGaussModel(t, dpTestN, dpGaussSigma, 0.5, 42)
	a, err := NewDPBarker(m, DPBarkerConfig{Step: 0.08, Full: true, Clip: 1, NoiseOff: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBarker(m, BarkerConfig{Step: 0.08})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Init(mean); err != nil {
		t.Fatal(err)
	}
	if err := b.Init(mean); err != nil {
		t.Fatal(err)
	}
	ra, rb := dpStreams(5), dpStreams(5)
	for i := 0; i < 2000; i++ {
		ia, ib := a.Step(ra), b.Step(rb)
		if ia.Accepted != ib.Accepted || math.Abs(a.Position()[0]-b.Position()[0]) > 1e-12 {
			t.Fatalf("iteration %d: dp-barker %v at %v, barker %v at %v", i, ia.Accepted, a.Position(), ib.Accepted, b.Position())
		}
	}
}

// TestDPBarkerRefusesC checks the documented choice: the subsampled private
// kernel refuses C ≠ 2 (Thm 2 is for C = 2), the full-data one accepts
// every shipped C.
func TestDPBarkerRefusesC(t *testing.T) {
	m, _, _ := dpGaussModel(t, 1000, dpGaussSigma, 0.5, 42)
	if _, err := NewDPBarker(m, DPBarkerConfig{Step: 0.1, Batch: 100, BarkerC: 1}); err == nil {
		t.Error("subsampled dp-barker accepted C = 1")
	}
	if _, err := NewDPBarker(m, DPBarkerConfig{Step: 0.1, Batch: 100, Clip: 1}); err == nil {
		t.Error("subsampled dp-barker accepted clip = 1 (no room for the grid)")
	}
	for _, c := range VCorrCs() {
		if _, err := NewDPBarker(m, DPBarkerConfig{Step: 0.1, Full: true, Clip: 0.01, BarkerC: c}); err != nil {
			t.Errorf("full dp-barker refused C = %v: %v", c, err)
		}
	}
	if _, err := NewDPBarker(m, DPBarkerConfig{Step: 0.1, Full: true, Clip: 0.01, BarkerC: 1.3}); err == nil {
		t.Error("dp-barker accepted a C without a shipped correction")
	}
}
