package noiseaware

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// Where the prior-predictive shortfall comes from (docs/SAMPLERS.md "What
// the design is worth"). Two oracles that know the design, each sampling
// p(θ | the last released score S̃_R) with the same prior:
//
//   - exact information at θ_R: the shipped linearised likelihood
//     S̃_R | θ ~ N(M_R(θ − θ_R), M_R + (σ_S² + τ²)I), but with the exact M_R
//     instead of draws from its pivot (conjugate, drawn exactly);
//   - exact design: S̃_R | θ ~ N(g(θ), M(θ) + σ_S²I) with the exact mean
//     g(θ) = E[S(θ_R) | θ] = Σ_i (σ(x̃_iᵀθ) − σ(x̃_iᵀθ_R)) x̃_i and variance
//     M(θ) = Σ_i w_i(θ) x̃_i x̃_iᵀ: no expansion, so no τ (sampled by an
//     adaptive random-walk Metropolis chain).
//
// Neither can be reported (the design is private), so they say only what
// knowing it would be worth. Measured (n = 569, ε = 3, truths from
// N(0, 10²) on the scaled space, seed 9): shipped 0.819, exact information
// 0.864, exact design 0.872 (60 replicates, this test); 0.820, 0.843, 0.877
// with 100 replicates and chains twice as long. A third of the shortfall
// is the release noise on M, two thirds the curvature beyond the
// expansion point: the score saturates there, where the linearisation
// keeps it growing, so far coefficients are excluded too firmly. The test
// requires the exact-design posterior to be calibrated (0.85–0.97: it is
// the likelihood's own approximation, the normal sampling distribution of
// the score, that is checked) and the shipped one to fall short of it; a
// change that closes the gap fails the second check and should update
// this comment and the docs.
func TestWhatTheDesignIsWorth(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const (
		n, eps, s = 569, 3.0, 10.0
		reps, k   = 60, 2000
	)
	hits := [3]int{} // shipped, exact information, exact design
	forEachPriorPredictiveRelease(t, n, eps, s, reps, 9, true, func(rel *Release, m model.Model, truth []float64, r *rand.Rand) {
		d, R := rel.D, len(rel.S)
		if rel.Plan.whitened(R - 1) {
			t.Fatalf("the release at n = %d, ε = %v was made in design-adapted coordinates: the oracles are written for the box", n, eps)
		}
		rd, _ := model.RegressionDataOf(m)
		q := NewPosterior(rel)
		thR := rel.Theta[R-1]
		sR, mR := rel.Plan.statistics(&rd, thR)
		draws := [3][][]float64{}
		for range k {
			v, w := make([]float64, d), make([]float64, d)
			q.DrawScaled(r, v)
			copy(q.m, mR) // the exact information instead of a pivot draw
			q.drawGivenInfo(r, w)
			draws[0], draws[1] = append(draws[0], v), append(draws[1], w)
		}
		logPost := func(th []float64) float64 {
			st, mt := rel.Plan.statistics(&rd, th)
			res := make([]float64, d)
			for j := range d {
				// S(θ_R) − S(θ) = g(θ): the outcome cancels.
				res[j] = rel.S[R-1][j] - (sR[j] - st[j])
				mt[j*d+j] += q.stdS * q.stdS
			}
			lp := gaussLogLik(res, mt, d)
			for _, v := range th {
				lp -= v * v / (2 * s * s)
			}
			return lp
		}
		draws[2] = adaptiveRWM(logPost, meanOf2(draws[0]), covOf(draws[0]), k, r)
		for o := range draws {
			hits[o] += coverageOf(draws[o], truth)
		}
	})
	cov := func(h int) float64 { return float64(h) / float64(reps*6) }
	shipped, info, design := cov(hits[0]), cov(hits[1]), cov(hits[2])
	t.Logf("prior-predictive coverage, n = %d, ε = %v, s = %v (%d replicates): shipped %.3f, exact information at θ_R %.3f, exact design %.3f", n, eps, s, reps, shipped, info, design)
	if design < 0.85 || design > 0.97 {
		t.Errorf("the exact-design posterior covers %.3f, outside 0.85–0.97: the score's normal sampling model (or this oracle) is wrong", design)
	}
	if !(shipped < design-0.03) {
		t.Errorf("the shipped posterior covers %.3f, within 0.03 of the exact design's %.3f: the gap this test documents has closed; update it and docs/SAMPLERS.md", shipped, design)
	}
}

// gaussLogLik is log N(res; 0, V) up to a constant; it overwrites V and
// res.
func gaussLogLik(res, V []float64, d int) float64 {
	if cholesky(V, d) != nil {
		return math.Inf(-1)
	}
	ld := 0.0
	for j := range d {
		ld += math.Log(V[j*d+j])
	}
	forward(V, d, res)
	rr := 0.0
	for _, v := range res {
		rr += v * v
	}
	return -0.5*rr - ld
}

func meanOf2(draws [][]float64) []float64 {
	d := len(draws[0])
	m := make([]float64, d)
	for _, v := range draws {
		for j := range d {
			m[j] += v[j] / float64(len(draws))
		}
	}
	return m
}

func covOf(draws [][]float64) []float64 {
	d := len(draws[0])
	m := meanOf2(draws)
	c := make([]float64, d*d)
	for _, v := range draws {
		for a := range d {
			for b := range d {
				c[a*d+b] += (v[a] - m[a]) * (v[b] - m[b]) / float64(len(draws)-1)
			}
		}
	}
	for a := range d {
		c[a*d+a] += 1e-9
	}
	return c
}

// adaptiveRWM runs a random-walk Metropolis chain on logPost from start
// with proposal covariance (2.38²/d)·C, re-estimating C from the chain
// after 2,000 and 4,000 iterations (Haario et al. 2001, adaptation stopped
// before anything is kept), and returns k draws thinned by 4.
func adaptiveRWM(logPost func([]float64) float64, start, C []float64, k int, r *rand.Rand) [][]float64 {
	d := len(start)
	cur := append([]float64(nil), start...)
	lcur := logPost(cur)
	L := make([]float64, d*d)
	factor := func(c []float64) {
		for a := range c {
			L[a] = c[a] * 2.38 * 2.38 / float64(d)
		}
		if cholesky(L, d) != nil {
			panic("proposal covariance")
		}
	}
	factor(C)
	var hist, out [][]float64
	z, prop := make([]float64, d), make([]float64, d)
	for it := 0; len(out) < k; it++ {
		if it == 2000 || it == 4000 {
			factor(covOf(hist))
			hist = hist[:0]
		}
		for a := range d {
			z[a] = r.NormFloat64()
		}
		for a := range d {
			v := cur[a]
			for b := 0; b <= a; b++ {
				v += L[a*d+b] * z[b]
			}
			prop[a] = v
		}
		if lp := logPost(prop); math.Log(r.Float64()) < lp-lcur {
			copy(cur, prop)
			lcur = lp
		}
		switch {
		case it < 4000:
			hist = append(hist, append([]float64(nil), cur...))
		case it%4 == 0:
			out = append(out, append([]float64(nil), cur...))
		}
	}
	return out
}
