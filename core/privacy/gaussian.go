package privacy

import "math"

// TightGaussian is a composition of Gaussian mechanisms summarised by one
// number, the Gaussian-DP parameter μ (Dong, Roth & Su 2019). A single
// Gaussian mechanism with L2 sensitivity Δ and noise std σ has μ = Δ/σ, and a
// composition of mechanisms with μ₁…μ_k has μ = √(Σ μᵢ²).
//
// Its privacy profile is exact (no slack):
//
//	δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2),
//
// which is the closed form of Sommer, Meiser & Mohammadi (2019) quoted as
// Theorem 2.4 of dp-hmc.txt with their m = Σ Δᵢ²/(2σᵢ²) = μ²/2:
// δ(ε) = ½(erfc((ε−m)/(2√m)) − e^ε erfc((ε+m)/(2√m))).
type TightGaussian struct {
	Mu float64 // Gaussian-DP parameter μ = √(Σ (Δᵢ/σᵢ)²)
}

// GaussianMu returns μ = Δ/σ for one release with sensitivity Δ and noise std σ.
func GaussianMu(sensitivity, std float64) (float64, error) {
	if err := checkPos("sensitivity", sensitivity); err != nil {
		return 0, err
	}
	if err := checkPos("noise std", std); err != nil {
		return 0, err
	}
	return sensitivity / std, nil
}

// ComposeGaussians returns the tight composition of Gaussian mechanisms with
// GDP parameters mus: μ = √(Σ μᵢ²) (Dong et al. 2019, Cor. 3.3; Sommer et al.
// 2019: PLDs N(mᵢ, 2mᵢ) convolve to N(Σmᵢ, 2Σmᵢ)).
func ComposeGaussians(mus ...float64) TightGaussian {
	s := 0.0
	for _, m := range mus {
		s += m * m
	}
	return TightGaussian{Mu: math.Sqrt(s)}
}

// Repeat returns the k-fold self-composition: μ√k.
func (g TightGaussian) Repeat(k float64) TightGaussian { return TightGaussian{g.Mu * math.Sqrt(k)} }

// SommerM returns Sommer et al.'s m = μ²/2 (dp-hmc.txt Thm 2.4).
func (g TightGaussian) SommerM() float64 { return g.Mu * g.Mu / 2 }

// logDelta returns ln δ(ε), computed in log space:
// ln δ = ln Φ(a) + ln(1 − exp(ε + ln Φ(b) − ln Φ(a))), a = −ε/μ+μ/2, b = a − μ.
func (g TightGaussian) logDelta(eps float64) float64 {
	mu := g.Mu
	if mu <= 0 {
		return math.Inf(-1)
	}
	if math.IsInf(mu, 1) {
		return 0
	}
	a := -eps/mu + mu/2
	b := a - mu
	la := logPhi(a)
	if math.IsInf(la, -1) {
		// Φ(a) underflows even in log space (ε/μ beyond about 1e154):
		// δ(ε) ≤ Φ(a) is 0 in the doubles (not the NaN of −∞ − −∞).
		return math.Inf(-1)
	}
	lb := logPhi(b)
	d := eps + lb - la
	if d >= 0 { // only by rounding; the difference is positive mathematically
		d = -1e-300
	}
	return la + log1mexp(d)
}

// Delta returns δ(ε) of the composition, rounded up by a relative 1e-12.
// ε may be negative (the curve is defined on the whole line).
func (g TightGaussian) Delta(eps float64) float64 {
	d := roundUpRel(math.Exp(g.logDelta(eps)))
	return math.Min(d, 1)
}

// Epsilon returns the smallest ε ≥ 0 with δ(ε) ≤ delta, found by bisection on
// ln δ(ε) − ln δ (which is decreasing in ε) and reported at the upper end of
// the final bracket, so it is never below the exact value.
func (g TightGaussian) Epsilon(delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if g.Mu < 0 || math.IsNaN(g.Mu) {
		return 0, fmtErr("μ must be ≥ 0, got %v", g.Mu)
	}
	if g.Mu == 0 {
		return 0, nil
	}
	if math.IsInf(g.Mu, 1) {
		return math.Inf(1), nil
	}
	ld := math.Log(delta)
	f := func(e float64) float64 { return ld - g.logDelta(e) } // increasing in e
	if f(0) >= 0 {
		return 0, nil
	}
	hi := g.Mu*g.Mu/2 + g.Mu*math.Sqrt(2*-ld) + 1
	for f(hi) < 0 {
		hi *= 2
	}
	_, up, ok := bisect(f, 0, hi, 1e-13*math.Max(1, hi))
	if !ok || math.IsNaN(f(hi)) {
		return 0, fmtErr("tight Gaussian ε(δ): numerical failure at μ = %v, δ = %v", g.Mu, delta)
	}
	return nextUp(up * (1 + 1e-12)), nil
}

// MuFor returns the largest μ whose δ(ε) is at most delta (a calibration
// target), rounded down so that noise derived from it is never too small.
func MuFor(eps, delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, fmtErr("ε must be ≥ 0 and finite, got %v", eps)
	}
	ld := math.Log(delta)
	f := func(mu float64) float64 { return TightGaussian{mu}.logDelta(eps) - ld } // increasing in μ
	hi := 1.0
	for f(hi) < 0 {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1), nil
		}
	}
	lo, _, ok := bisect(f, 0, hi, 1e-15*hi)
	if !ok || math.IsNaN(f(hi)) {
		return 0, fmtErr("μ for (ε, δ) = (%v, %v): numerical failure", eps, delta)
	}
	return lo * (1 - 1e-12), nil
}

// CalibrateGaussian returns the smallest noise std σ such that k releases of
// a Gaussian mechanism with L2 sensitivity sens are (ε, δ)-DP by the tight
// bound: σ = sens·√k/μ*(ε, δ).
func CalibrateGaussian(eps, delta, sens float64, k int) (float64, error) {
	if err := checkPos("sensitivity", sens); err != nil {
		return 0, err
	}
	if k < 1 {
		return 0, fmtErr("number of releases must be ≥ 1, got %d", k)
	}
	mu, err := MuFor(eps, delta)
	if err != nil {
		return 0, err
	}
	if mu == 0 {
		return math.Inf(1), nil
	}
	return roundUpRel(sens * math.Sqrt(float64(k)) / mu), nil
}

// MaxGaussianReleases returns the largest k such that k releases with
// per-release GDP parameter mu1 (= sensitivity/std) stay within (ε, δ):
// k = ⌊(μ*/μ₁)²⌋, checked against δ(ε) directly.
func MaxGaussianReleases(mu1, eps, delta float64) (int, error) {
	if err := checkPos("per-release μ", mu1); err != nil {
		return 0, err
	}
	mu, err := MuFor(eps, delta)
	if err != nil {
		return 0, err
	}
	kf := math.Floor((mu / mu1) * (mu / mu1))
	if kf > math.MaxInt32 {
		return math.MaxInt32, nil
	}
	k := int(kf)
	one := TightGaussian{Mu: mu1}
	for k > 0 && one.Repeat(float64(k)).Delta(eps) > delta {
		k--
	}
	for one.Repeat(float64(k+1)).Delta(eps) <= delta {
		k++
	}
	return k, nil
}
