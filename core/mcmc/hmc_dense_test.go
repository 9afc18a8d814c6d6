package mcmc

import (
	"math"
	"testing"
)

// TestCovarianceWindowsMatchTwoPass: the windows' Welford co-moments give
// the two-pass sample covariance of the window's states, regularised as
// Stan's dense_e, and a window of fewer than 2d states writes none.
func TestCovarianceWindowsMatchTwoPass(t *testing.T) {
	const d = 3
	w := newCovarianceWindows(d)
	w.plan(100) // one window: iterations 15–89 (75 states)
	inv, cov := make([]float64, d), make([]float64, d*d)
	var states [][]float64
	for it := range 100 {
		x := []float64{math.Sin(float64(it)), math.Cos(0.7*float64(it)) + 0.5*math.Sin(float64(it)), float64(it%5) - 2}
		if it >= 15 && it < 90 {
			states = append(states, x)
		}
		if w.observe(x, inv, cov) && !w.covReady {
			t.Fatal("a window of 75 states in 3 dimensions wrote no covariance")
		}
	}
	k := float64(len(states))
	mean := make([]float64, d)
	for _, x := range states {
		for j := range d {
			mean[j] += x[j] / k
		}
	}
	for j := range d {
		for l := range d {
			c := 0.0
			for _, x := range states {
				c += (x[j] - mean[j]) * (x[l] - mean[l])
			}
			want := k / (k + 5) * c / (k - 1)
			if j == l {
				want += 1e-3 * 5 / (k + 5)
				if math.Abs(inv[j]-want) > 1e-12 {
					t.Errorf("inv metric[%d] = %.15g, want %.15g", j, inv[j], want)
				}
			}
			if math.Abs(cov[j*d+l]-want) > 1e-12 {
				t.Errorf("cov[%d,%d] = %.15g, want %.15g", j, l, cov[j*d+l], want)
			}
		}
	}
	// 5 states in 3 dimensions: too few for a covariance.
	w.plan(20) // initial buffer 3, window 15, terminal buffer 2
	w.initBuf, w.size, w.next = 10, 5, 14
	ready := true
	for it := range 20 {
		if w.observe([]float64{float64(it), float64(it * it), 1}, inv, cov) {
			ready = w.covReady
		}
	}
	if ready {
		t.Error("a window of 5 states in 3 dimensions wrote a covariance")
	}
}

// correlatedModel is a Gaussian-mean model whose posterior has correlation
// 0.995 between its first two coordinates and sds that differ 30-fold: a
// diagonal metric cannot make it round, a dense one can.
func correlatedModel() *gaussMean {
	sigma := []float64{
		1, 0.995 * 3, 0,
		0.995 * 3, 9, 0,
		0, 0, 0.01,
	}
	return newGaussMean(sigma, 3, 200, []float64{0.5, -1, 2}, 0.05, 100, 11)
}

// TestHMCDenseMetric: on a posterior with correlation 0.995, HMC with the
// dense metric learns the posterior covariance in warmup, samples the right
// moments, and has at least 5 times the effective draws of the diagonal
// metric along the ridge (measured: 14,655 against 849 of 20,000).
func TestHMCDenseMetric(t *testing.T) {
	m := correlatedModel()
	mean, cov := m.posterior()
	const d, warmup, draws = 3, 1000, 20000
	run := func(dense bool) (out []float64, k *HMC) {
		k, err := NewHMC(m, HMCConfig{Step: 0.05, Steps: 10, Jitter: JitterConfig{Kind: "uniform"},
			Adapt: true, AdaptMetric: true, DenseMetric: dense})
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Init([]float64{mean[0] + 0.1, mean[1] - 0.1, mean[2]}); err != nil {
			t.Fatal(err)
		}
		out = make([]float64, draws*d)
		Sample(k, testStreams(5), warmup, draws, out, nil)
		return out, k
	}
	dense, k := run(true)
	l := k.DenseInvMetricFactor()
	if l == nil {
		t.Fatal("no dense metric after warmup")
	}
	// LLᵀ estimates the posterior covariance (a window of 500 states).
	for j := range d {
		for i := range d {
			s := 0.0
			for c := 0; c <= min(i, j); c++ {
				s += l[i*d+c] * l[j*d+c]
			}
			scale := math.Sqrt(cov[i*d+i] * cov[j*d+j])
			if math.Abs(s-cov[i*d+j]) > 0.2*scale {
				t.Errorf("LLᵀ[%d,%d] = %.4g, posterior covariance %.4g (scale %.3g)", i, j, s, cov[i*d+j], scale)
			}
		}
	}
	checkMoments(t, dense, d, mean, cov)
	r := testStreams(6)
	if a := testing.AllocsPerRun(100, func() { k.Step(r) }); a != 0 {
		t.Errorf("dense metric: %v allocs per Step", a)
	}
	diagOut, _ := run(false)
	// Effective draws of the first coordinate: along the ridge, which a
	// diagonal metric crosses by steps of the narrow direction's size
	// (x₂ − 3x₁ has posterior sd 0.3/√n against 3/√n for x₂).
	ess := func(out []float64) float64 {
		y := make([]float64, draws)
		for i := range y {
			y[i] = out[i*d]
		}
		mu, se := batchMCSE(y)
		v := 0.0
		for _, x := range y {
			v += (x - mu) * (x - mu)
		}
		return v / float64(draws-1) / (se * se)
	}
	eD, eG := ess(dense), ess(diagOut)
	t.Logf("ESS of the first coordinate: dense %.0f, diagonal %.0f", eD, eG)
	if eD < 5*eG {
		t.Errorf("dense metric: ESS %.0f, not 5× the diagonal metric's %.0f", eD, eG)
	}
}
