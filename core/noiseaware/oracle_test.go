package noiseaware

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"gonum.org/v1/gonum/mat"
)

// oraclePosterior is the best case of a score release: the Fisher
// information M at the true θ* known exactly (no release spent on it), the
// whole budget μ on one release of the score at θ* (σ = Δ_S/μ), and the
// likelihood linearised at the truth, S̃ | θ ~ N(M(θ − θ*), M + σ²I). With
// the N(0, s²I) prior the posterior is Gaussian with precision
// P = M(M + σ²I)⁻¹M + I/s² and mean P⁻¹M(M + σ²I)⁻¹(S̃ + Mθ*). It needs
// the truth and the exact M, so no mechanism can report it; it bounds what
// any posterior built on a released score can know.
func oraclePosterior(M, sTil, truth []float64, sigma, priorSD float64) (mean, sd []float64) {
	d := len(truth)
	Mm := mat.NewDense(d, d, append([]float64(nil), M...))
	var A, Ai, B, P, C mat.Dense
	A.CloneFrom(Mm)
	for j := range d {
		A.Set(j, j, A.At(j, j)+sigma*sigma)
	}
	if err := Ai.Inverse(&A); err != nil {
		panic(err)
	}
	B.Mul(Mm, &Ai)
	P.Mul(&B, Mm)
	for j := range d {
		P.Set(j, j, P.At(j, j)+1/(priorSD*priorSD))
	}
	if err := C.Inverse(&P); err != nil {
		panic(err)
	}
	rhs := mat.NewVecDense(d, append([]float64(nil), sTil...))
	var mt, bv, mv mat.VecDense
	mt.MulVec(Mm, mat.NewVecDense(d, append([]float64(nil), truth...)))
	rhs.AddVec(rhs, &mt)
	bv.MulVec(&B, rhs)
	mv.MulVec(&C, &bv)
	mean, sd = make([]float64, d), make([]float64, d)
	for j := range d {
		mean[j], sd[j] = mv.AtVec(j), math.Sqrt(C.At(j, j))
	}
	return mean, sd
}

// drawStats draws k scaled draws from q and adds to *hit the number of
// coefficients whose 90% interval contains truth and to sd[j] the draws'
// sd divided by reps.
func drawStats(q *Posterior, r *rand.Rand, truth []float64, k, reps int, hit *int, sd []float64) {
	d := len(truth)
	dr := make([][]float64, k)
	for i := range dr {
		dr[i] = make([]float64, d)
		q.DrawScaled(r, dr[i])
	}
	for j := range d {
		ci := quantiles(dr, j, 0.05, 0.95)
		if ci[0] <= truth[j] && truth[j] <= ci[1] {
			*hit++
		}
		s1, s2 := 0.0, 0.0
		for _, v := range dr {
			s1 += v[j]
			s2 += v[j] * v[j]
		}
		mj := s1 / float64(k)
		sd[j] += math.Sqrt(s2/float64(k)-mj*mj) / float64(reps)
	}
}

// fixedTruth holds one posterior's fixed-truth coverage of its 90%
// intervals and its mean sd per scaled coefficient.
type fixedTruth struct {
	cov float64
	sd  []float64
}

// fixedTruthComparison simulates reps outcomes at the fixed truth (scaled
// space) on the breast-cancer design resampled to n rows (569: the rows
// themselves) and returns the coverage and sds of three posteriors: the
// oracle (oraclePosterior); one release of S and M at the truth with the
// whole budget (split as the last release's, t ∈ [−1, 1]) and noise-aware's
// posterior on it (M from its pivot): the sampler without the cost of
// finding the expansion point; and noise-aware itself.
func fixedTruthComparison(t *testing.T, n int, eps float64, truth []float64, reps int, seed uint64) (oracle, atTruth, na fixedTruth) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 5))
	d := len(truth)
	oracle.sd, atTruth.sd, na.sd = make([]float64, d), make([]float64, d), make([]float64, d)
	oHit, aHit, nHit := 0, 0, 0
	for range reps {
		tab := loadBC(t)
		if n != tab.Rows {
			tab = resample(tab, n, 11)
		}
		spec := specFor(t, buildLogistic(t, tab), eps, 1e-5)
		p, err := NewPlan(spec)
		if err != nil {
			t.Fatal(err)
		}
		user := append([]float64(nil), truth...)
		p.ToUser(user, true)
		simulateLogistic(tab, user, r)
		m := buildLogistic(t, tab)
		rd, _ := model.RegressionDataOf(m)
		S, M := p.statistics(&rd, truth)

		dS, dM := scoreSensitivity(-1, 1, float64(d), true), infoSensitivity(0.25, float64(d))
		sigma := dS / spec.Mu
		sOr := append([]float64(nil), S...)
		for j := range sOr {
			sOr[j] += sigma * r.NormFloat64()
		}
		om, osd := oraclePosterior(M, sOr, truth, sigma, p.PriorSD)
		for j := range d {
			if math.Abs(om[j]-truth[j]) <= 1.6448536269514722*osd[j] {
				oHit++
			}
			oracle.sd[j] += osd[j] / float64(reps)
		}

		spec.Releases = 1
		p1, err := NewPlan(spec)
		if err != nil {
			t.Fatal(err)
		}
		p1.Blocks[0].Std = dS / (math.Sqrt(scoreShare) * spec.Mu)
		p1.Blocks[1].Std = dM / (math.Sqrt(1-scoreShare) * spec.Mu)
		s1 := append([]float64(nil), S...)
		addGaussianNoise(r, s1, p1.Blocks[0].Std)
		rel1 := &Release{Plan: p1, Family: rd.Family, D: d, N: tab.Rows, Theta: [][]float64{append([]float64(nil), truth...)},
			S: [][]float64{s1}, M: [][]float64{releaseInfo(r, M, d, p1.Blocks[1].Std)}}
		drawStats(NewPosterior(rel1), r, truth, 1000, reps, &aHit, atTruth.sd)

		rel, err := Run(p, m, r)
		if err != nil {
			t.Fatal(err)
		}
		drawStats(NewPosterior(rel), r, truth, 1000, reps, &nHit, na.sd)
	}
	tot := float64(reps * d)
	oracle.cov, atTruth.cov, na.cov = float64(oHit)/tot, float64(aHit)/tot, float64(nHit)/tot
	return oracle, atTruth, na
}

func meanOf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Why noise-aware over-covers at the breast-cancer fixed truth (the
// non-private posterior mean of the 569 rows under the N(0, 20²) prior on
// the scaled coefficients), and that no release of S and M can reach the
// issue's 0.85–0.95 there. Measured (200 replicates, seed 3; mean scaled
// posterior sds, prior 20; docs/RESULTS.md "Utility"):
//
//   - oracle (exact M, the whole budget on one score release at the
//     truth): coverage 0.953 at n = 569, ε = 3 (sds 4.5–16) and 0.929 at
//     n = 5,000, ε = 1 (1.8–10); 0.935 and 0.912 with another seed;
//   - one release of S and M at the truth with the whole budget, M from its
//     pivot: 1.000 and 1.000, sds 7.3–15 and 6.0–15;
//   - noise-aware (four releases along its path): 0.993 and 0.996, sds
//     within 3% of the previous line.
//
// So the path costs nothing, and the whole gap to the oracle is the
// release noise on M: even with the whole budget σ_M ≥ Δ_M/μ ≈ 2.9
// (n = 569, ε = 3), against eigenvalues 0.12–1.8 of five of M's six
// directions at the truth, which no release at this budget can learn; the
// posterior must then average over them and is mostly prior there, and a
// fixed truth inside the prior's bulk is covered more often than 90%.
//
// Fails if one release at the truth stops over-covering (≥ 0.95: the claim
// would be wrong) or learns nothing (mean sd above 0.9 prior sds), if
// noise-aware's mean sd is more than 15% above it (the path would be
// costing precision) or below the oracle's.
func TestOracleFixedTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	truth, p := bcTruth(t)
	p.FromUser(truth, true)
	t.Logf("fixed truth (scaled): %.2f", truth)
	for _, c := range []struct {
		n   int
		eps float64
	}{{569, 3}, {5000, 1}} {
		or, at, na := fixedTruthComparison(t, c.n, c.eps, truth, 200, 3)
		t.Logf("n = %d, ε = %v: oracle %.3f (sds %.1f); one release at the truth %.3f (sds %.1f); noise-aware %.3f (sds %.1f)",
			c.n, c.eps, or.cov, or.sd, at.cov, at.sd, na.cov, na.sd)
		if at.cov < 0.95 {
			t.Errorf("n = %d, ε = %v: one release at the truth covers %.3f: the band is not out of reach", c.n, c.eps, at.cov)
		}
		if ma := meanOf(at.sd); ma > 0.9*p.PriorSD {
			// A release the posterior cannot use (e.g. without its row
			// count, whose trace cap then projects every M draw to 0) gives
			// the prior, which over-covers too.
			t.Errorf("n = %d, ε = %v: one release at the truth has mean sd %.2f, the prior's %v: it learned nothing", c.n, c.eps, ma, p.PriorSD)
		}
		if mn, ma, mo := meanOf(na.sd), meanOf(at.sd), meanOf(or.sd); mn > 1.15*ma || mn < mo {
			t.Errorf("n = %d, ε = %v: noise-aware's mean sd %.2f, one release at the truth %.2f, oracle %.2f", c.n, c.eps, mn, ma, mo)
		}
	}
}

// The design-adapted coordinates (Spec.Whiten) on the correlated
// breast-cancer design: at moderate true slopes (2.5–4.2 on the scaled
// space, an odds ratio of about 2 per predictor sd), n = 5,000 resampled
// rows and ε = 8, the box's posterior is mostly prior on the slopes
// (measured mean slope sd 8.2, prior 20) because M's small eigenvalues
// (3.2–21) sit under its release noise; the design-adapted releases give
// 0.48 at the same budget, and their 90% intervals cover the truth 0.89
// (60 replicates; the binomial SE at 0.9 over 360 intervals is 0.016,
// more with the coefficients' correlation). Fails if the gain falls below
// 5× or the coverage below 0.8.
func TestWhitenedCorrelatedDesign(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	truth := []float64{4.33, 2.46, 3.22, 4.19, 2.62, 3.16}
	const reps = 60
	slopeSD := func(sd []float64) float64 { return meanOf(sd[1:]) }
	var sds [2]float64
	var cov [2]float64
	for i, whiten := range []bool{false, true} {
		r := rand.New(rand.NewPCG(3, 5))
		hit := 0
		sd := make([]float64, len(truth))
		for range reps {
			tab := resample(loadBC(t), 5000, 11)
			spec := specFor(t, buildLogistic(t, tab), 8, 1e-5)
			spec.Whiten = whiten
			p, err := NewPlan(spec)
			if err != nil {
				t.Fatal(err)
			}
			user := append([]float64(nil), truth...)
			p.ToUser(user, true)
			simulateLogistic(tab, user, r)
			rel, err := Run(p, buildLogistic(t, tab), r)
			if err != nil {
				t.Fatal(err)
			}
			drawStats(NewPosterior(rel), r, truth, 1000, reps, &hit, sd)
		}
		sds[i], cov[i] = slopeSD(sd), float64(hit)/float64(reps*len(truth))
		t.Logf("whiten %v: coverage %.3f, mean slope sd %.2f (sds %.2f)", whiten, cov[i], sds[i], sd)
	}
	if sds[1] > sds[0]/5 {
		t.Errorf("the design-adapted coordinates give a mean slope sd %.2f against the box's %.2f: less than 5× narrower", sds[1], sds[0])
	}
	if cov[1] < 0.8 {
		t.Errorf("the design-adapted coordinates cover %.3f", cov[1])
	}
}
