package dataset

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

var sentinels = []error{
	ErrEmpty, ErrNoRows, ErrRagged, ErrNotNumeric, ErrMissing, ErrNonFinite, ErrDuplicateColumn,
	ErrEmptyColumnName, ErrUnknownColumn, ErrCategory, ErrQuote, ErrTooLarge, ErrEncoding, ErrOptions,
}

// FuzzLoad checks that Load never panics, that every error is a *ParseError
// wrapping a sentinel, that a loaded table is well formed (names valid
// UTF-8, no leading BOM), and that the result does not depend on how the
// input is split into reads, on the fast path, or on reading it in chunks.
// The committed corpus under testdata/csv seeds it. In CI it runs briefly:
//
//	go test -run '^$' -fuzz FuzzLoad -fuzztime 30s ./core/dataset/
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.*sv"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, uint8(0), false, false, false)
		f.Add(raw, uint8(2), true, true, true)
	}
	f.Add([]byte("a,b\n1,\"2\"\"\"\n"), uint8(1), false, false, false)
	f.Fuzz(func(t *testing.T, in []byte, delim uint8, drop, decimalComma, subset bool) {
		opts := Options{DecimalComma: decimalComma}
		opts.Delimiter = []rune{0, ',', ';', '\t', '|'}[int(delim)%5]
		if drop {
			opts.Missing = MissingDropRows
		}
		if subset {
			opts.Columns = []string{"b", "a"}
			opts.Categories = map[string]map[string]float64{"b": {"yes": 1, "no": 0}}
		}
		tab, rep, err := Load(bytes.NewReader(in), opts)
		// The same input read a byte at a time through a tiny buffer, and
		// without the fast path.
		tab2, _, err2 := load(iotest.OneByteReader(bytes.NewReader(in)), opts, tuning{bufSize: 3})
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("read pattern changes the result: %v vs %v", err, err2)
		}
		tab3, _, err3 := load(bytes.NewReader(in), opts, tuning{noFast: true})
		if (err == nil) != (err3 == nil) || (err != nil && err.Error() != err3.Error()) {
			t.Fatalf("the fast path changes the result: %v vs %v", err, err3)
		}
		// Chunks (the CLI's streaming path) delivers the same rows.
		var chunked []float64
		_, err4 := Chunks(bytes.NewReader(in), opts, 2, func(c Chunk) error {
			chunked = append(chunked, c.Data...)
			return nil
		})
		if (err == nil) != (err4 == nil) || (err != nil && err.Error() != err4.Error()) {
			t.Fatalf("Chunks changes the result: %v vs %v", err, err4)
		}
		if err == nil && !slices.Equal(chunked, tab.Data) {
			t.Fatalf("Chunks changes the data")
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			known := false
			for _, s := range sentinels {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		if !slices.Equal(tab.Names, tab2.Names) || !slices.Equal(tab.Data, tab2.Data) ||
			!slices.Equal(tab.Data, tab3.Data) {
			t.Fatalf("read pattern or fast path changes the data")
		}
		for i := range tab.Rows {
			if tab.Line(i) != tab2.Line(i) || tab.Line(i) != tab3.Line(i) {
				t.Fatalf("line of row %d differs", i)
			}
		}
		if tab.Rows < 1 || tab.Cols() < 1 || len(tab.Data) != tab.Rows*tab.Cols() || rep.Rows != tab.Rows {
			t.Fatalf("malformed table: rows %d cols %d data %d", tab.Rows, tab.Cols(), len(tab.Data))
		}
		seen := map[string]bool{}
		for _, n := range tab.Names {
			if n == "" || seen[n] || !utf8.ValidString(n) || strings.HasPrefix(n, "\ufeff") {
				t.Fatalf("bad names %q", tab.Names)
			}
			seen[n] = true
		}
		for _, v := range tab.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite value %v", v)
			}
		}
		for i := range tab.Rows {
			if l := tab.Line(i); l < 1 || (i > 0 && l <= tab.Line(i-1)) {
				t.Fatalf("line of row %d: %d", i, l)
			}
		}
	})
}
