package noiseaware

import (
	"math"
	"testing"
)

// directCensored is t at c = K, E[t] and E[t²] of the censored count by
// direct sums of the Poisson(λ) probabilities (k < K, and S = 1 − Σ).
func directCensored(K, lam float64) (h, mean, info float64) {
	p, below := math.Exp(-lam), 0.0
	var sumT, sumT2 float64
	var pK1 float64
	for k := 0.0; k < K; k++ {
		if k > 0 {
			p *= lam / k
		}
		below += p
		sumT += p * (k - lam)
		sumT2 += p * (k - lam) * (k - lam)
		pK1 = p
	}
	S := 1 - below
	h = lam * pK1 / S
	return h, sumT + S*h, sumT2 + S*h*h
}

// The censored count's score and information agree with direct sums
// (relative 1e-9) where those are accurate, the score has mean 0, and both
// stay in the ranges the release's sensitivities use: t ∈ [−λ, K],
// w ∈ [0, λ]. Far below the cap (K = 200, λ = 1) the censored value's
// score is about K − λ and the information λ, as without censoring.
func TestCensoredCountWeights(t *testing.T) {
	for _, c := range [][2]float64{{1, 0.3}, {1, 1}, {2, 1}, {3, 2.5}, {10, 6}, {10, 10}, {20, 1}, {20, 15}, {30, 29.5}, {60, 40}} {
		K, lam := c[0], c[1]
		cc := newCensoredCount(K)
		h, mean, info := directCensored(K, lam)
		th, w := cc.weights(K, lam)
		if math.Abs(th-h) > 1e-9*h || math.Abs(w-info) > 1e-9*info {
			t.Errorf("K = %v, λ = %v: h %.12g w %.12g, direct %.12g %.12g", K, lam, th, w, h, info)
		}
		if math.Abs(mean) > 1e-9*math.Max(1, lam) {
			t.Errorf("K = %v, λ = %v: E[t] = %g by the direct sums", K, lam, mean)
		}
		if !(th >= -lam && th <= K && w >= 0 && w <= lam) {
			t.Errorf("K = %v, λ = %v: t = %v, w = %v outside [−λ, K] × [0, λ]", K, lam, th, w)
		}
		if tl, _ := cc.weights(K-1, lam); tl != K-1-lam {
			t.Errorf("K = %v, λ = %v: t at y = K − 1 is %v, want y − λ", K, lam, tl)
		}
	}
	// The sensitivity's ranges at every λ ∈ (0, K], K up to 10¹² (the
	// normal approximation near the cap from K of about 2·10⁵), and the
	// limits.
	for _, K := range []float64{1, 2, 5, 17, 100, 1e4, 1e6, 1e12} {
		cc := newCensoredCount(K)
		for i := 0; i <= 400; i++ {
			lam := K * math.Pow(10, -8*float64(400-i)/400)
			th, w := cc.weights(K, lam)
			if !(th >= -lam && th <= K && w >= 0 && w <= lam) || math.IsNaN(th+w) {
				t.Fatalf("K = %v, λ = %v: t = %v, w = %v outside [−λ, K] × [0, λ]", K, lam, th, w)
			}
		}
		if th, w := cc.weights(K, 0); th != K || w != 0 {
			t.Errorf("K = %v, λ = 0: t = %v, w = %v, want K and 0", K, th, w)
		}
	}
	if th, w := newCensoredCount(200).weights(200, 1); math.Abs(th-199) > 0.01 || math.Abs(w-1) > 1e-12 {
		t.Errorf("K = 200, λ = 1: t = %v, w = %v, want about 199 and 1", th, w)
	}
}

// Near a large cap the normal approximation of tailRatio continues the
// series: at K = 10⁵ (the series converges) and K = 10⁶ (it does not) the
// censored value's score at λ = K − √K is within 0.3% of the direct sum's.
func TestCensoredCountLargeK(t *testing.T) {
	for _, K := range []float64{1e5, 1e6} {
		lam := K - math.Sqrt(K)
		// Direct: h = λ·p_{K−1}/P(Y ≥ K), the probabilities summed in
		// log space from K − 60√λ.
		lg, _ := math.Lgamma(K)
		logpK1 := -lam + (K-1)*math.Log(lam) - lg
		S, logp := 0.0, logpK1
		for k := K; k < K+60*math.Sqrt(lam); k++ {
			logp += math.Log(lam / k)
			S += math.Exp(logp)
		}
		want := lam * math.Exp(logpK1) / S
		got, w := newCensoredCount(K).weights(K, lam)
		if math.Abs(got-want) > 0.003*want || !(w > 0 && w <= lam) {
			t.Errorf("K = %v: h = %v, direct %v; w = %v", K, got, want, w)
		}
	}
}
