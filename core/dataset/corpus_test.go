package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const corpusDir = "../../testdata/csv"

type corpusCase struct {
	opts    Options
	names   []string
	data    []float64
	dropped int
	delim   rune
	// for bad files
	err          error
	line, column int
	colName      string
	msg          string // substring of the message
}

var corpus = map[string]corpusCase{
	"bom.csv":                  {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"crlf.csv":                 {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"cr_only.csv":              {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"semicolon.csv":            {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ';'},
	"tab.tsv":                  {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: '\t'},
	"no_trailing_newline.csv":  {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"blank_trailing_lines.csv": {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"excel_quoted_numbers.csv": {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"spaces.csv":               {names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"semicolon_decimal_comma.csv": {opts: Options{DecimalComma: true},
		names: []string{"age", "weight"}, data: []float64{34, 70.5, 51, 82}, delim: ';'},
	"quoted_header.csv":           {names: []string{"age", "weight (kg)", "note, free"}, data: []float64{34, 70.5, 1, 51, 82, 0}, delim: ','},
	"multiline_quoted_header.csv": {names: []string{"age", "multi\nline"}, data: []float64{34, 70.5, 51, 82}, delim: ','},
	"exponent.csv":                {names: []string{"x", "y"}, data: []float64{1000, -0.025, 4, 0.5, 0, 1.7976931348623157e308}, delim: ','},
	"categories.csv": {opts: Options{Categories: map[string]map[string]float64{"diagnosis": {"M": 1, "B": 0}}},
		names: []string{"id", "diagnosis", "radius"}, data: []float64{1, 1, 17.99, 2, 0, 13.54, 3, 1, 20.57}, delim: ','},
	"missing.csv": {opts: Options{Missing: MissingDropRows},
		names: []string{"age", "weight"}, data: []float64{34, 70.5, 45, 90}, dropped: 3, delim: ','},

	// The same files, failing.
	"semicolon_decimal_comma.csv#nodc": {err: ErrNotNumeric, line: 2, column: 2, colName: "weight", msg: "decimal comma"},
	"categories.csv#nomap":             {err: ErrNotNumeric, line: 2, column: 2, colName: "diagnosis", msg: "mapping"},
	"missing.csv#error":                {err: ErrMissing, line: 3, column: 1, colName: "age", msg: "empty cell"},

	"bad_ragged.csv":         {err: ErrRagged, line: 3, column: 2, colName: "weight", msg: "1 field but the header has 2"},
	"bad_ragged_extra.csv":   {err: ErrRagged, line: 3, column: 3, msg: "3 fields"},
	"bad_nonnumeric.csv":     {err: ErrNotNumeric, line: 3, column: 2, colName: "weight", msg: `"abc" is not a number`},
	"bad_text_column.csv":    {err: ErrNotNumeric, line: 2, column: 2, colName: "diagnosis", msg: "categories"},
	"bad_empty.csv":          {err: ErrEmpty},
	"bad_header_only.csv":    {err: ErrNoRows, line: 1},
	"bad_nan.csv":            {err: ErrMissing, line: 2, column: 2, colName: "weight", msg: `"NaN"`},
	"bad_inf.csv":            {err: ErrNonFinite, line: 2, column: 2, colName: "weight"},
	"bad_overflow.csv":       {err: ErrNonFinite, line: 2, column: 2, colName: "weight"},
	"bad_duplicate.csv":      {err: ErrDuplicateColumn, line: 1, column: 2, colName: "age"},
	"bad_empty_name.csv":     {err: ErrEmptyColumnName, line: 1, column: 2},
	"bad_unclosed_quote.csv": {err: ErrQuote, line: 2, column: 2, colName: "weight"},
	"bad_bare_quote.csv":     {err: ErrQuote, line: 2, column: 2, colName: "weight"},
	"bad_utf16.csv":          {err: ErrEncoding, line: 1},
}

func TestCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.*sv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, f := range files {
		if _, ok := corpus[filepath.Base(f)]; !ok {
			t.Errorf("%s has no expectation in corpus_test.go", f)
		}
	}
	for name, c := range corpus {
		t.Run(name, func(t *testing.T) {
			file, _, _ := strings.Cut(name, "#")
			raw, err := os.ReadFile(filepath.Join(corpusDir, file))
			if err != nil {
				t.Fatal(err)
			}
			tab, rep, err := Load(bytes.NewReader(raw), c.opts)
			if c.err != nil {
				checkErr(t, err, c.err, c.line, c.column, c.colName, c.msg)
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !slices.Equal(tab.Names, c.names) || !slices.Equal(tab.Data, c.data) {
				t.Errorf("got %q %v, want %q %v", tab.Names, tab.Data, c.names, c.data)
			}
			if tab.Rows*tab.Cols() != len(tab.Data) || len(tab.Bounds) != tab.Cols() {
				t.Errorf("inconsistent table: rows %d cols %d data %d bounds %d", tab.Rows, tab.Cols(), len(tab.Data), len(tab.Bounds))
			}
			if rep.DroppedRows != c.dropped || rep.Rows != tab.Rows || rep.Delimiter != c.delim || rep.Bytes != int64(len(raw)) {
				t.Errorf("report %+v, want dropped %d delim %q bytes %d", rep, c.dropped, c.delim, len(raw))
			}
		})
	}
}

func checkErr(t *testing.T, err, kind error, line, column int, colName, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", kind)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error %q is not %v", err, kind)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %q is not a *ParseError", err)
	}
	if pe.Line != line || pe.Column != column || pe.ColumnName != colName {
		t.Errorf("error %q at line %d column %d (%q), want line %d column %d (%q)", err, pe.Line, pe.Column, pe.ColumnName, line, column, colName)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not mention %q", err, msg)
	}
	t.Log(err)
}
