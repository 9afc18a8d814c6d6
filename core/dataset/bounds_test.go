package dataset

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseBound(t *testing.T) {
	for _, c := range []struct {
		in   string
		name string
		b    Bound
	}{
		{"age=18:90", "age", Bound{18, 90}},
		{"x=-1e3:2.5", "x", Bound{-1000, 2.5}},
		{" x = -1E+3 : -2.5e-1 ", "x", Bound{-1000, -0.25}},
		{"weight (kg)=0:300", "weight (kg)", Bound{0, 300}},
		{"a=b=0:1", "a=b", Bound{0, 1}},
		{"t:1=0:1", "t:1", Bound{0, 1}},
		{"y=.5:5.", "y", Bound{0.5, 5}},
	} {
		name, b, err := ParseBound(c.in)
		if err != nil || name != c.name || b != c.b {
			t.Errorf("ParseBound(%q) = %q, %v, %v; want %q, %v", c.in, name, b, err, c.name, c.b)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"age", "col=lo:hi"},
		{"=0:1", "column name is missing"},
		{"  =0:1", "column name is missing"},
		{"x=01", "lo:hi"},
		{"x=:1", "lower bound is missing"},
		{"x=0:", "upper bound is missing"},
		{"x=1:1", "less than"},
		{"x=2:1", "less than"},
		{"x=NaN:1", "not a number"},
		{"x=0:Inf", "not finite"},
		{"x=-inf:0", "not finite"},
		{"x=0:1e999", "not finite"},
		{"x=0:1:2", "not a number"},
		{"x=a:b", "not a number"},
		{"x=0x10:20", "not a number"},
		{"x=1,5:2", "not a number"},
	} {
		_, _, err := ParseBound(c.in)
		if !errors.Is(err, ErrBadBound) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseBound(%q): %v, want ErrBadBound mentioning %q", c.in, err, c.msg)
		}
	}
}

func TestParseBounds(t *testing.T) {
	m, err := ParseBounds([]string{"a=0:1", "b=-1:1"})
	if err != nil || len(m) != 2 || m["b"] != (Bound{-1, 1}) {
		t.Fatalf("%v %v", m, err)
	}
	if _, err := ParseBounds([]string{"a=0:1", "a=0:2"}); !errors.Is(err, ErrBadBound) {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := ParseBounds([]string{"a=1:0"}); !errors.Is(err, ErrBadBound) {
		t.Errorf("bad: %v", err)
	}
	// A decimal comma in a typed bound: the error says to type '.'.
	if _, err := ParseBounds([]string{"bmi=15,5:60"}); err == nil || !strings.Contains(err.Error(), `"15,5" is not a number (typed bounds use '.' as the decimal point, 15.5,`) {
		t.Errorf("decimal comma: %v", err)
	}
	// Several bounds in one flag, separated by commas (a review found
	// "a=-3:5,b=-3:5" read as the column "a=-3:5,b").
	m, err = ParseBounds([]string{"a=-3:5, b=0:1e3", "c=1:2"})
	if err != nil || len(m) != 3 || m["a"] != (Bound{-3, 5}) || m["b"] != (Bound{0, 1000}) || m["c"] != (Bound{1, 2}) {
		t.Errorf("comma list: %v %v", m, err)
	}
	if _, err := ParseBounds([]string{"a=0:1,a=0:2"}); !errors.Is(err, ErrBadBound) {
		t.Errorf("duplicate in a list: %v", err)
	}
	// A piece that is not a bound keeps the whole flag as one bound, whose
	// column name holds the '=' (a name the data may have).
	m, err = ParseBounds([]string{"x=y,z=0:1"})
	if err != nil || m["x=y,z"] != (Bound{0, 1}) {
		t.Errorf("name with '=': %v %v", m, err)
	}
}

func TestApplyBounds(t *testing.T) {
	tab, err := FromColumns([]string{"x", "y", "z"}, [][]float64{{-5, 0, 5, 10}, {1, 2, 3, 4}, {-1, 0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := tab.ApplyBounds(map[string]Bound{"x": {-1, 6}, "z": {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Column(0), []float64{-1, 0, 5, 6}) || !slices.Equal(tab.Column(1), []float64{1, 2, 3, 4}) ||
		!slices.Equal(tab.Column(2), []float64{0, 0, 1, 1}) {
		t.Fatalf("data %v", tab.Data)
	}
	if counts["x"] != (ClipCount{Below: 1, Above: 1}) || counts["z"] != (ClipCount{Below: 1, Above: 1}) || len(counts) != 2 {
		t.Errorf("counts %v", counts)
	}
	if b, ok := tab.Bound(0); !ok || b != (Bound{-1, 6}) {
		t.Errorf("bound x: %v %v", b, ok)
	}
	if _, ok := tab.Bound(1); ok || tab.Bounds[1] != nil {
		t.Error("y has a bound")
	}
	if _, ok := tab.Bound(7); ok {
		t.Error("Bound out of range")
	}

	// Errors leave the table untouched.
	before := slices.Clone(tab.Data)
	for _, c := range []struct {
		b   map[string]Bound
		err error
		msg string
	}{
		{map[string]Bound{"y": {0, 2}, "w": {0, 1}}, ErrUnknownColumn, `"w"`},
		{map[string]Bound{"y": {0, 2}, "z": {1, 1}}, ErrBadBound, "less than"},
		{map[string]Bound{"y": {math.NaN(), 1}}, ErrBadBound, "finite"},
		{map[string]Bound{"y": {0, math.Inf(1)}}, ErrBadBound, "finite"},
	} {
		_, err := tab.ApplyBounds(c.b)
		if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: %v, want %v mentioning %s", c.b, err, c.err, c.msg)
		}
		if !slices.Equal(tab.Data, before) {
			t.Fatalf("%v: data changed", c.b)
		}
	}

	// Bounds on a table whose Bounds slice is nil (a literal Table).
	lit := &Table{Names: []string{"a"}, Data: []float64{3}, Rows: 1}
	if _, err := lit.ApplyBounds(map[string]Bound{"a": {0, 1}}); err != nil || lit.Data[0] != 1 || lit.Bounds[0].Hi != 1 {
		t.Errorf("literal table: %v %v", err, lit.Data)
	}
}

func TestBoundHelpers(t *testing.T) {
	b := Bound{-3, 2}
	if b.Clip(-4) != -3 || b.Clip(5) != 2 || b.Clip(1) != 1 || b.Width() != 5 || b.MaxAbs() != 3 {
		t.Error("helpers")
	}
}
