package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Test helpers of the DP kernels' tests (self-contained: they build the
// models through core/model so they do not depend on other test files).

// dpStreams returns fixed public and noise streams (tests only: a real run
// keys the noise stream from crypto/rand).
func dpStreams(seed uint64) rng.Streams {
	var key [32]byte
	for i := range key {
		key[i] = byte(seed*7) ^ byte(i*13+1)
	}
	return rng.Streams{
		Public: rand.New(rand.NewPCG(seed, 0xd9)),
		Noise:  rand.New(rand.NewChaCha8(key)),
	}
}

// dpGaussSigma is the likelihood covariance of the conjugate test model;
// the posterior inherits its correlations.
var dpGaussSigma = [][]float64{
	{1, 0.6, 0.3},
	{0.6, 1, 0.5},
	{0.3, 0.5, 1},
}

// dpGaussModel builds core/model's gaussian mean model (d = len(sigma))
// with n rows uniform in center ± spread, public column bounds
// center ± spread, prior N(0, 10²I). It returns the model and its exact
// posterior mean and covariance (row-major).
func dpGaussModel(t testing.TB, n int, sigma [][]float64, spread float64, seed uint64) (model.Model, []float64, []float64) {
	t.Helper()
	d := len(sigma)
	center := []float64{0.5, -1, 2, 0.3, -0.4, 1.1, 0, 0.8, -1.5, 0.2}
	r := rand.New(rand.NewPCG(seed, 11))
	names := make([]string, d)
	cols := make([][]float64, d)
	for j := range cols {
		names[j] = fmt.Sprintf("x%d", j+1)
		cols[j] = make([]float64, n)
		for i := range cols[j] {
			cols[j][i] = center[j] + spread*(2*r.Float64()-1)
		}
	}
	tab, err := dataset.FromColumns(names, cols)
	if err != nil {
		t.Fatal(err)
	}
	tab.Bounds = make([]*dataset.Bound, d)
	for j := range tab.Bounds {
		tab.Bounds[j] = &dataset.Bound{Lo: center[j] - spread, Hi: center[j] + spread}
	}
	spec := model.Spec{Model: "gaussian", PriorSD: 10, Cov: sigma}
	m, err := model.Build(spec, tab)
	if err != nil {
		t.Fatal(err)
	}
	mean, cv := m.(*model.GaussianMean).Posterior()
	cov := make([]float64, d*d)
	for i := range cv {
		copy(cov[i*d:], cv[i])
	}
	return m, mean, cov
}

// identity returns the d×d identity as rows.
func identity(d int) [][]float64 {
	s := make([][]float64, d)
	for i := range s {
		s[i] = make([]float64, d)
		s[i][i] = 1
	}
	return s
}

// dpBatchMCSE returns the mean of y and its Monte Carlo standard error by
// non-overlapping batch means with √n batches.
func dpBatchMCSE(y []float64) (mean, mcse float64) {
	n := len(y)
	b := int(math.Sqrt(float64(n)))
	a := n / b
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	var ss float64
	for k := 0; k < a; k++ {
		s := 0.0
		for _, v := range y[k*b : (k+1)*b] {
			s += v
		}
		s /= float64(b)
		ss += (s - mean) * (s - mean)
	}
	return mean, math.Sqrt(ss / float64(a-1) / float64(a))
}

// dpCheckMoments compares draws (n×d) with the analytic means and
// variances: each within 4 MCSE, and a power guard (MCSE ≤ maxRel·sd for
// means, ≤ 2·maxRel·var for variances) so a stuck chain cannot pass.
func dpCheckMoments(t *testing.T, draws []float64, d int, mean, cov []float64, maxRel float64) {
	t.Helper()
	n := len(draws) / d
	y := make([]float64, n)
	for j := 0; j < d; j++ {
		for i := 0; i < n; i++ {
			y[i] = draws[i*d+j]
		}
		m, se := dpBatchMCSE(y)
		sd := math.Sqrt(cov[j*d+j])
		t.Logf("mean[%d]: %.5f vs %.5f  z = %+.2f  (MCSE/sd %.3f)", j, m, mean[j], (m-mean[j])/se, se/sd)
		if math.Abs(m-mean[j]) > 4*se {
			t.Errorf("mean[%d] = %.5f, want %.5f ± 4×%.3g", j, m, mean[j], se)
		}
		if se > maxRel*sd {
			t.Errorf("mean[%d]: MCSE %.3g > %.2f sd: chain too short or stuck", j, se, maxRel)
		}
		for i := 0; i < n; i++ {
			v := draws[i*d+j] - mean[j]
			y[i] = v * v
		}
		v, sev := dpBatchMCSE(y)
		want := cov[j*d+j]
		t.Logf("var[%d]: %.6f vs %.6f  z = %+.2f", j, v, want, (v-want)/sev)
		if math.Abs(v-want) > 4*sev {
			t.Errorf("var[%d] = %.6f, want %.6f ± 4×%.3g", j, v, want, sev)
		}
		if sev > 2*maxRel*want {
			t.Errorf("var[%d]: MCSE %.3g > %.2f var: chain too short or stuck", j, sev, 2*maxRel)
		}
	}
}

// dpRun runs warmup+draws iterations from theta0 and returns the draws,
// the acceptance rate after warmup and the total clipped count.
func dpRun(t *testing.T, k Kernel, theta0 []float64, seed uint64, warmup, draws int) (out []float64, acc float64, clipped int) {
	t.Helper()
	if err := k.Init(theta0); err != nil {
		t.Fatal(err)
	}
	d := len(theta0)
	out = make([]float64, draws*d)
	na := 0
	Sample(k, dpStreams(seed), warmup, draws, out, func(it int, info Info) {
		clipped += info.Clipped
		if it >= warmup && info.Accepted {
			na++
		}
	})
	return out, float64(na) / float64(draws), clipped
}
