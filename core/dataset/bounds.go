package dataset

import (
	"fmt"
	"math"
	"strings"
)

// ParseBound parses a public bound typed by the user, "col=lo:hi", e.g.
// "age=18:90" or "x=-1e3:2.5". The column name is everything before the last
// '=' (trimmed); lo and hi are decimal numbers in plain or exponent notation
// and must be finite with lo < hi. Errors wrap ErrBadBound.
func ParseBound(s string) (string, Bound, error) {
	eq := strings.LastIndexByte(s, '=')
	if eq < 0 {
		return "", Bound{}, boundErr(s, "expected col=lo:hi")
	}
	name := strings.TrimSpace(s[:eq])
	if name == "" {
		return "", Bound{}, boundErr(s, "the column name is missing (expected col=lo:hi)")
	}
	b, msg := parseRange(s[eq+1:])
	if msg != "" {
		if msg == "expected lo:hi" {
			msg += " after '='"
		}
		return "", Bound{}, boundErr(s, msg)
	}
	return name, b, nil
}

// ParseRange parses the "lo:hi" of a bound given without its column (the
// plan's --outcome-bound), as ParseBound reads it after the '='. Errors wrap
// ErrBadBound.
func ParseRange(s string) (Bound, error) {
	b, msg := parseRange(s)
	if msg != "" {
		return Bound{}, errorf(ErrBadBound, msg)
	}
	return b, nil
}

// parseRange is ParseRange with the reason as a message ("" when s parses).
func parseRange(s string) (Bound, string) {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return Bound{}, "expected lo:hi"
	}
	lo, err := parseBoundNumber(strings.TrimSpace(s[:colon]))
	if err != "" {
		return Bound{}, "lower bound " + err
	}
	hi, err := parseBoundNumber(strings.TrimSpace(s[colon+1:]))
	if err != "" {
		return Bound{}, "upper bound " + err
	}
	b := Bound{Lo: lo, Hi: hi}
	if err := b.check(); err != nil {
		return Bound{}, err.Error()
	}
	return b, ""
}

// ParseBounds parses several "col=lo:hi" flags; a column given twice is an
// error. A flag may hold several bounds separated by commas,
// "age=18:90,bmi=15:50" (as --impute takes them): a flag whose column name
// would contain '=' is read that way when every comma-separated piece is a
// bound.
func ParseBounds(specs []string) (map[string]Bound, error) {
	out := make(map[string]Bound, len(specs))
	var flat []string
	for _, s := range specs {
		if name, _, err := ParseBound(s); err == nil && strings.Contains(name, "=") {
			pieces := strings.Split(s, ",")
			ok := len(pieces) > 1
			for _, p := range pieces {
				if _, _, err := ParseBound(p); err != nil {
					ok = false
				}
			}
			if ok {
				flat = append(flat, pieces...)
				continue
			}
		}
		flat = append(flat, s)
	}
	for _, s := range flat {
		name, b, err := ParseBound(s)
		if err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, boundErr(s, fmt.Sprintf("column %q has more than one bound", name))
		}
		out[name] = b
	}
	return out, nil
}

func parseBoundNumber(s string) (float64, string) {
	if s == "" {
		return 0, "is missing"
	}
	v, st := parseNumber([]byte(s), false)
	switch {
	case st == numOverflow || isInfToken([]byte(s)):
		return 0, fmt.Sprintf("%q is not finite (bounds must be finite numbers)", s)
	case st != numOK && strings.Contains(s, ","):
		// A decimal comma: typed settings use '.', whatever the file does.
		return 0, fmt.Sprintf("%q is not a number (typed bounds use '.' as the decimal point, %s, even when the file uses decimal commas)", s, strings.Replace(s, ",", ".", 1))
	case st != numOK:
		return 0, fmt.Sprintf("%q is not a number", s)
	}
	return v, ""
}

func boundErr(spec, msg string) error {
	return errorf(ErrBadBound, fmt.Sprintf("bound %q: %s", spec, msg))
}

// check reports whether b is a usable bound: finite with Lo < Hi.
func (b Bound) check() error {
	if math.IsNaN(b.Lo) || math.IsNaN(b.Hi) || math.IsInf(b.Lo, 0) || math.IsInf(b.Hi, 0) {
		return errorf(ErrBadBound, "bounds must be finite numbers")
	}
	if !(b.Lo < b.Hi) {
		return errorf(ErrBadBound, fmt.Sprintf("the lower bound %v must be less than the upper bound %v", b.Lo, b.Hi))
	}
	return nil
}

// Clip returns v clipped into [b.Lo, b.Hi].
func (b Bound) Clip(v float64) float64 { return min(max(v, b.Lo), b.Hi) }

// ClipCount counts, for one column, the values ApplyBounds moved up to the
// lower bound and down to the upper bound.
type ClipCount struct{ Below, Above int }

// ClipCounts maps a column name to its ClipCount.
//
// LOCAL DIAGNOSTIC, NOT PRIVATE: the counts depend on the private data. They
// may be shown on screen, labelled as such, to help the user choose sensible
// bounds, but must never be exported, logged to a shared place or used to set
// bounds automatically.
type ClipCounts map[string]ClipCount

// ApplyBounds clips every value of each bounded column into its public bound,
// in place, and records the bound in t.Bounds. All bounds are checked (known
// column, finite, Lo < Hi) before any value changes; an unknown column is an
// error naming it. The returned counts are a local diagnostic (see
// ClipCounts).
func (t *Table) ApplyBounds(bounds map[string]Bound) (ClipCounts, error) {
	idx := make(map[string]int, len(bounds))
	for name, b := range bounds {
		j := -1
		for k, n := range t.Names {
			if n == name {
				j = k
				break
			}
		}
		if j < 0 {
			return nil, &ParseError{ColumnName: name,
				Err: errorf(ErrUnknownColumn, "has a bound but is not a loaded column; the columns are "+listNames(t.Names))}
		}
		if err := b.check(); err != nil {
			return nil, &ParseError{Column: j + 1, ColumnName: name, Err: err}
		}
		idx[name] = j
	}
	if len(t.Bounds) != len(t.Names) {
		nb := make([]*Bound, len(t.Names))
		copy(nb, t.Bounds)
		t.Bounds = nb
	}
	counts := make(ClipCounts, len(bounds))
	w := len(t.Names)
	for name, b := range bounds {
		j := idx[name]
		var c ClipCount
		for k := j; k < len(t.Data); k += w {
			v := t.Data[k]
			if v < b.Lo {
				t.Data[k] = b.Lo
				c.Below++
			} else if v > b.Hi {
				t.Data[k] = b.Hi
				c.Above++
			}
		}
		bb := b
		t.Bounds[j] = &bb
		counts[name] = c
	}
	return counts, nil
}

// Bound returns the public bound of column j, if one was applied.
func (t *Table) Bound(j int) (Bound, bool) {
	if j < 0 || j >= len(t.Bounds) || t.Bounds[j] == nil {
		return Bound{}, false
	}
	return *t.Bounds[j], true
}
