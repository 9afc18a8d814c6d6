package dataset

import (
	"maps"
	"math"
	"slices"
	"testing"
)

func TestImputeReplacesMissingCells(t *testing.T) {
	in := "a,b,c\n1,,3\nNA,5,6\n7,8,.\n,NA,9\n"
	tab, rep := mustLoad(t, in, Options{Impute: map[string]float64{"a": -1, "b": 50}, Missing: MissingDropRows})
	// a and b are imputed; c's missing cell drops its row (line 4).
	want := []float64{1, 50, 3, -1, 5, 6, -1, 50, 9}
	if !slices.Equal(tab.Data, want) || tab.Rows != 3 {
		t.Fatalf("data %v (%d rows), want %v", tab.Data, tab.Rows, want)
	}
	if rep.DroppedRows != 1 || !maps.Equal(rep.MissingCells, map[string]int{"a": 2, "b": 2, "c": 1}) {
		t.Fatalf("report %+v", rep)
	}
	// The line of each column's first missing cell, for a message that
	// names it.
	if !maps.Equal(rep.FirstMissingLine, map[string]int{"a": 3, "b": 2, "c": 4}) {
		t.Fatalf("first missing lines %v", rep.FirstMissingLine)
	}
	// Without a policy for c its missing cell is an error naming line and
	// column, and the advice names the imputation.
	err := loadErr(t, in, Options{Impute: map[string]float64{"a": -1, "b": 50}})
	checkErr(t, err, ErrMissing, 4, 3, "c", "--impute")
	// Only loaded columns count; the column order follows Options.Columns.
	tab, rep = mustLoad(t, in, Options{Columns: []string{"b", "a"}, Impute: map[string]float64{"a": -1, "b": 50}})
	if !slices.Equal(tab.Data, []float64{50, 1, 5, -1, 8, 7, 50, -1}) || !maps.Equal(rep.MissingCells, map[string]int{"a": 2, "b": 2}) {
		t.Fatalf("subset: data %v, report %+v", tab.Data, rep)
	}
	// A file without missing cells reports none.
	if _, rep := mustLoad(t, "a\n1\n", Options{Impute: map[string]float64{"a": 0}}); rep.MissingCells != nil {
		t.Fatalf("no missing cells: %+v", rep)
	}
}

func TestImputeErrors(t *testing.T) {
	checkErr(t, loadErr(t, "a\n1\n", Options{Impute: map[string]float64{"z": 0}}), ErrUnknownColumn, 1, 0, "z", "value for missing cells")
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		checkErr(t, loadErr(t, "a\n1\n", Options{Impute: map[string]float64{"a": v}}), ErrOptions, 0, 0, "", "must be finite")
	}
	// Text is not missing: a typo is still an error, not imputed.
	checkErr(t, loadErr(t, "a\nx\n", Options{Impute: map[string]float64{"a": 0}}), ErrNotNumeric, 2, 1, "a", `"x"`)
}

// TestImputeIsRowWise is the privacy argument for allowing imputation in
// private runs: the map acts on each row alone, so two files that differ in
// one row give tables that differ in that row only, with the same number of
// rows (dropping rows would change n).
func TestImputeIsRowWise(t *testing.T) {
	base := "x,y\n1,0\n2,1\n3,0\n4,1\n"
	neighbour := "x,y\n1,0\n,1\n3,0\n4,1\n" // row 2's x is missing
	opts := Options{Impute: map[string]float64{"x": 2.5}}
	a, _ := mustLoad(t, base, opts)
	b, _ := mustLoad(t, neighbour, opts)
	if a.Rows != b.Rows {
		t.Fatalf("rows %d and %d", a.Rows, b.Rows)
	}
	diff := 0
	for i := 0; i < a.Rows; i++ {
		if a.At(i, 0) != b.At(i, 0) || a.At(i, 1) != b.At(i, 1) {
			diff++
		}
	}
	if diff != 1 {
		t.Fatalf("%d rows differ, want 1", diff)
	}
	// Dropping is not row-wise in this sense: n changes.
	c, _ := mustLoad(t, neighbour, Options{Missing: MissingDropRows})
	if c.Rows == a.Rows {
		t.Fatal("dropping kept n")
	}
}

func TestMissingAsNaN(t *testing.T) {
	tab, rep := mustLoad(t, "a,b\n1,\nNA,4\n", Options{Missing: MissingAsNaN, Impute: map[string]float64{"a": 9}})
	if tab.Rows != 2 || tab.Data[0] != 1 || !math.IsNaN(tab.Data[1]) || tab.Data[2] != 9 || tab.Data[3] != 4 {
		t.Fatalf("data %v", tab.Data)
	}
	if !maps.Equal(rep.MissingCells, map[string]int{"a": 1, "b": 1}) || rep.DroppedRows != 0 {
		t.Fatalf("report %+v", rep)
	}
}

// MaxValues stops a load that would hold more values than allowed (an
// endless pipe, a file larger than memory) with an error naming the row,
// on both the fast and the general path.
func TestMaxValues(t *testing.T) {
	in := "a,b\n1,2\n3,4\n5,6\n7,8\n"
	if tab, _ := mustLoad(t, in, Options{MaxValues: 8}); tab.Rows != 4 {
		t.Fatalf("at the limit: %d rows", tab.Rows)
	}
	err := loadErr(t, in, Options{MaxValues: 7})
	checkErr(t, err, ErrTooLarge, 5, 0, "", "more than 7 values (4 rows × 2 columns)")
	// Only loaded columns count.
	if tab, _ := mustLoad(t, in, Options{MaxValues: 4, Columns: []string{"b"}}); tab.Rows != 4 {
		t.Fatalf("one column: %d rows", tab.Rows)
	}
	checkErr(t, loadErr(t, "a,b\n\"1\",2\n3,4\n", Options{MaxValues: 3}), ErrTooLarge, 3, 0, "", "more than 3 values")
}
