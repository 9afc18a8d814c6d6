package audit

import (
	"math"
)

// Exact (Clopper–Pearson) binomial confidence bounds, from the regularized
// incomplete beta function: after k successes in n trials,
//
//	lower(1−a) = B⁻¹(a; k, n−k+1)       (0 when k = 0)
//	upper(1−a) = B⁻¹(1−a; k+1, n−k)     (1 when k = n)
//
// each a one-sided bound at level 1−a.

// ClopperPearsonLower is the one-sided (1−a) lower confidence bound on the
// success probability after k successes in n trials.
func ClopperPearsonLower(k, n int, a float64) float64 {
	if k <= 0 {
		return 0
	}
	if k > n {
		k = n
	}
	return betaQuantile(a, float64(k), float64(n-k+1))
}

// ClopperPearsonUpper is the one-sided (1−a) upper confidence bound on the
// success probability after k successes in n trials.
func ClopperPearsonUpper(k, n int, a float64) float64 {
	if k >= n {
		return 1
	}
	if k < 0 {
		k = 0
	}
	return betaQuantile(1-a, float64(k+1), float64(n-k))
}

// betaQuantile returns x with I_x(a, b) = p by bisection (I is increasing in
// x); 64 halvings give an absolute error below 1e-19.
func betaQuantile(p, a, b float64) float64 {
	lo, hi := 0.0, 1.0
	for range 64 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if RegIncBeta(mid, a, b) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// RegIncBeta is the regularized incomplete beta function I_x(a, b) for
// a, b > 0 and x in [0, 1] (continued fraction, Numerical Recipes §6.4,
// evaluated on the side where it converges fast).
func RegIncBeta(x, a, b float64) float64 {
	switch {
	case !(x > 0):
		return 0
	case !(x < 1):
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

// betaCF evaluates the continued fraction of I_x(a, b) by the modified
// Lentz method.
func betaCF(x, a, b float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-16
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 100000; m++ {
		mf := float64(m)
		m2 := 2 * mf
		aa := mf * (b - mf) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + mf) * (qab + mf) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// EpsilonLowerBound is the empirical lower bound on ε of an (ε, δ)-DP claim
// from an event S with k1 hits in n1 runs on one dataset and k0 hits in n0
// runs on its neighbour:
//
//	ε_lb = log((p1_lo − δ) / p0_hi)
//
// with one-sided Clopper–Pearson bounds at level 1 − alpha/2 each, so the
// bound holds with confidence at least 1 − alpha (an (ε, δ)-DP mechanism has
// P[M(D')∈S] ≤ e^ε·P[M(D)∈S] + δ for every S). It is −Inf when p1_lo ≤ δ.
func EpsilonLowerBound(k0, n0, k1, n1 int, delta, alpha float64) (elb, p0hi, p1lo float64) {
	p0hi = ClopperPearsonUpper(k0, n0, alpha/2)
	p1lo = ClopperPearsonLower(k1, n1, alpha/2)
	if !(p1lo > delta) {
		return math.Inf(-1), p0hi, p1lo
	}
	return math.Log((p1lo - delta) / p0hi), p0hi, p1lo
}
