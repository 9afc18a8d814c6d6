package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func mustLoad(t *testing.T, s string, opts Options) (*Table, *LoadReport) {
	t.Helper()
	tab, rep, err := Load(strings.NewReader(s), opts)
	if err != nil {
		t.Fatalf("Load(%q): %v", s, err)
	}
	return tab, rep
}

func loadErr(t *testing.T, s string, opts Options) error {
	t.Helper()
	tab, _, err := Load(strings.NewReader(s), opts)
	if err == nil {
		t.Fatalf("Load(%q) = %v, want an error", s, tab.Data)
	}
	return err
}

func TestLoadBasic(t *testing.T) {
	tab, rep := mustLoad(t, "a,b,c\n1,2,3\n4,5,6\n", Options{})
	if !slices.Equal(tab.Names, []string{"a", "b", "c"}) || tab.Rows != 2 || tab.Cols() != 3 {
		t.Fatalf("got %+v", tab)
	}
	if !slices.Equal(tab.Data, []float64{1, 2, 3, 4, 5, 6}) || tab.At(1, 2) != 6 {
		t.Fatalf("data %v", tab.Data)
	}
	if rep.Rows != 2 || rep.Delimiter != ',' || rep.Bytes != 18 {
		t.Fatalf("report %+v", rep)
	}
	if len(tab.Data) != cap(tab.Data) {
		t.Errorf("data not trimmed: len %d cap %d", len(tab.Data), cap(tab.Data))
	}
}

func TestMissingTokens(t *testing.T) {
	for _, tok := range []string{"", "NA", "na", "NaN", "nan", "NAN", "N/A", "n/a", "null", "NULL", "Null", ".", `""`, `"NA"`, "  ", " NA "} {
		in := "a,b\n1," + tok + "\n2,3\n"
		err := loadErr(t, in, Options{})
		checkErr(t, err, ErrMissing, 2, 2, "b", "missing value")
		tab, rep := mustLoad(t, in, Options{Missing: MissingDropRows})
		if !slices.Equal(tab.Data, []float64{2, 3}) || rep.DroppedRows != 1 || rep.Rows != 1 {
			t.Errorf("%q: drop gave %v %+v", tok, tab.Data, rep)
		}
	}
	// Not missing: these are errors of their own kind.
	checkErr(t, loadErr(t, "a\n-\n", Options{}), ErrNotNumeric, 2, 1, "a", "")
	checkErr(t, loadErr(t, "a\nNone\n", Options{}), ErrNotNumeric, 2, 1, "a", "")
}

func TestDropRowsStillValidates(t *testing.T) {
	// A row with a missing value is dropped, but its other cells must be
	// valid: a typo is never silently discarded.
	err := loadErr(t, "a,b\n1,2\nNA,x\n", Options{Missing: MissingDropRows})
	checkErr(t, err, ErrNotNumeric, 3, 2, "b", `"x"`)
	err = loadErr(t, "a,b\nNA,NA\n,\n", Options{Missing: MissingDropRows})
	checkErr(t, err, ErrNoRows, 0, 0, "", "all 2 rows")
}

func TestNonFinite(t *testing.T) {
	for _, tok := range []string{"Inf", "inf", "-Inf", "+inf", "Infinity", "-INFINITY", "1e309", "-1e400", `"inf"`} {
		err := loadErr(t, "a\n"+tok+"\n", Options{Missing: MissingDropRows})
		checkErr(t, err, ErrNonFinite, 2, 1, "a", "finite")
	}
	// Underflow is a finite value (zero or subnormal), as in strconv.
	tab, _ := mustLoad(t, "a\n1e-400\n4.9e-324\n", Options{})
	if tab.Data[0] != 0 || tab.Data[1] != 5e-324 {
		t.Errorf("underflow: %v", tab.Data)
	}
}

func TestColumnsSubset(t *testing.T) {
	in := "id,name,y,x\n1,alice,0,1.5\n2,bob,1,2.5\n"
	tab, _ := mustLoad(t, in, Options{Columns: []string{"x", "y"}})
	if !slices.Equal(tab.Names, []string{"x", "y"}) || !slices.Equal(tab.Data, []float64{1.5, 0, 2.5, 1}) {
		t.Fatalf("got %v %v", tab.Names, tab.Data)
	}
	// The file column is kept for errors about the table.
	pe := tab.CellError(1, 1, errors.New("2 is not 0 or 1"))
	if pe.Error() != `line 3, column 3 ("y"): 2 is not 0 or 1` {
		t.Errorf("CellError: %v", pe)
	}
	// Missing outcome column.
	err := loadErr(t, in, Options{Columns: []string{"x", "outcome"}})
	checkErr(t, err, ErrUnknownColumn, 1, 0, "outcome", `"id", "name", "y", "x"`)
	// The outcome selected again as a predictor is named as the outcome.
	if err := loadErr(t, in, Options{Columns: []string{"y", "x", "y"}, Outcome: "y"}); err == nil || !strings.Contains(err.Error(), `column "y" is the outcome and cannot also be a predictor`) {
		t.Errorf("outcome twice: %v", err)
	}
	if err := loadErr(t, in, Options{Columns: []string{"y", "x", "x"}, Outcome: "y"}); err == nil || !strings.Contains(err.Error(), `column "x" selected twice`) {
		t.Errorf("predictor twice: %v", err)
	}
	// Skipped columns are not validated, but rows must still be whole.
	checkErr(t, loadErr(t, "a,b\n1\n", Options{Columns: []string{"a"}}), ErrRagged, 2, 2, "b", "")
	// Bad selections.
	for _, cols := range [][]string{{}, {"x", "x"}} {
		if err := loadErr(t, in, Options{Columns: cols}); !errors.Is(err, ErrOptions) {
			t.Errorf("Columns %q: %v", cols, err)
		}
	}
}

func TestCategories(t *testing.T) {
	cats := map[string]map[string]float64{"smoker": {"yes": 1, "no": 0}}
	tab, _ := mustLoad(t, "age,smoker\n30,yes\n40, no \n50,\"yes\"\n", Options{Categories: cats})
	if !slices.Equal(tab.Data, []float64{30, 1, 40, 0, 50, 1}) {
		t.Fatalf("got %v", tab.Data)
	}
	// Values outside the mapping (case matters; numbers too) are errors
	// listing the mapping.
	for _, v := range []string{"Yes", "maybe", "1"} {
		err := loadErr(t, "age,smoker\n30,yes\n40,"+v+"\n", Options{Categories: cats})
		checkErr(t, err, ErrCategory, 3, 2, "smoker", `"no", "yes"`)
	}
	// Missing values in a mapped column follow the policy.
	checkErr(t, loadErr(t, "age,smoker\n30,NA\n", Options{Categories: cats}), ErrMissing, 2, 2, "smoker", "")
	tab, rep := mustLoad(t, "age,smoker\n30,NA\n40,no\n", Options{Categories: cats, Missing: MissingDropRows})
	if !slices.Equal(tab.Data, []float64{40, 0}) || rep.DroppedRows != 1 {
		t.Errorf("got %v %+v", tab.Data, rep)
	}
	// A mapping for a column that is not in the file.
	err := loadErr(t, "age\n30\n", Options{Categories: cats})
	checkErr(t, err, ErrUnknownColumn, 1, 0, "smoker", "category mapping")
	// A mapping for a column that exists but is not selected is ignored.
	mustLoad(t, "age,smoker\n30,x\n", Options{Categories: cats, Columns: []string{"age"}})
	// Bad mappings.
	for _, m := range []map[string]float64{{}, {"a": math.NaN()}, {" ": 1}, {"a": 1, " a": 2}, {"a": math.Inf(1)}} {
		err := loadErr(t, "s\na\n", Options{Categories: map[string]map[string]float64{"s": m}})
		if !errors.Is(err, ErrOptions) {
			t.Errorf("mapping %v: %v", m, err)
		}
	}
}

func TestDelimiters(t *testing.T) {
	for _, c := range []struct {
		in    string
		opts  Options
		delim rune
		names []string
		data  []float64
	}{
		{"a;b\n1;2\n", Options{}, ';', []string{"a", "b"}, []float64{1, 2}},
		{"a\tb\n1\t2\n", Options{}, '\t', []string{"a", "b"}, []float64{1, 2}},
		{"a|b\n1|2\n", Options{Delimiter: '|'}, '|', []string{"a", "b"}, []float64{1, 2}},
		{"a,b\n1,2\n", Options{Delimiter: ';'}, ';', []string{"a,b"}, nil}, // forced: one column "a,b" then error below
		{"single\n1\n2\n", Options{}, ',', []string{"single"}, []float64{1, 2}},
		{"\"a;x\",b\n1,2\n", Options{}, ',', []string{"a;x", "b"}, []float64{1, 2}},
		// Header and first row agree on ';' but not on ',' (decimal commas).
		{"a;b;c\n1,5;2,5;3\n", Options{DecimalComma: true}, ';', []string{"a", "b", "c"}, []float64{1.5, 2.5, 3}},
		// Tabs are delimiters, not trimmed, in a TSV; a tab-only cell is empty.
		{"a\tb\n1\t 2 \n", Options{}, '\t', []string{"a", "b"}, []float64{1, 2}},
		// Blank lines before the header are skipped.
		{"\n\na,b\n1,2\n", Options{}, ',', []string{"a", "b"}, []float64{1, 2}},
	} {
		tab, rep, err := Load(strings.NewReader(c.in), c.opts)
		if c.data == nil {
			if err == nil {
				t.Errorf("%q: want error", c.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if rep.Delimiter != c.delim || !slices.Equal(tab.Names, c.names) || !slices.Equal(tab.Data, c.data) {
			t.Errorf("%q: delim %q names %q data %v", c.in, rep.Delimiter, tab.Names, tab.Data)
		}
	}
	for _, d := range []rune{'"', '\n', '\r', ' ', '.', '-', '+', '5', 'a', 'é'} {
		if err := loadErr(t, "a\n1\n", Options{Delimiter: d}); !errors.Is(err, ErrOptions) {
			t.Errorf("delimiter %q: %v", d, err)
		}
	}
}

func TestQuoting(t *testing.T) {
	tab, _ := mustLoad(t, "\"a \"\"x\"\"\",\"b\nc\"\n\"1\",\" 2 \"\n", Options{})
	if !slices.Equal(tab.Names, []string{`a "x"`, "b\nc"}) || !slices.Equal(tab.Data, []float64{1, 2}) {
		t.Fatalf("got %q %v", tab.Names, tab.Data)
	}
	if tab.Line(0) != 3 {
		t.Errorf("line after a two-line header: %d", tab.Line(0))
	}
	checkErr(t, loadErr(t, "a,b\n\"1\"x,2\n", Options{}), ErrQuote, 2, 1, "a", "closing quote")
	checkErr(t, loadErr(t, "a,b\n1,\"2\n\n3,4\n", Options{}), ErrQuote, 2, 2, "b", "not closed")
	// A quoted cell spanning lines: the error names the line it starts on.
	checkErr(t, loadErr(t, "a,b\n1,\"x\ny\"\n", Options{}), ErrNotNumeric, 2, 2, "b", "")
}

func TestEmptyAndHeaderErrors(t *testing.T) {
	for _, in := range []string{"", "\n\n", "\ufeff", "  \n \r\n"} {
		checkErr(t, loadErr(t, in, Options{}), ErrEmpty, 0, 0, "", "empty")
	}
	for _, in := range []string{"a,b", "a,b\n", "a,b\r\n\r\n", "\ufeffa,b\n  \n"} {
		checkErr(t, loadErr(t, in, Options{}), ErrNoRows, 1, 0, "", "no data rows")
	}
	checkErr(t, loadErr(t, "a, a \n1,2\n", Options{}), ErrDuplicateColumn, 1, 2, "a", "also column 1")
	checkErr(t, loadErr(t, "a,\"\"\n1,2\n", Options{}), ErrEmptyColumnName, 1, 2, "", "empty column name")
	checkErr(t, loadErr(t, "a,b,\n1,2,\n", Options{}), ErrEmptyColumnName, 1, 3, "", "")
}

func TestMaxBytes(t *testing.T) {
	in := "a,b\n1,2\n3,4\n"
	// Known size: refused before reading.
	err := loadErr(t, in, Options{MaxBytes: 10})
	checkErr(t, err, ErrTooLarge, 0, 0, "", "limit of 10 bytes")
	// Unknown size: refused once the limit is passed.
	_, _, err = Load(io.MultiReader(strings.NewReader(in)), Options{MaxBytes: 10})
	checkErr(t, err, ErrTooLarge, 0, 0, "", "limit of 10 bytes")
	// At the limit: fine, both ways.
	mustLoad(t, in, Options{MaxBytes: int64(len(in))})
	if _, _, err := Load(io.MultiReader(strings.NewReader(in)), Options{MaxBytes: int64(len(in))}); err != nil {
		t.Fatal(err)
	}
	if err := loadErr(t, in, Options{MaxBytes: -1}); !errors.Is(err, ErrOptions) {
		t.Error(err)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, _, err := Load(io.MultiReader(strings.NewReader("a,b\n1,2\n"), iotest.ErrReader(boom)), Options{})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("not a ParseError: %v", err)
	}
}

func TestReaderStreaming(t *testing.T) {
	rd, err := NewReader(strings.NewReader("x,y,z\n1,2,3\nNA,5,6\n7,NA,9\n"), Options{Columns: []string{"z", "x"}, Missing: MissingDropRows})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rd.Names(), []string{"z", "x"}) || !slices.Equal(rd.Header(), []string{"x", "y", "z"}) || rd.Delimiter() != ',' {
		t.Fatalf("names %q header %q", rd.Names(), rd.Header())
	}
	var got [][]float64
	var lines []int
	for {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, slices.Clone(row))
		lines = append(lines, rd.Line())
	}
	if fmt.Sprint(got) != "[[3 1] [9 7]]" || !slices.Equal(lines, []int{2, 4}) {
		t.Fatalf("got %v lines %v", got, lines)
	}
	if rep := rd.Report(); rep.Rows != 2 || rep.DroppedRows != 1 {
		t.Fatalf("report %+v", rep)
	}
	// Errors are sticky.
	rd, _ = NewReader(strings.NewReader("x\nq\n1\n"), Options{})
	_, err1 := rd.Next()
	_, err2 := rd.Next()
	if err1 == nil || err1 != err2 {
		t.Fatalf("errors %v, %v", err1, err2)
	}
}

func TestTableLineAndCellError(t *testing.T) {
	in := "a,\"b\nb\"\n1,2\n\n3,NA\n4,5\n\n\n6,7\n8,9"
	tab, _, err := Load(strings.NewReader(in), Options{Missing: MissingDropRows})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{3, 6, 9, 10}
	for i, l := range want {
		if got := tab.Line(i); got != l {
			t.Errorf("Line(%d) = %d, want %d", i, got, l)
		}
	}
	if tab.Line(-1) != 0 || tab.Line(4) != 0 {
		t.Error("Line out of range")
	}
	e := tab.CellError(2, 0, errors.New("bad"))
	if e.Error() != `line 9, column 1 ("a"): bad` || e.Row != 3 {
		t.Errorf("%v (row %d)", e, e.Row)
	}
	ft, err := FromColumns([]string{"y"}, [][]float64{{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	support := errors.New("outside the support")
	e = ft.CellError(2, 0, fmt.Errorf("2 is %w", support))
	if e.Error() != `row 3, column 1 ("y"): 2 is outside the support` || !errors.Is(e, support) {
		t.Errorf("%v", e)
	}
}

func TestFromColumns(t *testing.T) {
	tab, err := FromColumns([]string{"a", "b"}, [][]float64{{1, 2, 3}, {4, 5, 6}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 3 || !slices.Equal(tab.Data, []float64{1, 4, 2, 5, 3, 6}) || len(tab.Bounds) != 2 {
		t.Fatalf("%+v", tab)
	}
	if !slices.Equal(tab.Column(1), []float64{4, 5, 6}) {
		t.Error(tab.Column(1))
	}
	for _, c := range []struct {
		names []string
		cols  [][]float64
		err   error
	}{
		{[]string{"a", "a"}, [][]float64{{1}, {2}}, ErrDuplicateColumn},
		{[]string{"a", ""}, [][]float64{{1}, {2}}, ErrEmptyColumnName},
		{[]string{"a", "b"}, [][]float64{{1}, {2, 3}}, ErrRagged},
		{[]string{"a"}, [][]float64{{math.NaN()}}, ErrNonFinite},
		{[]string{"a"}, [][]float64{{math.Inf(-1)}}, ErrNonFinite},
	} {
		if _, err := FromColumns(c.names, c.cols); !errors.Is(err, c.err) {
			t.Errorf("%q %v: %v, want %v", c.names, c.cols, err, c.err)
		}
	}
	if _, err := FromColumns(nil, nil); err == nil {
		t.Error("no columns accepted")
	}
	if _, err := FromColumns([]string{"a"}, nil); err == nil {
		t.Error("mismatch accepted")
	}
}

// randomCSV writes a random numeric table with random (valid) formatting:
// delimiter, quoting, padding, line ends, blank lines, BOM. It returns the
// text, the expected values and the delimiter.
func randomCSV(rng *rand.Rand) (string, []float64, int, byte) {
	delims := []byte{',', ';', '\t'}
	d := delims[rng.IntN(3)]
	cols := 1 + rng.IntN(5)
	rows := 1 + rng.IntN(40)
	eols := []string{"\n", "\r\n", "\r"}
	eol := eols[rng.IntN(3)]
	var b strings.Builder
	if rng.IntN(4) == 0 {
		b.WriteString("\ufeff")
	}
	pad := func() {
		if d != '\t' && rng.IntN(5) == 0 {
			b.WriteString(strings.Repeat(" ", rng.IntN(3)))
		}
	}
	for j := range cols {
		if j > 0 {
			b.WriteByte(d)
		}
		pad()
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&b, "\"c%d \"\"q\"\"\"", j)
		} else {
			fmt.Fprintf(&b, "c%d", j)
		}
		pad()
	}
	b.WriteString(eol)
	var data []float64
	for i := range rows {
		for j := range cols {
			if j > 0 {
				b.WriteByte(d)
			}
			var s string
			switch rng.IntN(4) {
			case 0:
				s = strconv.Itoa(rng.IntN(2000) - 1000)
			case 1:
				s = strconv.FormatFloat(rng.NormFloat64(), 'g', 1+rng.IntN(17), 64)
			case 2:
				s = strconv.FormatFloat(math.Float64frombits(rng.Uint64()>>2), 'e', -1, 64)
			default:
				s = strconv.FormatFloat(rng.ExpFloat64()*1e5, 'f', rng.IntN(6), 64)
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				panic(err)
			}
			data = append(data, v)
			pad()
			if rng.IntN(3) == 0 {
				s = "\"" + s + "\""
			}
			b.WriteString(s)
			pad()
		}
		if i < rows-1 || rng.IntN(2) == 0 {
			b.WriteString(eol)
		}
		if rng.IntN(10) == 0 {
			b.WriteString(eol)
		}
	}
	if cols == 1 {
		d = ',' // nothing to detect
	}
	return b.String(), data, rows, d
}

// TestBufferBoundaries loads random files through every small buffer size
// and through readers that return few bytes at a time, checking the exact
// values every time.
func TestBufferBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300
	if testing.Short() {
		n = 50
	}
	for k := range n {
		in, want, rows, d := randomCSV(rng)
		for _, bs := range []int{1, 2, 3, 5, 8, 13, 64, 0} {
			var src io.Reader = strings.NewReader(in)
			switch bs % 3 {
			case 1:
				src = iotest.OneByteReader(src)
			case 2:
				src = iotest.HalfReader(src)
			}
			tab, rep, err := load(src, Options{}, tuning{bufSize: bs, noFast: bs == 13})
			if err != nil {
				t.Fatalf("case %d, buffer %d: %v\n%q", k, bs, err, in)
			}
			if tab.Rows != rows || rep.Delimiter != rune(d) || !slices.Equal(tab.Data, want) {
				t.Fatalf("case %d, buffer %d: rows %d delim %q data %v, want %d %q %v\n%q", k, bs, tab.Rows, rep.Delimiter, tab.Data, rows, d, want, in)
			}
		}
	}
}

func TestLargeRecord(t *testing.T) {
	// One record much longer than the buffer: the buffer grows.
	var b strings.Builder
	var want []float64
	for j := range 5000 {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteByte('\n')
	for j := range 5000 {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d.5", j)
		want = append(want, float64(j)+0.5)
	}
	tab, _, err := load(iotest.HalfReader(strings.NewReader(b.String())), Options{}, tuning{bufSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Data, want) {
		t.Fatal("data differs")
	}
}

func TestStoreChunks(t *testing.T) {
	// Enough rows to need several chunks.
	var b bytes.Buffer
	genCSV(&b, 150_000, 7, 5, 9)
	tab, _, err := Load(bytes.NewReader(b.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Compare with a row-by-row reading.
	rd, err := NewReader(bytes.NewReader(b.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		row, err := rd.Next()
		if err == io.EOF {
			if i != tab.Rows {
				t.Fatalf("rows %d vs %d", i, tab.Rows)
			}
			break
		}
		if !slices.Equal(row, tab.Data[i*7:(i+1)*7]) {
			t.Fatalf("row %d differs", i)
		}
	}
	if len(tab.Data) != cap(tab.Data) || tab.Line(149_999) != 150_001 {
		t.Errorf("cap %d, last line %d", cap(tab.Data), tab.Line(149_999))
	}
}

// TestStoreEstimates checks the loaded data whether the row-count estimate
// (made when the input size is known) is right, too small or too large, and
// without one.
func TestStoreEstimates(t *testing.T) {
	mk := func(first, rest string, n1, n2 int) []byte {
		var b bytes.Buffer
		b.WriteString("a,b,c\n")
		for range n1 {
			b.WriteString(first)
		}
		for range n2 {
			b.WriteString(rest)
		}
		return b.Bytes()
	}
	for _, c := range []struct {
		name   string
		in     []byte
		n1, n2 int
		v1, v2 []float64
	}{
		{"even", mk("1,2,3\n", "4,5,6\n", 5000, 100_000), 5000, 100_000, []float64{1, 2, 3}, []float64{4, 5, 6}},
		{"too small", mk("1.000000,2.000000,3.000000\n", "4,5,6\n", 5000, 100_000), 5000, 100_000, []float64{1, 2, 3}, []float64{4, 5, 6}},
		{"too large", mk("1,2,3\n", "4.000000,5.000000,6.000000\n", 5000, 100_000), 5000, 100_000, []float64{1, 2, 3}, []float64{4, 5, 6}},
		{"dropped", mk("1,NA,3\n1,2,3\n", "4,5,6\n", 3000, 100_000), 3000, 100_000, []float64{1, 2, 3}, []float64{4, 5, 6}},
	} {
		for _, known := range []bool{true, false} {
			var src io.Reader = bytes.NewReader(c.in)
			if !known {
				src = io.MultiReader(src)
			}
			tab, _, err := Load(src, Options{Missing: MissingDropRows})
			if err != nil {
				t.Fatal(err)
			}
			if tab.Rows != c.n1+c.n2 || len(tab.Data) != 3*tab.Rows {
				t.Fatalf("%s: %d rows", c.name, tab.Rows)
			}
			for i := range tab.Rows {
				want := c.v1
				if i >= c.n1 {
					want = c.v2
				}
				if !slices.Equal(tab.Data[3*i:3*i+3], want) {
					t.Fatalf("%s (known size %v): row %d = %v", c.name, known, i, tab.Data[3*i:3*i+3])
				}
			}
			if waste := cap(tab.Data) - len(tab.Data); waste > len(tab.Data)/8 {
				t.Errorf("%s: cap %d for len %d", c.name, cap(tab.Data), len(tab.Data))
			}
		}
	}
}
