package model

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// 300-bit references for the fast kernels of mathx.go.

const refPrec = 300

func bigF(x float64) *big.Float { return new(big.Float).SetPrec(refPrec).SetFloat64(x) }

// bigExp is e^x for x ≤ 0 (x exact): e^{x/2^s} by Taylor series, squared s times.
func bigExp(x *big.Float) *big.Float {
	s := 0
	y := new(big.Float).SetPrec(refPrec).Set(x)
	for y.Sign() != 0 && y.MantExp(nil) > -20 { // |y| ≥ 2^-21
		y.SetMantExp(y, -1)
		s++
	}
	sum := bigF(1)
	term := bigF(1)
	for k := 1; k < 60; k++ {
		term.Mul(term, y)
		term.Quo(term, bigF(float64(k)))
		sum.Add(sum, term)
	}
	for ; s > 0; s-- {
		sum.Mul(sum, sum)
	}
	return sum
}

// bigLog1p is log(1+t) for 0 ≤ t ≤ 1: 2·atanh(t/(2+t)).
func bigLog1p(t *big.Float) *big.Float {
	y := new(big.Float).SetPrec(refPrec).Quo(t, new(big.Float).SetPrec(refPrec).Add(bigF(2), t))
	y2 := new(big.Float).SetPrec(refPrec).Mul(y, y)
	sum := new(big.Float).SetPrec(refPrec)
	pow := new(big.Float).SetPrec(refPrec).Set(y)
	eps := bigF(0x1p-330)
	for k := 0; ; k++ {
		term := new(big.Float).SetPrec(refPrec).Quo(pow, bigF(float64(2*k+1)))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.Cmp(eps) < 0 {
			break
		}
		pow.Mul(pow, y2)
	}
	return sum.SetMantExp(sum, 1)
}

// ulpErr returns |got − ref| in units of the last place of ref rounded to
// a double.
func ulpErr(got float64, ref *big.Float) float64 {
	r, _ := ref.Float64()
	ulp := math.Nextafter(math.Abs(r), math.Inf(1)) - math.Abs(r)
	d := new(big.Float).SetPrec(refPrec).Sub(bigF(got), ref)
	df, _ := d.Float64()
	return math.Abs(df) / ulp
}

func testPoints(n int) []float64 {
	r := rand.New(rand.NewPCG(5, 6))
	pts := []float64{0, 5e-324, 1e-300, 1e-20, 1e-8, 0.5, math.Ln2 / 256, 0.8813735870195430, 0.88137358701954, 1, 2, 10, 36, 37, 40, 700, 707.9, 708,
		1.0 / 64, math.Nextafter(1.0/64, 0), 15.984375, math.Nextafter(16, 0), 16, math.Nextafter(16, 20), 16.015625, 708.5, 744, 745.1, 745.2, 746, 1e300}
	for m := 0; m <= spTabN; m += 7 { // table nodes and the cell edges between them
		pts = append(pts, float64(m)/spScale, (float64(m)+0.5)/spScale, math.Nextafter((float64(m)+0.5)/spScale, 0))
	}
	for i := 0; i < n; i++ {
		pts = append(pts, 2*r.Float64(), 40*r.Float64(), 708*r.Float64(), math.Exp(-30*r.Float64()), 745*r.Float64())
	}
	return pts
}

// TestFastExpLog1p bounds the error of the fast kernels against the 300-bit
// reference: expNegFast within 0.52 ulp (observed 0.503), and
// log1pExpNeg(a) = log(1 + e^{−a}) within 0.55 ulp (observed 0.53) where
// the result is normal (a ≤ 708.39), within 1 ulp (4.9e−324) where it is
// subnormal (mathx.Exp), and overall no less accurate than
// log1pUnit(math.Exp(−a)) (observed 1.66 ulp; the exp-then-log1p kernels
// it replaced had 1.28). It also bounds the difference from
// math.Log1p(math.Exp(−a)) (whose own error reaches ≈ 1.5 ulp) and the
// relative error of softplus(z) = log(1 + e^z) for z = ±a.
func TestFastExpLog1p(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	var maxExp, maxComp, maxSub, maxOld, maxStd, maxAbsStd, maxSP float64
	for _, a := range testPoints(n) {
		e := bigExp(bigF(-a))
		if a <= expNegMaxA {
			maxExp = max(maxExp, ulpErr(expNegFast(a), e))
		}
		ref := bigLog1p(e)
		got := log1pExpNeg(a)
		if rf, _ := ref.Float64(); rf >= 0x1p-1022 {
			maxComp = max(maxComp, ulpErr(got, ref))
		} else {
			maxSub = max(maxSub, ulpErr(got, ref))
		}
		maxOld = max(maxOld, ulpErr(log1pUnit(math.Exp(-a)), ref))
		std := math.Log1p(math.Exp(-a))
		if std >= 0x1p-1022 {
			maxStd = max(maxStd, math.Abs(got-std)/ulpOf(std))
		}
		maxAbsStd = max(maxAbsStd, math.Abs(got-std))
		// softplus(±a): a + g(a) and g(a)
		for _, z := range []float64{a, -a} {
			sref := new(big.Float).SetPrec(refPrec).Set(ref)
			if z > 0 {
				sref.Add(sref, bigF(z))
			}
			rf, _ := sref.Float64()
			if rf > 0x1p-1022 {
				d := new(big.Float).SetPrec(refPrec).Sub(bigF(softplus(z)), sref)
				df, _ := d.Float64()
				maxSP = max(maxSP, math.Abs(df)/rf)
			}
		}
	}
	t.Logf("max error (ulp): expNegFast %.3f, log1p(e^-a) %.3f (subnormal results %.3f; log1pUnit(math.Exp) %.3f); vs math.Log1p(math.Exp(-a)): %.3f ulp (normal range), %.3g absolute; softplus relative %.3g",
		maxExp, maxComp, maxSub, maxOld, maxStd, maxAbsStd, maxSP)
	if maxExp > 0.52 || maxComp > 0.55 || maxSub > 1 || max(maxComp, maxSub) > maxOld || maxStd > 2.5 || maxSP > 2.3e-16 {
		t.Fatalf("fast kernels too inaccurate: exp %.3f ulp, log1p(e^-a) %.3f ulp, vs math %.3f ulp, softplus %.3g", maxExp, maxComp, maxStd, maxSP)
	}
}

// TestSoftplusTable checks every entry of the log(1 + e^{−a}) table against
// the 300-bit reference: G_m = hi + lo within 2^−96 relative, hi correctly
// rounded, and c₁ = −s (up to the economization term) within 1e−14.
func TestSoftplusTable(t *testing.T) {
	for m, e := range spTab {
		a := float64(m) / spScale
		ex := bigExp(bigF(-a))
		g := bigLog1p(ex)
		d := new(big.Float).SetPrec(refPrec).Sub(g, bigF(e.hi))
		d.Sub(d, bigF(e.lo))
		df, _ := d.Float64()
		gf, _ := g.Float64()
		if math.Abs(df) > 0x1p-96*gf || e.hi != gf {
			t.Fatalf("G_%d = %v + %v, want %v (error %g)", m, e.hi, e.lo, g, df)
		}
		s := new(big.Float).SetPrec(refPrec).Quo(ex, new(big.Float).SetPrec(refPrec).Add(bigF(1), ex))
		sf, _ := s.Float64()
		if math.Abs(-e.c1-sf) > 1e-14*sf {
			t.Fatalf("c1_%d = %v, want ≈ %v", m, e.c1, -sf)
		}
	}
}

// The batch kernels are the scalar ones written out: bit for bit equal.
func TestBatchKernelsMatchScalar(t *testing.T) {
	pts := testPoints(5000)
	pts = append(pts, math.Inf(1), 709, 745, 800, math.NaN())
	g := make([]float64, len(pts))
	log1pExpNegBatch(pts, g)
	e := append([]float64(nil), pts...)
	expNegBatch(e)
	z := make([]float64, 0, 2*len(pts))
	for _, x := range pts {
		z = append(z, x, -x)
	}
	sp, one := make([]float64, len(z)), make([]float64, len(z))
	for k := range one {
		one[k] = 1 - 2*float64(k%3%2) // ±1: the sign is applied inside
		z[k] *= one[k]
	}
	negSoftplusBatch(z, one, sp, 0.75)
	for k := range z {
		z[k] *= one[k]
	}
	for i, x := range pts {
		if w := expNeg(x); math.Float64bits(e[i]) != math.Float64bits(w) {
			if !(math.IsNaN(w) && math.IsNaN(e[i])) {
				t.Fatalf("exp batch(%g) = %g; scalar %g", x, e[i], w)
			}
		}
		if w := log1pExpNeg(x); math.Float64bits(g[i]) != math.Float64bits(w) && !(math.IsNaN(w) && math.IsNaN(g[i])) {
			t.Fatalf("log1p(e^-a) batch(%g) = %g; scalar %g", x, g[i], w)
		}
	}
	for k, zk := range z {
		if w := -0.75 * softplus(zk); math.Float64bits(sp[k]) != math.Float64bits(w) && !(math.IsNaN(w) && math.IsNaN(sp[k])) {
			t.Fatalf("−F·softplus batch(%g) = %g; scalar %g", zk, sp[k], w)
		}
	}
	if got := log1pExpNeg(math.Inf(1)); got != 0 {
		t.Fatalf("log1p(e^-Inf) = %g", got)
	}
	if got := log1pExpNeg(math.NaN()); !math.IsNaN(got) {
		t.Fatalf("log1p(e^-NaN) = %g", got)
	}
	for _, z := range []float64{3, -3, 0, math.Copysign(0, -1), 50, -50, 800, -800} {
		want := 1 / (1 + math.Exp(-z))
		if got := sigmoidFromExp(z, expNeg(math.Abs(z))); math.Abs(got-want) > 2e-16*want+1e-300 {
			t.Fatalf("σ(%g) = %g, want %g", z, got, want)
		}
		if got, want := posPart(z), max(z, 0); got != want {
			t.Fatalf("posPart(%g) = %g", z, got)
		}
	}
}

// The batched logistic and GMM passes against their per-row definitions:
// bit for bit the scalar formulas (softplus, rowLogLik), within 2 ulp of the
// previous implementation's values, and LogLikGrad equal to LogLik summed
// in row order and to GradLogLik.
func TestBatchedPassesMatchRows(t *testing.T) {
	const n = 1000 // several batches and a partial one
	lg := benchModelT(t, "logistic", n, 4).(*Logistic)
	gm := benchModelT(t, "gmm", n, 1).(*GMM)
	r := rand.New(rand.NewPCG(8, 9))
	rows := make([]int, 600)
	for k := range rows {
		rows[k] = r.IntN(n)
	}
	for trial := 0; trial < 20; trial++ {
		scale := []float64{0.1, 1, 10, 100}[trial%4]
		th := make([]float64, lg.Dim())
		for j := range th {
			th[j] = scale * r.NormFloat64()
		}
		out := make([]float64, n)
		lg.LogLik(th, nil, out)
		sub := make([]float64, len(rows))
		lg.LogLik(th, rows, sub)
		sum := 0.0
		for i := 0; i < n; i++ {
			z := lg.sgn[i] * dot(lg.row(i), th)
			want := -lg.f * softplus(z)
			if math.Float64bits(out[i]) != math.Float64bits(want) {
				t.Fatalf("logistic row %d: %v, scalar %v", i, out[i], want)
			}
			old := -lg.f * (max(z, 0) + log1pUnit(math.Exp(-math.Abs(z))))
			if d := math.Abs(out[i] - old); d > 2*ulpOf(old) {
				t.Fatalf("logistic row %d: %v, previous %v", i, out[i], old)
			}
			sum += out[i]
		}
		for k, i := range rows {
			if sub[k] != out[i] {
				t.Fatalf("logistic rows[%d]: %v vs %v", k, sub[k], out[i])
			}
		}
		g1, g2, gr := make([]float64, lg.Dim()), make([]float64, lg.Dim()), make([]float64, lg.Dim())
		lg.GradLogLik(th, nil, g1)
		if s := lg.LogLikGrad(th, g2); s != sum {
			t.Fatalf("LogLikGrad sum %v, LogLik summed %v", s, sum)
		}
		want := make([]float64, lg.Dim())
		for i := 0; i < n; i++ {
			lg.GradLogLikRow(th, i, gr)
			for j := range want {
				want[j] += gr[j]
			}
		}
		for j := range g1 {
			if g1[j] != g2[j] || math.Abs(g1[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
				t.Fatalf("gradient %d: GradLogLik %v, LogLikGrad %v, rows %v", j, g1[j], g2[j], want[j])
			}
		}

		tg := []float64{scale * r.NormFloat64(), r.NormFloat64()}
		gout := make([]float64, n)
		gm.LogLik(tg, nil, gout)
		gsub := make([]float64, len(rows))
		gm.LogLik(tg, rows, gsub)
		for i := 0; i < n; i++ {
			want := gm.f * gm.rowLogLik(tg, gm.x[i])
			if math.Float64bits(gout[i]) != math.Float64bits(want) {
				t.Fatalf("gmm row %d: %v, scalar %v", i, gout[i], want)
			}
			d1 := gm.x[i] - tg[0]
			d2 := d1 - tg[1]
			a, b := -d1*d1*gm.h, -d2*d2*gm.h
			old := gm.f * (max(a, b) + log1pUnit(math.Exp(-math.Abs(a-b))) - math.Ln2 - gm.k)
			if d := math.Abs(gout[i] - old); d > 4*ulpOf(old) {
				t.Fatalf("gmm row %d: %v, previous %v", i, gout[i], old)
			}
		}
		for k, i := range rows {
			if gsub[k] != gout[i] {
				t.Fatalf("gmm rows[%d]: %v vs %v", k, gsub[k], gout[i])
			}
		}
	}
}

func ulpOf(x float64) float64 { return math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x) }

func benchModelT(t *testing.T, name string, n, d int) Model { return benchModel(t, name, n, d) }

// The same bits on every platform: a digest of the table and of the batch
// kernels over 0 ≤ a ≤ 800 (both paths of log(1 + e^{−a}), the subnormal
// range, e^{−a}), checked natively and under GOOS=js GOARCH=wasm.
func TestKernelsSameBitsEverywhere(t *testing.T) {
	h := sha256.New()
	var b [8]byte
	put := func(v float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	for _, e := range spTab {
		for _, v := range []float64{e.hi, e.lo, e.c1, e.c2, e.c3, e.c4, e.c5, e.c6} {
			put(v)
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	z := make([]float64, 50_000)
	for i := range z {
		z[i] = (2*r.Float64() - 1) * []float64{2, 20, 800}[i%3]
	}
	a, g, sp, e := make([]float64, len(z)), make([]float64, len(z)), make([]float64, len(z)), make([]float64, len(z))
	for i, v := range z {
		a[i] = math.Abs(v)
	}
	copy(e, a)
	log1pExpNegBatch(a, g)
	sg := make([]float64, len(z))
	for i := range sg {
		sg[i] = 1
	}
	negSoftplusBatch(z, sg, sp, 0.3)
	expNegBatch(e)
	for i := range z {
		put(g[i])
		put(sp[i])
		put(e[i])
	}
	got := fmt.Sprintf("%x", h.Sum(nil))
	const want = "41d3561a422c806e6e24e1eee7eabc054298e8cdc4dedbd72fee4a9a217429d9"
	if got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
}

// The fused passes (LogLikDiff, LogLikSum, LogLikRatio with a model's own
// pass) equal LogLik followed by the subtraction and the row-order sum, bit
// for bit, for every row set shape (all rows, a subset, partial batches).
func TestFusedPassesMatch(t *testing.T) {
	const n = 1000
	r := rand.New(rand.NewPCG(10, 11))
	for _, name := range []string{"logistic", "gmm", "linear"} {
		d := 4
		if name == "gmm" {
			d = 1
		}
		m := benchModelT(t, name, n, d)
		for _, rows := range [][]int{nil, {7}, r.Perm(n)[:600], r.Perm(n)[:256]} {
			k := len(rows)
			if rows == nil {
				k = n
			}
			th, th2 := make([]float64, m.Dim()), make([]float64, m.Dim())
			for j := range th {
				th[j] = r.NormFloat64()
				th2[j] = th[j] + 0.1*r.NormFloat64()
			}
			a, b := make([]float64, k), make([]float64, k)
			m.LogLik(th, rows, a)
			m.LogLik(th2, rows, b)
			sum := 0.0
			for _, v := range b {
				sum += v
			}
			cur, out := make([]float64, k), make([]float64, k)
			LogLikRatio(m, th2, th, rows, cur, out)
			diff := make([]float64, k)
			LogLikDiff(m, th2, rows, a, diff)
			for i := range a {
				if cur[i] != a[i] || out[i] != b[i]-a[i] || diff[i] != b[i]-a[i] {
					t.Fatalf("%s row %d: ratio %v/%v, diff %v, want %v/%v", name, i, cur[i], out[i], diff[i], a[i], b[i]-a[i])
				}
			}
			if s := LogLikSum(m, th2, rows, make([]float64, k)); s != sum {
				t.Fatalf("%s: LogLikSum %v, want %v", name, s, sum)
			}
		}
	}
}
