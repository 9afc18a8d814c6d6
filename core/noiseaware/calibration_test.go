package noiseaware

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// plugInDraws ignores the release noise: the Laplace posterior of the last
// release's quadratic expansion with the released (S̃, M̃₊) taken as exact.
// It is the posterior a sampler that forgets the noise would report.
func plugInDraws(rel *Release, k int, r *rand.Rand, intercept bool) [][]float64 {
	d, R := rel.D, len(rel.S)
	p := rel.Plan
	prec := psdPart(rel.M[R-1], d)
	g := make([]float64, d)
	th := rel.Theta[R-1]
	for j := range d {
		prec[j*d+j] += 1 / (p.PriorSD * p.PriorSD)
		g[j] = rel.S[R-1][j]/p.Phi - th[j]/(p.PriorSD*p.PriorSD)
	}
	mean := make([]float64, d)
	_ = cholSolve(prec, d, g, mean)
	L := append([]float64(nil), prec...)
	_ = cholesky(L, d)
	out := make([][]float64, k)
	for i := range out {
		z := make([]float64, d)
		for j := range z {
			z[j] = r.NormFloat64()
		}
		backward(L, d, z)
		for j := range z {
			z[j] += mean[j] + th[j]
		}
		p.ToUser(z, intercept)
		out[i] = z
	}
	return out
}

// simCoverage simulates reps outcomes at the true coefficients truth on the
// design of design(), releases at ε and returns the share of 90% intervals
// (of the noise-aware posterior, or of the plug-in one) that contain the
// truth, overall and per coefficient.
func simCoverage(t *testing.T, design func() *dataset.Table, truth []float64, eps float64, reps int, seed uint64, plugIn bool) (float64, []float64) {
	t.Helper()
	hit, total := 0, 0
	by := make([]float64, len(truth))
	forEachFixedTruth(t, design, truth, eps, reps, seed, func(_ int, _ model.Model, _ *Plan, rel *Release, _ []float64, r *rand.Rand) {
		var dr [][]float64
		if plugIn {
			dr = plugInDraws(rel, 1000, r, true)
		} else {
			dr = drawsUser(rel, 1000, r, true)
		}
		for j := range truth {
			q := quantiles(dr, j, 0.05, 0.95)
			if q[0] <= truth[j] && truth[j] <= q[1] {
				hit++
				by[j] += 1 / float64(reps)
			}
			total++
		}
	})
	return float64(hit) / float64(total), by
}

// forEachFixedTruth runs reps replicates of the fixed-truth simulation:
// the outcome simulated at truthUser (the user's units) on design(), one
// release at ε; f gets the replicate's index, model, plan, release, the
// truth on the scaled space and the simulation's random source (seeded
// by seed).
func forEachFixedTruth(t *testing.T, design func() *dataset.Table, truthUser []float64, eps float64, reps int, seed uint64, f func(rep int, m model.Model, p *Plan, rel *Release, truth []float64, r *rand.Rand)) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	for rep := range reps {
		tab := design()
		simulateLogistic(tab, truthUser, r)
		m := buildLogistic(t, tab)
		p, err := NewPlan(specFor(t, m, eps, 1e-5))
		if err != nil {
			t.Fatal(err)
		}
		rel, err := Run(p, m, r)
		if err != nil {
			t.Fatal(err)
		}
		truth := append([]float64(nil), truthUser...)
		p.FromUser(truth, true)
		f(rep, m, p, rel, truth, r)
	}
}

// bcDesign returns the breast-cancer design at n rows (the 569 rows, or a
// resample of them).
func bcDesign(t *testing.T, n int) func() *dataset.Table {
	return func() *dataset.Table {
		if n == 569 {
			return loadBC(t)
		}
		return resample(loadBC(t), n, 11)
	}
}

// Simulation coverage of the 90% intervals on the breast-cancer design
// (n = 569, the bc5 features in raw units, true coefficients = the
// non-private posterior mean, y simulated) at ε = 3 and ε = 0.5 is not
// below 0.9 by more than three binomial standard errors. There is no upper
// bound at a fixed truth: the weakly identified coefficients, whose
// posterior is close to the N(0, 20²) prior, are covered with probability
// 0 or 1 at any fixed value (1 here: they lie inside the prior's bulk), so
// the average over coefficients is 0.95–1.00 for any correct posterior
// (TestCalibrationPriorPredictive is the two-sided check). A plug-in
// posterior that ignores the release noise fails the lower bound at
// ε = 0.5.
func TestCalibrationCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	truth, _ := bcTruth(t)
	const reps = 40
	se := math.Sqrt(0.9 * 0.1 / float64(reps*len(truth)))
	design := func() *dataset.Table { return loadBC(t) }
	for _, c := range []struct {
		eps  float64
		seed uint64
	}{{3, 9}, {0.5, 10}} {
		cov, _ := simCoverage(t, design, truth, c.eps, reps, c.seed, false)
		t.Logf("noise-aware, ε = %v: coverage %.3f (at least 0.9 − %.3f)", c.eps, cov, 3*se)
		if cov < 0.9-3*se {
			t.Errorf("noise-aware coverage %.3f at ε = %v", cov, c.eps)
		}
	}
	naive, _ := simCoverage(t, design, truth, 0.5, reps, 10, true)
	t.Logf("plug-in (noise ignored), ε = 0.5: coverage %.3f", naive)
	if !(naive < 0.9-3*se) {
		t.Errorf("the plug-in posterior's coverage %.3f at ε = 0.5 is not below 0.9 − 3 SE: the check cannot tell", naive)
	}
}

// The informed coefficients (intercept, radius) are covered at a fixed
// truth on the 5,000-row resample at ε = 8, where the release noise in M̃
// used to drive the Newton path away from the mode: radius 0.77 (intercept
// 0.86) without the Levenberg–Marquardt damping (NewtonDamping = 0), 0.96
// (1.00) with it (100 replicates; the binomial SE at 0.9 is 0.03, the bound
// 0.8 is 3.3 SE below).
func TestNewtonDampingInformedCoefficients(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	truth, _ := bcTruth(t)
	design := func() *dataset.Table { return resample(loadBC(t), 5000, 11) }
	cov, by := simCoverage(t, design, truth, 8, 100, 9, false)
	t.Logf("n = 5000, ε = 8: coverage %.3f, by coefficient %.2f", cov, by)
	for j, c := range by {
		if c < 0.8 {
			t.Errorf("coefficient %d: coverage %.2f at a fixed truth", j, c)
		}
	}
}

// priorPredictiveCoverage is the share of 90% intervals that contain the
// truth when each replicate's true coefficients are drawn from the prior
// the posterior uses, N(0, s²) on the scaled space, on the breast-cancer
// design (resampled to n rows unless n = 569), with y simulated and one
// release at ε. For an exact posterior it is 0.9 whatever the design, n, ε
// and s (Cook, Gelman & Rubin 2006; Talts et al. 2018): departures measure
// the approximations, not the prior's luck with one truth. It also returns
// the coverage per coefficient.
func priorPredictiveCoverage(t *testing.T, n int, eps, s float64, reps int, seed uint64, asRun bool) (float64, []float64) {
	t.Helper()
	d := 6
	hit := make([]int, d)
	forEachPriorPredictive(t, n, eps, s, reps, seed, asRun, func(q *Posterior, truth []float64, r *rand.Rand) {
		dr := make([][]float64, 1000)
		for i := range dr {
			dr[i] = make([]float64, d)
			q.DrawScaled(r, dr[i])
		}
		for j := range truth { // on the scaled space, where the prior is
			ci := quantiles(dr, j, 0.05, 0.95)
			if ci[0] <= truth[j] && truth[j] <= ci[1] {
				hit[j]++
			}
		}
	})
	tot, by := 0, make([]float64, d)
	for j, h := range hit {
		tot += h
		by[j] = float64(h) / float64(reps)
	}
	return float64(tot) / float64(reps*d), by
}

// forEachPriorPredictive runs reps replicates of the prior-predictive
// simulation (truths from N(0, s²) on the scaled space, the outcome
// simulated on the breast-cancer design resampled to n rows, one release at
// ε with the same prior) and calls f with each replicate's posterior, its
// truth and the simulation's random source.
func forEachPriorPredictive(t *testing.T, n int, eps, s float64, reps int, seed uint64, asRun bool, f func(q *Posterior, truth []float64, r *rand.Rand)) {
	t.Helper()
	forEachPriorPredictiveRelease(t, n, eps, s, reps, seed, asRun, func(rel *Release, _ model.Model, truth []float64, r *rand.Rand) {
		f(NewPosterior(rel), truth, r)
	})
}

// forEachPriorPredictiveRelease is forEachPriorPredictive, calling f with
// each replicate's release and the model of its simulated rows instead of
// the posterior.
func forEachPriorPredictiveRelease(t *testing.T, n int, eps, s float64, reps int, seed uint64, asRun bool, f func(rel *Release, m model.Model, truth []float64, r *rand.Rand)) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	truth := make([]float64, 6)
	for range reps {
		tab := bcDesign(t, n)()
		spec := specFor(t, buildLogistic(t, tab), eps, 1e-5)
		spec.PriorSD = s
		spec.AdaptCoords = asRun
		p, err := NewPlan(spec)
		if err != nil {
			t.Fatal(err)
		}
		for j := range truth {
			truth[j] = s * r.NormFloat64()
		}
		user := append([]float64(nil), truth...)
		p.ToUser(user, true)
		simulateLogistic(tab, user, r)
		m := buildLogistic(t, tab)
		rel, err := Run(p, m, r)
		if err != nil {
			t.Fatal(err)
		}
		f(rel, m, truth, r)
	}
}

// checkPriorPredictive runs priorPredictiveCoverage with 200 replicates,
// logs it, fails the test when the coverage is outside [lo, hi], and
// returns the coverage by coefficient.
func checkPriorPredictive(t *testing.T, n int, eps, s float64, seed uint64, lo, hi float64, asRun bool) []float64 {
	t.Helper()
	cov, by := priorPredictiveCoverage(t, n, eps, s, 200, seed, asRun)
	t.Logf("n = %d, ε = %v, s = %v: prior-predictive coverage %.3f, by coefficient %.2f", n, eps, s, cov, by)
	if cov < lo || cov > hi {
		t.Errorf("n = %d, ε = %v, s = %v: prior-predictive coverage %.3f outside %.2f–%.2f", n, eps, s, cov, lo, hi)
	}
	return by
}

// The prior-predictive calibration of the noise-aware posterior (truths
// drawn from the N(0, 10²) prior on the scaled space, the posterior under
// the same prior, 200 replicates): coverage of the 90% intervals within
// the 0.8–0.97 at n = 569, ε = 3 and n = 5,000, ε = 1 (the done-when
// settings) and at n = 50,000, ε = 8, where the last expansion point is
// often far from the mode relative to the small posterior sd; and no
// coefficient below 0.65. It runs the schedule a run uses (Spec.AdaptCoords,
// six releases: the first chooses the coordinates of the others).
// Measured on the scaled space: 0.822, 0.839, 0.802 (intercept at n = 50,000
// 0.70, the lowest); with four releases in the box 0.833, 0.838, 0.853
// (0.848, 0.852, 0.839 before the damped Newton path; intercept at
// n = 50,000: 0.81, was 0.72); without the model-error term τ
// (modelErrorVar) n = 50,000 falls to 0.72, and with the start's old
// 2% clamp on n̂₁ the intercept there to 0.54: both fail. Non-private
// Laplace intervals cover 0.88–0.89 in this simulation, so the remaining
// shortfall is the release's approximations (docs/SAMPLERS.md).
func TestCalibrationPriorPredictive(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, c := range []struct {
		n    int
		eps  float64
		seed uint64
	}{{569, 3, 9}, {5000, 1, 9}, {50000, 8, 9}} {
		by := checkPriorPredictive(t, c.n, c.eps, 10, c.seed, 0.8, 0.97, true)
		if m := slices.Min(by); m < 0.65 {
			t.Errorf("n = %d, ε = %v: a coefficient's prior-predictive coverage is %.2f", c.n, c.eps, m)
		}
	}
}

// The band, 0.85–0.95, holds for prior-predictive truths of the
// effect sizes a clinical analysis expects: N(0, s²) on the scaled
// coefficients with s = 2.5 (an odds ratio of e^±4 across half a predictor's
// public range at 1.6 sd) and s = 5, the algorithm run with that prior and
// the schedule a run uses (Spec.AdaptCoords), at the two settings.
// Measured (200 replicates × 6 coefficients, seed 11): 0.875 (s = 2.5) and
// 0.855 (s = 5) at n = 569, ε = 3; 0.924 and 0.907 at n = 5,000, ε = 1. With
// four releases in the box: 0.886, 0.875, 0.886, 0.866 (before the Newton
// damping: 0.876, 0.873, 0.894, 0.884). At s = 10 (TestCalibrationPriorPredictive)
// many replicates are close to separation and the expansion falls short
// (0.83–0.85): even noise-free releases (ε = 1000) cover 0.84, because the
// Newton path ends 3–4 Laplace sds from the mode, and the exact
// Laplace approximation at the mode covers only 0.88–0.89 there.
func TestCalibrationPriorPredictiveModerateEffects(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, c := range []struct {
		n   int
		eps float64
		s   float64
	}{{569, 3, 2.5}, {569, 3, 5}, {5000, 1, 2.5}, {5000, 1, 5}} {
		checkPriorPredictive(t, c.n, c.eps, c.s, 11, 0.85, 0.95, true)
	}
}

// doneWhen runs 4 chains × 1000 draws sharing one release at ε and returns
// the summary rows and the non-private posterior (same prior).
func doneWhen(t *testing.T, m model.Model, eps float64, key byte) ([]diag.ParamSummary, []float64, []float64) {
	t.Helper()
	spec := specFor(t, m, eps, 1e-5)
	spec.AdaptCoords = true // the schedule a run uses (core/run)
	p, err := NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	var kb [32]byte
	kb[0] = key
	k := rng.KeyFromBytes(kb)
	chains := make([][][]float64, 4)
	for c := range chains {
		kern, err := NewKernel(m, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := kern.Release(rng.ForChain(1, k, -1).Noise); err != nil {
			t.Fatal(err)
		}
		if err := kern.Init(make([]float64, m.Dim())); err != nil {
			t.Fatal(err)
		}
		r := rng.ForChain(1, k, c)
		for range 1000 {
			kern.Step(r)
			chains[c] = append(chains[c], append([]float64(nil), kern.Position()...))
		}
	}
	mean, sd := laplace(m, p)
	return diag.Summary(m.ParamNames(), chains), mean, sd
}

// checkDoneWhen checks one release's summary against the non-private
// posterior and returns the share of 90% intervals that contain the
// non-private mean and the smallest private/non-private sd ratio.
func checkDoneWhen(t *testing.T, rows []diag.ParamSummary, mean, sd []float64, label string) (share, minRatio float64) {
	t.Helper()
	in := 0
	minRatio = math.Inf(1)
	maxR, minESS := 0.0, math.Inf(1)
	for j, r := range rows {
		if r.Rhat > 1.01 || r.ESSBulk < 400 {
			t.Errorf("%s %s: R-hat %.4f, bulk ESS %.0f", label, r.Name, r.Rhat, r.ESSBulk)
		}
		maxR, minESS = math.Max(maxR, r.Rhat), math.Min(minESS, r.ESSBulk)
		if r.Q5 <= mean[j] && mean[j] <= r.Q95 {
			in++
		}
		minRatio = math.Min(minRatio, r.SD/sd[j])
	}
	share = float64(in) / float64(len(rows))
	t.Logf("%s: max R-hat %.4f, min bulk ESS %.0f, %d of %d 90%% intervals contain the non-private mean, min sd ratio %.2f", label, maxR, minESS, in, len(rows), minRatio)
	if minRatio < 0.8 {
		t.Errorf("%s: a private sd is %.2f× the non-private one", label, minRatio)
	}
	return share, minRatio
}

// The "done when" on the breast-cancer data: ε = 3 on the 569 rows,
// ε = 1 on a 5,000-row resample (public bounds, a budget, the recommended
// algorithm only), over 10 independent releases each (fixed keys): every
// release has R-hat ≤ 1.01, bulk-ESS ≥ 400 and no private sd below 0.8× the
// non-private one; the 90% intervals contain the non-private posterior mean
// for at least 80% of the coefficients on average over the releases (one
// release is one draw of a random event: a calibrated 90% interval misses a
// fixed point 10% of the time). The non-private posterior is the Laplace
// approximation under the same prior.
func TestDoneWhenBreastCancer(t *testing.T) {
	tab := loadBC(t)
	small := buildLogistic(t, tab)
	big := buildLogistic(t, resample(loadBC(t), 5000, 11))
	for _, c := range []struct {
		m     model.Model
		eps   float64
		label string
	}{{small, 3, "n=569 ε=3"}, {big, 1, "n=5000 ε=1"}} {
		tot := 0.0
		for key := range 10 {
			rows, mean, sd := doneWhen(t, c.m, c.eps, byte(key+1))
			share, _ := checkDoneWhen(t, rows, mean, sd, fmt.Sprintf("%s release %d", c.label, key+1))
			tot += share
		}
		t.Logf("%s: on average %.0f%% of the 90%% intervals contain the non-private mean", c.label, 10*tot)
		if tot/10 < 0.8 {
			t.Errorf("%s: on average only %.0f%% of the 90%% intervals contain the non-private mean", c.label, 10*tot)
		}
	}
}
