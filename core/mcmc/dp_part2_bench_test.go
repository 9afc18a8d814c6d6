package mcmc

import (
	"fmt"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// BenchmarkDPPart2Step measures one iteration of each part-2 DP kernel on
// the Gaussian-mean model (identity covariance) with n = 1e6 rows,
// reporting rows evaluated per iteration (rows/op; one row at one θ counts
// once), process CPU time per iteration (CPU-ns/op: wall time is
// unreliable on a shared machine) and allocations (must be 0). Settings: batch 1000 where there is
// one; dp-fastmh at (ε, δ) = (0.05, 1e-5) per iteration, λ = 10, K =
// ⌈εN/6⌉, step 7e-4 (so that E[B] = λ + CM ≈ 1000).
func BenchmarkDPPart2Step(b *testing.B) {
	for _, kn := range part2BenchNames {
		for _, d := range []int{2, 10} {
			b.Run(fmt.Sprintf("%s/n=1e6/d=%d", kn, d), func(b *testing.B) {
				m, mean, _ := dpGaussModel(b, 1000000, identity(d), 0.5, 7)
				k := part2BenchKernel(b, kn, m, mean)
				if err := k.Init(mean); err != nil {
					b.Fatal(err)
				}
				r := dpStreams(1)
				k.Step(r)
				rows := 0
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := processCPUNanos()
				for i := 0; i < b.N; i++ {
					rows += k.Step(r).Rows
				}
				if cpu := processCPUNanos() - cpu0; cpu > 0 {
					b.ReportMetric(float64(cpu)/float64(b.N), "CPU-ns/op") // robust to a loaded machine
				}
				b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
			})
		}
	}
}

var part2BenchNames = []string{"barker", "barker-full", "fastmh", "fastmh-full", "penalty-sub", "sgld", "sgld-poisson", "sghmc", "sgnht"}

func part2BenchKernel(b testing.TB, name string, m model.Model, mean []float64) Kernel {
	var k Kernel
	var err error
	box := dpBox(mean, 0.05)
	switch name {
	case "barker":
		k, err = NewDPBarker(m, DPBarkerConfig{Step: 1e-3, Batch: 1000})
	case "barker-full":
		k, err = NewDPBarker(m, DPBarkerConfig{Step: 1e-3, Full: true, Clip: 0.01})
	case "fastmh":
		k, err = NewDPFastMH(m, DPFastMHConfig{Step: 7e-4 / float64(len(mean)), Lambda: 10, StepEpsilon: 0.05, StepDelta: 1e-5, Box: box})
	case "fastmh-full":
		k, err = NewDPFastMH(m, DPFastMHConfig{Step: 1e-4, Full: true, StepEpsilon: 0.05, StepDelta: 1e-5, Box: box})
	case "penalty-sub":
		k, err = NewDPPenaltySub(m, DPPenaltySubConfig{Step: 1e-3, Clip: 5, Tau: 1, Batch: 1000})
	case "sgld":
		k, err = NewDPSGLD(m, DPSGLDConfig{Step: 1e-7, Batch: 1000, GradClip: 5})
	case "sgld-poisson":
		k, err = NewDPSGLD(m, DPSGLDConfig{Step: 1e-7, Batch: 1000, GradClip: 5, Sampling: "poisson"})
	case "sghmc":
		k, err = NewDPSGLD(m, DPSGLDConfig{Method: "sghmc", Step: 1e-8, Batch: 1000, GradClip: 5})
	case "sgnht":
		k, err = NewDPSGLD(m, DPSGLDConfig{Method: "sgnht", Step: 1e-8, Batch: 1000, GradClip: 5})
	}
	if err != nil {
		b.Fatal(err)
	}
	return k
}

// TestDPPart2StepAllocs checks the zero-allocation promise on a small
// model, for every part-2 kernel and the hybrid after its OPS step.
func TestDPPart2StepAllocs(t *testing.T) {
	m, mean, _ := dpGaussModel(t, 2000, dpGaussSigma, 0.5, 7)
	for _, name := range part2BenchNames {
		k := part2BenchKernel(t, name, m, mean)
		if err := k.Init(mean); err != nil {
			t.Fatal(err)
		}
		r := dpStreams(1)
		k.Step(r)
		if a := testing.AllocsPerRun(50, func() { k.Step(r) }); a != 0 {
			t.Errorf("%s: %.1f allocations per Step", name, a)
		}
	}
	h, err := NewHybrid(m, HybridConfig{OPS: OPSConfig{Epsilon: 1, Box: dpBox(mean, 0.5), InnerIterations: 10}, SGLD: DPSGLDConfig{Step: 1e-5, Batch: 100, GradClip: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Init(mean); err != nil {
		t.Fatal(err)
	}
	r := dpStreams(2)
	h.Step(r)
	if a := testing.AllocsPerRun(50, func() { h.Step(r) }); a != 0 {
		t.Errorf("hybrid: %.1f allocations per Step", a)
	}
}
