// Package dataset turns a CSV file into a validated numeric table and applies
// public per-column bounds.
//
// # Privacy
//
// Everything in a loaded table is private. Nothing in this package computes a
// statistic of a column (min, max, mean, sd, quantile, range) for use
// elsewhere, and nothing here may be changed to do so: bounds come from the
// user as public knowledge (ParseBound, "--bound col=lo:hi"), and clipping to
// them (Table.ApplyBounds) is a per-value operation whose result depends only
// on that value and the public bound. The few data-dependent numbers this
// package does produce (LoadReport.Rows and DroppedRows, ClipCounts, the
// cells and lines quoted in error messages) are local diagnostics for the
// user's own screen: they must never be exported, logged to a shared place
// or fed back into a model, a bound or a tuning rule.
//
// # Format
//
// Load (or the streaming Reader) accepts:
//   - a required header line of unique, non-empty column names;
//   - comma, semicolon or tab delimiters, detected from the first two lines
//     unless Options.Delimiter is given;
//   - RFC 4180 quoting: quoted fields may hold delimiters, line ends and
//     doubled quotes (""); "Excel-style" quoted numbers such as "1.5" are
//     numbers; a quote inside an unquoted field is an error;
//   - UTF-8 text: a byte order mark is skipped (a repeated one too), and a
//     column name that is not valid UTF-8 (a file saved as Windows-1252 or
//     Latin-1) is an error naming its line and column, with the fix;
//   - Excel's delimiter hint, a first line "sep=;" (or "sep=,", "sep=|",
//     "sep=<tab>", optionally quoted), which sets the delimiter unless
//     Options.Delimiter is given and is not the header;
//   - LF, CRLF or lone CR line ends; a missing final line end; blank (or
//     all-space) lines anywhere, which are skipped;
//   - spaces (and tabs, unless tab is the delimiter) around fields, which are
//     trimmed, inside quotes too;
//   - numbers in plain or exponent notation ("12", "-0.5", ".5", "1e-3",
//     "2.5E+10"), parsed exactly as strconv.ParseFloat would; a decimal comma
//     ("1,5") only with Options.DecimalComma, and then no '.' in numbers;
//   - missing values: empty cells and NA, NaN, N/A, null (any case) and ".".
//     By default a missing value is an error naming its line and column;
//     Options.Impute replaces the missing cells of named columns by public
//     constants (row by row, so n does not change);
//     Options.Missing = MissingDropRows drops such rows and reports only how
//     many were dropped;
//   - text categories only when the user names a mapping
//     (Options.Categories, e.g. diagnosis M=1, B=0); any other text is an
//     error naming the column and suggesting such a mapping.
//
// Infinities ("Inf", "1e999") are errors. Hex floats and thousands
// separators are not numbers, and UTF-16 files are rejected with a hint to
// save them as UTF-8.
//
// # Errors
//
// Every error is a *ParseError carrying the 1-based file line and field
// column (and the column's name), and wrapping a sentinel such as
// ErrNotNumeric or ErrRagged for errors.Is. Table.CellError builds the same
// kind of error for problems found after loading, such as an outcome outside
// a model's support.
//
// # Performance
//
// The parser is hand-written: it works in place on a 1 MiB read buffer,
// parses plain numbers with an exact fast path (falling back to
// strconv.ParseFloat without allocating) and stores values contiguously.
// Memory is bounded: Reader uses about the buffer size whatever the file's
// length; Load peaks at about the size of the loaded values when the input's
// size is known (a file) and about twice that otherwise; Chunks hands the
// rows over in small reused tables, for callers that copy them into their
// own storage.
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
