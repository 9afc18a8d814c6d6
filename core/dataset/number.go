package dataset

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"
)

type numStatus uint8

const (
	numOK       numStatus = iota
	numSyntax             // not a decimal number
	numOverflow           // well-formed but beyond ±MaxFloat64
)

// pow10 holds the powers of ten that are exact in float64.
var pow10 = [...]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

// IsNumber reports whether s is a finite number as the loader reads it
// (with a decimal comma when decimalComma is set), surrounding spaces
// ignored.
func IsNumber(s string, decimalComma bool) bool {
	_, st := parseNumber([]byte(strings.TrimSpace(s)), decimalComma)
	return st == numOK
}

// parseNumber parses b as a decimal number in plain or exponent notation:
//
//	[+-] ( digits [sep digits*] | sep digits ) [ (e|E) [+-] digits ]
//
// where sep is '.' or, when decimalComma is set, ',' (and then '.' is not
// accepted). No spaces, hex, underscores, thousands separators, Inf or NaN.
//
// The result is exactly strconv.ParseFloat's: plain numbers with at most 19
// significant digits whose value is an exact float64 mantissa times an exact
// power of ten take the classic exact fast path (one correctly rounded
// multiplication or division, the same as strconv's own first step); all
// others are handed to strconv.ParseFloat without allocating.
func parseNumber(b []byte, decimalComma bool) (float64, numStatus) {
	f, next, st := scanNumber(b, 0, decimalComma)
	if st == numSyntax || next != len(b) {
		return 0, numSyntax
	}
	return f, st
}

// scanNumber parses the longest number (as in parseNumber) starting at
// b[i0:], returning its value and the index just past it. The caller checks
// that the number ends where the field does.
func scanNumber(b []byte, i0 int, decimalComma bool) (f float64, next int, st numStatus) {
	sep := byte('.')
	if decimalComma {
		sep = ','
	}
	n := len(b)
	i := i0
	neg := false
	if i < n && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	// mant overflows silently beyond 19 digits; such numbers take the
	// slow path below, which ignores it.
	var mant uint64
	start := i
	for ; i < n; i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	nd := i - start
	exp := 0
	sepAt := -1
	if i < n && b[i] == sep {
		sepAt = i
		i++
		fs := i
		for ; i < n; i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			mant = mant*10 + uint64(d)
		}
		nd += i - fs
		exp = fs - i
	}
	if nd == 0 {
		return 0, i, numSyntax
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < n && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		es := i
		e := 0
		for ; i < n; i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			if e < 1_000_000 {
				e = e*10 + int(d)
			}
		}
		if i == es {
			return 0, i, numSyntax
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if nd <= 19 {
		if mant == 0 {
			if neg {
				return negZero, i, numOK
			}
			return 0, i, numOK
		}
		if mant <= 1<<53 && exp >= -22 && exp <= 22 {
			f := float64(mant)
			if exp < 0 {
				f /= pow10[-exp]
			} else {
				f *= pow10[exp]
			}
			if neg {
				f = -f
			}
			return f, i, numOK
		}
	}
	// Slow path: strconv on the same bytes (syntax already validated, so
	// strconv's extras such as hex, "inf" or underscores cannot occur).
	tok := b[i0:i]
	if sepAt >= 0 && sep != '.' {
		var tmp [64]byte
		var t []byte
		if len(tok) <= len(tmp) {
			t = tmp[:len(tok)]
		} else {
			t = make([]byte, len(tok))
		}
		copy(t, tok)
		t[sepAt-i0] = '.'
		f, st := slowResult(strconv.ParseFloat(unsafe.String(&t[0], len(t)), 64))
		return f, i, st
	}
	f, st = slowResult(strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 64))
	return f, i, st
}

var negZero = func() float64 { z := 0.0; return -z }()

func slowResult(f float64, err error) (float64, numStatus) {
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && (f > 1 || f < -1) {
			return f, numOverflow
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, numOK // underflow to zero or a subnormal: a finite value
		}
		return 0, numSyntax
	}
	return f, numOK
}

// lower reports whether b equals the lower-case ASCII word w, ignoring case.
func equalFold(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// IsMissing reports whether a cell (as text, surrounding spaces and quotes
// already removed) is a missing value: empty, NA, NaN, N/A, null (any
// case) or ".".
func IsMissing(cell string) bool {
	b := bytes.TrimSpace([]byte(cell))
	return len(b) == 0 || isMissingToken(b)
}

// isMissingToken reports whether a (trimmed, non-empty) cell spells a missing
// value: NA, NaN, N/A, null (any case) or ".".
func isMissingToken(b []byte) bool {
	switch len(b) {
	case 1:
		return b[0] == '.'
	case 2:
		return equalFold(b, "na")
	case 3:
		return equalFold(b, "nan") || equalFold(b, "n/a")
	case 4:
		return equalFold(b, "null")
	}
	return false
}

// isInfToken reports whether b spells an infinity: [+-]inf or [+-]infinity.
func isInfToken(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	return equalFold(b, "inf") || equalFold(b, "infinity")
}

// looksDecimalComma reports whether b looks like a number written with a
// decimal comma, such as "1,5" or "-0,25".
func looksDecimalComma(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	comma := false
	digits := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == ',' && !comma:
			comma = true
		default:
			return false
		}
	}
	return comma && digits > 0
}

// hasLetter reports whether b contains an ASCII letter or a non-ASCII byte.
func hasLetter(b []byte) bool {
	for _, c := range b {
		if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c >= 0x80 {
			return true
		}
	}
	return false
}
