package privacy

import (
	"errors"
	"math"
)

// errBad is wrapped by every input-validation error of this package.
var errBad = errors.New("privacy: invalid input")

const (
	ln2        = math.Ln2
	logSqrt2Pi = 0.91893853320467274178032973640562 // ln √(2π)
)

// logPhi returns ln Φ(x) for the standard normal CDF Φ, accurate in both
// tails: erfc for moderate arguments, the asymptotic (Mills ratio) series
//
//	ln Φ(x) = −x²/2 − ln(−x) − ln√(2π) + ln(1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸)
//
// for x < −20, where it is accurate to far below double precision, and
// log1p(−Φ(−x)) for large positive x.
func logPhi(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return math.NaN()
	case x > 5:
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	case x >= -20:
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	case math.IsInf(x, -1):
		return math.Inf(-1)
	}
	z := 1 / (x * x)
	s := 1 - z*(1-z*(3-z*(15-z*105)))
	return -0.5*x*x - math.Log(-x) - logSqrt2Pi + math.Log(s)
}

// phiCDF returns Φ(x).
func phiCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// log1mexp returns ln(1 − eˣ) for x ≤ 0 (Mächler 2012).
func log1mexp(x float64) float64 {
	if x > -ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// logAddExp returns ln(eᵃ + eᵇ).
func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// signedLog is a real number s·eˡ held as its sign and log-magnitude, so that
// alternating series can be summed without overflow (signed log-sum-exp).
type signedLog struct {
	neg bool
	l   float64 // ln|value|; −Inf for zero
}

var slZero = signedLog{l: math.Inf(-1)}

// add returns a + b.
func (a signedLog) add(b signedLog) signedLog {
	if math.IsInf(a.l, -1) {
		return b
	}
	if math.IsInf(b.l, -1) {
		return a
	}
	if a.neg == b.neg {
		return signedLog{a.neg, logAddExp(a.l, b.l)}
	}
	// opposite signs: |a| − |b| with the sign of the larger
	if a.l == b.l {
		return slZero
	}
	if a.l > b.l {
		return signedLog{a.neg, a.l + log1mexp(b.l-a.l)}
	}
	return signedLog{b.neg, b.l + log1mexp(a.l-b.l)}
}

// logBinom returns ln C(n, k) for real n ≥ 0 and integer 0 ≤ k, together with
// the sign of the generalised binomial coefficient n(n−1)…(n−k+1)/k!.
func logBinom(n float64, k int) (l float64, neg bool) {
	if k == 0 {
		return 0, false
	}
	kf := float64(k)
	if n == math.Trunc(n) && kf > n {
		return math.Inf(-1), false
	}
	// |n(n−1)…(n−k+1)| = |Γ(n+1)/Γ(n−k+1)|
	a, _ := math.Lgamma(n + 1)
	b, sb := math.Lgamma(n - kf + 1)
	c, _ := math.Lgamma(kf + 1)
	return a - b - c, sb < 0
}

// bisect finds the root of an increasing function f on [lo, hi] with
// f(lo) ≤ 0 ≤ f(hi), returning the bracket after the interval shrinks below
// tol (absolute) or 200 halvings. Callers choose the side that is conservative.
// ok is false when f returned NaN anywhere: the bracket then means nothing
// and the caller must fail (never report an ε from it).
func bisect(f func(float64) float64, lo, hi, tol float64) (l, h float64, ok bool) {
	for i := 0; i < 200 && hi-lo > tol; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		v := f(mid)
		if math.IsNaN(v) {
			return lo, hi, false
		}
		if v <= 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, hi, true
}

// nextUp returns the next float64 above x, used to round a reported ε up
// after a root finder or a sum so that no rounding makes it smaller than the
// mathematics gives.
func nextUp(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }

// roundUpRel inflates a positive quantity by a relative 1e-12 plus one ulp:
// the margin for floating-point error in the closed forms.
func roundUpRel(x float64) float64 {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	return nextUp(x * (1 + 1e-12))
}

func checkDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return fmtErr("δ must lie in (0, 1), got %v", delta)
	}
	return nil
}

func checkPos(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmtErr("%s must be positive and finite, got %v", name, v)
	}
	return nil
}

func checkRate(q float64) error {
	if !(q > 0 && q <= 1) {
		return fmtErr("sampling rate q must lie in (0, 1], got %v", q)
	}
	return nil
}
