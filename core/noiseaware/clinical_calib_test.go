package noiseaware

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// clinicalPredictors and clinicalBounds describe a design unlike the
// breast-cancer one every other calibration test uses: predictors that sit
// near the middle of public ranges typed from their meanings (age 18–90,
// BMI 15–50, glucose 50–250 mg/dL) with sds of 0.3–0.4 of the half-range,
// and a 0/1 predictor (smoker, prevalence 25%).
var (
	clinicalPredictors = []string{"age", "bmi", "glucose", "smoker"}
	clinicalBounds     = map[string]dataset.Bound{"age": {Lo: 18, Hi: 90}, "bmi": {Lo: 15, Hi: 50}, "glucose": {Lo: 50, Hi: 250}, "smoker": {Lo: 0, Hi: 1}}
	// clinicalEffects are per-unit log odds ratios of the fixed truth
	// (odds ratio 1.35 per 10 years of age and per 10 mg/dL of glucose,
	// 1.06 per BMI unit, 2 for smokers), intercept first (at the raw
	// zero; a 27% outcome rate).
	clinicalEffects = []float64{-1 - 0.03*50 - 0.06*29 - 0.03*120, 0.03, 0.06, 0.03, 0.7}
)

// clinicalDesign draws n rows of the clinical design (outcome y left 0),
// clipped to clinicalBounds.
func clinicalDesign(n int, r *rand.Rand) *dataset.Table {
	const c = 5
	tab := &dataset.Table{Names: append([]string{"y"}, clinicalPredictors...), Rows: n, Data: make([]float64, n*c)}
	for i := range n {
		row := tab.Data[i*c : (i+1)*c]
		row[1] = 50 + 14*r.NormFloat64()
		row[2] = 29 + 6*r.NormFloat64()
		row[3] = 120 + 30*r.NormFloat64()
		if r.Float64() < 0.25 {
			row[4] = 1
		}
	}
	if _, err := tab.ApplyBounds(clinicalBounds); err != nil {
		panic(err)
	}
	return tab
}

func clinicalModel(t testing.TB, tab *dataset.Table) model.Model {
	t.Helper()
	return buildLogisticOf(t, tab, "y", clinicalPredictors)
}

// simulateClinical overwrites y with Bernoulli(σ(η)) draws at the true
// coefficients theta (user units, intercept first).
func simulateClinical(tab *dataset.Table, theta []float64, r *rand.Rand) {
	c := len(tab.Names)
	for i := range tab.Rows {
		row := tab.Data[i*c : (i+1)*c]
		eta := theta[0]
		for k := 1; k < c; k++ {
			eta += theta[k] * row[k]
		}
		row[0] = 0
		if r.Float64() < 1/(1+math.Exp(-eta)) {
			row[0] = 1
		}
	}
}

// clinicalRun is one replicate on the clinical design at n, ε with prior
// sd s on the scaled space: truth (scaled) from N(0, s²) when draw is
// true, else clinicalEffects. It returns the truth, 1000 posterior draws
// (scaled) and the non-private Laplace sds of the scaled slopes.
func clinicalRun(t *testing.T, n int, eps, s float64, draw bool, r *rand.Rand) (truth []float64, draws [][]float64, laplaceSD []float64) {
	t.Helper()
	return clinicalRunIn(t, n, eps, s, draw, false, r)
}

// clinicalFixedTruth runs reps replicates at the fixed truth
// clinicalEffects under the N(0, 20²) prior and returns the coverage of the
// 90% intervals and, sorted, every slope interval's width over the
// non-private Laplace one.
func clinicalFixedTruth(t *testing.T, n int, eps float64, reps int, whiten bool, r *rand.Rand) (cov float64, ratios []float64) {
	t.Helper()
	hit := 0
	for range reps {
		truth, dr, lsd := clinicalRunIn(t, n, eps, DefaultPriorSD, false, whiten, r)
		for j := range truth {
			ci := quantiles(dr, j, 0.05, 0.95)
			if ci[0] <= truth[j] && truth[j] <= ci[1] {
				hit++
			}
			if j > 0 {
				ratios = append(ratios, (ci[1]-ci[0])/(2*1.6448536269514722*lsd[j]))
			}
		}
	}
	slices.Sort(ratios)
	return float64(hit) / float64(reps*len(clinicalEffects)), ratios
}

// clinicalRunIn is clinicalRun with the releases after the first in the
// design-adapted coordinates when whiten is true (Spec.Whiten).
func clinicalRunIn(t *testing.T, n int, eps, s float64, draw, whiten bool, r *rand.Rand) (truth []float64, draws [][]float64, laplaceSD []float64) {
	t.Helper()
	tab := clinicalDesign(n, r)
	spec := specFor(t, clinicalModel(t, tab), eps, 1e-5)
	spec.PriorSD = s
	spec.Whiten = whiten
	p, err := NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	d := len(clinicalEffects)
	truth = append([]float64(nil), clinicalEffects...)
	p.FromUser(truth, true)
	if draw {
		for j := range truth {
			truth[j] = s * r.NormFloat64()
		}
	}
	user := append([]float64(nil), truth...)
	p.ToUser(user, true)
	simulateClinical(tab, user, r)
	m := clinicalModel(t, tab)
	rel, err := Run(p, m, r)
	if err != nil {
		t.Fatal(err)
	}
	q := NewPosterior(rel)
	draws = make([][]float64, 1000)
	for i := range draws {
		draws[i] = make([]float64, d)
		q.DrawScaled(r, draws[i])
	}
	_, sd := laplace(m, p)
	laplaceSD = make([]float64, d)
	for j := 1; j < d; j++ {
		laplaceSD[j] = sd[j] * p.Half[j] // a slope's user sd is its scaled sd / h_j
	}
	return truth, draws, laplaceSD
}

// The noise-aware posterior on a clinical design at the user's scale
// (n = 2,000, ε = 3, δ = 1e-5), where every other calibration test uses
// the breast-cancer design. Measured 2026-11-27 (this seed, 5; seeds 6 and
// 7 in brackets):
//
//   - With truths drawn from the prior (s = 2.5, the posterior under the
//     same prior; 200 replicates × 5 coefficients) the 90% intervals cover
//     0.885 [0.867, 0.892]; the smoker coefficient is the lowest, 0.82
//     [0.81, 0.80] (a 0/1 predictor: truths of ±5 log odds per unit are
//     common at s = 2.5). Ignoring M's release noise (the plug-in M̃)
//     gives 0.794 and fails.
//   - At the fixed, realistic truth (clinicalEffects, prior N(0, 20²),
//     150 replicates) they cover 0.936 [0.973, 0.963], and a slope's 90%
//     interval is 3.2× [3.3, 3.6] as wide as the non-private Laplace one
//     in the median replicate (quartiles 2.1 and 7.1, 90th percentile 18:
//     a release whose noise pulls M̃'s smallest eigenvalue near zero gives
//     a heavy-tailed posterior).
//   - Re-measured (seed 5) with the shrunk path (Plan.ShrinkPath, on at
//     this setting: PathNoise 0.96 with these four releases):
//     prior-predictive 0.876, fixed truth 0.928, median width 2.74×
//     (quartiles 2.08 and 4.40, 90th percentile 8.5).
//
// Where the width comes from (a separate harness on the same design, 150
// replicates, median and 90th percentile of that ratio): one release at
// the truth with the whole budget 1.7 and 2.2 (prior-predictive coverage
// 0.840, smoker 0.79: the shortfall there is the Gaussian approximation of
// a strongly non-quadratic likelihood, not the path); with half the budget
// 2.3 and 4.2; at the path's last point with the whole budget 1.8 and 3.5,
// with its planned half 2.5 and 10; the model-error term τ takes that to
// 3.3 and 17 (without τ the prior-predictive coverage falls to 0.81). Other
// budget splits and numbers of releases (R = 3 with 60–80% for the last
// release, R = 4 with 35% or 70%, more of the last release for M) moved
// the median by less than its Monte Carlo error or widened the tail;
// R = 2 (median 2.0) is the setting that fails on the breast-cancer design
// at n = 50,000 (Spec.Releases).
//
// Fails if the prior-predictive coverage leaves 0.80–0.95 or a coefficient
// falls below 0.65, if the fixed-truth coverage leaves 0.85–0.99, or if the
// median width ratio exceeds 5 (the sampler got wider) or falls below 1.2
// (narrower than a release at the truth allows).
func TestCalibrationClinicalDesign(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const n, eps = 2000, 3.0
	d := len(clinicalEffects)
	r := rand.New(rand.NewPCG(5, 1))
	hit := make([]int, d)
	const ppReps = 200
	for range ppReps {
		truth, dr, _ := clinicalRun(t, n, eps, 2.5, true, r)
		for j := range truth {
			if ci := quantiles(dr, j, 0.05, 0.95); ci[0] <= truth[j] && truth[j] <= ci[1] {
				hit[j]++
			}
		}
	}
	tot, by := 0, make([]float64, d)
	for j, h := range hit {
		tot += h
		by[j] = float64(h) / ppReps
	}
	pp := float64(tot) / (ppReps * float64(d))
	t.Logf("prior-predictive (s = 2.5) coverage %.3f, by coefficient %.2f", pp, by)
	if pp < 0.80 || pp > 0.95 || slices.Min(by) < 0.65 {
		t.Errorf("prior-predictive coverage %.3f (by coefficient %.2f): want 0.80–0.95, none below 0.65", pp, by)
	}

	cov, ratios := clinicalFixedTruth(t, n, eps, 150, false, r)
	at := func(p float64) float64 { return ratios[int(p*float64(len(ratios)-1))] }
	t.Logf("fixed truth: coverage %.3f; slope interval width / non-private: quartiles %.2f %.2f %.2f, 90th percentile %.2f", cov, at(0.25), at(0.5), at(0.75), at(0.9))
	if cov < 0.85 || cov > 0.99 {
		t.Errorf("fixed-truth coverage %.3f outside 0.85–0.99", cov)
	}
	if m := at(0.5); m > 5 || m < 1.2 {
		t.Errorf("median slope interval %.2f× the non-private one: want 1.2–5", m)
	}
}

// The design-adapted coordinates (Spec.Whiten) at the issue's own scale: a
// clinical design of 768 rows, ε = 8, δ = 1e-5 (issue #16's first example
// had 768 patients and ε = 8). Its predictors are independent but sit off
// the centre of their bounds with a third of their half-ranges as sd, so
// the box's releases waste most of their sensitivity on corners no row
// reaches. Measured (seed 9, 150 replicates each; the fixed truth is
// clinicalEffects under the N(0, 20²) prior, the prior-predictive truths
// from N(0, 2.5²)): the box's slopes have a median 90% interval 2.88× as
// wide as the non-private Laplace one and cover the fixed truth 0.955; the
// design-adapted coordinates give 1.42× and 0.920, and cover truths from
// the prior 0.876. With the shrunk path (Plan.ShrinkPath, on here) the box
// gives 2.26× and 0.939, the design-adapted coordinates 1.37×, 0.921 and
// 0.883. docs/SAMPLERS.md "Design-adapted coordinates" has the numbers at
// other n and ε.
//
// Fails if the design-adapted slopes' median interval is not at least 30%
// narrower than the box's (relative to the non-private Laplace width), or
// if their fixed-truth coverage leaves 0.85–0.99 or their prior-predictive
// coverage 0.80–0.95.
func TestWhitenedClinicalDesign(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const n, eps, reps = 768, 8.0, 150
	var width [2]float64
	var cov [2]float64
	for i, whiten := range []bool{false, true} {
		var ratios []float64
		cov[i], ratios = clinicalFixedTruth(t, n, eps, reps, whiten, rand.New(rand.NewPCG(9, 1)))
		width[i] = ratios[len(ratios)/2]
		t.Logf("whiten %v: fixed-truth coverage %.3f, median slope interval %.2f× the non-private one", whiten, cov[i], width[i])
	}
	r := rand.New(rand.NewPCG(9, 2))
	hit := 0
	for range reps {
		truth, dr, _ := clinicalRunIn(t, n, eps, 2.5, true, true, r)
		for j := range truth {
			if ci := quantiles(dr, j, 0.05, 0.95); ci[0] <= truth[j] && truth[j] <= ci[1] {
				hit++
			}
		}
	}
	pp := float64(hit) / float64(reps*len(clinicalEffects))
	t.Logf("whiten true: prior-predictive (s = 2.5) coverage %.3f", pp)
	if width[1] > 0.7*width[0] {
		t.Errorf("design-adapted median slope interval %.2f× the non-private one, the box's %.2f×: less than 30%% narrower", width[1], width[0])
	}
	if cov[1] < 0.85 || cov[1] > 0.99 {
		t.Errorf("design-adapted fixed-truth coverage %.3f outside 0.85–0.99", cov[1])
	}
	if pp < 0.80 || pp > 0.95 {
		t.Errorf("design-adapted prior-predictive coverage %.3f outside 0.80–0.95", pp)
	}
}

// Spec.AdaptCoords chooses the coordinates of the later releases from the
// first release: on the clinical design (off-centre predictors with a third
// of their half-ranges as sd) the design-adapted ones, and the release is
// then the one Spec.Whiten makes with the same noise (the term bounds and
// quanta of the statistics follow the plan in force: with the box's, the
// design-adapted terms were clamped at 1 and the path differed); on
// predictors spread uniformly over their bounds (the Poisson calibration
// design) the box, and the release is the box plan's. A second kernel
// adopting the adaptive release recomputes the same choice and draws the
// same posterior.
func TestAdaptCoordsFollowsDesign(t *testing.T) {
	same := func(a, b *Release) bool {
		for r := range a.S {
			if !slices.Equal(a.Theta[r], b.Theta[r]) || !slices.Equal(a.S[r], b.S[r]) || !slices.Equal(a.M[r], b.M[r]) {
				return false
			}
		}
		return slices.Equal(a.NoiseStd, b.NoiseStd)
	}
	run := func(m model.Model, spec Spec) *Release {
		t.Helper()
		p, err := NewPlan(spec)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := Run(p, m, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	tab := clinicalDesign(768, rand.New(rand.NewPCG(1, 1)))
	simulateClinical(tab, clinicalEffects, rand.New(rand.NewPCG(2, 1)))
	clin := clinicalModel(t, tab)
	spec := specFor(t, clin, 8, 1e-5)
	spec.Releases, spec.AdaptCoords = 6, true
	adapt := run(clin, spec)
	spec.AdaptCoords, spec.Whiten = false, true
	forced := run(clin, spec)
	if adapt.Plan.ClipRadius == 0 || !same(adapt, forced) {
		t.Errorf("clinical design: the adaptive release (radius %v) differs from the design-adapted one", adapt.Plan.ClipRadius)
	}

	unif := synthDesign(2000, []float64{0.3, 0.02, -0.1}, rand.New(rand.NewPCG(4, 1)), func(eta float64, r *rand.Rand) float64 { return poissonDraw(math.Exp(eta), r) })
	if _, err := unif.ApplyBounds(map[string]dataset.Bound{"age": {Lo: 18, Hi: 90}, "dose": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 20}}); err != nil {
		t.Fatal(err)
	}
	pois, err := model.Build(model.Spec{Model: "poisson", Outcome: "y", Predictors: []string{"age", "dose"}}, unif)
	if err != nil {
		t.Fatal(err)
	}
	spec = specFor(t, pois, 1, 1e-5)
	spec.AdaptCoords = true
	adaptBox := run(pois, spec)
	spec.AdaptCoords = false
	box := run(pois, spec)
	if adaptBox.Plan.ClipRadius != 0 || !same(adaptBox, box) {
		t.Errorf("uniform design: the adaptive release (radius %v) differs from the box's", adaptBox.Plan.ClipRadius)
	}

	spec = specFor(t, clin, 8, 1e-5)
	spec.Releases, spec.AdaptCoords = 6, true
	p, err := NewPlan(spec)
	if err != nil {
		t.Fatal(err)
	}
	k1, err := NewKernel(clin, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := k1.Release(rand.New(rand.NewPCG(5, 5))); err != nil {
		t.Fatal(err)
	}
	k2, err := NewKernel(clin, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := k2.Adopt(k1.Released()); err != nil {
		t.Fatalf("adopting the adaptive release: %v", err)
	}
	a, b := make([]float64, 5), make([]float64, 5)
	k1.post.DrawScaled(rand.New(rand.NewPCG(6, 6)), a)
	k2.post.DrawScaled(rand.New(rand.NewPCG(6, 6)), b)
	if !slices.Equal(a, b) || k2.post.rel.Plan.ClipRadius == 0 {
		t.Errorf("the adopting kernel draws %v, the releasing one %v", b, a)
	}
}
