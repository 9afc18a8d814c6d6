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
	// 5 states in 3 dimensions: too few for a covariance. The schedule is
	// set by hand: one window, iterations 10–14.
	w.plan(20)
	w.initBuf, w.termBuf, w.size, w.next = 10, 5, 5, 14
	ends := map[int]bool{}
	for it := range 20 {
		if w.observe([]float64{float64(it), float64(it * it), 1}, inv, cov) {
			ends[it] = w.covReady
		}
	}
	if ready, ok := ends[14]; !ok || ready || len(ends) != 1 {
		t.Errorf("window ends (iteration: covariance written) %v, want only 14 without a covariance", ends)
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
// dense metric learns the (regularised) posterior covariance in warmup, samples the right
// moments, and has at least 5 times the effective draws of the diagonal
// metric along the ridge (measured: 18,864 against 821 of 20,000, with the
// step jitter ±50% that the run uses with a dense metric).
func TestHMCDenseMetric(t *testing.T) {
	m := correlatedModel()
	mean, cov := m.posterior()
	const d, warmup, draws = 3, 1000, 20000
	run := func(dense bool) (out []float64, k *HMC) {
		k, err := NewHMC(m, HMCConfig{Step: 0.05, Steps: 10, Jitter: JitterConfig{Kind: "uniform", Width: 0.5},
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
	// LLᵀ estimates the posterior covariance, regularised as Stan's dense_e
	// over the last window's k = 500 states.
	const k500 = 500.0
	for j := range d {
		for i := range d {
			s := 0.0
			for c := 0; c <= min(i, j); c++ {
				s += l[i*d+c] * l[j*d+c]
			}
			want := k500 / (k500 + 5) * cov[i*d+j]
			if i == j {
				want += 1e-3 * 5 / (k500 + 5)
			}
			scale := math.Sqrt(cov[i*d+i] * cov[j*d+j])
			if math.Abs(s-want) > 0.2*scale {
				t.Errorf("LLᵀ[%d,%d] = %.4g, regularised posterior covariance %.4g (scale %.3g)", i, j, s, want, scale)
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

// TestHMCDenseMetricKeptAfterShortWindow: at 151 warmup iterations Stan's
// last window holds one state, too few for a covariance; the dense metric
// learnt from the window before it (iterations 75–99) stays in use, with
// its diagonal as InvMetric.
func TestHMCDenseMetricKeptAfterShortWindow(t *testing.T) {
	m := correlatedModel()
	mean, _ := m.posterior()
	k, err := NewHMC(m, HMCConfig{Step: 0.05, Steps: 10, Adapt: true, AdaptMetric: true, DenseMetric: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Init(mean); err != nil {
		t.Fatal(err)
	}
	var denseAt100 []float64
	Sample(k, testStreams(7), 151, 0, nil, func(it int, _ Info) {
		if it == 99 { // Adapt runs after onStep: the window ends at this iteration
			return
		}
		if it == 100 && k.DenseInvMetricFactor() != nil {
			denseAt100 = append([]float64(nil), k.DenseInvMetricFactor()...)
		}
	})
	if denseAt100 == nil {
		t.Fatal("no dense metric after the window ending at iteration 99")
	}
	l := k.DenseInvMetricFactor()
	if l == nil {
		t.Fatal("the one-state last window dropped the dense metric")
	}
	for i, v := range l {
		if v != denseAt100[i] {
			t.Fatalf("the dense metric changed at the one-state window: L[%d] %g → %g", i, denseAt100[i], v)
		}
	}
	const d = 3
	for j, v := range k.InvMetric() {
		s := 0.0
		for c := 0; c <= j; c++ {
			s += l[j*d+c] * l[j*d+c]
		}
		if math.Abs(v-s) > 1e-12*s {
			t.Errorf("InvMetric[%d] = %g, diag(LLᵀ) = %g", j, v, s)
		}
	}
}
