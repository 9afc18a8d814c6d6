package dataset

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// checkSameAsStrconv fails unless parseNumber(s) is bit-for-bit
// strconv.ParseFloat(s) for a syntactically valid decimal s.
func checkSameAsStrconv(t *testing.T, s string) {
	t.Helper()
	got, st := parseNumber([]byte(s), false)
	want, err := strconv.ParseFloat(s, 64)
	if err != nil && math.IsInf(want, 0) {
		if st != numOverflow {
			t.Fatalf("parseNumber(%q) status %d, want overflow", s, st)
		}
		return
	}
	if err != nil && !strings.Contains(err.Error(), "range") {
		t.Fatalf("strconv rejects %q: %v", s, err)
	}
	if st != numOK || math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parseNumber(%q) = %v (%x), status %d; strconv = %v (%x)", s, got, math.Float64bits(got), st, want, math.Float64bits(want))
	}
}

func TestParseNumberMatchesStrconv(t *testing.T) {
	fixed := []string{
		"0", "-0", "+0", "0.0", "-0.0", "00", "0e5", "-0e-5", "0.000", ".5", "5.", "-.5", "+5.",
		"1", "-1", "1.5", "1e3", "1E3", "1e+3", "1e-3", "-1e3", "2.5e-308", "4.9e-324", "5e-324",
		"2e-324", "1e-400", "1.7976931348623157e308", "1.7976931348623158e308", "1e308",
		"123456789012345678", "1234567890123456789", "12345678901234567890", "9007199254740993",
		"9007199254740992", "9007199254740991", "0.1", "0.3", "1e22", "1e23", "9.999999999999999e22",
		"3.141592653589793", "2.718281828459045", "0.000000000000000000000000001",
		"100000000000000000000000000000000000", "1.00000000000000011102230246251565404236316680908203125",
		"1.000000000000000111022302462515654042363166809082031251", "7e-10", "007", "0.0001234567",
		"1" + strings.Repeat("0", 400) + "e-400", "0." + strings.Repeat("0", 30) + "1e30",
		"1e999999999999", "1e-999999999999", "0e999999999999",
	}
	for _, s := range fixed {
		checkSameAsStrconv(t, s)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200_000 {
		var s string
		switch rng.IntN(4) {
		case 0:
			s = strconv.FormatFloat(math.Float64frombits(rng.Uint64()), 'g', -1, 64)
		case 1:
			s = strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), 'f', rng.IntN(20), 64)
		case 2:
			s = strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(60)-30)), 'e', rng.IntN(20), 64)
		default:
			// random digit strings with a point and an exponent
			var b strings.Builder
			if rng.IntN(2) == 0 {
				b.WriteByte('-')
			}
			for range rng.IntN(22) {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
			b.WriteByte('.')
			for range 1 + rng.IntN(22) {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
			if rng.IntN(2) == 0 {
				b.WriteString("e")
				b.WriteString(strconv.Itoa(rng.IntN(80) - 40))
			}
			s = b.String()
		}
		if strings.ContainsAny(s, "NI") { // NaN, Inf from random bits
			continue
		}
		checkSameAsStrconv(t, s)
	}
}

func TestParseNumberRejects(t *testing.T) {
	for _, s := range []string{
		"", "+", "-", ".", "-.", "e5", ".e5", "1e", "1e+", "1e5.5", "1.2.3", "1,5", "0x10", "0x1p3",
		"1_000", "inf", "Inf", "NaN", "nan", "infinity", " 1", "1 ", "1e5x", "--1", "+-1", "1..2", "١",
	} {
		if v, st := parseNumber([]byte(s), false); st != numSyntax {
			t.Errorf("parseNumber(%q) = %v, status %d; want syntax error", s, v, st)
		}
	}
}

func TestParseNumberDecimalComma(t *testing.T) {
	for s, want := range map[string]float64{"1,5": 1.5, "-0,25": -0.25, ",5": 0.5, "3": 3, "1,5e3": 1500,
		"0,1234567890123456789012": 0.1234567890123456789012} {
		got, st := parseNumber([]byte(s), true)
		if st != numOK || got != want {
			t.Errorf("decimal comma %q = %v (%d), want %v", s, got, st, want)
		}
	}
	for _, s := range []string{"1.5", "1.000,5", "1,000,5"} {
		if _, st := parseNumber([]byte(s), true); st != numSyntax {
			t.Errorf("decimal comma %q accepted", s)
		}
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", "-1.5e-3", "0.1", "9007199254740993", "1e400", ".5", "1e-400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, st := parseNumber([]byte(s), false)
		want, err := strconv.ParseFloat(s, 64)
		switch st {
		case numSyntax:
			return // stricter than strconv by design (no hex, inf, nan, _)
		case numOverflow:
			if err == nil || !math.IsInf(want, 0) {
				t.Fatalf("%q: overflow, strconv %v %v", s, want, err)
			}
		case numOK:
			if err != nil && !math.IsInf(want, 0) && !strings.Contains(err.Error(), "range") {
				t.Fatalf("%q accepted, strconv rejects: %v", s, err)
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%q: got %v want %v", s, got, want)
			}
		}
	})
}
