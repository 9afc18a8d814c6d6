package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Black-box privacy audit of the dp-penalty accept/reject mechanism.
//
// Two neighbouring datasets (replace-one) differ in one row, set at the
// clip bound in opposite directions: ℓ_i(θ) = w_i·θ with w = (0, 0, 0, −R)
// and (0, 0, 0, +R), R huge, so the clipped sums are S0 = −c and S1 = +c
// (c = r|θ'−θ|), the largest difference the sensitivity 2c allows. From
// the same θ and the same public proposal θ' (the public stream is reseeded
// every trial), one Step is run T times on each dataset; the accept counts
// give Clopper–Pearson bounds and the empirical lower bound
//
//	ε_lb = log((p̂1_lo − δ)/p̂0_hi)
//
// (an (ε, δ)-DP mechanism has P1(A) ≤ e^ε·P0(A) + δ for every event A,
// here A = accept). It must never exceed the claimed per-step ε, the tight
// Gaussian ε(δ) of the kernel's PrivacyParams μ; a deliberately broken
// variant (noise std halved) must be flagged (ε_lb > claim).
//
// Power: the accept bit is a soft threshold of the released λ̂. With
// μ = 1/(τ√n) = 1 (n = 4, τ = 0.5), σ = 10 (so c = 5), and the public prior
// offset chosen so that m0 = S0 + log p(θ') − log p(θ) − σ²/2 = −18, the
// accept probability is in its exponential regime (p0 ≈ 0.045 vs p1 ≈ 0.24,
// ε_lb ≈ 1.6 < 4.38 = ε(δ = 1e-5) for μ = 1). With the noise halved the
// mechanism has μ = 2 (ε(1e-5) = 10); at m0 = −18 for its own σ,
// p0 ≈ 5e-4 vs p1 ≈ 0.085, ε_lb ≈ 4.8 > 4.38. (Values from the closed form
// P(accept) = Φ(m/s) + e^{m+s²/2}Φ(−(m+s²)/s), s the noise std.)

// auditModel is ℓ_i(θ) = w_i·θ (d = 1) with an improper prior
// log p(θ) = β·θ that sets the public offset of the test.
type auditModel struct {
	w    []float64
	beta float64
}

func (m *auditModel) Name() string         { return "audit" }
func (m *auditModel) Dim() int             { return 1 }
func (m *auditModel) ParamNames() []string { return []string{"theta"} }
func (m *auditModel) N() int               { return len(m.w) }
func (m *auditModel) LogLik(theta []float64, rows []int, out []float64) {
	if rows == nil {
		for i, w := range m.w {
			out[i] = w * theta[0]
		}
		return
	}
	for k, i := range rows {
		out[k] = m.w[i] * theta[0]
	}
}
func (m *auditModel) GradLogLikRow(theta []float64, i int, grad []float64) { grad[0] = m.w[i] }
func (m *auditModel) GradLogLik(theta []float64, rows []int, grad []float64) {
	grad[0] = 0
	if rows == nil {
		for _, w := range m.w {
			grad[0] += w
		}
		return
	}
	for _, i := range rows {
		grad[0] += m.w[i]
	}
}
func (m *auditModel) LogPrior(theta []float64) float64 { return m.beta * theta[0] }
func (m *auditModel) GradLogPrior(theta []float64, grad []float64) {
	grad[0] = m.beta
}
func (m *auditModel) RowBounds(box []model.Interval) model.RowBounds {
	inf := math.Inf(1)
	return model.RowBounds{Lipschitz: inf, GradNorm: inf, AbsLogLik: inf}
}

// auditAccepts runs T one-step trials of dp-penalty from θ = 0 on the
// dataset with differing row sign·R and returns the accept count and the
// kernel's claimed per-step μ.
func auditAccepts(t *testing.T, sign, noiseScale float64, trials int, noiseKey byte) (accepts int, mu float64) {
	const (
		n     = 4
		tau   = 0.5 // τ√n = 1: μ = 1
		step  = 1.0
		sigma = 10.0 // target noise std (correct variant)
		m0    = -18.0
		seedA = 11
		seedB = 12
	)
	// The public proposal: the first NormFloat64 of the reseeded stream.
	pub := rand.NewPCG(seedA, seedB)
	u := step * rand.New(pub).NormFloat64()
	c := sigma / 2 / (tau * math.Sqrt(n)) // σ = τ√n·2c
	clip := c / math.Abs(u)
	sv := noiseScale * sigma
	// m0 = S0 + β·u − σ_v²/2 with S0 = −c (the dataset with −R).
	beta := (m0 + c + sv*sv/2) / u
	m := &auditModel{w: []float64{0, 0, 0, sign * math.Copysign(1e6, u)}, beta: beta} // S = sign·c
	k, err := NewDPPenalty(m, DPPenaltyConfig{Step: step, Clip: clip, Tau: tau})
	if err != nil {
		t.Fatal(err)
	}
	k.noiseScale = noiseScale
	var key [32]byte
	key[0] = noiseKey
	r := rng.Streams{Public: rand.New(pub), Noise: rand.New(rand.NewChaCha8(key))}
	theta0 := []float64{0}
	for i := 0; i < trials; i++ {
		if err := k.Init(theta0); err != nil {
			t.Fatal(err)
		}
		pub.Seed(seedA, seedB)
		info := k.Step(r)
		if info.Clipped != 1 {
			t.Fatalf("clipped %d rows, want 1", info.Clipped)
		}
		if info.Accepted {
			accepts++
			if math.Abs(k.Position()[0]-u) > 1e-15 {
				t.Fatalf("accepted %v, proposal was %v", k.Position()[0], u)
			}
		}
	}
	return accepts, k.PrivacyParams().StepMu()
}

func TestDPAuditPenalty(t *testing.T) {
	const (
		trials = 300000
		delta  = 1e-5
		alpha  = 1e-3 // each Clopper–Pearson bound is one-sided at α/2
	)
	for _, v := range []struct {
		name       string
		noiseScale float64
		broken     bool
	}{{"correct", 1, false}, {"broken-noise-halved", 0.5, true}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			k0, mu := auditAccepts(t, -1, v.noiseScale, trials, 1)
			k1, _ := auditAccepts(t, +1, v.noiseScale, trials, 2)
			claim, err := privacy.TightGaussian{Mu: mu}.Epsilon(delta)
			if err != nil {
				t.Fatal(err)
			}
			p0hi := clopperPearsonUpper(k0, trials, alpha/2)
			p1lo := clopperPearsonLower(k1, trials, alpha/2)
			elb := math.Inf(-1)
			if p1lo > delta {
				elb = math.Log((p1lo - delta) / p0hi)
			}
			t.Logf("accepts: D0 %d, D1 %d of %d; p0 ≤ %.3g, p1 ≥ %.3g; ε_lb = %.3f, claimed ε(δ=%g) = %.3f (μ = %.6f)",
				k0, k1, trials, p0hi, p1lo, elb, delta, claim, mu)
			if v.broken && !(elb > claim) {
				t.Errorf("broken variant not flagged: ε_lb = %.3f ≤ claim %.3f", elb, claim)
			}
			if !v.broken && elb > claim {
				t.Errorf("privacy violation: ε_lb = %.3f > claim %.3f", elb, claim)
			}
		})
	}
}

// logBinomPMF is log P(Bin(n, p) = k).
func logBinomPMF(k, n int, p float64) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p)
}

// binomCDF is P(Bin(n, p) ≤ k), summed in log space from the mode down
// and up (accurate for the tails the tests use).
func binomCDF(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	s := 0.0
	for i := k; i >= 0; i-- {
		t := math.Exp(logBinomPMF(i, n, p))
		s += t
		if t < s*1e-17 && float64(i) < float64(n)*p {
			break
		}
	}
	return math.Min(s, 1)
}

// clopperPearsonUpper is the one-sided (1−a) upper bound on p after k
// successes in n trials: the p with P(Bin(n, p) ≤ k) = a.
func clopperPearsonUpper(k, n int, a float64) float64 {
	if k >= n {
		return 1
	}
	lo, hi := float64(k)/float64(n), 1.0
	for it := 0; it < 100; it++ {
		mid := (lo + hi) / 2
		if binomCDF(k, n, mid) > a {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// clopperPearsonLower is the one-sided (1−a) lower bound: the p with
// P(Bin(n, p) ≥ k) = a.
func clopperPearsonLower(k, n int, a float64) float64 {
	if k <= 0 {
		return 0
	}
	lo, hi := 0.0, float64(k)/float64(n)
	for it := 0; it < 100; it++ {
		mid := (lo + hi) / 2
		if 1-binomCDF(k-1, n, mid) < a {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func TestDPAuditClopperPearson(t *testing.T) {
	// R: binom.test(5, 100)$conf.int = [0.01643, 0.11284] (95%, i.e.
	// one-sided 0.025 each).
	lo := clopperPearsonLower(5, 100, 0.025)
	hi := clopperPearsonUpper(5, 100, 0.025)
	if math.Abs(lo-0.01643) > 1e-5 || math.Abs(hi-0.11284) > 1e-5 {
		t.Errorf("Clopper–Pearson(5/100, 95%%) = [%.5f, %.5f], want [0.01643, 0.11284]", lo, hi)
	}
}
