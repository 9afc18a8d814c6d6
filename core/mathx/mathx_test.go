package mathx

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Abs(math.Nextafter(b, math.Inf(1))-b)
}

// Exp and Log agree with the standard library within 2 ulp over their
// whole range: both are within 1 ulp of the truth, so they may differ by 2.
func TestAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worstE, worstL := 0.0, 0.0
	for range 1_000_000 {
		x := (r.Float64()*2 - 1) * 745
		if u := ulps(Exp(x), math.Exp(x)); u > worstE {
			worstE = u
		}
		y := math.Exp((r.Float64()*2 - 1) * 700)
		if u := ulps(Log(y), math.Log(y)); u > worstL {
			worstL = u
		}
		z := 0.5 + r.Float64()
		if u := ulps(Log(z), math.Log(z)); u > worstL {
			worstL = u
		}
	}
	if worstE > 2 || worstL > 2 {
		t.Fatalf("worst error: Exp %.2f ulp, Log %.2f ulp", worstE, worstL)
	}
	t.Logf("worst error vs math: Exp %.2f ulp, Log %.2f ulp", worstE, worstL)
}

func TestSpecialCases(t *testing.T) {
	// amd64's assembly is not a reference at the edges: it returns +Inf for
	// e^709.78 (finite, 1.79e308) and −709.09 for log(5e-324) (−744.44).
	if e := Exp(709.78); math.IsInf(e, 0) || ulps(e, 1.7928227943945155e308) > 2 {
		t.Errorf("Exp(709.78) = %v", e)
	}
	if l := Log(5e-324); math.Abs(l-(-744.4400719213812)) > 1e-12 {
		t.Errorf("Log(5e-324) = %v", l)
	}
	for _, x := range []float64{0, 1, -1, 1e-300, -1e-300, 709.79, -745.1, -745.2, 1e-9, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64} {
		e, me := Exp(x), math.Exp(x)
		if !(e == me || math.IsNaN(e) && math.IsNaN(me) || ulps(e, me) <= 2) {
			t.Errorf("Exp(%v) = %v, math %v", x, e, me)
		}
		l, ml := Log(x), math.Log(x)
		if !(l == ml || math.IsNaN(l) && math.IsNaN(ml) || ulps(l, ml) <= 2) {
			t.Errorf("Log(%v) = %v, math %v", x, l, ml)
		}
	}
	if Log(1) != 0 || Exp(0) != 1 {
		t.Error("Log(1) or Exp(0) not exact")
	}
}

// The same bits on every platform: this digest of 200,000 values is checked
// natively and under GOOS=js GOARCH=wasm (make test-wasm runs this package).
func TestSameBitsEverywhere(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	h := sha256.New()
	var b [8]byte
	for range 100_000 {
		x := (r.Float64()*2 - 1) * 50
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(Exp(x)))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(Log(math.Abs(x)+1e-3)))
		h.Write(b[:])
	}
	got := fmt.Sprintf("%x", h.Sum(nil))
	const want = "b5670aca5b460fcd4773064eeae16ebe263138b2d58bf58e0f42366d8eb9fe87"
	if got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
}

func BenchmarkExp(b *testing.B) {
	s := 0.0
	for i := range b.N {
		s += Exp(float64(i%1000) * 0.01)
	}
	_ = s
}

func TestLogFactorial(t *testing.T) {
	for _, k := range []float64{0, 1, 2, 3, 10, 170, 999, 1000, 1001, 5000, 1e6, 1e9} {
		want, _ := math.Lgamma(k + 1)
		got := LogFactorial(k)
		if d := math.Abs(got - want); d > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("LogFactorial(%v) = %v, lgamma %v (diff %v)", k, got, want, d)
		}
	}
	if !math.IsNaN(LogFactorial(-1)) || !math.IsNaN(LogFactorial(1.5)) {
		t.Error("LogFactorial accepts a non-integer or negative k")
	}
}
