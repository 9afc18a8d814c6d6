package model

import (
	"github.com/dpmcmc/dpmcmc/core/mathx"
	"math"
)

// log1pUnit is log(1 + t) for 0 ≤ t ≤ 1: the fdlibm algorithm of
// math.Log1p (same constants, within 1 ulp of it) without the special cases
// and argument reduction that the unit interval does not need. It was the
// hot loops' log1p before the branch-free kernels; the tests keep it as the
// accuracy reference log1pUnit(math.Exp(−a)) that log1pExpNeg must beat
// (TestFastExpLog1p).
func log1pUnit(t float64) float64 {
	const (
		sqrt2M1 = 4.142135623730950488017e-01 // √2 − 1
		ln2Hi   = 6.93147180369123816490e-01
		ln2Lo   = 1.90821492927058770002e-10
		lp1     = 6.666666666666735130e-01
		lp2     = 3.999999999940941908e-01
		lp3     = 2.857142874366239149e-01
		lp4     = 2.222219843214978396e-01
		lp5     = 1.818357216161805012e-01
		lp6     = 1.531383769920937332e-01
		lp7     = 1.479819860511658591e-01
	)
	if t < sqrt2M1 {
		// 1 + t < √2: log1p(t) = f − (f²/2 − s(f²/2 + R(s²))), s = f/(2+f).
		f := t
		hfsq := 0.5 * f * f
		s := f / (2 + f)
		z := s * s
		r := z * (lp1 + z*(lp2+z*(lp3+z*(lp4+z*(lp5+z*(lp6+z*lp7))))))
		return f - (hfsq - s*(hfsq+r))
	}
	// √2 ≤ 1 + t ≤ 2: log(1+t) = log 2 + log1p(f), f = (1+t)/2 − 1 (exact),
	// with c correcting the rounding of u = 1 + t.
	u := 1 + t
	c := (t - (u - 1)) / u
	f := 0.5*u - 1
	hfsq := 0.5 * f * f
	s := f / (2 + f)
	z := s * s
	r := z * (lp1 + z*(lp2+z*(lp3+z*(lp4+z*(lp5+z*(lp6+z*lp7))))))
	return ln2Hi - ((hfsq - (s*(hfsq+r) + (ln2Lo + c))) - f)
}

// Branch-free kernels for the hot loops (logistic regression, GMM).
//
// softplus(z) = max(z, 0) + log(1 + e^{−|z|}): log(1 + e^{−a}) is evaluated
// directly from a table (softplus.go), without an exponential or a
// logarithm. The gradient needs σ(z), i.e. t = e^{−|z|}:
//
//	t = e^{−a}     table-driven (2^{j/128} with a correction term, as in
//	               ARM's optimized-routines exp), degree-5 Taylor polynomial on
//	               |r| ≤ ln2/256, so the truncation error is < 6e−19;
//
// without data-dependent branches (the a > 708 range, where e^{−a} would be
// subnormal, takes mathx.Exp). TestFastExpLog1p checks it against a 300-bit
// reference: within 0.52 ulp.

// expTab[i] holds 2^{i/128} as its bits minus i<<45 (so that adding k<<45
// for k = 128·q + i scales by 2^q) and the relative rounding error of that
// double; computed in 200-bit arithmetic by internal/tables and committed
// as constants (tables_gen.go, `go generate`).

const (
	expShift   = 0x1.8p52
	invLn2N    = 0x1.71547652b82fep0 * 128
	negLn2HiN  = -0x1.62e42fefa0000p-8 // −ln2/128, high part (exact k·ln2/128)
	negLn2LoN  = -0x1.cf79abc9e3b3ap-47
	expNegMaxA = 708 // e^{−a} is normal and the table scale stays normal
)

// expNegFast is e^{−a} for 0 ≤ a ≤ expNegMaxA (also NaN for NaN); within
// about 0.51 ulp.
func expNegFast(a float64) float64 {
	x := -a
	kd := invLn2N*x + expShift
	ki := math.Float64bits(kd)
	kd -= expShift
	r := x + kd*negLn2HiN + kd*negLn2LoN
	e := &expTab[ki&127]
	sbits := e.sbits + ki<<45
	r2 := r * r
	tmp := e.tail + r + r2*(0.5+r*(1.0/6)) + r2*r2*(1.0/24+r*(1.0/120))
	scale := math.Float64frombits(sbits)
	return scale + scale*tmp
}

// expNeg is e^{−a} for a ≥ 0 (or +Inf, NaN): expNegFast where it applies.
func expNeg(a float64) float64 {
	if a <= expNegMaxA {
		return expNegFast(a)
	}
	return mathx.Exp(-a)
}

// batchLen is the number of rows the batch kernels handle at a time (their
// scratch lives on the stack and in L1).
const batchLen = 256

// expNegBatch sets a[i] = e^{−a[i]} (expNegFast, bit for bit) for a[i] ≥ 0.
func expNegBatch(a []float64) {
	for i, av := range a {
		if av <= expNegMaxA {
			x := -av
			kd := invLn2N*x + expShift
			ki := math.Float64bits(kd)
			kd -= expShift
			r := x + kd*negLn2HiN + kd*negLn2LoN
			e := &expTab[ki&127]
			sbits := e.sbits + ki<<45
			r2 := r * r
			tmp := e.tail + r + r2*(0.5+r*(1.0/6)) + r2*r2*(1.0/24+r*(1.0/120))
			scale := math.Float64frombits(sbits)
			a[i] = scale + scale*tmp
		} else {
			a[i] = mathx.Exp(-av)
		}
	}
}

// posPart is max(z, 0) without a branch (−0 and negative NaNs give 0).
func posPart(z float64) float64 {
	b := math.Float64bits(z)
	return math.Float64frombits(b &^ uint64(int64(b)>>63))
}

// sigmoidFromExp is σ(z) given t = e^{−|z|}: 1/(1+t) for z ≥ 0, t/(1+t)
// for z < 0 (both exact-ratio forms, no cancellation), without a branch.
func sigmoidFromExp(z, t float64) float64 {
	neg := uint64(int64(math.Float64bits(z)) >> 63)
	num := math.Float64frombits(0x3ff0000000000000&^neg | math.Float64bits(t)&neg)
	return num / (1 + t)
}

// matVec writes out[k] = x_iᵀθ for the rows i = lo+k (rows == nil) or
// i = rows[lo+k], k < len(out), of the row-major n×d matrix x; dot written
// out (same summation order, so the same values as dot). The four-wide
// windows a[j:j+4:j+4] let the compiler drop the per-element bounds checks
// (≈ 10% fewer instructions per row).
func matVec(x []float64, d int, th []float64, rows []int, lo int, out []float64) {
	th = th[:d]
	d4 := d &^ 3
	for k := range out {
		i := lo + k
		if rows != nil {
			i = rows[i]
		}
		a := x[i*d : i*d+d]
		a = a[:len(th)]
		var s0, s1, s2, s3 float64
		j := 0
		for ; j < d4; j += 4 {
			aa := a[j : j+4 : j+4]
			tt := th[j : j+4 : j+4]
			s0 += aa[0] * tt[0]
			s1 += aa[1] * tt[1]
			s2 += aa[2] * tt[2]
			s3 += aa[3] * tt[3]
		}
		for ; j < len(a); j++ {
			s0 += a[j] * th[j]
		}
		out[k] = (s0 + s1) + (s2 + s3)
	}
}

// matVecPair is matVec for two parameter vectors at once (out1 for th1,
// out2 for th2), each row loaded once; the same summation order, so the
// same values as two matVec calls.
func matVecPair(x []float64, d int, th1, th2 []float64, rows []int, lo int, out1, out2 []float64) {
	th1, th2 = th1[:d], th2[:d]
	out2 = out2[:len(out1)]
	d4 := d &^ 3
	for k := range out1 {
		i := lo + k
		if rows != nil {
			i = rows[i]
		}
		a := x[i*d : i*d+d]
		a = a[:len(th1)]
		var s0, s1, s2, s3, u0, u1, u2, u3 float64
		j := 0
		for ; j < d4; j += 4 {
			aa := a[j : j+4 : j+4]
			tt := th1[j : j+4 : j+4]
			vv := th2[j : j+4 : j+4]
			s0 += aa[0] * tt[0]
			u0 += aa[0] * vv[0]
			s1 += aa[1] * tt[1]
			u1 += aa[1] * vv[1]
			s2 += aa[2] * tt[2]
			u2 += aa[2] * vv[2]
			s3 += aa[3] * tt[3]
			u3 += aa[3] * vv[3]
		}
		for ; j < len(a); j++ {
			s0 += a[j] * th1[j]
			u0 += a[j] * th2[j]
		}
		out1[k] = (s0 + s1) + (s2 + s3)
		out2[k] = (u0 + u1) + (u2 + u3)
	}
}
