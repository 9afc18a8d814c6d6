package main

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

var sections = []struct {
	name string
	run  func() []row
}{
	{"loglik", benchLogLik},
	{"alloc", benchAlloc},
	{"gmm", benchGMM},
	{"hmc", benchHMC},
	{"csv", benchCSV},
	{"pld", benchPLD},
	{"diag", benchDiag},
	{"wasm", benchWasm},
	{"browser", benchBrowser},
}

// numpy's full-data pass on this machine kind (OpenBLAS, one thread), and
// the target: at least 2.5× faster.
const (
	numpyPassNs  = 5.0e6
	targetPassNs = numpyPassNs / 2.5
)

// logisticBench builds the N = 1e5, d = 10 synthetic logistic regression.
func logisticBench(n, d int) model.Model {
	t, spec := syntheticLogistic(n, d, 1)
	m, err := model.Build(spec, t)
	if err != nil {
		panic(err)
	}
	return m
}

// near returns a position near the data-generating one and a random-walk
// neighbour (what an MH iteration compares).
func nearTheta(m model.Model) (theta, prop []float64) {
	d := m.Dim()
	theta, prop = make([]float64, d), make([]float64, d)
	for j := range theta {
		theta[j] = 0.3 * math.Sin(float64(j+1))
		prop[j] = theta[j] + 0.01*math.Cos(float64(3*j+1))
	}
	return theta, prop
}

func benchLogLik() []row {
	nr, dur := rounds()
	const n, d = 100_000, 10
	m := logisticBench(n, d)
	theta, prop := nearTheta(m)
	cur, out := make([]float64, n), make([]float64, n)
	m.LogLik(theta, nil, cur)
	var sink float64
	pass1 := measure(nr, dur, func() {
		model.LogLikDiff(m, prop, nil, cur, out)
		s := 0.0
		for _, v := range out {
			s += v
		}
		sink += s
	})
	grad := make([]float64, m.Dim())
	gpass := measure(nr, dur, func() { m.GradLogLik(prop, nil, grad) })

	mh, err := mcmc.NewMH(m, mcmc.MHConfig{Step: 0.002})
	if err != nil {
		panic(err)
	}
	if err := mh.Init(theta); err != nil {
		panic(err)
	}
	r := rng.ForChain(1, rng.KeyFromBytes([32]byte{}), 0)
	mhStep := measure(nr, dur, func() { mh.Step(r) })
	_ = sink
	return []row{
		{ID: "1a", What: "log-lik-ratio pass, logistic N=1e5 d=10 (+intercept), native",
			Measured: fmt.Sprintf("%s (median %s)", ms(pass1.MinCPUNs), ms(pass1.CPUNs)),
			Target:   "≤ " + ms(targetPassNs), Status: pass(pass1.MinCPUNs <= targetPassNs),
			Note: fmt.Sprintf("%.1f× faster than numpy's 5.0 ms; per-row ratios ℓ_i(θ')−ℓ_i(θ) written (what the DP kernels clip), %.0f allocs", numpyPassNs/pass1.MinCPUNs, pass1.Allocs)},
		{ID: "1b", What: "MH step (full data, cached ℓ_i(θ)), same model",
			Measured: fmt.Sprintf("%s (median %s), %s", ms(mhStep.MinCPUNs), ms(mhStep.CPUNs), allocsText(mhStep.Allocs)),
			Target:   "≤ " + ms(targetPassNs), Status: pass(mhStep.MinCPUNs <= targetPassNs && mhStep.Allocs < 0.5)},
		{ID: "1c", What: "gradient pass, same model (HMC's unit of work)",
			Measured: fmt.Sprintf("%s (median %s)", ms(gpass.MinCPUNs), ms(gpass.CPUNs)), Target: "—", Status: "info"},
	}
}
