package mcmc

import (
	"math"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// dp-map on the DP-HMC paper's banana (n = 10⁵, the run's defaults: 100
// Adam steps, grad clip 1, 0.2 of the budget's μ² shared by 4 chains, from
// the run's public U(−2, 2)² starts). Distance is measured where the
// posterior is Gaussian, y = (θ1, θ2 + aθ1²) ~ N(μ, diag(v)), as the
// Mahalanobis distance from μ: a draw from the posterior itself is 1.25
// away on average (Rayleigh); the public starts are 168 away (θ1 = ±2
// puts θ2 + aθ1² 80 units up the banana's arm).
//
// Measured (20 seeds, ε = 4): dp-map lands 6.2 away. It falls into the
// valley at once but then creeps along it: Adam's per-coordinate steps
// move θ1 off the curved floor (a step δ in θ1 moves y2 by 2aθ1δ), and the
// noisy cross-valley gradient swamps the weak pull along it. Tried: 300
// steps 2.7; clip 0.3 and 300 steps 2.4; clip 0.1 and 300 steps 2.1;
// clip 0.1, 1000 steps and a learning rate decaying 0.3 → 0.009 1.7.
// Started near the valley floor ((0.5, 2)) the defaults land 1.2 away
// (2.4 at ε = 1, 0.7 at ε = 8). None of these changes brings the scaled
// logistic start closer (about 3 posterior sds at n = 569, ε = 8 with
// every variant, set by the release noise in M's weak directions), so
// the defaults stay; docs/SAMPLERS.md "Scaled parameters". Re-measured
// 2026-11-26: 300 steps land 2.65 (ε = 4) and 3.48 (ε = 1) away on the
// banana, against 6.2 and 7.0, but on a 5-coefficient logistic model
// (newLogistic, Mahalanobis distance by the Hessian at the mode, a draw
// ≈ 2.1 away; 20 seeds) 100 steps land closer at every n and ε tried:
// n = 500, ε = 1/3/8: 12.3/5.3/2.8 against 12.9/6.8/3.8; n = 5,000:
// 5.9/2.4/1.2 against 6.7/2.8/1.4; n = 50,000: 3.3/2.8/2.6 against
// 3.8/3.1/2.9 (more steps mean more noise per step). On the breast-cancer
// run (4 chains, 10 seeds, mean |Δ|/sd): 3.1/2.4/1.8 against 4.0/2.9/2.0.
// No public rule on n and μ separates the two, so the default stays 100.
//
// The test pins that dp-map moves from the public starts to a few sds of
// the mode (fails if the noise or the update is broken: the start's 168).
func TestDPInitBananaFromPublicStarts(t *testing.T) {
	b, _ := dpBanana(t, 100000, 5)
	mu, v := b.Posterior()
	muTot, err := privacy.MuFor(4, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DPInitConfig{GradClip: 1, Mu: muTot * math.Sqrt(0.2/4)}
	dist := func(th []float64) float64 {
		y1, y2 := th[0], th[1]+b.A()*th[0]*th[0]
		return math.Hypot((y1-mu[0])/math.Sqrt(v[0]), (y2-mu[1])/math.Sqrt(v[1]))
	}
	const reps = 20
	start, end := 0.0, 0.0
	for s := range reps {
		r := dpStreams(uint64(100 + s))
		th0 := []float64{-2 + 4*r.Public.Float64(), -2 + 4*r.Public.Float64()}
		th, err := DPInit(b, cfg, th0, r)
		if err != nil {
			t.Fatal(err)
		}
		start += dist(th0) / reps
		end += dist(th) / reps
	}
	t.Logf("banana, ε = 4: public starts %.1f, dp-map %.2f posterior sds from the mode (Gaussian coordinates, mean of %d)", start, end, reps)
	if end > 8 {
		t.Errorf("dp-map lands %.2f posterior sds from the banana's mode on average (measured 6.2; a posterior draw: 1.25)", end)
	}
}

// dpBananaBounded is dpBanana with public bounds on x1 and x2 (about ±4.5
// of their sds around the design's means), which the mean-statistic start
// needs.
func dpBananaBounded(t *testing.T, n int, seed uint64) *model.Banana {
	t.Helper()
	b, _ := dpBanana(t, n, seed)
	x1, x2 := b.AppendColumn(0, nil), b.AppendColumn(1, nil)
	tab, err := dataset.FromColumns([]string{"x1", "x2"}, [][]float64{x1, x2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.ApplyBounds(map[string]dataset.Bound{"x1": {Lo: -200, Hi: 200}, "x2": {Lo: -220, Hi: 230}}); err != nil {
		t.Fatal(err)
	}
	m, err := model.Build(model.Spec{Model: "banana"}, tab)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*model.Banana)
}

// The mean-statistic start (issue #16 part A: a private mode estimate that
// lands near the mode, which the gradient ascent above does not on the
// banana). The banana reads its data only through the column means, so
// dp-map releases the two clipped column sums once (μ = the same share of
// the budget as above) and starts at the posterior mode given them. With
// the bounds of dpBananaBounded (400 and 450 wide) it lands, measured (20
// seeds), 0.13 / 0.23 / 0.80 posterior sds from the mode at ε = 8 / 4 / 1,
// against 6.2 and 7.0 for the ascent at ε = 4 and 1; a posterior draw is
// 1.25 away. Breaking the release (noise ×4) fails it at every ε.
func TestDPInitBananaMeanStatistic(t *testing.T) {
	b := dpBananaBounded(t, 100000, 5)
	mu, v := b.Posterior()
	dist := func(th []float64) float64 {
		y1, y2 := th[0], th[1]+b.A()*th[0]*th[0]
		return math.Hypot((y1-mu[0])/math.Sqrt(v[0]), (y2-mu[1])/math.Sqrt(v[1]))
	}
	for _, tc := range []struct{ eps, max float64 }{{8, 0.4}, {4, 0.5}, {1, 1.3}} {
		muTot, err := privacy.MuFor(tc.eps, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DPInitConfig{GradClip: 1, Mu: muTot * math.Sqrt(0.2/4), MeanColumns: 2}
		const reps = 20
		end := 0.0
		for s := range reps {
			r := dpStreams(uint64(300 + s))
			th, err := DPInit(b, cfg, []float64{2, -2}, r)
			if err != nil {
				t.Fatal(err)
			}
			end += dist(th) / reps
		}
		t.Logf("banana, ε = %g: the mean-statistic start lands %.2f posterior sds from the mode (mean of %d)", tc.eps, end, reps)
		if end > tc.max {
			t.Errorf("ε = %g: the mean-statistic start lands %.2f posterior sds from the mode, want ≤ %g", tc.eps, end, tc.max)
		}
	}
	// Its cost is one release of two coordinates with the whole μ.
	c, err := DPInitConfig{Mu: 0.3, MeanColumns: 2}.Cost(2)
	if err != nil || len(c.Gaussian) != 1 || c.Gaussian[0].Count != 1 || c.Gaussian[0].Coords != 2 || c.Gaussian[0].NominalMu != 0.3 {
		t.Fatalf("cost %+v, %v", c, err)
	}
	// A model without a mean statistic, or a column without a bound, is refused.
	if _, err := DPInit(dpBananaUnbounded(t), DPInitConfig{Mu: 0.3, MeanColumns: 2}, []float64{0, 0}, dpStreams(1)); err == nil || !strings.Contains(err.Error(), "needs a finite public bound") {
		t.Errorf("unbounded columns: %v", err)
	}
}

func dpBananaUnbounded(t *testing.T) *model.Banana {
	b, _ := dpBanana(t, 1000, 5)
	return b
}
