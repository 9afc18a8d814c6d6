package dataset

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// chunksMatchLoad checks that Chunks, with several chunk sizes, returns
// Load's error or delivers Load's rows bit for bit, with the same file
// lines, cell errors and report.
func chunksMatchLoad(t *testing.T, raw []byte, opts Options) {
	t.Helper()
	tab, rep, err := Load(bytes.NewReader(raw), opts)
	for _, size := range []int{1, 2, 7, 4096} {
		var data []float64
		var lines []int
		var cellErrs []string
		rows := 0
		crep, cerr := Chunks(bytes.NewReader(raw), opts, size, func(c Chunk) error {
			if c.Start != rows || c.Rows < 1 || c.Rows > size || len(c.Data) != c.Rows*c.Cols() {
				return fmt.Errorf("chunk start %d rows %d data %d after %d rows", c.Start, c.Rows, len(c.Data), rows)
			}
			if c.EstRows < c.Start+c.Rows {
				return fmt.Errorf("estimate %d below the %d rows read", c.EstRows, c.Start+c.Rows)
			}
			data = append(data, c.Data...)
			for i := range c.Rows {
				lines = append(lines, c.Line(i))
				cellErrs = append(cellErrs, c.CellError(i, c.Cols()-1, ErrNotNumeric).Error())
			}
			rows += c.Rows
			return nil
		})
		if (err == nil) != (cerr == nil) || (err != nil && err.Error() != cerr.Error()) {
			t.Fatalf("chunks of %d: error %v, Load: %v", size, cerr, err)
		}
		if (rep == nil) != (crep == nil) || (rep != nil && !reflect.DeepEqual(*rep, *crep)) {
			t.Fatalf("chunks of %d: report %+v, Load: %+v", size, crep, rep)
		}
		if err != nil {
			continue
		}
		if rows != tab.Rows || len(data) != len(tab.Data) {
			t.Fatalf("chunks of %d: %d rows, %d values; Load: %d, %d", size, rows, len(data), tab.Rows, len(tab.Data))
		}
		for k, v := range data {
			if math.Float64bits(v) != math.Float64bits(tab.Data[k]) {
				t.Fatalf("chunks of %d: value %d differs", size, k)
			}
		}
		for i := range rows {
			if lines[i] != tab.Line(i) {
				t.Fatalf("chunks of %d: row %d on line %d, Load: %d", size, i, lines[i], tab.Line(i))
			}
			// Row numbers in cell errors are the chunk's (Start tells
			// where it is); line and column are the file's.
			want := tab.CellError(i, tab.Cols()-1, ErrNotNumeric)
			want.Row = i%size + 1
			if cellErrs[i] != want.Error() {
				t.Fatalf("chunks of %d: cell error %q, Load: %q", size, cellErrs[i], want.Error())
			}
		}
	}
}

// TestChunksMatchLoad runs chunksMatchLoad on both corpora with the option
// sets of TestCSVOddities.
func TestChunksMatchLoad(t *testing.T) {
	var files []string
	for _, dir := range []string{corpusDir, odditiesDir} {
		f, err := filepath.Glob(filepath.Join(dir, "*.*sv"))
		if err != nil || len(f) == 0 {
			t.Fatalf("no corpus in %s: %v", dir, err)
		}
		files = append(files, f...)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			for _, o := range []Options{{}, {Missing: MissingDropRows}, {DecimalComma: true, Delimiter: ';'}, {Delimiter: '\t'}} {
				chunksMatchLoad(t, raw, o)
			}
		})
	}
	// Gaps between rows (blank lines, multi-line quoted cells) across chunk
	// boundaries, dropped rows, and an error in a later chunk.
	chunksMatchLoad(t, []byte("a,b\n1,2\n\n3,4\n\"5\n\",6\n7,8\n\n\n9,10\n"), Options{})
	chunksMatchLoad(t, []byte("a,b\n1,2\n,4\n5,6\nNA,8\n9,10\n"), Options{Missing: MissingDropRows})
	chunksMatchLoad(t, []byte("a,b\n1,2\n3,4\n5,6\n7,x\n"), Options{})
	chunksMatchLoad(t, []byte("a,b\n,2\nNA,4\n"), Options{Missing: MissingDropRows})
}

// TestChunksCallbackError checks that an error from fn stops the read and
// comes back unchanged.
func TestChunksCallbackError(t *testing.T) {
	stop := fmt.Errorf("stop")
	calls := 0
	_, err := Chunks(bytes.NewReader([]byte("a\n1\n2\n3\n")), Options{}, 1, func(Chunk) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}
