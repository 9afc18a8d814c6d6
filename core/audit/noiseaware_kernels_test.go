package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// The noise-aware release (core/noiseaware) audited as a black box: one
// release (score S and Fisher information M at θ = 0) of a logistic model
// with an intercept and one predictor in [−1, 1], on neighbouring datasets
// whose differing row attains a block's sensitivity: for the score, the row
// (x = 1, y = 1) replaced by (x = 1, y = 0) (S moves by (1, 1), ‖·‖ = √2 =
// Δ_S); for the information, (x = 1) replaced by (x = −1) (M_01 moves by
// 1/2, the Frobenius distance √2/2 = Δ_M). The claim is the plan's ε at δ.
// Seeded bugs: the score noise halved, and the information block released
// as if its sensitivity had been forgotten (noise std × 0.01); both keep
// the claimed μ. Each must be caught, the correct release must not be.
func TestAuditNoiseAwareRelease(t *testing.T) {
	const delta = 1e-5
	build := func(t *testing.T, row []float64) model.Model {
		tab := &dataset.Table{Names: []string{"x", "y"}, Rows: 4,
			Data: append(append([]float64{}, row...), 0.3, 1, -0.6, 0, 0.1, 1)}
		if _, err := tab.ApplyBounds(map[string]dataset.Bound{"x": {Lo: -1, Hi: 1}}); err != nil {
			t.Fatal(err)
		}
		m, err := model.Build(model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x"}}, tab)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	spec := noiseaware.Spec{Family: "logistic", N: 4, D: 2, Intercept: true,
		XRanges: []model.Interval{{Lo: 1, Hi: 1}, {Lo: -1, Hi: 1}}, Mu: 0.5, Releases: 1}
	mech := func(pair [2]model.Model, scoreScale, infoScale float64) (Mechanism, float64) {
		p, err := noiseaware.NewPlan(spec)
		if err != nil {
			t.Fatal(err)
		}
		claim, err := privacy.TightGaussian{Mu: p.Mu}.Epsilon(delta)
		if err != nil {
			t.Fatal(err)
		}
		noiseaware.AuditSeedBug(p, scoreScale, infoScale)
		return func(nb int, noise *rand.Rand) ([]float64, error) {
			rel, err := noiseaware.Run(p, pair[nb], noise)
			if err != nil {
				return nil, err
			}
			M := rel.M[0]
			return []float64{rel.S[0][0], rel.S[0][1], M[0], M[1], M[3]}, nil
		}, claim
	}
	scorePair := [2]model.Model{build(t, []float64{1, 1}), build(t, []float64{1, 0})}
	infoPair := [2]model.Model{build(t, []float64{1, 0}), build(t, []float64{-1, 0})}
	scoreSum := Statistic{Name: "S_0 + S_1", F: func(o []float64) float64 { return o[0] + o[1] }}
	infoOff := Coordinate(3, "M_01")
	for _, c := range []struct {
		variant     string
		pair        [2]model.Model
		score, info float64
		stat        Statistic
		broken      bool
		trials      int
	}{
		{"correct (score neighbours)", scorePair, 1, 1, scoreSum, false, 1000000},
		{"correct (information neighbours)", infoPair, 1, 1, infoOff, false, 200000},
		{"score-noise-halved", scorePair, 0.5, 1, scoreSum, true, 1000000},
		{"information-sensitivity-forgotten", infoPair, 1, 0.01, infoOff, true, 200000},
	} {
		t.Run(c.variant, func(t *testing.T) {
			m, claim := mech(c.pair, c.score, c.info)
			runAudit(t, auditCase{kernel: "noise-aware", variant: c.variant, mech: m, claim: claim, delta: delta,
				stats: []Statistic{c.stat}, broken: c.broken, trials: c.trials})
		})
	}
}

// The noise-aware release with its whole path (3 releases: θ = 0, the LDA
// start, then a damped Newton step, noiseaware.NewtonDamping), audited on
// the score neighbours of TestAuditNoiseAwareRelease: the expansion points
// after the first are chosen from earlier releases (post-processing), and
// the differing row moves S_0 + S_1 by 2 at every point. The attacker
// knows both datasets and sees the released points θ_r, so the statistic is
// Σ_r (S̃_r,0 + S̃_r,1 − s_D(θ_r))/σ_r², s_D(θ) the noiseless S_0 + S_1 of
// D at θ: the likelihood-ratio statistic of the score releases given the
// points. The claim is the plan's ε for all 6 blocks.
// The seeded bug (score noise × 0.35 in every release) must be caught.
// Measured: correct ε_lb 0.56 vs claim 1.99; the bug 2.12. The statistic
// does not depend on which points the path chose (the differing row adds 2
// at every θ), so it covers any post-processing path: forcing the shrunk
// path (Plan.ShrinkPath) on gave the same 0.561 and 2.116 (checked
// 2026-11-29, not kept as a variant). (This audit
// found the NaN start of TestSmallNLargeNoiseFinite: with n = 4 the first
// release's noise sd exceeds n/2.)
func TestAuditNoiseAwareNewtonPath(t *testing.T) {
	const delta = 1e-5
	build := func(t *testing.T, row []float64) model.Model {
		tab := &dataset.Table{Names: []string{"x", "y"}, Rows: 4,
			Data: append(append([]float64{}, row...), 0.3, 1, -0.6, 0, 0.1, 1)}
		if _, err := tab.ApplyBounds(map[string]dataset.Bound{"x": {Lo: -1, Hi: 1}}); err != nil {
			t.Fatal(err)
		}
		m, err := model.Build(model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x"}}, tab)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	pair := [2]model.Model{build(t, []float64{1, 1}), build(t, []float64{1, 0})}
	spec := noiseaware.Spec{Family: "logistic", N: 4, D: 2, Intercept: true,
		XRanges: []model.Interval{{Lo: 1, Hi: 1}, {Lo: -1, Hi: 1}}, Mu: 0.5, Releases: 3}
	scoreSum := Statistic{Name: "Σ_r (S̃_0 + S̃_1 − s_D(θ_r))/σ_r²", F: func(o []float64) float64 { return o[0] }}
	// s_D(θ) = Σ_i (1 + x_i)(y_i − σ(θ_0 + θ_1 x_i)) over D's rows.
	xD, yD := []float64{1, 0.3, -0.6, 0.1}, []float64{1, 1, 0, 1}
	sD := func(th []float64) float64 {
		v := 0.0
		for i, x := range xD {
			v += (1 + x) * (yD[i] - 1/(1+math.Exp(-(th[0]+th[1]*x))))
		}
		return v
	}
	for _, c := range []struct {
		variant string
		score   float64
		broken  bool
	}{{"correct", 1, false}, {"score-noise-at-0.35", 0.35, true}} {
		t.Run(c.variant, func(t *testing.T) {
			p, err := noiseaware.NewPlan(spec)
			if err != nil {
				t.Fatal(err)
			}
			claim, err := privacy.TightGaussian{Mu: p.Mu}.Epsilon(delta)
			if err != nil {
				t.Fatal(err)
			}
			noiseaware.AuditSeedBug(p, c.score, 1)
			m := func(nb int, noise *rand.Rand) ([]float64, error) {
				rel, err := noiseaware.Run(p, pair[nb], noise)
				if err != nil {
					return nil, err
				}
				s := 0.0
				for r, S := range rel.S {
					sd := p.Blocks[2*r].Std
					s += (S[0] + S[1] - sD(rel.Theta[r])) / (sd * sd)
				}
				return []float64{s}, nil
			}
			runAudit(t, auditCase{kernel: "noise-aware (3 releases, damped Newton path)", variant: c.variant, mech: m, claim: claim, delta: delta,
				stats: []Statistic{scoreSum}, broken: c.broken, trials: 1000000})
		})
	}
}

// The noise-aware release in design-adapted coordinates (Spec.Whiten,
// core/noiseaware/whiten.go) audited as a black box: Poisson regression
// (outcome bound [0, 1], so the count is censored at 1 and the weight is
// w = λ²/(e^λ − 1) at λ = min(e^η, 1), 0.58 near the expansion point), two releases: the first in the box at θ = 0, the
// second at the log-linear start in coordinates derived from the first,
// u = (1, Ĉ^{−1/2}(x̃ − m̂)) with |u_1| shrunk to C. The other n − 1 rows
// sit at x = ±0.05, far inside what the first release resolves, so Ĉ is
// near its floor and the differing row, at x = 1 in D and x = 0 in D′
// (y = 1 in both), reaches the shrink radius in the second release. The
// attacker knows D, and sees the expansion point and the coordinates
// (Release.RowCoords: post-processing of the first release). The
// statistic is the Gaussian log-likelihood ratio of the second release's
// information block, ⟨v − k − Δ/2, Δ⟩ with v = (M̃_00, √2·M̃_01, M̃_11), k
// the other rows' known part and Δ the differing rows' difference. It
// reads blocks 0, 1 and 3, so the claim is their μ (adaptive composition;
// block 2, the second score, is not read). The seeded bug accounts the
// box's row norm d = 2 for the design-adapted release instead of
// 1 + C² = 7.66 (its noise std × 2/7.66), the mistake
// TestWhitenedSensitivityNeverExceeded checks deterministically.
// Measured (400,000 trials): correct ε_lb 0.59 against the claim 3.01; the
// bug 4.08 (0.90 and 4.11 with the weights of an uncensored count, before
// 2026-11-30). The shipped schedule (noiseaware.PoissonReleases = 4, since
// 2026-11-30) is audited the same way on the last release's information,
// with every block but the last score in the claim (they choose its point
// and coordinates): ε_lb 0.45 against the claim 3.57 (200,000 trials, as
// the test runs). The same seeded bug there is not caught (3.11 at 200,000
// trials: the last information block holds 20% of μ², against 32% with
// two releases), so the two-release case carries it.
func TestAuditNoiseAwareDesignCoords(t *testing.T) {
	const delta, n, spread = 1e-5, 200, 0.05
	build := func(t *testing.T, x float64) model.Model {
		data := []float64{x, 1}
		for i := 1; i < n; i++ {
			data = append(data, spread*float64(1-2*(i%2)), 1)
		}
		tab := &dataset.Table{Names: []string{"x", "y"}, Rows: n, Data: data}
		if _, err := tab.ApplyBounds(map[string]dataset.Bound{"x": {Lo: -1, Hi: 1}, "y": {Lo: 0, Hi: 1}}); err != nil {
			t.Fatal(err)
		}
		m, err := model.Build(model.Spec{Model: "poisson", Outcome: "y", Predictors: []string{"x"}}, tab)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	pair := [2]model.Model{build(t, 1), build(t, 0)}
	// The weight of a count released as min(Y, 1), censored at K = 1
	// (noiseaware censored.go): λ²/(e^λ − 1) at λ = min(e^η, 1).
	w := func(eta float64) float64 {
		l := math.Min(math.Exp(eta), 1)
		if l < 1e-12 {
			return l
		}
		return l * l / math.Expm1(l)
	}
	for _, c := range []struct {
		variant  string
		releases int
		broken   bool
		trials   int
	}{{"correct", 2, false, 400000}, {"box-norm-accounted", 2, true, 400000}, {"correct, four releases", noiseaware.PoissonReleases, false, 200000}} {
		t.Run(c.variant, func(t *testing.T) {
			spec := noiseaware.Spec{Family: "poisson", N: n, D: 2, Intercept: true,
				XRanges: []model.Interval{{Lo: 1, Hi: 1}, {Lo: -1, Hi: 1}}, YRange: model.Interval{Lo: 0, Hi: 1}, Mu: 1, Releases: c.releases, Whiten: true}
			last := c.releases - 1
			stat := Statistic{Name: fmt.Sprintf("⟨M̃_%d − known − Δ/2, Δ⟩", c.releases), F: func(o []float64) float64 { return o[0] }}
			p, err := noiseaware.NewPlan(spec)
			if err != nil {
				t.Fatal(err)
			}
			if !(p.ClipRadius > 0) {
				t.Fatal("the plan does not use the design-adapted coordinates")
			}
			// The statistic reads every release before the last (they
			// choose its point and coordinates) and the last one's M: the
			// claim is their μ (every block but the last score).
			mu2 := 0.0
			for b, blk := range p.Blocks {
				if b != 2*last {
					mu2 += blk.Mu * blk.Mu
				}
			}
			mu := math.Sqrt(mu2)
			claim, err := privacy.TightGaussian{Mu: mu}.Epsilon(delta)
			if err != nil {
				t.Fatal(err)
			}
			if c.broken {
				// The box's row norm d = 2 accounted for the
				// design-adapted release (1 + C² = 7.66).
				p.Blocks[2*last+1].Std *= 2 / (1 + p.ClipRadius*p.ClipRadius)
			}
			rel, err := noiseaware.Run(p, pair[0], rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			u := rel.RowCoords(last, []float64{1, 1})
			t.Logf("C = %.3f; the differing row's u in the last release (one run): %.3g, theta %.3g", p.ClipRadius, u, rel.Theta[last])
			m := func(nb int, noise *rand.Rand) ([]float64, error) {
				rel, err := noiseaware.Run(p, pair[nb], noise)
				if err != nil {
					return nil, err
				}
				// The second release's M as released (M_00, √2·M_01,
				// M_11), less the part the attacker knows (the other n − 1
				// rows, in the coordinates and at the point it sees), and
				// the differing row's part Δ in D: the Gaussian
				// log-likelihood ratio of D against D′ is ⟨v − Δ/2, Δ⟩/σ².
				th := rel.Theta[last]
				var v, dlt [3]float64
				v[0], v[1], v[2] = rel.M[last][0], math.Sqrt2*rel.M[last][1], rel.M[last][3]
				add := func(out *[3]float64, x, k float64) {
					u := rel.RowCoords(last, []float64{1, x})
					wu := k * w(th[0]+th[1]*x)
					out[0] += wu * u[0] * u[0]
					out[1] += wu * math.Sqrt2 * u[0] * u[1]
					out[2] += wu * u[1] * u[1]
				}
				var known [3]float64
				add(&known, spread, float64((n-1)/2))      // even i
				add(&known, -spread, float64(n-(n-1)/2-1)) // odd i
				add(&dlt, 1, 1)
				add(&dlt, 0, -1)
				s := 0.0
				for j := range v {
					s += (v[j] - known[j] - dlt[j]/2) * dlt[j]
				}
				return []float64{s}, nil
			}
			runAudit(t, auditCase{kernel: "noise-aware (design-adapted coordinates)", variant: c.variant, mech: m, claim: claim, delta: delta,
				stats: []Statistic{stat}, broken: c.broken, trials: c.trials})
		})
	}
}

// The mean-statistic noise-aware release (the gaussian and banana models:
// one Gaussian release of the clipped column sums scaled by their bounds'
// half-widths, noiseaware.MeanKernel), on neighbours that attain its
// sensitivity: bounds [−1, 1] and [−4, 4], the differing row (−1, −4) in
// one dataset and (1, 4) in the other, so the sums move by (2, 8) and the
// scaled sums by (2, 2), ‖·‖ = 2√2 = Δ. The output is the released means;
// the statistic m1/h1 + m2/h2 (the likelihood-ratio direction, noise std
// h_j·σ on mean j up to n). The claim is the plan's μ (grid inflation
// included) at δ = 1e-5; the seeded bug halves the noise std while
// claiming the same μ.
func TestAuditNoiseAwareMeanRelease(t *testing.T) {
	const delta, mu = 1e-5, 0.5
	build := func(t *testing.T, row float64) model.Model {
		tab, err := dataset.FromColumns([]string{"x1", "x2"}, [][]float64{{row, 0.3, -0.6, 0.1}, {4 * row, -0.2, 0.5, 0.9}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tab.ApplyBounds(map[string]dataset.Bound{"x1": {Lo: -1, Hi: 1}, "x2": {Lo: -4, Hi: 4}}); err != nil {
			t.Fatal(err)
		}
		m, err := model.Build(model.Spec{Model: "gaussian"}, tab)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	pair := [2]model.Model{build(t, -1), build(t, 1)}
	for _, c := range []struct {
		variant string
		scale   float64
		broken  bool
	}{
		{"correct", 1, false},
		{"noise-halved", 0.5, true},
	} {
		t.Run(c.variant, func(t *testing.T) {
			t.Parallel()
			p, err := noiseaware.NewMeanPlan(pair[0].(model.MeanStatistic).MeanBounds(), mu)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(p.Sensitivity-2*math.Sqrt2) > 1e-12 {
				t.Fatalf("sensitivity %v, want 2√2", p.Sensitivity)
			}
			claim, err := privacy.TightGaussian{Mu: p.Mu}.Epsilon(delta)
			if err != nil {
				t.Fatal(err)
			}
			noiseaware.AuditSeedBugMean(p, c.scale)
			mech := func(nb int, noise *rand.Rand) ([]float64, error) {
				k, err := noiseaware.NewMeanKernel(pair[nb], p)
				if err != nil {
					return nil, err
				}
				if err := k.Release(noise); err != nil {
					return nil, err
				}
				return k.Released().S[0], nil
			}
			runAudit(t, auditCase{kernel: "noise-aware (mean statistic)", variant: c.variant, mech: mech, claim: claim, delta: delta,
				stats: []Statistic{{Name: "m1 + m2/4", F: func(o []float64) float64 { return o[0] + o[1]/4 }}}, broken: c.broken, trials: 200000})
		})
	}
}
