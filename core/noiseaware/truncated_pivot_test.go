package noiseaware

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/mathx"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// truncatedPivot samples M from the pivot truncated to the positive
// definite matrices, M ~ N(M̃, noise) · 1[M ≻ 0] (the posterior of M under a
// flat prior on the cone), by elliptical slice sampling (Murray, Adams &
// MacKay 2010): with the indicator as the likelihood every proposal on the
// ellipse through the current M and a fresh noise draw ν that stays positive
// definite is accepted, the others shrink the angle bracket. θ | M is then
// drawn exactly as in DrawScaled. With evidence, M is also weighted by what
// the score says about it, the marginal of S̃ with θ integrated out under
// its N(0, s²I) prior,
//
//	S̃ | M ~ N(−Mθ_R, s²M² + φM + (σ_S² + τ²)I),
//
// which makes (M, θ) a draw from the coherent joint posterior under the
// flat prior on the cone (both pivots ignore this factor). Test-only: the
// alternatives to the projection that the sampler does not use
// (TestTruncatedPivotIsOverconfident).
type truncatedPivot struct {
	q             *Posterior
	evidence      bool
	curL          float64 // log-likelihood of cur (evidence only)
	cur, nu, prop []float64
	chol, v, w    []float64
	cov, res      []float64
}

func newTruncatedPivot(q *Posterior, evidence bool) *truncatedPivot {
	d := q.d
	e := &truncatedPivot{q: q, evidence: evidence, cur: append([]float64(nil), q.mTil...), nu: make([]float64, d*d),
		prop: make([]float64, d*d), chol: make([]float64, d*d), v: make([]float64, d*d), w: make([]float64, d),
		cov: make([]float64, d*d), res: make([]float64, d)}
	jacobiPSD(e.cur, e.v, e.w, d) // start: the projection, made definite
	tr := 0.0
	for j := range d {
		tr += e.cur[j*d+j]
	}
	for j := range d {
		e.cur[j*d+j] += 1e-6*tr/float64(d) + 1e-12
	}
	e.curL = e.logLik(e.cur)
	return e
}

func (e *truncatedPivot) definite(a []float64) bool {
	copy(e.chol, a)
	return cholesky(e.chol, e.q.d) == nil
}

// logLik is the slice sampler's log-likelihood of M = a: −∞ off the cone,
// else 0, plus log N(S̃; −Mθ_R, s²M² + φM + (σ_S² + τ²)I) (up to a
// constant) with evidence.
func (e *truncatedPivot) logLik(a []float64) float64 {
	if !e.definite(a) {
		return math.Inf(-1)
	}
	if !e.evidence {
		return 0
	}
	q, d := e.q, e.q.d
	s2 := 1 / q.invS2
	for j := range d {
		for k := range d {
			mm := 0.0
			for i := range d {
				mm += a[j*d+i] * a[i*d+k]
			}
			e.cov[j*d+k] = s2*mm + q.phi*a[j*d+k]
		}
		e.cov[j*d+j] += q.stdS*q.stdS + q.modelErr*q.modelErr
		e.res[j] = q.sTil[j]
		for k := range d {
			e.res[j] += a[j*d+k] * q.thetaR[k]
		}
	}
	if cholesky(e.cov, d) != nil {
		return math.Inf(-1)
	}
	forward(e.cov, d, e.res)
	l := 0.0
	for j := range d {
		l -= 0.5*e.res[j]*e.res[j] + math.Log(e.cov[j*d+j])
	}
	return l
}

func (e *truncatedPivot) stepM(r *rand.Rand) {
	q, d := e.q, e.q.d
	for j := range d {
		e.nu[j*d+j] = q.stdM * mathx.NormFloat64(r)
		for k := j + 1; k < d; k++ {
			v := q.stdM / math.Sqrt2 * mathx.NormFloat64(r)
			e.nu[j*d+k], e.nu[k*d+j] = v, v
		}
	}
	level := math.Inf(-1) // the indicator: every definite proposal is inside the slice
	if e.evidence {
		level = e.curL + math.Log(r.Float64())
	}
	a := 2 * math.Pi * r.Float64()
	lo, hi := a-2*math.Pi, a
	for {
		c, s := math.Cos(a), math.Sin(a)
		for i := range e.prop {
			e.prop[i] = q.mTil[i] + (e.cur[i]-q.mTil[i])*c + e.nu[i]*s
		}
		if l := e.logLik(e.prop); l > level {
			copy(e.cur, e.prop)
			e.curL = l
			return
		}
		if a < 0 {
			lo = a
		} else {
			hi = a
		}
		a = lo + (hi-lo)*r.Float64()
	}
}

// draws returns k draws of θ (scaled), three elliptical slice updates of M
// apart, after 200 updates of burn-in.
func (e *truncatedPivot) draws(r *rand.Rand, k int) [][]float64 {
	q, d := e.q, e.q.d
	for range 200 {
		e.stepM(r)
	}
	out := make([][]float64, k)
	for i := range out {
		for range 3 {
			e.stepM(r)
		}
		out[i] = make([]float64, d)
		copy(q.m, e.cur)
		q.drawGivenInfo(r, out[i])
	}
	return out
}

// coverageOf counts the coefficients whose central 90% interval of draws
// contains truth.
func coverageOf(draws [][]float64, truth []float64) int {
	hit := 0
	for j := range truth {
		ci := quantiles(draws, j, 0.05, 0.95)
		if ci[0] <= truth[j] && truth[j] <= ci[1] {
			hit++
		}
	}
	return hit
}

// Why M is drawn from the projected pivot and not from the pivot truncated
// to the positive definite matrices (the flat-prior posterior of M, the
// "exact treatment" an earlier note proposed). The truncated version reaches
// the fixed-truth band, but only by being overconfident: with truths
// drawn from the prior, where an exact posterior covers 0.90, it covers far
// less. Measured (n = 569, ε = 3; seeds below):
//
//   - fixed truth (the breast-cancer non-private mean, 100 replicates):
//     projection 0.993, sds 7.8–15; truncation 0.893, sds 4.7–8.8, but
//     0.73 and 0.74 for mean_radius and mean_smoothness; n = 5,000, ε = 1:
//     0.997 against 0.947 (0.86–0.87 for those two);
//   - prior-predictive (200 replicates, truths and prior N(0, s²)):
//     s = 2.5 0.873 against 0.813, s = 5 0.868 against 0.792, s = 10
//     0.838 against 0.693; n = 5,000, ε = 1: 0.913/0.898, 0.869/0.815,
//     0.828/0.723; n = 50,000, ε = 8, s = 10: 0.847/0.827.
//
// The flat prior on the cone pushes M's small eigenvalues up (the cone's
// volume grows with them), so the posterior believes the release knows more
// than it does; its sds in the weak directions fall below even the oracle's
// with the exact M (TestOracleFixedTruth: up to 16). An honest treatment of M
// needs a prior on it that the data's design induces (a predictor model, as
// Bernstein & Sheldon 2019), not a flat one.
//
// The coherent joint posterior under the same flat prior, which also
// weighs M by the score's evidence (truncatedPivot with evidence), is less
// overconfident but still below the projection: 0.844 against 0.868 at
// s = 5 (same replicates; its draws use their own stream). At the fixed
// truth it leaves the band at n = 5,000 (TestJointPivotFixedTruth).
//
// Fails if the truncation stops being overconfident (prior-predictive ≥ 0.85
// at s = 5: then it should be reconsidered), if the joint posterior covers
// at least as well as the projection, or if the projection leaves the band.
func TestTruncatedPivotIsOverconfident(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const n, eps, s, reps = 569, 3.0, 5.0, 200
	proj, trunc, joint, rep := 0, 0, 0, 0
	forEachPriorPredictive(t, n, eps, s, reps, 11, false, func(q *Posterior, truth []float64, r *rand.Rand) {
		dr := make([][]float64, 1000)
		for i := range dr {
			dr[i] = make([]float64, len(truth))
			q.DrawScaled(r, dr[i])
		}
		proj += coverageOf(dr, truth)
		trunc += coverageOf(newTruncatedPivot(q, false).draws(r, 1000), truth)
		// its own stream, so that the replicates (drawn from r) stay those
		// of the two measurements above
		rep++
		joint += coverageOf(newTruncatedPivot(q, true).draws(rand.New(rand.NewPCG(uint64(rep), 12)), 1000), truth)
	})
	cp, ct, cj := float64(proj)/(reps*6), float64(trunc)/(reps*6), float64(joint)/(reps*6)
	t.Logf("n = %d, ε = %v, s = %v: prior-predictive coverage, projected pivot %.3f, truncated pivot %.3f, with the score's evidence %.3f", n, eps, s, cp, ct, cj)
	if ct >= 0.85 {
		t.Errorf("the truncated pivot covers %.3f: no longer overconfident, reconsider it", ct)
	}
	if cj >= cp {
		t.Errorf("the joint posterior with the score's evidence covers %.3f, the projection %.3f: reconsider it", cj, cp)
	}
	if cp < 0.85 || cp > 0.95 {
		t.Errorf("the projected pivot covers %.3f, outside 0.85–0.95", cp)
	}
}

// The joint posterior with the score's evidence (truncatedPivot with
// evidence) is not used either: at the fixed truth it covers 0.948 at
// n = 569, ε = 3 but 0.975 on the 5,000-row resample at ε = 1 (100
// replicates, seed 9), outside the 0.85–0.95, while with truths
// from the prior it covers less than the projection
// (TestTruncatedPivotIsOverconfident). Fails if it enters the band at the
// second setting (then, with the prior-predictive result, reconsider it).
func TestJointPivotFixedTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	truthUser, _ := bcTruth(t)
	const reps = 100
	for _, c := range []struct {
		n   int
		eps float64
	}{{569, 3}, {5000, 1}} {
		hit := 0
		forEachFixedTruth(t, bcDesign(t, c.n), truthUser, c.eps, reps, 9, func(_ int, _ model.Model, _ *Plan, rel *Release, truth []float64, r *rand.Rand) {
			hit += coverageOf(newTruncatedPivot(NewPosterior(rel), true).draws(r, 1000), truth)
		})
		cov := float64(hit) / (reps * 6)
		t.Logf("n = %d, ε = %v: fixed-truth coverage of the joint posterior with the score's evidence %.3f", c.n, c.eps, cov)
		if c.n == 5000 && cov >= 0.85 && cov <= 0.95 {
			t.Errorf("the joint posterior covers the fixed truth %.3f at n = 5,000, inside 0.85–0.95: reconsider it", cov)
		}
	}
}
