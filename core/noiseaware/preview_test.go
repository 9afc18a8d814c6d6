package noiseaware

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// syntheticLogistic is a logistic model on n rows of k independent
// predictors x_j ~ N(0, f²) clipped to their public bounds [−1, 1] and an
// outcome that is a fair coin (no effects): the design the preview assumes.
func syntheticLogistic(t testing.TB, n, k int, f float64, r *rand.Rand) model.Model {
	return offCentreLogistic(t, n, k, f, 0, 0.5, r)
}

// offCentreLogistic is syntheticLogistic with the predictors' mean at off
// (on the scaled space) and an outcome rate of rate.
func offCentreLogistic(t testing.TB, n, k int, f, off, rate float64, r *rand.Rand) model.Model {
	t.Helper()
	return correlatedLogistic(t, n, k, f, off, 0, rate, r)
}

// correlatedLogistic is offCentreLogistic with predictors of pairwise
// correlation rho (correlatedGLM).
func correlatedLogistic(t testing.TB, n, k int, f, off, rho, rate float64, r *rand.Rand) model.Model {
	t.Helper()
	return correlatedGLM(t, "logistic", n, k, f, off, rho, dataset.Bound{Lo: 0, Hi: 1}, func(r *rand.Rand) float64 {
		if rate == 0.5 {
			return float64(r.IntN(2)) // a fair coin
		}
		if r.Float64() < rate {
			return 1
		}
		return 0
	}, r)
}

// syntheticGLM is the family's model on n rows of k independent predictors
// x_j ~ N(off, f²) clipped to their public bounds [−1, 1] and an outcome
// drawn by y (no effects), clipped to ybound.
func syntheticGLM(t testing.TB, family string, n, k int, f, off float64, ybound dataset.Bound, y func(*rand.Rand) float64, r *rand.Rand) model.Model {
	t.Helper()
	return correlatedGLM(t, family, n, k, f, off, 0, ybound, y, r)
}

// correlatedGLM is syntheticGLM with predictors of pairwise correlation
// rho ≥ 0 before clipping: x_j = off + f·(√rho·z₀ + √(1 − rho)·z_j) with
// z₀ shared by the row.
func correlatedGLM(t testing.TB, family string, n, k int, f, off, rho float64, ybound dataset.Bound, y func(*rand.Rand) float64, r *rand.Rand) model.Model {
	t.Helper()
	names := make([]string, k+1)
	bounds := map[string]dataset.Bound{"y": ybound}
	for j := range k {
		names[j] = fmt.Sprintf("x%d", j+1)
		bounds[names[j]] = dataset.Bound{Lo: -1, Hi: 1}
	}
	names[k] = "y"
	tab := &dataset.Table{Names: names, Rows: n, Data: make([]float64, 0, n*(k+1))}
	for range n {
		z0 := 0.0
		if rho > 0 {
			z0 = r.NormFloat64()
		}
		for range k {
			tab.Data = append(tab.Data, off+f*(math.Sqrt(rho)*z0+math.Sqrt(1-rho)*r.NormFloat64()))
		}
		tab.Data = append(tab.Data, y(r))
	}
	if _, err := tab.ApplyBounds(bounds); err != nil {
		t.Fatal(err)
	}
	m, err := model.Build(model.Spec{Model: family, Outcome: "y", Predictors: names[:k]}, tab)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runsSDRatio plans m at ε (δ = 1e-5), makes a real release (Run) and
// returns the mean over its k slopes of the posterior-to-prior sd ratio
// (1000 draws), with the plan.
func runsSDRatio(t testing.TB, m model.Model, k int, eps float64, r *rand.Rand) (float64, *Plan) {
	t.Helper()
	p, err := NewPlan(specFor(t, m, eps, 1e-5))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := Run(p, m, r)
	if err != nil {
		t.Fatal(err)
	}
	q := NewPosterior(rel)
	draws := make([][]float64, 1000)
	for j := range draws {
		draws[j] = make([]float64, k+1)
		q.DrawScaled(r, draws[j])
	}
	ratio := 0.0
	for j := 1; j <= k; j++ {
		ratio += sdOf(draws, j) / p.PriorSD / float64(k)
	}
	return ratio, p
}

// The preview predicts what the sampler then does: on synthetic data of
// the design it assumes (independent predictors of sd f·half-range, no
// effects), the mean posterior-to-prior sd ratio of the slopes over 8 real
// releases (Run: the LDA start, the damped Newton path, the posterior) is
// within 15% of the preview's, at the clinical case (n = 768, 8
// predictors, ε = 3) and at n = 5,000, 5 predictors, ε = 1, for every
// preview spread. It fails if the preview's statistics differ from the
// release's: with the weight w held at ¼ in the synthetic information (a
// seeded bug) the preview gives 0.34 at n = 768, f = 0.5 and 0.31 at
// n = 5,000, f = 0.25, against the runs' 0.55 and 0.42.
func TestPreviewMatchesRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, c := range []struct {
		n, k int
		eps  float64
	}{{768, 8, 3}, {5000, 5, 1}} {
		previewAgainstRuns(t, "logistic", c.n, c.k, c.eps, 8, 0.15, 0, rand.New(rand.NewPCG(uint64(c.n), 3)), func(f float64, r *rand.Rand) model.Model {
			return syntheticLogistic(t, c.n, c.k, f, r)
		})
	}
}

// previewAgainstRuns checks, at every preview spread f, that the mean over
// reps real releases on synthetic data of that spread (synth) of the slopes'
// posterior-to-prior sd ratio is within tol (relative) of the family's
// preview; at the widest spread (when widest > 0) the preview may be
// narrower than the runs by up to widest (relative), the best case it is
// documented to be.
func previewAgainstRuns(t *testing.T, family string, n, k int, eps float64, reps int, tol, widest float64, r *rand.Rand, synth func(f float64, r *rand.Rand) model.Model) {
	t.Helper()
	previewCaseAgainstRuns(t, family, n, k, eps, reps, tol, widest, r, synth, func(pv Preview) []float64 { return pv.SDRatio })
}

// previewCaseAgainstRuns is previewAgainstRuns for the preview's ratios
// that pick returns (the Poisson low-mean case: LowMeanSDRatio).
func previewCaseAgainstRuns(t *testing.T, family string, n, k int, eps float64, reps int, tol, widest float64, r *rand.Rand, synth func(f float64, r *rand.Rand) model.Model, pick func(Preview) []float64) {
	t.Helper()
	var pv Preview
	var want []float64
	for i, f := range PreviewSpreads {
		got := 0.0
		for range reps {
			ratio, p := runsSDRatio(t, synth(f, r), k, eps, r)
			got += ratio / float64(reps)
			if pv.SDRatio == nil {
				var ok bool
				if pv, ok = p.Preview(family, n, true); !ok {
					t.Fatalf("no preview for %s regression", family)
				}
				if want = pick(pv); len(want) != len(PreviewSpreads) {
					t.Fatalf("the preview has %d ratios for this case", len(want))
				}
			}
		}
		t.Logf("%s n = %d, %d predictors, ε = %v, spread %.2f: posterior/prior sd of the slopes %.4f, preview %.4f", family, n, k, eps, f, got, want[i])
		below := tol
		if i == len(PreviewSpreads)-1 && widest > 0 {
			below = widest
		}
		if want[i] > (1+tol)*got || want[i] < (1-below)*got {
			t.Errorf("%s n = %d, spread %.2f: the runs give %.4f, the preview %.4f", family, n, f, got, want[i])
		}
	}
}

// designMoments agrees with the averages over 200,000 synthetic rows at a
// point with an intercept and slopes of both signs: within 0.004 for the
// σ terms (4 Monte Carlo standard errors) and 0.001 for the w terms.
func TestDesignMoments(t *testing.T) {
	theta := []float64{0.4, 3, -2, 0.5}
	const f, n = 0.3, 200000
	es, ew := designMoments(theta, f, true)
	r := rand.New(rand.NewPCG(1, 2))
	d := len(theta)
	ms, mw := make([]float64, d), make([]float64, d*d)
	x := make([]float64, d)
	for range n {
		x[0] = 1
		a := theta[0]
		for j := 1; j < d; j++ {
			x[j] = f * r.NormFloat64()
			a += theta[j] * x[j]
		}
		s := 1 / (1 + math.Exp(-a))
		for j := range d {
			ms[j] += s * x[j] / n
			for l := range d {
				mw[j*d+l] += s * (1 - s) * x[j] * x[l] / n
			}
		}
	}
	for j := range d {
		if math.Abs(es[j]-ms[j]) > 0.004 {
			t.Errorf("E[σ x̃]_%d: %.5f, rows give %.5f", j, es[j], ms[j])
		}
		for l := range d {
			if math.Abs(ew[j*d+l]-mw[j*d+l]) > 0.001 {
				t.Errorf("E[w x̃x̃ᵀ]_%d%d: %.5f, rows give %.5f", j, l, ew[j*d+l], mw[j*d+l])
			}
		}
	}
	t.Logf("E[σ x̃] %.4f (rows %.4f); E[w] %.4f (rows %.4f)", es, ms, ew[0], mw[0])
}

// sdOf is the sample sd of column j of draws.
func sdOf(draws [][]float64, j int) float64 {
	mean := 0.0
	for _, x := range draws {
		mean += x[j]
	}
	mean /= float64(len(draws))
	v := 0.0
	for _, x := range draws {
		v += (x[j] - mean) * (x[j] - mean)
	}
	return math.Sqrt(v / float64(len(draws)-1))
}

// The preview is the most favourable case, as its text says: real releases
// on designs that differ from it in the ways real data do (predictors off
// the centre of their ranges, an outcome rate away from ½) give wider
// posteriors at the same n, predictors and ε. Measured at the clinical case
// (768 rows, 8 predictors, spread 0.25) at ε = 30, near where the preview
// stops warning (6 releases each; log odds per predictor sd): preview 0.40,
// its own design 0.69 (0.52 with another random stream: the threshold is
// sharp, so the Monte Carlo error and small differences between the
// synthetic statistics and real rows show most here), off-centre (mean
// −0.5) 1.23, rate 0.31 0.73, both 1.62, predictors of pairwise
// correlation 0.6 (centred, rate ½) 2.37. Each of the last four must
// exceed 1.5× the preview. So the ε the warning names is a floor, not a
// promise.
func TestPreviewIsOptimistic(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const n, k, f, eps = 768, 8, 0.25, 30.0
	r := rand.New(rand.NewPCG(5, 3))
	var preview float64
	for _, c := range []struct{ off, rate, rho float64 }{{0, 0.5, 0}, {-0.5, 0.5, 0}, {0, 0.31, 0}, {-0.5, 0.31, 0}, {0, 0.5, 0.6}} {
		got := 0.0
		const reps = 6
		for range reps {
			m := correlatedLogistic(t, n, k, f, c.off, c.rho, c.rate, r)
			p, err := NewPlan(specFor(t, m, eps, 1e-5))
			if err != nil {
				t.Fatal(err)
			}
			if preview == 0 {
				preview, _ = p.PreviewRatio("logistic", n, true, f)
			}
			rel, err := Run(p, m, r)
			if err != nil {
				t.Fatal(err)
			}
			sds := posteriorSDs(NewPosterior(rel), r)
			for j := 1; j <= k; j++ {
				got += sds[j] / p.PriorSD / (reps * k)
			}
		}
		t.Logf("mean %.2f, rate %.2f, correlation %.1f: log odds per predictor sd %.2f, preview %.2f", c.off, c.rate, c.rho, got*DefaultPriorSD*f, preview*DefaultPriorSD*f)
		if (c.off != 0 || c.rate != 0.5 || c.rho != 0) && got <= 1.5*preview {
			t.Errorf("mean %.2f, rate %.2f, correlation %.1f: ratio %.3f, not clearly above the preview's %.3f", c.off, c.rate, c.rho, got, preview)
		}
	}
}

// syntheticPoisson is the design the Poisson preview assumes: n rows of k
// independent predictors x_j ~ N(0, f²) clipped to [−1, 1], no effects, and
// counts with mean K clipped to the outcome's public bound [0, K].
func syntheticPoisson(t testing.TB, n, k int, f, K float64, r *rand.Rand) model.Model {
	t.Helper()
	return syntheticGLM(t, "poisson", n, k, f, 0, dataset.Bound{Lo: 0, Hi: K}, func(r *rand.Rand) float64 { return poissonDraw(K, r) }, r)
}

// poissonWidestOptimism is how much narrower than the runs the Poisson
// preview's low-mean case may be at its widest spread (f = 0.5; the
// K-centred case holds the 20% there). With four releases the
// expansion-error term τ, estimated from one discrepancy vector, makes
// both averages noisy there: over R = 3 to 6 releases the low-mean case
// gave 0.41–0.49 in the runs against 0.33–0.41 in the preview, and the
// K-centred cases ratios of 0.003–0.009 (far from any warning) up to 35%
// apart; with the counts censored at K, 0.39 against 0.25 (a slope sd of
// 3.9 and 2.5 log rate per predictor sd: both far above the 0.51 at which
// the forecast warns, so it warns either way). The warning reads the
// preview at f = 0.25 (weakAtQuarter), where the 20% tolerance holds both
// ways; the forecast calls the preview the best case.
const poissonWidestOptimism = 0.4

// The Poisson preview (a mean count at the cap K) predicts real releases on
// the design it assumes, as the logistic one does: the mean posterior-to-
// prior sd ratio of the slopes over 32 runs is within 20% of the preview's
// at every spread, for 500 rows, 2 predictors, K = 20, ε = 3 and 768 rows,
// 8 predictors, K = 17, ε = 8 (a count outcome of the clinical case;
// measured with four releases and the counts censored at K: at most 19%
// off, at f = 0.5 0.0063 and 0.0035 in the runs against 0.0051 and
// 0.0029; with the information bound w⁺ = K instead of WMax the f = 0.5
// ratios were 0.007–0.011 against 0.0035–0.0053, and this failed). It fails if the preview's information ignored
// the mean count (a weight of 1 instead of the censored count's w(λ), a
// seeded bug: 0.71 against the runs' 0.32 at n = 500, f = 0.25).
func TestPoissonPreviewMatchesRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	for _, c := range []struct {
		n, k   int
		K, eps float64
	}{{500, 2, 20, 3}, {768, 8, 17, 8}} {
		previewAgainstRuns(t, "poisson", c.n, c.k, c.eps, 32, 0.2, 0, rand.New(rand.NewPCG(uint64(c.n), 5)), func(f float64, r *rand.Rand) model.Model {
			return syntheticPoisson(t, c.n, c.k, f, c.K, r)
		})
	}
}

// The Poisson preview's low-mean case (counts of mean 1 under a bound
// K = 30: a clinical count such as visits, whose bound is the largest the
// design allows) predicts real releases on that design: within 20% at
// f = 0.1 and 0.25 and at most poissonWidestOptimism narrower at f = 0.5
// (1,500 rows, 3 predictors, ε = 8, where a review found the K-centred
// preview alone 40× too optimistic: a slope's ratio 0.0024 against 0.094 in
// a run with a mean count of 1.9; measured with four releases and the
// counts censored at K: 3–5% off at f ≤ 0.25, and 0.25 against the runs'
// 0.39 at f = 0.5).
func TestPoissonPreviewLowMeanMatchesRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const n, k, K = 1500, 3, 30.0
	previewCaseAgainstRuns(t, "poisson", n, k, 8, 24, 0.2, poissonWidestOptimism, rand.New(rand.NewPCG(n, 6)), func(f float64, r *rand.Rand) model.Model {
		return syntheticGLM(t, "poisson", n, k, f, 0, dataset.Bound{Lo: 0, Hi: K}, func(r *rand.Rand) float64 { return poissonDraw(PoissonLowMean, r) }, r)
	}, func(pv Preview) []float64 { return pv.LowMeanSDRatio })
}
