package dataset

import (
	"fmt"
	"math"
	"strings"
)

// MissingPolicy says what to do with a row that has a missing value in one of
// the loaded columns.
type MissingPolicy int

const (
	// MissingError (the default) fails on the first missing value, naming
	// its line and column.
	MissingError MissingPolicy = iota
	// MissingDropRows drops every row with a missing value in a loaded
	// column. Only the number of dropped rows is reported (LoadReport), and
	// that number is a local diagnostic: it depends on the private data and
	// must never be exported.
	MissingDropRows
	// MissingAsNaN stores NaN for a missing value and keeps the row. It is
	// for inspecting a file on screen (which columns have missing cells,
	// LoadReport.MissingCells); no sampler accepts NaN.
	MissingAsNaN
)

func (p MissingPolicy) String() string {
	switch p {
	case MissingError:
		return "error"
	case MissingDropRows:
		return "drop-rows"
	case MissingAsNaN:
		return "as-nan"
	}
	return fmt.Sprintf("MissingPolicy(%d)", int(p))
}

// Options controls Load and NewReader. The zero value detects the delimiter,
// loads every column, and fails on any missing value.
type Options struct {
	// Delimiter separates fields: ',', ';', '\t' or another single ASCII
	// punctuation character such as '|'. 0 detects it from the header line
	// (and the first data line): the candidate among comma, semicolon and
	// tab that occurs most often outside quotes, preferring one that occurs
	// equally often on both lines; comma when none occurs (one column).
	Delimiter rune

	// Missing is the missing-value policy. Missing values are empty cells
	// and the tokens NA, NaN, N/A, null (any case) and ".".
	Missing MissingPolicy

	// TextColumns names columns whose cells are not parsed, for inspecting
	// a file on screen: a missing cell is counted (LoadReport.MissingCells)
	// and handled by the policy, any other cell is stored as NaN.
	TextColumns []string

	// Impute replaces a missing value of a named column by a constant,
	// e.g. {"insulin": 80}, before the policy above applies to the other
	// columns. The map is applied to each row on its own and keeps every
	// row, so two files that differ in one row still differ in one row
	// and the number of rows does not depend on which cells are missing:
	// with a public constant this is safe for private runs (unlike
	// MissingDropRows). Values must be finite.
	Impute map[string]float64

	// Outcome names the model's outcome column, if any: its missing cells
	// get OutcomeMissingAdvice, since neither a replacement value nor (in
	// a private run) dropping the row applies to it.
	Outcome string

	// Columns, when non-nil, loads only these columns, in this order; other
	// columns are split off their lines (so a row must still have as many
	// fields as the header) but are neither parsed nor validated nor
	// stored. Every name must be in the header.
	Columns []string

	// Categories maps text values to numbers for the named columns, e.g.
	// {"diagnosis": {"M": 1, "B": 0}}. Text is never mapped unless the user
	// names the mapping. In a mapped column every non-missing cell must be
	// one of the keys (compared after trimming surrounding spaces, case
	// sensitive); numbers are not accepted there either.
	Categories map[string]map[string]float64

	// DecimalComma reads "1,5" as 1.5. It is meant for semicolon- or
	// tab-separated files written with a decimal comma (many European
	// locales); with a comma delimiter such numbers must be quoted. When it
	// is set, '.' is rejected inside numbers, because "1.000,5" style
	// thousands separators would otherwise be misread.
	DecimalComma bool

	// MaxValues refuses a load that would hold more than this many values
	// (rows × loaded columns; 0: no limit), naming the row where it was
	// reached: an input of unknown size (a pipe) or one larger than memory
	// then ends in an error, not in the runtime running out of memory.
	MaxValues int64

	// MaxBytes refuses inputs larger than this many bytes (0: no limit).
	// When the source's size is known (os.File, bytes.Reader,
	// strings.Reader, ...) the input is refused before anything is read.
	MaxBytes int64
}

// LoadReport describes a load. Rows and DroppedRows depend on the private
// data: they are local diagnostics to show on screen, never to export.
type LoadReport struct {
	Rows        int // rows loaded
	Columns     int // columns loaded (Options.Columns, or all)
	DroppedRows int // rows dropped for missing values (MissingDropRows)
	// MissingCells counts the missing cells of each loaded column that has
	// any, whatever the policy did with them (imputed, dropped, stored as
	// NaN); nil when there were none.
	MissingCells map[string]int
	// FirstMissingLine is the file line of the first missing cell of each
	// column in MissingCells (a local diagnostic too).
	FirstMissingLine map[string]int
	Delimiter        rune  // the delimiter used (detected or given)
	Bytes            int64 // bytes read from the source
}

func (o *Options) validate() error {
	switch o.Missing {
	case MissingError, MissingDropRows, MissingAsNaN:
	default:
		return errorf(ErrOptions, fmt.Sprintf("unknown missing-value policy %d", int(o.Missing)))
	}
	if d := o.Delimiter; d != 0 {
		if d >= 0x80 || d == '"' || d == '\r' || d == '\n' || d == ' ' || d == '.' ||
			d == '+' || d == '-' || ('0' <= d && d <= '9') || ('a' <= d && d <= 'z') || ('A' <= d && d <= 'Z') {
			return errorf(ErrOptions, fmt.Sprintf("delimiter %q is not allowed (use comma, semicolon, tab or another ASCII punctuation character)", d))
		}
	}
	if o.MaxBytes < 0 || o.MaxValues < 0 {
		return errorf(ErrOptions, "MaxBytes or MaxValues is negative")
	}
	if o.Columns != nil {
		if len(o.Columns) == 0 {
			return errorf(ErrOptions, "no columns selected")
		}
		seen := make(map[string]bool, len(o.Columns))
		for _, c := range o.Columns {
			if seen[c] && c == o.Outcome && c != "" {
				return errorf(ErrOptions, fmt.Sprintf("column %q is the outcome and cannot also be a predictor", c))
			}
			if seen[c] {
				return errorf(ErrOptions, fmt.Sprintf("column %q selected twice", c))
			}
			seen[c] = true
		}
	}
	for col, v := range o.Impute {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errorf(ErrOptions, fmt.Sprintf("the value replacing missing cells of column %q is %v (must be finite)", col, v))
		}
	}
	for col, m := range o.Categories {
		if len(m) == 0 {
			return errorf(ErrOptions, fmt.Sprintf("empty category mapping for column %q", col))
		}
		seen := make(map[string]bool, len(m))
		for k, v := range m {
			tk := strings.TrimSpace(k)
			if tk == "" {
				return errorf(ErrOptions, fmt.Sprintf("category mapping for column %q has an empty value", col))
			}
			if seen[tk] {
				return errorf(ErrOptions, fmt.Sprintf("category mapping for column %q lists %q twice", col, tk))
			}
			seen[tk] = true
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errorf(ErrOptions, fmt.Sprintf("category mapping for column %q maps %q to %v (must be finite)", col, tk, v))
			}
		}
	}
	return nil
}
