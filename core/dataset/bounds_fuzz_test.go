package dataset

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseBound checks the parser of user-typed public bounds
// ("col=lo:hi"): it never panics, every error wraps ErrBadBound, an accepted
// bound is finite with lo < hi and a trimmed, non-empty name, and a bound
// printed back in canonical form parses to the same name and values.
func FuzzParseBound(f *testing.F) {
	for _, s := range []string{
		"age=18:90", "x=-1e3:2.5", " bmi = 15 : 50 ", "a=b=1:2", "=1:2", "x=1:1", "x=2:1",
		"x=nan:1", "x=-inf:inf", "x=1e309:1e310", "x=0x10:0x20", "x=1_000:2", "x=:", "x=1:", "noequals",
		"x=1,5:2,5", "x=+1:+2", "x=.5:.6", "x=5.:6.", "weight (kg)=0:300", "x=1:2:3", "é=−1:1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, b, err := ParseBound(s)
		if err != nil {
			if !errors.Is(err, ErrBadBound) {
				t.Fatalf("error %v does not wrap ErrBadBound", err)
			}
			return
		}
		if name == "" || name != strings.TrimSpace(name) {
			t.Fatalf("name %q", name)
		}
		if !(b.Lo < b.Hi) || math.IsInf(b.Lo, 0) || math.IsInf(b.Hi, 0) || math.IsNaN(b.Lo) || math.IsNaN(b.Hi) {
			t.Fatalf("accepted bound %v", b)
		}
		canon := name + "=" + strconv.FormatFloat(b.Lo, 'g', -1, 64) + ":" + strconv.FormatFloat(b.Hi, 'g', -1, 64)
		name2, b2, err := ParseBound(canon)
		if err != nil || name2 != name || b2 != b {
			t.Fatalf("%q → %q %v; canonical %q → %q %v %v", s, name, b, canon, name2, b2, err)
		}
		if _, err := ParseBounds([]string{s, s}); err == nil {
			t.Fatalf("the same column bounded twice was accepted")
		}
	})
}
