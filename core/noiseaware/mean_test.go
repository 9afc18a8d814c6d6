package noiseaware

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// meanModel builds model spec on n rows of (x1, x2) = (c1 + s1·z, c2 + s2·z)
// with public bounds ±b.
func meanModel(t *testing.T, spec model.Spec, r *rand.Rand, n int, c1, s1, c2, s2, b float64) model.Model {
	t.Helper()
	x1, x2 := make([]float64, n), make([]float64, n)
	for i := range x1 {
		x1[i], x2[i] = c1+s1*r.NormFloat64(), c2+s2*r.NormFloat64()
	}
	tab, err := dataset.FromColumns([]string{"x1", "x2"}, [][]float64{x1, x2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.ApplyBounds(map[string]dataset.Bound{"x1": {Lo: -b, Hi: b}, "x2": {Lo: -b, Hi: b}}); err != nil {
		t.Fatal(err)
	}
	m, err := model.Build(spec, tab)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The mean-statistic posterior is exact given the release, so its 90%
// intervals cover a fixed truth 90% of the time at every ε: 300 replicate
// datasets and releases per case, both coordinates of y (the Gaussian
// mean; the banana's (θ1, θ2 + aθ1²)). Binomial SE over 600 intervals is
// 0.012; the band is ±0.045 (3.7 SE). Measured 0.902 and 0.900. Without
// the release noise in the likelihood (a seeded change) the coverage is
// 0.540 and 0.623 (the noise sd on a mean is 2.1 and 1.6 times its
// sampling sd), and the test fails.
func TestMeanKernelCoverage(t *testing.T) {
	mu, err := privacy.MuFor(1, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	const reps = 300
	for _, c := range []struct {
		name                      string
		spec                      model.Spec
		n                         int
		c1, s1, c2, s2, b, a, eps float64
	}{
		{"gaussian n=500 ε=1", model.Spec{Model: "gaussian"}, 500, 1, 1, -0.5, 1, 4, 0, 1},
		{"banana n=1000 ε=1", model.Spec{Model: "banana"}, 1000, 0.5, math.Sqrt(2000), 3, 50, 200, 20, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(81, 82))
			// The truth in y: the columns' means (the banana's data are
			// x1 ~ N(θ1, σ1²), x2 ~ N(θ2 + aθ1², σ2²)).
			truth := []float64{c.c1, c.c2}
			covered, total := 0, 0
			var ratio float64
			for rep := range reps {
				m := meanModel(t, c.spec, r, c.n, c.c1, c.s1, c.c2, c.s2, c.b)
				p, err := NewMeanPlan(m.(model.MeanStatistic).MeanBounds(), mu)
				if err != nil {
					t.Fatal(err)
				}
				k, err := NewMeanKernel(m, p)
				if err != nil {
					t.Fatal(err)
				}
				if err := k.Release(rand.New(rand.NewPCG(uint64(rep), 83))); err != nil {
					t.Fatal(err)
				}
				for j := range 2 {
					sd := 0.0
					for l := 0; l <= j; l++ {
						sd = math.Hypot(sd, k.chol[j*2+l])
					}
					if math.Abs(truth[j]-k.mean[j]) <= 1.6448536269514722*sd {
						covered++
					}
					total++
					ratio += p.ColumnStd(j) / float64(c.n) / math.Sqrt(m.(model.MeanStatistic).MeanVariances()[j]/float64(c.n))
				}
			}
			cov := float64(covered) / float64(total)
			t.Logf("%s: coverage %.3f over %d intervals (noise sd / sampling sd of a mean %.2f)", c.name, cov, total, ratio/float64(total))
			if math.Abs(cov-0.9) > 0.045 {
				t.Errorf("%s: 90%% intervals cover the truth %.3f of the time", c.name, cov)
			}
		})
	}
}

// Step draws y = mean + L·z: over many draws their mean and covariance
// are the posterior's, and a Step allocates nothing.
func TestMeanKernelDraws(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	m := meanModel(t, model.Spec{Model: "gaussian", Cov: [][]float64{{1, 0.6}, {0.6, 2}}}, r, 300, 1, 1, -0.5, 1.4, 5)
	mu, _ := privacy.MuFor(2, 1e-6)
	p, err := NewMeanPlan(m.(model.MeanStatistic).MeanBounds(), mu)
	if err != nil {
		t.Fatal(err)
	}
	// The accounted μ is the std's (Δ/σ) plus the grid's inflation, within
	// the target.
	if want := p.Sensitivity/p.Std + mcmc.GridInflation(2, GridBits); p.Mu != want || p.Mu > mu {
		t.Fatalf("μ %v, want Δ/σ + grid inflation = %v ≤ %v", p.Mu, want, mu)
	}
	k, err := NewMeanKernel(m, p)
	if err != nil {
		t.Fatal(err)
	}
	// A release from elsewhere must be one of this plan's: finite, and
	// within 50 noise sds of its column's bound.
	if err := k.Adopt(&Release{Family: "gaussian", D: 2, S: [][]float64{{1e300, 0}}, N: m.N(), NoiseStd: []float64{p.Std}}); err == nil || !strings.Contains(err.Error(), "50 noise sds") {
		t.Fatalf("a mean of 1e300 adopted: %v", err)
	}
	// and made with this plan's noise on these rows: a release of a run
	// at another budget is refused.
	if err := k.Adopt(&Release{Family: "gaussian", D: 2, S: [][]float64{{1, 0}}, N: m.N(), NoiseStd: []float64{p.Std / 100}}); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Fatalf("a release with 1/100 of the noise adopted: %v", err)
	}
	if info := k.Step(rng.Streams{Noise: r, Public: r}); !info.Divergent {
		t.Fatal("a step before the release drew something")
	}
	if err := k.Release(rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	n2 := float64(m.N()) * float64(m.N())
	s0, s1 := p.ColumnStd(0), p.ColumnStd(1)
	mean, cov, err := m.(model.MeanStatistic).PosteriorGivenNoisyMeans(k.Released().S[0], []float64{s0 * s0 / n2, s1 * s1 / n2})
	if err != nil {
		t.Fatal(err)
	}
	const draws = 40000
	st := rng.Streams{Noise: rand.New(rand.NewPCG(3, 4)), Public: r}
	var s [2]float64
	var ss [3]float64
	for range draws {
		k.Step(st)
		x := k.Position()
		s[0] += x[0]
		s[1] += x[1]
		ss[0] += x[0] * x[0]
		ss[1] += x[0] * x[1]
		ss[2] += x[1] * x[1]
	}
	m0, m1 := s[0]/draws, s[1]/draws
	got := [3]float64{ss[0]/draws - m0*m0, ss[1]/draws - m0*m1, ss[2]/draws - m1*m1}
	want := [3]float64{cov[0], cov[1], cov[3]}
	for j, g := range []float64{m0, m1} {
		if math.Abs(g-mean[j]) > 4*math.Sqrt(cov[j*3]/draws) {
			t.Errorf("mean %d: %.6g, want %.6g", j, g, mean[j])
		}
	}
	for j := range got {
		// Var of a sample (co)variance ≈ (σ_aa σ_bb + σ_ab²)/draws.
		se := math.Sqrt((cov[0]*cov[3] + cov[1]*cov[1]) / draws)
		if j != 1 {
			se = math.Sqrt(2/float64(draws)) * want[j]
		}
		if math.Abs(got[j]-want[j]) > 4*se {
			t.Errorf("covariance entry %d: %.6g, want %.6g", j, got[j], want[j])
		}
	}
	if a := testing.AllocsPerRun(100, func() { k.Step(st) }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
}

// Each column's noise is in proportion to its bound's half-width (the
// scaled sums get one std): with bounds ±1 and ±40 the columns' noise stds
// are σ and 40σ, where one isotropic std for both sums would be
// 2‖h‖/μ ≈ 40.01·(2/μ) on the narrow column too.
func TestMeanPlanScalesNoisePerColumn(t *testing.T) {
	p, err := NewMeanPlan([]model.Interval{{Lo: -1, Hi: 1}, {Lo: -40, Hi: 40}}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sensitivity != 2*math.Sqrt2 || p.ColumnStd(0) != p.Std || p.ColumnStd(1) != 40*p.Std {
		t.Fatalf("Δ %v, column stds %v, %v (σ %v)", p.Sensitivity, p.ColumnStd(0), p.ColumnStd(1), p.Std)
	}
	iso := 2 * math.Hypot(1, 40) / (0.5 - mcmc.GridInflation(2, GridBits))
	if narrow := p.ColumnStd(0); narrow > iso/25 {
		t.Fatalf("the narrow column's noise std %v, isotropic %v", narrow, iso)
	}
}

// The exact (non-private) kernel's draws have the moments of the models'
// closed-form posteriors, computed independently from the data by
// GaussianMean.Posterior and Banana.Posterior: the Gaussian mean with a
// correlated covariance and a temper, and the banana (a = 20) through
// y = (θ1, θ2 + aθ1²) and E θ2 = μ2 − a(μ1² + v1). Tolerance 4 Monte Carlo
// SEs of 40,000 iid draws; each was seen to fail with the Cholesky factor
// left out of the draw (y = mean + z) and with the banana's map skipped.
func TestExactMeanKernel(t *testing.T) {
	const draws = 40000
	r := rand.New(rand.NewPCG(7, 8))
	mom := func(k mcmc.Kernel, f func(theta, y []float64)) (mean [2]float64, cov [3]float64, th2 float64) {
		st := rng.Streams{Noise: rand.New(rand.NewPCG(5, 6)), Public: r}
		var s [2]float64
		var ss [3]float64
		y := make([]float64, 2)
		for range draws {
			k.Step(st)
			f(k.Position(), y)
			th2 += k.Position()[1] / draws
			s[0], s[1] = s[0]+y[0], s[1]+y[1]
			ss[0], ss[1], ss[2] = ss[0]+y[0]*y[0], ss[1]+y[0]*y[1], ss[2]+y[1]*y[1]
		}
		mean = [2]float64{s[0] / draws, s[1] / draws}
		cov = [3]float64{ss[0]/draws - mean[0]*mean[0], ss[1]/draws - mean[0]*mean[1], ss[2]/draws - mean[1]*mean[1]}
		return mean, cov, th2
	}
	check := func(name string, got [2]float64, gotCov [3]float64, mean [2]float64, cov [3]float64) {
		t.Helper()
		for j := range 2 {
			v := cov[2*j]
			if math.Abs(got[j]-mean[j]) > 4*math.Sqrt(v/draws) {
				t.Errorf("%s: mean %d %.6g, want %.6g", name, j, got[j], mean[j])
			}
		}
		for j, w := range cov {
			se := math.Sqrt((cov[0]*cov[2] + cov[1]*cov[1]) / draws)
			if j != 1 {
				se = math.Sqrt(2.0/draws) * w
			}
			if math.Abs(gotCov[j]-w) > 4*se {
				t.Errorf("%s: covariance entry %d %.6g, want %.6g (SE %.2g)", name, j, gotCov[j], w, se)
			}
		}
	}

	g := meanModel(t, model.Spec{Model: "gaussian", Cov: [][]float64{{1, 0.6}, {0.6, 2}}, Temper: 0.5}, r, 200, 1, 1, -0.5, 1.4, 5)
	k, err := NewExactMeanKernel(g)
	if err != nil {
		t.Fatal(err)
	}
	if k.Name() != "exact" {
		t.Fatalf("name %q", k.Name())
	}
	gm, gc := g.(*model.GaussianMean).Posterior()
	got, gotCov, _ := mom(k, func(theta, y []float64) { copy(y, theta) })
	check("gaussian", got, gotCov, [2]float64{gm[0], gm[1]}, [3]float64{gc[0][0], gc[0][1], gc[1][1]})

	b := meanModel(t, model.Spec{Model: "banana"}, r, 5000, 0, math.Sqrt(2000), 3, 50, 200)
	kb, err := NewExactMeanKernel(b)
	if err != nil {
		t.Fatal(err)
	}
	a := b.(*model.Banana).A()
	bm, bv := b.(*model.Banana).Posterior()
	got, gotCov, th2 := mom(kb, func(theta, y []float64) { y[0], y[1] = theta[0], theta[1]+a*theta[0]*theta[0] })
	check("banana", got, gotCov, [2]float64{bm[0], bm[1]}, [3]float64{bv[0], 0, bv[1]})
	// θ2 = y2 − a·y1²: mean μ2 − a(μ1² + v1), variance v2 + a²·(4μ1²v1 + 2v1²).
	st := rng.Streams{Noise: rand.New(rand.NewPCG(9, 9)), Public: r}
	if n := testing.AllocsPerRun(100, func() { kb.Step(st) }); n != 0 {
		t.Errorf("exact Step allocates %v times", n)
	}
	want := bm[1] - a*(bm[0]*bm[0]+bv[0])
	se := math.Sqrt((bv[1] + a*a*(4*bm[0]*bm[0]*bv[0]+2*bv[0]*bv[0])) / draws)
	if math.Abs(th2-want) > 4*se {
		t.Errorf("banana: E θ2 %.6g, want %.6g (SE %.2g)", th2, want, se)
	}

	tab, err := dataset.FromColumns([]string{"x", "y"}, [][]float64{{0.1, -0.3, 0.5}, {0, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	lg, err := model.Build(model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x"}}, tab)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewExactMeanKernel(lg); err == nil || !strings.Contains(err.Error(), "gaussian and banana") {
		t.Errorf("exact on a logistic model: %v", err)
	}
}
