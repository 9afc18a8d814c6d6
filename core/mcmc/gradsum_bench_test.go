package mcmc

import (
	"fmt"
	"testing"
)

// BenchmarkClippedGradSum measures one clipped per-row gradient sum over all
// n rows (dp-hmc's and dp-mala's unit of work: L of them per dp-hmc
// iteration) on the banana (d = 2) and the Gaussian mean (d = 10) models of
// the DP-HMC paper's experiments.
func BenchmarkClippedGradSum(b *testing.B) {
	const n = 100000
	for _, name := range []string{"banana", "gauss"} {
		b.Run(fmt.Sprintf("%s/n=1e5", name), func(b *testing.B) {
			var theta []float64
			var gs gradSum
			var run func(out []float64) int
			if name == "banana" {
				m, th := dpBanana(b, n, 3)
				theta = th
				gs = newGradSum(n, m.Dim(), 0.05)
				run = func(out []float64) int { return gs.eval(m, theta, out) }
			} else {
				m, mean, _ := dpGaussModel(b, n, identity(10), 0.5, 7)
				theta = mean
				gs = newGradSum(n, m.Dim(), 10)
				run = func(out []float64) int { return gs.eval(m, theta, out) }
			}
			out := make([]float64, len(theta))
			run(out)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(out)
			}
		})
	}
}
