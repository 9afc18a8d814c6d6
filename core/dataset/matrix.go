// Package dataset turns a CSV file into a validated numeric table and applies
// public per-column bounds.
//
// Privacy: nothing in this package computes a statistic of a column (min, max,
// mean, sd) for use elsewhere. Bounds come from the user (public knowledge),
// and clipping to them is a per-row operation whose result depends only on the
// row and the public bounds.
package dataset

import "fmt"

// Table is a dense, row-major numeric table: the value of row i, column j is
// Data[i*len(Names)+j]. Rows are contiguous so that models can stream them.
type Table struct {
	Names []string  // column names, in file order, unique
	Data  []float64 // len(Names) * Rows values, row-major
	Rows  int
	// Bounds holds the public bound of each column, or nil where none was
	// given. It is set by ApplyBounds and read by models to derive per-row
	// sensitivities.
	Bounds []*Bound

	// Where each row came from, for error messages (local only): see Line.
	lines []lineMark
	// File column (0-based) of each column, or nil when the table was not
	// read from a file.
	fileCols []int
}

// Bound is a public interval [Lo, Hi] for one column, typed by the user.
type Bound struct{ Lo, Hi float64 }

// Width is Hi − Lo.
func (b Bound) Width() float64 { return b.Hi - b.Lo }

// MaxAbs is max(|Lo|, |Hi|), the largest magnitude a clipped value can have.
func (b Bound) MaxAbs() float64 { return max(abs(b.Lo), abs(b.Hi)) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Cols is the number of columns.
func (t *Table) Cols() int { return len(t.Names) }

// Col returns the index of the named column, or an error naming it.
func (t *Table) Col(name string) (int, error) {
	for j, n := range t.Names {
		if n == name {
			return j, nil
		}
	}
	return -1, fmt.Errorf("column %q not found (columns: %v)", name, t.Names)
}

// At returns the value at row i, column j.
func (t *Table) At(i, j int) float64 { return t.Data[i*len(t.Names)+j] }

// Column copies column j into a new slice.
func (t *Table) Column(j int) []float64 {
	c := len(t.Names)
	out := make([]float64, t.Rows)
	for i := range out {
		out[i] = t.Data[i*c+j]
	}
	return out
}
