package dataset

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// TestEncodingAndSepHints pins the behaviour chosen for finding F3
// (docs/RELIABILITY.md): repeated byte order marks are stripped, Excel's
// "sep=" first line is honoured (an explicit delimiter option wins), and a
// header that is not UTF-8 is refused with its line, column and the fix.
// Every case is also read a byte at a time through a tiny buffer and
// without the fast path, which must not change the result.
func TestEncodingAndSepHints(t *testing.T) {
	type want struct {
		names  []string
		delim  rune
		line0  int // file line of the first row
		err    error
		line   int // error line
		column int // error column
		msg    []string
	}
	cases := []struct {
		file string // in testdata/csv-oddities, or inline when data is set
		data string
		opts Options
		want want
	}{
		{file: "bom_twice.csv", want: want{names: []string{"age", "weight"}, delim: ',', line0: 2}},
		{file: "bom_thrice.csv", want: want{names: []string{"age", "weight"}, delim: ',', line0: 2}},
		{file: "excel_sep_hint.csv", want: want{names: []string{"age", "weight"}, delim: ';', line0: 3}},
		{file: "excel_sep_comma.csv", want: want{names: []string{"age", "weight"}, delim: ',', line0: 3}},
		{file: "excel_sep_tab.tsv", want: want{names: []string{"age", "weight"}, delim: '\t', line0: 3}},
		{file: "excel_sep_quoted_decimal_comma.csv", opts: Options{DecimalComma: true},
			want: want{names: []string{"age", "weight"}, delim: ';', line0: 3}},
		// The hint is consumed, but an explicit delimiter wins: "age;weight"
		// is then one column name and "34;70.5" not a number.
		{file: "excel_sep_hint.csv", opts: Options{Delimiter: ','},
			want: want{err: ErrNotNumeric, line: 3, column: 1, msg: []string{`"34;70.5"`}}},
		{file: "excel_sep_bom_error.csv", want: want{err: ErrNotNumeric, line: 4, column: 2, msg: []string{`"oops"`}}},
		{file: "excel_sep_invalid.csv", want: want{err: ErrOptions, line: 1, msg: []string{`"sep=."`, "cannot be one"}}},
		{file: "excel_sep_trailing.csv", want: want{err: ErrEmptyColumnName, line: 2, column: 3, msg: []string{"ends with a delimiter", `";"`}}},
		{file: "trailing_delimiter.csv", want: want{err: ErrEmptyColumnName, line: 1, column: 3, msg: []string{"ends with a delimiter"}}},
		{file: "latin1_header.csv", want: want{err: ErrEncoding, line: 1, column: 1,
			msg: []string{`"\xe2ge"`, "not valid UTF-8", "byte 0xE2 at byte 1", "Windows-1252", `save it as "CSV UTF-8"`}}},
		{file: "cp1252_header.csv", want: want{err: ErrEncoding, line: 1, column: 3,
			msg: []string{"line 1, column 3", "byte 0x93 at byte 1", `save it as "CSV UTF-8"`}}},
		// Loading a subset does not skip the check: every name is a name.
		{file: "cp1252_header.csv", opts: Options{Columns: []string{"id"}}, want: want{err: ErrEncoding, line: 1, column: 3}},
		// Not hints: the header is the first line.
		{data: "sep=\n1\n", want: want{names: []string{"sep="}, delim: ',', line0: 2}},
		{data: "sep=;x\n1;2\n", want: want{names: []string{"sep=", "x"}, delim: ';', line0: 2}},
		{data: "\"sep=;\nx\"\n1\n", want: want{names: []string{"sep=;\nx"}, delim: ',', line0: 3}},
		// A hint with CR line ends, and a hint alone.
		{data: "sep=|\ra|b\r1|2\r", want: want{names: []string{"a", "b"}, delim: '|', line0: 3}},
		{data: "sep=;", want: want{err: ErrEmpty}},
		// A category cell in a legacy encoding gets the same hint.
		{data: "g,y\n\xe9t\xe9,1\n", opts: Options{Categories: map[string]map[string]float64{"g": {"été": 1, "hiver": 0}}},
			want: want{err: ErrCategory, line: 2, column: 1, msg: []string{"not valid UTF-8", "CSV UTF-8"}}},
		// Valid UTF-8 names, including a BOM that is not at the start, load
		// unchanged.
		{data: "\xef\xbb\xbfâge,x\xef\xbb\xbf\n1,2\n", want: want{names: []string{"âge", "x\ufeff"}, delim: ',', line0: 2}},
	}
	for _, c := range cases {
		raw := []byte(c.data)
		name := c.file
		if c.file != "" {
			var err error
			if raw, err = os.ReadFile(filepath.Join(odditiesDir, c.file)); err != nil {
				t.Fatal(err)
			}
		} else {
			name = strings.ReplaceAll(c.data, "\n", `\n`)
		}
		t.Run(name, func(t *testing.T) {
			tab, rep, err := Load(bytes.NewReader(raw), c.opts)
			tab2, _, err2 := load(iotest.OneByteReader(bytes.NewReader(raw)), c.opts, tuning{bufSize: 3})
			tab3, _, err3 := load(bytes.NewReader(raw), c.opts, tuning{noFast: true})
			if describeFull(tab, err) != describeFull(tab2, err2) || describeFull(tab, err) != describeFull(tab3, err3) {
				t.Fatalf("read pattern changes the result: %s / %s / %s", describeFull(tab, err), describeFull(tab2, err2), describeFull(tab3, err3))
			}
			w := c.want
			if w.err == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !slices.Equal(tab.Names, w.names) || rep.Delimiter != w.delim || tab.Line(0) != w.line0 {
					t.Fatalf("names %q, delimiter %q, first row on line %d; want %q, %q, %d", tab.Names, rep.Delimiter, tab.Line(0), w.names, w.delim, w.line0)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, w.err) {
				t.Fatalf("error %v, want a *ParseError wrapping %q", err, w.err)
			}
			if pe.Line != w.line || pe.Column != w.column {
				t.Errorf("error at line %d, column %d; want %d, %d (%v)", pe.Line, pe.Column, w.line, w.column, err)
			}
			for _, m := range w.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

// describeFull is describe plus the names, data and full error text.
func describeFull(tab *Table, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	b.WriteString(describe(tab, nil))
	for _, n := range tab.Names {
		b.WriteString(" " + n)
	}
	for i := range tab.Rows {
		b.WriteString(" " + string(rune('0'+tab.Line(i)%10)))
	}
	return b.String()
}

// TestSkipPreamble: SkipPreamble leaves exactly what NewReader reads as the
// header line and after, for every file of both corpora and a few inline
// cases, so that another parser's first record is the loader's header.
func TestSkipPreamble(t *testing.T) {
	cases := map[string]string{
		"\xef\xbb\xbf\xef\xbb\xbfsep=;\r\na;b\r\n": "a;b\r\n",
		"\"SEP=,\",,\na,b\n":                       "a,b\n",
		"sep=;":                                    "",
		"sep=.\na\n":                               "sep=.\na\n", // not a valid hint: NewReader refuses it
		"sep=;x\na\n":                              "sep=;x\na\n",
		"a,b\n1,2\n":                               "a,b\n1,2\n",
		"\xef\xbb\xbf":                             "",
	}
	for in, want := range cases {
		got, err := io.ReadAll(SkipPreamble(iotest.OneByteReader(strings.NewReader(in))))
		if err != nil || string(got) != want {
			t.Errorf("SkipPreamble(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	var files []string
	for _, dir := range []string{corpusDir, odditiesDir} {
		f, _ := filepath.Glob(filepath.Join(dir, "*.*sv"))
		files = append(files, f...)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(bytes.NewReader(raw), Options{})
		if err != nil {
			continue
		}
		rest, err := io.ReadAll(SkipPreamble(bytes.NewReader(raw)))
		if err != nil {
			t.Fatal(err)
		}
		// The remaining bytes start with the header line NewReader read.
		rd2, err := NewReader(bytes.NewReader(rest), Options{Delimiter: rd.Delimiter()})
		if err != nil {
			t.Errorf("%s: after SkipPreamble: %v", filepath.Base(f), err)
		} else if !slices.Equal(rd2.Header(), rd.Header()) {
			t.Errorf("%s: header after SkipPreamble %q, NewReader's %q", filepath.Base(f), rd2.Header(), rd.Header())
		}
	}
}
