package audit

import (
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
// Measured: correct ε_lb 0.56 vs claim 1.99; the bug 2.12. (This audit
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
