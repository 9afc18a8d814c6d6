package mcmc

import (
	"flag"
	"fmt"
	"testing"
)

// Benchmarks: ns and allocs per Step of each kernel on a test-only logistic
// regression (logisticModel), for N = 1e4, 1e5, 1e6 and d = 10, 50. The
// N = 1e6, d = 50 table is 400 MB, so it runs only with -mcmc.big.
//
//	go test -run '^$' -bench BenchmarkStep ./core/mcmc/
//
// HMC uses L = 10 leapfrog steps. TunaMH uses λ = 0.01·N and a step chosen so
// that C·M ≈ 0.01·N (C = N·√d, M ≈ step·√d), i.e. E[B] ≈ 0.02·N rows per
// iteration, each evaluated at θ and θ'. Besides ns/op the benchmark reports
// cpu-ns/op (process CPU time; robust to other load on the machine) and
// rows/op (Info.Rows).

var bigBench = flag.Bool("mcmc.big", false, "include the 400 MB N=1e6, d=50 benchmark")

func BenchmarkStep(b *testing.B) {
	type size struct {
		n, d int
		name string
	}
	sizes := []size{{1e4, 10, "N=1e4/d=10"}, {1e4, 50, "N=1e4/d=50"}, {1e5, 10, "N=1e5/d=10"}, {1e5, 50, "N=1e5/d=50"}, {1e6, 10, "N=1e6/d=10"}, {1e6, 50, "N=1e6/d=50"}}
	kernels := []struct {
		name string
		make func(m *logisticModel) (Kernel, error)
	}{
		{"mh", func(m *logisticModel) (Kernel, error) { return NewMH(m, MHConfig{Step: 0.01}) }},
		{"barker", func(m *logisticModel) (Kernel, error) { return NewBarker(m, BarkerConfig{Step: 0.01}) }},
		{"mala", func(m *logisticModel) (Kernel, error) { return NewMALA(m, MALAConfig{Step: 0.01}) }},
		{"hmc", func(m *logisticModel) (Kernel, error) {
			return NewHMC(m, HMCConfig{Step: 0.01, Steps: 10, Jitter: JitterConfig{Kind: "uniform"}})
		}},
		{"hmc-dense", func(m *logisticModel) (Kernel, error) {
			// A dense metric needs a warmup window of at least 2d states:
			// 250 warmup iterations (Stan's windows: the last holds 100) set it
			// before timing.
			k, err := NewHMC(m, HMCConfig{Step: 0.01, Steps: 10, Jitter: JitterConfig{Kind: "uniform"}, Adapt: true, AdaptMetric: true, DenseMetric: true})
			if err != nil {
				return nil, err
			}
			if err := k.Init(make([]float64, m.d)); err != nil {
				return nil, err
			}
			Sample(k, testStreams(2), 250, 0, nil, nil)
			if k.DenseInvMetricFactor() == nil {
				return nil, fmt.Errorf("no dense metric after 250 warmup iterations")
			}
			return k, nil
		}},
		{"tunamh", func(m *logisticModel) (Kernel, error) {
			return NewTunaMH(m, TunaMHConfig{Step: 0.01 / float64(m.d), Lambda: 0.01 * float64(m.n)})
		}},
	}
	models := map[size]*logisticModel{}
	for _, kc := range kernels {
		b.Run(kc.name, func(b *testing.B) {
			for _, s := range sizes {
				if s.n*s.d > 1e7 && !*bigBench {
					continue
				}
				b.Run(s.name, func(b *testing.B) {
					m := models[s]
					if m == nil {
						m = newLogistic(s.d, s.n, 1)
						models[s] = m
					}
					k, err := kc.make(m)
					if err != nil {
						b.Fatal(err)
					}
					if kc.name != "hmc-dense" { // hmc-dense starts warmed up
						if err := k.Init(make([]float64, s.d)); err != nil {
							b.Fatal(err)
						}
					}
					r := testStreams(1)
					rows := 0
					b.ReportAllocs()
					cpu0 := processCPUNanos()
					for b.Loop() {
						rows += k.Step(r).Rows
					}
					if cpu := processCPUNanos() - cpu0; cpu > 0 {
						b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
					}
					b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
				})
			}
		})
	}
}
