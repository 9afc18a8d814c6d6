package noiseaware

import (
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/report"
)

// glmPriorPredictive is the prior-predictive coverage of the linear or
// Poisson model's noise-aware intervals on synthDesign's predictors: each of
// reps replicates draws the scaled coefficients (outcome scaled too, for
// linear) from N(0, s²), simulates the outcome, releases at ε and samples
// the posterior under that same N(0, s²) prior. It returns the share of
// 90% and of 95% central intervals that contain the truth, and the 90%
// share by coefficient (intercept, age, dose). For an exact posterior the
// shares are 0.90 and 0.95 whatever n, ε, s and the design (Cook, Gelman &
// Rubin 2006).
func glmPriorPredictive(t *testing.T, family string, n int, s float64, ybound dataset.Bound, eps float64, reps int, seed uint64) (float64, float64, []float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 4))
	// The plan reads only public inputs (n, the bounds, ε), the same in
	// every replicate; the rows it is built from are not released.
	sp := specFor(t, synthGLM(t, family, n, []float64{0, 0, 0}, ybound, r), eps, 1e-5)
	sp.PriorSD = s
	sp.AdaptCoords = true // as a run's plan (core/run)
	p, err := NewPlan(sp)
	if err != nil {
		t.Fatal(err)
	}
	hit, hit95, total := 0, 0, 0
	by := make([]float64, 3)
	for range reps {
		theta := []float64{s * r.NormFloat64(), s * r.NormFloat64(), s * r.NormFloat64()}
		user := append([]float64(nil), theta...)
		p.ToUser(user, true)
		rel, err := Run(p, synthGLM(t, family, n, user, ybound, r), r)
		if err != nil {
			t.Fatal(err)
		}
		q := NewPosterior(rel)
		dr := make([][]float64, 1000)
		for i := range dr {
			dr[i] = make([]float64, 3)
			q.DrawScaled(r, dr[i])
		}
		for j := range theta {
			c := quantiles(dr, j, 0.05, 0.95)
			if c[0] <= theta[j] && theta[j] <= c[1] {
				hit++
				by[j]++
			}
			c = quantiles(dr, j, 0.025, 0.975)
			if c[0] <= theta[j] && theta[j] <= c[1] {
				hit95++
			}
			total++
		}
	}
	for j := range by {
		by[j] /= float64(reps)
	}
	return float64(hit) / float64(total), float64(hit95) / float64(total), by
}

// With truths drawn from the prior the posterior uses, the linear and
// Poisson models' noise-aware intervals are calibrated (90% intervals
// within 0.85–0.95). Poisson's were not with two releases, the default
// before 2026-11-30: 0.84–0.87 where the release says little, and 0.75 and
// 0.60 (intercept 0.66 and 0.41) at the informed settings n = 5,000,
// ε = 3 and n = 20,000, ε = 8, where the last expansion point (the
// log-linear start) is far from the mode and no term measured that error;
// with four (PoissonReleases) the expansion-error term τ does. Measured
// (seed 31; SE about 0.01–0.015 with 500 replicates × 3 coefficients):
//
//	linear  n = 500,   s = 0.2,  ε = 1    0.920 / 0.955
//	linear  n = 2000,  s = 0.2,  ε = 0.5  0.889 / 0.945
//	linear  n = 500,   s = 0.05, ε = 3    0.905 / 0.949
//	poisson n = 500,   s = 0.5,  ε = 3    0.856 / 0.918
//	poisson n = 5000,  s = 0.5,  ε = 0.5  0.908 / 0.949
//	poisson n = 2000,  s = 0.5,  ε = 1    0.881 / 0.929
//	poisson n = 2000,  s = 1,    ε = 1    0.907 / 0.953
//	poisson n = 5000,  s = 1,    ε = 3    0.913 / 0.956
//	poisson n = 20000, s = 1,    ε = 8    0.907 / 0.947 (200 replicates)
//
// (90% / 95% intervals; s on the scaled space: per half-range of a
// predictor's bound, for linear in half-ranges of the outcome's bound too.)
// Poisson's outcome bound 0…20 clips the rare rows above 20, which the
// release models as censored (censored.go; with the clipped counts taken
// as counts, four releases gave 0.859–0.913, 0.878 at n = 20,000). The releases are
// planned as a run plans them (Spec.AdaptCoords; this design fills its
// box, so the box is kept). Three Poisson releases covered 0.886–0.948 on
// 300 replicates of these settings but a fixed truth at n = 20,000, ε = 8
// 1.00 with intervals 8 times four releases' (TestCalibrationLinearPoisson);
// five 0.877–0.934. Fails when either model leaves 0.85–0.95 (90%), or
// when the ranges report.CalibrationNote states are not these measurements
// widened to whole percents.
func TestCalibrationPriorPredictiveLinearPoisson(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	measured := map[string][2][2]float64{"linear": {{1, 0}, {1, 0}}, "poisson": {{1, 0}, {1, 0}}}
	for _, c := range []struct {
		family string
		n      int
		s      float64
		yb     dataset.Bound
		eps    float64
		reps   int
	}{
		{"linear", 500, 0.2, dataset.Bound{Lo: -10, Hi: 10}, 1, 500},
		{"linear", 2000, 0.2, dataset.Bound{Lo: -10, Hi: 10}, 0.5, 500},
		{"linear", 500, 0.05, dataset.Bound{Lo: -10, Hi: 10}, 3, 500},
		{"poisson", 500, 0.5, dataset.Bound{Lo: 0, Hi: 20}, 3, 500},
		{"poisson", 5000, 0.5, dataset.Bound{Lo: 0, Hi: 20}, 0.5, 500},
		{"poisson", 2000, 0.5, dataset.Bound{Lo: 0, Hi: 20}, 1, 500},
		{"poisson", 2000, 1, dataset.Bound{Lo: 0, Hi: 20}, 1, 500},
		{"poisson", 5000, 1, dataset.Bound{Lo: 0, Hi: 20}, 3, 500},
		{"poisson", 20000, 1, dataset.Bound{Lo: 0, Hi: 20}, 8, 200},
	} {
		cov, cov95, by := glmPriorPredictive(t, c.family, c.n, c.s, c.yb, c.eps, c.reps, 31)
		t.Logf("%s n = %d, s = %v, ε = %v: 90%% intervals %.3f (by coefficient %.2f), 95%% %.3f", c.family, c.n, c.s, c.eps, cov, by, cov95)
		if cov < 0.85 || cov > 0.95 {
			t.Errorf("%s n = %d, s = %v, ε = %v: prior-predictive coverage %.3f outside 0.85–0.95", c.family, c.n, c.s, c.eps, cov)
		}
		m := measured[c.family]
		m[0] = [2]float64{min(m[0][0], cov), max(m[0][1], cov)}
		m[1] = [2]float64{min(m[1][0], cov95), max(m[1][1], cov95)}
		measured[c.family] = m
	}
	for fam, stated := range map[string][2]report.CoverageRange{
		"linear":  {report.NoiseAwareLinearPriorPredictive, report.NoiseAwareLinearPriorPredictive95},
		"poisson": {report.NoiseAwarePoissonPriorPredictive, report.NoiseAwarePoissonPriorPredictive95},
	} {
		for k, level := range []string{"90%", "95%"} {
			m := measured[fam][k]
			if got := report.PercentRange(m[0], m[1]); !sameRange(stated[k], got) {
				t.Errorf("%s, %s intervals: report.CalibrationNote states %v, measured %.3f–%.3f (%v): update the note", fam, level, stated[k], m[0], m[1], got)
			}
		}
	}
}
