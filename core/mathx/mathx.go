// Package mathx holds the elementary functions whose results must be the
// same bits on every platform. On amd64 the standard library computes
// math.Exp and math.Log in assembly, while GOOS=js GOARCH=wasm runs the
// portable Go code; the two can differ in the last bit, which is enough for
// a chain computed natively and one computed in the browser to drift apart.
// The functions here are plain Go (no assembly, no fused multiply-add), so
// the command-line tool and the page produce identical draws for the same
// config, seed and noise key.
//
// That also needs the compiler not to fuse x*y + z into one rounding
// anywhere on the path from the data to a draw. The Go spec allows it; gc
// does it on arm64 and on amd64 built with GOAMD64=v3 or above, and not on
// amd64 at its default GOAMD64=v1, which every build here uses (build.sh
// and the Makefile set no GOAMD64). A native build on arm64 or with v3
// gives draws that differ from the page's in the last bits.
//
// Both use the classic argument reduction and minimax polynomials of
// Sun Microsystems' fdlibm (the algorithms behind most C libraries'
// exp and log): accuracy within 1 ulp.
package mathx

import "math"

const (
	ln2Hi  = 6.93147180369123816490e-01 // high 32 bits of ln 2
	ln2Lo  = 1.90821492927058770002e-10 // ln 2 − ln2Hi
	invLn2 = 1.44269504088896338700e+00 // 1/ln 2

	// exp overflows above expMax and underflows to 0 below expMin.
	expMax = 7.09782712893383973096e+02
	expMin = -7.45133219101941108420e+02
)

// Remez coefficients of R(r²) ≈ r·(e^r + 1)/(e^r − 1) − 2 on [0, (ln 2/2)²].
const (
	expP1 = 1.66666666666666657415e-01
	expP2 = -2.77777777770155933842e-03
	expP3 = 6.61375632143793436117e-05
	expP4 = -1.65339022054652515390e-06
	expP5 = 4.13813679705723846039e-08
)

// Exp returns e^x. Special cases as math.Exp: Exp(+Inf) = +Inf,
// Exp(−Inf) = 0, Exp(NaN) = NaN, overflow → +Inf, underflow → 0.
//
// x = k·ln 2 + r with |r| ≤ ln 2/2 (r carried as hi − lo for extra
// precision), e^r = 1 + 2r/(2 − r + r·R(r²))... in fdlibm's form
// e^r = 1 − ((lo − r·c/(2 − c)) − hi) with c = r − r²·P(r²), then
// e^x = 2^k·e^r.
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x > expMax:
		return math.Inf(1)
	case x < expMin:
		return 0
	case -3.725290298461914e-09 < x && x < 3.725290298461914e-09: // |x| < 2^−28
		return 1 + x
	}
	var k int
	switch {
	case x < 0:
		k = int(invLn2*x - 0.5)
	case x > 0:
		k = int(invLn2*x + 0.5)
	}
	hi := x - float64(k)*ln2Hi
	lo := float64(k) * ln2Lo
	r := hi - lo
	t := r * r
	c := r - t*(expP1+t*(expP2+t*(expP3+t*(expP4+t*expP5))))
	y := 1 - ((lo - (r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// Coefficients of log(1+s)/(1−s) = 2s + s·R(s²) (fdlibm's Lg1…Lg7).
const (
	lg1 = 6.666666666666735130e-01
	lg2 = 3.999999999940941908e-01
	lg3 = 2.857142874366239149e-01
	lg4 = 2.222219843214978396e-01
	lg5 = 1.818357216161805012e-01
	lg6 = 1.531383769920937332e-01
	lg7 = 1.479819860511658591e-01
)

// Log returns the natural logarithm of x. Special cases as math.Log:
// Log(+Inf) = +Inf, Log(0) = −Inf, Log(x < 0) = NaN, Log(NaN) = NaN.
//
// x = 2^k·(1 + f) with √2/2 ≤ 1 + f < √2, s = f/(2 + f),
// log(1 + f) = f − s·(f − R(s²)) … in fdlibm's form
// log x = k·ln2Hi − ((hfsq − (s·(hfsq + R) + k·ln2Lo)) − f).
func Log(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x) // x = f1·2^ki, f1 ∈ [0.5, 1)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := s * s
	s4 := s2 * s2
	t1 := s2 * (lg1 + s4*(lg3+s4*(lg5+s4*lg7)))
	t2 := s4 * (lg2 + s4*(lg4+s4*lg6))
	R := t1 + t2
	hfsq := 0.5 * f * f
	return k*ln2Hi - ((hfsq - (s*(hfsq+R) + k*ln2Lo)) - f)
}

// LogFactorial returns log(k!) = lgamma(k+1) for an integer k ≥ 0 (NaN
// otherwise): an exact-order sum of Log(j) for k ≤ 1000, Stirling's series
// with five terms above (absolute error below 1e-16 there).
func LogFactorial(k float64) float64 {
	switch {
	case math.IsNaN(k) || k < 0 || k != math.Trunc(k):
		return math.NaN()
	case math.IsInf(k, 1):
		return k
	case k <= 1000:
		s := 0.0
		for j := 2.0; j <= k; j++ {
			s += Log(j)
		}
		return s
	}
	x := k + 1
	inv := 1 / x
	inv2 := inv * inv
	series := inv * (1.0/12 - inv2*(1.0/360-inv2*(1.0/1260-inv2*(1.0/1680-inv2/1188))))
	return (x-0.5)*Log(x) - x + 0.9189385332046727418 + series // 0.5·log(2π)
}
