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
	scale, tmp := expNegParts(a)
	return scale + scale*tmp
}

// expNegParts is the range reduction of e^{−a} = scale·(1 + tmp) for
// 0 ≤ a ≤ expNegMaxA: scale = 2^k·T[j] from the table, tmp the polynomial
// of the remainder (plus the table entry's tail). The batch kernels inline
// the same lines in their loops.
func expNegParts(a float64) (scale, tmp float64) {
	x := -a
	kd := invLn2N*x + expShift
	ki := math.Float64bits(kd)
	kd -= expShift
	r := x + kd*negLn2HiN + kd*negLn2LoN
	e := &expTab[ki&127]
	sbits := e.sbits + ki<<45
	r2 := r * r
	tmp = e.tail + r + r2*(0.5+r*(1.0/6)) + r2*r2*(1.0/24+r*(1.0/120))
	return math.Float64frombits(sbits), tmp
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

// expNegMaxBits is the bit pattern of expNegMaxA: for a ≥ 0, a ≤ expNegMaxA
// exactly when its bits are ≤ expNegMaxBits (NaN compares high).
const expNegMaxBits = 0x4086200000000000

// gradCoefBatch sets z[k] *= sg[k] and c[k] = −f·sg[k]·σ(z[k]) from
// t = e^{−|z[k]|}, bit for bit sigmoidFromExp of expNeg (the logistic
// gradient's per-row coefficients): expNeg's fast path runs for every
// element (its table index is masked, so any input is safe) and the rare
// elements above expNegMaxA (or NaN) are recomputed afterwards, so the loop
// has no data-dependent branch.
func gradCoefBatch(z, sg, c []float64, f float64) {
	sg, c = sg[:len(z)], c[:len(z)]
	var mx uint64
	for k, zk := range z {
		zk *= sg[k]
		z[k] = zk
		av := math.Abs(zk)
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
		c[k] = -f * sg[k] * sigmoidFromExp(zk, scale+scale*tmp)
		mx = max(mx, math.Float64bits(av))
	}
	if mx > expNegMaxBits {
		for k, zk := range z {
			if av := math.Abs(zk); !(av <= expNegMaxA) {
				c[k] = -f * sg[k] * sigmoidFromExp(zk, mathx.Exp(-av))
			}
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
// out (same summation order, so the same values as dot). It is written for
// the compilers: index arithmetic that the bounds-check prover follows (no
// four-wide sub-slices, no per-row test of rows) and the zero to three tail
// terms as straight-line code rather than a loop, so a short row costs few
// branches (the wasm build pays a dispatch for every taken branch).
func matVec(x []float64, d int, th []float64, rows []int, lo int, out []float64) {
	if matVecFixed(x, d, th, rows, lo, out) { // the same expression, written out (kernels_gen.go)
		return
	}
	matVecLoop(x, d, th, rows, lo, out)
}

// matVecLoop is matVec for any d.
func matVecLoop(x []float64, d int, th []float64, rows []int, lo int, out []float64) {
	th = th[:d]
	if rows == nil {
		x = x[lo*d : (lo+len(out))*d]
		for k := range out {
			a := x[k*d : k*d+d]
			a = a[:len(th)]
			var s0, s1, s2, s3 float64
			j := 0
			for ; j < len(a)-3; j += 4 {
				s0 += a[j] * th[j]
				s1 += a[j+1] * th[j+1]
				s2 += a[j+2] * th[j+2]
				s3 += a[j+3] * th[j+3]
			}
			if r, u := a[j:], th[j:]; len(r) > 0 {
				s0 += r[0] * u[0]
				if len(r) > 1 {
					s0 += r[1] * u[1]
					if len(r) > 2 {
						s0 += r[2] * u[2]
					}
				}
			}
			out[k] = (s0 + s1) + (s2 + s3)
		}
		return
	}
	rs := rows[lo : lo+len(out)]
	for k, i := range rs {
		a := x[i*d : i*d+d]
		a = a[:len(th)]
		var s0, s1, s2, s3 float64
		j := 0
		for ; j < len(a)-3; j += 4 {
			s0 += a[j] * th[j]
			s1 += a[j+1] * th[j+1]
			s2 += a[j+2] * th[j+2]
			s3 += a[j+3] * th[j+3]
		}
		if r, u := a[j:], th[j:]; len(r) > 0 {
			s0 += r[0] * u[0]
			if len(r) > 1 {
				s0 += r[1] * u[1]
				if len(r) > 2 {
					s0 += r[2] * u[2]
				}
			}
		}
		out[k] = (s0 + s1) + (s2 + s3)
	}
}

// matVecPair is matVec for two parameter vectors at once (out1 for th1,
// out2 for th2), each row loaded once; the same summation order, so the
// same values as two matVec calls.
func matVecPair(x []float64, d int, th1, th2 []float64, rows []int, lo int, out1, out2 []float64) {
	if matVecPairFixed(x, d, th1, th2, rows, lo, out1, out2) {
		return
	}
	matVecPairLoop(x, d, th1, th2, rows, lo, out1, out2)
}

// matVecPairLoop is matVecPair for any d.
func matVecPairLoop(x []float64, d int, th1, th2 []float64, rows []int, lo int, out1, out2 []float64) {
	th1, th2 = th1[:d], th2[:d]
	out2 = out2[:len(out1)]
	if rows == nil {
		x = x[lo*d : (lo+len(out1))*d]
		for k := range out1 {
			a := x[k*d : k*d+d]
			a = a[:len(th1)]
			var s0, s1, s2, s3, u0, u1, u2, u3 float64
			j := 0
			for ; j < len(a)-3; j += 4 {
				s0 += a[j] * th1[j]
				u0 += a[j] * th2[j]
				s1 += a[j+1] * th1[j+1]
				u1 += a[j+1] * th2[j+1]
				s2 += a[j+2] * th1[j+2]
				u2 += a[j+2] * th2[j+2]
				s3 += a[j+3] * th1[j+3]
				u3 += a[j+3] * th2[j+3]
			}
			if r, v, w := a[j:], th1[j:], th2[j:]; len(r) > 0 {
				w = w[:len(r)]
				s0 += r[0] * v[0]
				u0 += r[0] * w[0]
				if len(r) > 1 {
					s0 += r[1] * v[1]
					u0 += r[1] * w[1]
					if len(r) > 2 {
						s0 += r[2] * v[2]
						u0 += r[2] * w[2]
					}
				}
			}
			out1[k] = (s0 + s1) + (s2 + s3)
			out2[k] = (u0 + u1) + (u2 + u3)
		}
		return
	}
	rs := rows[lo : lo+len(out1)]
	for k, i := range rs {
		a := x[i*d : i*d+d]
		a = a[:len(th1)]
		var s0, s1, s2, s3, u0, u1, u2, u3 float64
		j := 0
		for ; j < len(a)-3; j += 4 {
			s0 += a[j] * th1[j]
			u0 += a[j] * th2[j]
			s1 += a[j+1] * th1[j+1]
			u1 += a[j+1] * th2[j+1]
			s2 += a[j+2] * th1[j+2]
			u2 += a[j+2] * th2[j+2]
			s3 += a[j+3] * th1[j+3]
			u3 += a[j+3] * th2[j+3]
		}
		if r, v, w := a[j:], th1[j:], th2[j:]; len(r) > 0 {
			w = w[:len(r)]
			s0 += r[0] * v[0]
			u0 += r[0] * w[0]
			if len(r) > 1 {
				s0 += r[1] * v[1]
				u0 += r[1] * w[1]
				if len(r) > 2 {
					s0 += r[2] * v[2]
					u0 += r[2] * w[2]
				}
			}
		}
		out1[k] = (s0 + s1) + (s2 + s3)
		out2[k] = (u0 + u1) + (u2 + u3)
	}
}
