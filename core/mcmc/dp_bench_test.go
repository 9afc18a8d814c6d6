package mcmc

import (
	"fmt"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// BenchmarkDPStep measures one iteration of each DP kernel on the gaussian
// mean model (identity covariance) with n rows and dimension d. Every
// kernel must allocate nothing per Step. dp-hmc uses L = 5 leapfrog steps
// (an iteration costs L gradient passes and one log-likelihood pass); ops
// uses InnerIterations = 1, so its ns/op is the cost per inner iteration
// (a draw costs K times that).
func BenchmarkDPStep(b *testing.B) {
	for _, kn := range []string{"penalty", "hmc", "mala", "ops"} {
		for _, n := range []int{100000, 1000000} {
			for _, d := range []int{2, 10} {
				b.Run(fmt.Sprintf("%s/n=1e%d/d=%d", kn, map[int]int{100000: 5, 1000000: 6}[n], d), func(b *testing.B) {
					m, mean, _ := dpGaussModel(b, n, identity(d), 0.5, 7)
					k := dpBenchKernel(b, kn, m, mean)
					if err := k.Init(mean); err != nil {
						b.Fatal(err)
					}
					r := dpStreams(1)
					k.Step(r)
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						k.Step(r)
					}
				})
			}
		}
	}
}

func dpBenchKernel(b testing.TB, name string, m model.Model, mean []float64) Kernel {
	d := len(mean)
	var k Kernel
	var err error
	switch name {
	case "penalty":
		k, err = NewDPPenalty(m, DPPenaltyConfig{Step: 1e-3, Clip: 5, Tau: 0.1})
	case "hmc":
		k, err = NewDPHMC(m, DPHMCConfig{Step: 1e-3, Leapfrog: 5, Clip: 5, GradClip: 5, Tau: 0.1, TauGrad: 0.5})
	case "mala":
		k, err = NewDPMALA(m, DPMALAConfig{Step: 1e-4, Clip: 5, GradClip: 5, Tau: 1})
	case "ops":
		box := make([]model.Interval, d)
		for j := range box {
			box[j] = model.Interval{Lo: mean[j] - 1, Hi: mean[j] + 1}
		}
		k, err = NewOPS(m, OPSConfig{Epsilon: 1, Box: box, InnerIterations: 1, InnerStep: 1e-3})
	}
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// TestDPStepAllocs checks the zero-allocation promise on a small model.
func TestDPStepAllocs(t *testing.T) {
	m, mean, _ := dpGaussModel(t, 200, dpGaussSigma, 0.5, 7)
	for _, name := range []string{"penalty", "hmc", "mala", "ops"} {
		k := dpBenchKernel(t, name, m, mean)
		if err := k.Init(mean); err != nil {
			t.Fatal(err)
		}
		r := dpStreams(1)
		k.Step(r)
		if a := testing.AllocsPerRun(50, func() { k.Step(r) }); a != 0 {
			t.Errorf("%s: %.1f allocations per Step", name, a)
		}
	}
}
