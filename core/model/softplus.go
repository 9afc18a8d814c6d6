package model

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// g(a) = log(1 + e^{−a}) for a ≥ 0, the data-dependent part of the logistic
// log-likelihood (softplus) and of the GMM's log-sum-exp, without an
// exponential or a logarithm.
//
// For a < spTailA (= 16): a = m·h + r with h = 1/32, m = round(a/h) and
// |r| ≤ h/2 (r = a − m·h is exact), and one polynomial per table entry,
//
//	g(mh + r) ≈ G_m + c₁r + c₂r² + … + c₆r⁶.
//
// G_m = g(mh) is a double-double (hi + lo). The c_k are the Taylor
// coefficients g⁽ᵏ⁾(mh)/k!: the derivatives of g are polynomials in
// s = 1/(1 + e^{mh}) = −g′(mh), namely g″ = w = s(1−s), g‴ = w·d (d = 2s−1),
// g⁗ = w(1−6w), g⁽⁵⁾ = w·d(1−12w), g⁽⁶⁾ = w(1−30w+120w²),
// g⁽⁷⁾ = w·d(1−60w+360w²); the r⁷ term is folded into c₁, c₃ and c₅ by
// Chebyshev economization on |r| ≤ h/2. The table (513 entries of 64 bytes)
// is computed at start-up in double-double arithmetic from s and
// G_m = 2·atanh(E/(2+E)), E = e^{−mh} (≈ 0.1 ms, plain float64 operations,
// so the same bits everywhere; TestSoftplusTable checks every entry against
// a 300-bit reference).
//
// Error: the economized-away and neglected terms are below 1e−18·g (the
// |g⁽ᵏ⁾(mh)| here are at most g(mh), and (h/2)⁷/7!/64 ≈ 7e−19); the
// polynomial's rounding errors are multiplied by |c₁r| ≤ g/64; so the
// result G_hi + (G_lo + p), rounded once, is within 0.53 ulp of the exact
// g(a). Seven multiplications, no division, no data-dependent branch.
//
// For a ≥ spTailA, t = e^{−a} ≤ 1.2e−7 and g = t − t²/2 + t³/3 (the next
// term is < 4e−22·t), evaluated inside expNegFast's reduction
// (g = scale + scale·(tmp + c), c = (1 + tmp)·t·(t/3 − 1/2)), so its error
// is that of expNegFast, ≤ 0.51 ulp. Above expNegMaxA (t < 2^−1021), g = t
// (mathx.Exp; t² is below the smallest subnormal). The batch kernels
// evaluate the table path for every element (the index is clamped, so any
// input is safe) and recompute the rare tail elements afterwards.
//
// Measured (TestFastExpLog1p: 0 ≤ a ≤ 800 including the table's nodes and
// midpoints, subnormal e^{−a}, +Inf, NaN): ≤ 0.53 ulp of the 300-bit value,
// against 1.28 ulp for the previous exp-then-log1p kernels and 1.39 ulp for
// log1pUnit(math.Exp(−a)).

const (
	spScale = 32               // 1/h
	spTabN  = 16 * spScale     // the table covers a < spTailA
	spTailA = spTabN / spScale // 16
)

type spEntry struct{ hi, lo, c1, c2, c3, c4, c5, c6 float64 }

var spTab = spTable()

// spTable computes the table (see above).
func spTable() (tab [spTabN + 1]spEntry) {
	// e1 = e^{−h} by its Taylor series
	e1, term := dd{1, 0}, dd{1, 0}
	for k := 1; k < 30; k++ {
		term = ddDivF(ddMulF(term, -1.0/spScale), float64(k))
		e1 = ddAdd(e1, term)
	}
	e := dd{1, 0}
	const rho = 0.5 / spScale
	for m := range tab {
		if m > 0 {
			e = ddMul(e, e1)
		}
		// G = log(1 + E) = 2·atanh(y), y = E/(2 + E) ≤ 1/3
		y := ddDiv(e, ddAdd(dd{2, 0}, e))
		y2 := ddMul(y, y)
		sum, pow := y, y
		for k := 3.0; ; k += 2 {
			pow = ddMul(pow, y2)
			t := ddDivF(pow, k)
			if t.hi < 0x1p-110*sum.hi {
				break
			}
			sum = ddAdd(sum, t)
		}
		g := ddMulF(sum, 2)
		s := ddDiv(e, ddAdd(dd{1, 0}, e)).hi
		w := s - s*s
		d := s + s - 1
		wd := w * d
		c7 := wd * (1 - w*(60-360*w)) / 5040
		tab[m] = spEntry{
			hi: g.hi, lo: g.lo,
			c1: -s + 7.0/64*rho*rho*rho*rho*rho*rho*c7,
			c2: w / 2,
			c3: wd/6 - 56.0/64*rho*rho*rho*rho*c7,
			c4: w * (1 - 6*w) / 24,
			c5: wd*(1-12*w)/120 + 112.0/64*rho*rho*c7,
			c6: w * (1 - w*(30-120*w)) / 720,
		}
	}
	return tab
}

// log1pExpNeg is g(a) = log(1 + e^{−a}) for a ≥ 0 (+Inf → 0, NaN → NaN).
func log1pExpNeg(a float64) float64 {
	if a >= spTailA {
		return log1pExpNegTail(a)
	}
	kd := a*spScale + expShift
	ki := math.Float64bits(kd)
	kd -= expShift
	r := a - kd*(1.0/spScale)
	e := &spTab[min(ki&(2*spTabN-1), spTabN)]
	r2 := r * r
	p := r*(e.c1+r*e.c2) + r2*r*((e.c3+r*e.c4)+r2*(e.c5+r*e.c6))
	return e.hi + (e.lo + p)
}

// log1pExpNegTail is g(a) for a ≥ spTailA (see above).
func log1pExpNegTail(a float64) float64 {
	if !(a <= expNegMaxA) {
		return mathx.Exp(-a)
	}
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
	t := scale + scale*tmp
	c := (1 + tmp) * t * (t*(1.0/3) - 0.5)
	return scale + scale*(tmp+c)
}

// spTailBits is the bit pattern of spTailA: for a ≥ 0 (and +Inf, NaN),
// a ≥ spTailA exactly when its bits are ≥ spTailBits (−0 and negative
// inputs compare high too; the fix-up loops re-test a ≥ spTailA).
const spTailBits = 0x4030000000000000

// log1pExpNegBatch sets out[i] = log1pExpNeg(a[i]), bit for bit; out must
// not overlap a.
func log1pExpNegBatch(a, out []float64) {
	out = out[:len(a)]
	tab := &spTab
	var mx uint64
	for i, av := range a {
		kd := av*spScale + expShift
		ki := math.Float64bits(kd)
		kd -= expShift
		r := av - kd*(1.0/spScale)
		e := &tab[min(ki&(2*spTabN-1), spTabN)]
		r2 := r * r
		p := r*(e.c1+r*e.c2) + r2*r*((e.c3+r*e.c4)+r2*(e.c5+r*e.c6))
		out[i] = e.hi + (e.lo + p)
		mx = max(mx, math.Float64bits(av))
	}
	if mx >= spTailBits {
		for i, av := range a {
			if av >= spTailA {
				out[i] = log1pExpNegTail(av)
			}
		}
	}
}

// negSoftplusBatch sets out[k] = −f·softplus(z[k]·sg[k]) = −f·(max(z, 0) +
// log1pExpNeg(|z|)) with z = z[k]·sg[k], bit for bit the scalar formula;
// out must not overlap z or sg.
func negSoftplusBatch(z, sg, out []float64, f float64) {
	out, sg = out[:len(z)], sg[:len(z)]
	tab := &spTab
	var mx uint64
	for k, zk := range z {
		zk *= sg[k]
		av := math.Abs(zk)
		kd := av*spScale + expShift
		ki := math.Float64bits(kd)
		kd -= expShift
		r := av - kd*(1.0/spScale)
		e := &tab[min(ki&(2*spTabN-1), spTabN)]
		r2 := r * r
		p := r*(e.c1+r*e.c2) + r2*r*((e.c3+r*e.c4)+r2*(e.c5+r*e.c6))
		out[k] = -f * (posPart(zk) + (e.hi + (e.lo + p)))
		mx = max(mx, math.Float64bits(av))
	}
	if mx >= spTailBits {
		for k, zk := range z {
			zk *= sg[k]
			if av := math.Abs(zk); av >= spTailA {
				out[k] = -f * (posPart(zk) + log1pExpNegTail(av))
			}
		}
	}
}

// dd is an unevaluated sum hi + lo (double-double, |lo| ≤ ulp(hi)/2), for
// the table; the explicit float64 conversions keep products from being
// fused into FMAs, which would change the error terms.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := float64(a * b)
	split := func(x float64) (hi, lo float64) {
		t := float64(134217729 * x) // 2^27 + 1
		hi = t - (t - x)
		return hi, x - hi
	}
	ah, al := split(a)
	bh, bl := split(b)
	return dd{p, ((float64(ah*bh) - p) + float64(ah*bl) + float64(al*bh)) + float64(al*bl)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	return quickTwoSum(p.hi, p.lo+(float64(a.hi*b.lo)+float64(a.lo*b.hi)))
}

func ddMulF(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	return quickTwoSum(p.hi, p.lo+float64(a.lo*b))
}

// ddDiv is a/b by three quotient digits.
func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddMulF(b, -q1))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddMulF(b, -q2))
	q3 := r.hi / b.hi
	return ddAdd(quickTwoSum(q1, q2), dd{q3, 0})
}

func ddDivF(a dd, b float64) dd { return ddDiv(a, dd{b, 0}) }
