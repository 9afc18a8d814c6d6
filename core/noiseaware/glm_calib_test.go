package noiseaware

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/report"
)

// synthDesign is n rows of (age, dose, y) with age ~ U(20, 80), dose ~
// U(0, 10), y simulated by sim from the linear predictor at truth.
func synthDesign(n int, truth []float64, r *rand.Rand, sim func(eta float64, r *rand.Rand) float64) *dataset.Table {
	t := &dataset.Table{Names: []string{"age", "dose", "y"}, Rows: n}
	for range n {
		age, dose := 20+60*r.Float64(), 10*r.Float64()
		eta := truth[0] + truth[1]*age + truth[2]*dose
		t.Data = append(t.Data, age, dose, sim(eta, r))
	}
	return t
}

// poissonDraw is a Poisson(lam) draw: Knuth's product of uniforms, or for
// lam above 700 (where e^−lam underflows and that loop would not end) its
// normal approximation, rounded and floored at 0; the designs clip such
// counts to their outcome bound anyway.
func poissonDraw(lam float64, r *rand.Rand) float64 {
	if lam > 700 {
		return math.Max(0, math.Round(lam+math.Sqrt(lam)*r.NormFloat64()))
	}
	L, k, p := math.Exp(-lam), 0.0, 1.0
	for {
		p *= r.Float64()
		if p < L {
			return k
		}
		k++
	}
}

// synthGLM is the linear (unit noise sd) or Poisson model of n rows of
// synthDesign at the coefficients truth (user units), clipped to the
// design's public bounds and the outcome's ybound.
func synthGLM(t *testing.T, family string, n int, truth []float64, ybound dataset.Bound, r *rand.Rand) model.Model {
	t.Helper()
	sim := map[string]func(float64, *rand.Rand) float64{
		"linear":  func(eta float64, r *rand.Rand) float64 { return eta + r.NormFloat64() },
		"poisson": func(eta float64, r *rand.Rand) float64 { return poissonDraw(math.Exp(eta), r) },
	}[family]
	tab := synthDesign(n, truth, r, sim)
	if _, err := tab.ApplyBounds(map[string]dataset.Bound{"age": {Lo: 18, Hi: 90}, "dose": {Lo: 0, Hi: 10}, "y": ybound}); err != nil {
		t.Fatal(err)
	}
	m, err := model.Build(model.Spec{Model: family, Outcome: "y", Predictors: []string{"age", "dose"}}, tab)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// glmCoverage is the share of 90% intervals containing truth over reps
// simulated datasets of the given family at ε.
func glmCoverage(t *testing.T, family string, n int, truth []float64, ybound dataset.Bound, eps float64, reps int, seed uint64) float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	hit, total := 0, 0
	for range reps {
		m := synthGLM(t, family, n, truth, ybound, r)
		sp := specFor(t, m, eps, 1e-5)
		sp.AdaptCoords = true // as a run's plan (core/run)
		p, err := NewPlan(sp)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := Run(p, m, r)
		if err != nil {
			t.Fatal(err)
		}
		dr := drawsUser(rel, 1000, r, true)
		for j := range truth {
			q := quantiles(dr, j, 0.05, 0.95)
			if q[0] <= truth[j] && truth[j] <= q[1] {
				hit++
			}
			total++
		}
	}
	return float64(hit) / float64(total)
}

// Simulation coverage of the linear and Poisson models' 90% intervals at
// known coefficients is within three binomial standard errors of 0.9 for
// the linear model (exact quadratic likelihood). The Poisson intervals may
// err on the safe side: up to 1.00 where the release says little (n = 500
// to 5,000 at ε ≤ 3: intervals 20–60 times the coefficients, mostly the
// prior, as logistic's at the done-when settings), up to 0.98 where the
// data inform them (n = 5,000, ε = 3; n = 2,000 and 20,000, ε = 8), and
// never below 0.9 − 3 SE. Measured with four releases and the count
// censored at K (seed 21): 0.993, 0.984, 0.984; 0.967, 0.947, 0.922. Two releases, the default before
// 2026-11-30, fail it: 0.898, 0.802 and 0.116 at the informed settings (the
// last expansion point, the log-linear start, is far from the mode there
// and nothing measures its error).
func TestCalibrationLinearPoisson(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const reps = 150
	se := math.Sqrt(0.9 * 0.1 / float64(reps*3))
	measured := map[string][2]float64{"linear": {1, 0}, "poisson": {1, 0}}
	for _, c := range []struct {
		family   string
		n        int
		truth    []float64
		yb       dataset.Bound
		eps      float64
		informed bool
	}{
		{"linear", 500, []float64{-1.5, 0.05, -0.3}, dataset.Bound{Lo: -10, Hi: 10}, 1, true},
		{"linear", 2000, []float64{-1.5, 0.05, -0.3}, dataset.Bound{Lo: -10, Hi: 10}, 0.5, true},
		{"poisson", 500, []float64{0.3, 0.02, -0.1}, dataset.Bound{Lo: 0, Hi: 20}, 3, false},
		{"poisson", 5000, []float64{0.3, 0.02, -0.1}, dataset.Bound{Lo: 0, Hi: 20}, 0.5, false},
		{"poisson", 2000, []float64{-0.5, 0.04, -0.2}, dataset.Bound{Lo: 0, Hi: 20}, 1, false},
		{"poisson", 5000, []float64{0.3, 0.02, -0.1}, dataset.Bound{Lo: 0, Hi: 20}, 3, true},
		{"poisson", 2000, []float64{-0.5, 0.04, -0.2}, dataset.Bound{Lo: 0, Hi: 20}, 8, true},
		{"poisson", 20000, []float64{-0.5, 0.04, -0.2}, dataset.Bound{Lo: 0, Hi: 20}, 8, true},
	} {
		cov := glmCoverage(t, c.family, c.n, c.truth, c.yb, c.eps, reps, 21)
		t.Logf("%s n = %d ε = %v: coverage %.3f (0.9 ± %.3f)", c.family, c.n, c.eps, cov, 3*se)
		m := measured[c.family]
		measured[c.family] = [2]float64{min(m[0], cov), max(m[1], cov)}
		hi := 0.9 + 3*se
		if c.family == "poisson" {
			hi = 1
			if c.informed {
				hi = 0.98
			}
		}
		if cov < 0.9-3*se || cov > hi {
			t.Errorf("%s n = %d ε = %v: coverage %.3f outside %.3f–%.3f", c.family, c.n, c.eps, cov, 0.9-3*se, hi)
		}
	}
	// The summary states these measurements (report.CalibrationNote): the
	// stated ranges are the measured ones widened to whole percents.
	for fam, stated := range map[string]report.CoverageRange{"linear": report.NoiseAwareLinearCoverage, "poisson": report.NoiseAwarePoissonCoverage} {
		m := measured[fam]
		if got := report.PercentRange(m[0], m[1]); !sameRange(stated, got) {
			t.Errorf("%s: report.CalibrationNote states %v, measured %.3f–%.3f (%v): update the note", fam, stated, m[0], m[1], got)
		}
	}
}

// sameRange reports whether two coverage ranges are equal up to rounding.
func sameRange(a, b report.CoverageRange) bool {
	return math.Abs(a.Lo-b.Lo) < 1e-9 && math.Abs(a.Hi-b.Hi) < 1e-9
}

// A count outcome whose public bound K cuts into its distribution: rates
// from 1.8 to 6 over the age range (coefficients 0.2, 0.02, 0 in the
// user's units) under K = 8, so that up to 15% of the high-rate rows'
// counts are clipped to 8. The release models min(Y, K) as censored at K
// (censored.go), and the 90% intervals cover 0.90 ± 3 SE (100 replicates
// × 3 coefficients at n = 20,000, ε = 8; measured 0.927). Modelled as an
// unclipped count, as before 2026-11-30, they covered 0.440 (the age
// slope 0.02).
func TestPoissonCensoredAtBound(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const reps = 100
	se := math.Sqrt(0.9 * 0.1 / float64(reps*3))
	cov := glmCoverage(t, "poisson", 20000, []float64{0.2, 0.02, 0}, dataset.Bound{Lo: 0, Hi: 8}, 8, reps, 21)
	t.Logf("coverage %.3f (0.9 ± %.3f)", cov, 3*se)
	if math.Abs(cov-0.9) > 3*se {
		t.Errorf("coverage %.3f with the counts clipped at K = 8, want 0.9 ± %.3f", cov, 3*se)
	}
}
