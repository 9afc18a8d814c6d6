package model

import (
	"fmt"
	"testing"
)

// BenchmarkGradDemo is the page's demo size (logistic regression, n = 2000
// rows, 4 predictors plus the intercept): the HMC leapfrog step's gradient
// and the final LogLikGrad, where the wasm build's per-row overhead shows.
func BenchmarkGradDemo(b *testing.B) {
	const n = 2000
	for _, d := range []int{4, 10} {
		m := benchModel(b, "logistic", n, d).(*Logistic)
		theta := make([]float64, m.Dim())
		for k := range theta {
			theta[k] = 0.1 * float64(k%3-1)
		}
		grad := make([]float64, m.Dim())
		b.Run(fmt.Sprintf("d=%d/GradLogLik", m.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.GradLogLik(theta, nil, grad)
			}
		})
		b.Run(fmt.Sprintf("d=%d/LogLikGrad", m.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.LogLikGrad(theta, grad)
			}
		})
	}
}
