package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// Load reads a whole CSV file into a Table: a header line, then one row of
// numbers per line. See Options for what is accepted, and the package
// documentation for the format rules. Every error is a *ParseError naming
// the line and column where possible, wrapping one of the package's sentinel
// errors (errors.Is(err, ErrNotNumeric), ...) or an I/O error of src.
//
// The values are stored contiguously (Table.Data). When the size of src is
// known (an *os.File, bytes.Reader, strings.Reader, ...), Load estimates the
// number of rows from the first rows' byte lengths and allocates the table
// once: peak memory is then about the size of the loaded values plus a few
// percent and the 1 MiB read buffer. Otherwise it is about twice the values. On error the
// Table is nil and the report, when not nil, describes what was read.
func Load(src io.Reader, opts Options) (*Table, *LoadReport, error) {
	return load(src, opts, tuning{})
}

func load(src io.Reader, opts Options, tu tuning) (*Table, *LoadReport, error) {
	size, known := knownSize(src)
	rd, err := newReader(src, opts, tu)
	if err != nil {
		return nil, nil, err
	}
	w := len(rd.names)
	st := store{w: w}
	headerEnd := rd.consumed()
	var marks []lineMark
	prev := math.MinInt
	for {
		if err := rd.next(st.slot()); err != nil {
			if err == io.EOF {
				break
			}
			rep := rd.Report()
			return nil, &rep, err
		}
		st.commit()
		if rd.rowLine != prev+1 {
			marks = append(marks, lineMark{row: rd.rows - 1, line: rd.rowLine})
		}
		prev = rd.rowLine
		if known && rd.rows == probeRows {
			st.reserve(estimateRows(size, headerEnd, rd))
		}
	}
	rep := rd.Report()
	if rd.rows == 0 {
		return nil, &rep, noRows(rd)
	}
	t := &Table{
		Names:    rd.names,
		Data:     st.data(),
		Rows:     rd.rows,
		Bounds:   make([]*Bound, w),
		lines:    marks,
		fileCols: rd.fileCol,
	}
	return t, &rep, nil
}

// noRows is the error for a file without (kept) data rows.
func noRows(rd *Reader) error {
	if rd.dropped > 0 {
		return &ParseError{Err: errorf(ErrNoRows, fmt.Sprintf("no data rows left: all %d rows have a missing value", rd.dropped))}
	}
	return &ParseError{Line: rd.hline, Err: errorf(ErrNoRows, "the file has a header but no data rows")}
}

// probeRows is the number of rows after which Load, when it knows the input
// size, estimates the total number of rows and allocates the table once.
const probeRows = 4096

// estimateRows extrapolates the number of rows of a file of size bytes from
// the rows read so far, with a small margin. This uses only the byte length
// of the lines (a memory-allocation hint, never a statistic of the values).
func estimateRows(size, headerEnd int64, rd *Reader) int {
	done := rd.consumed()
	records := rd.rows + rd.dropped
	if done <= headerEnd || records == 0 || size <= done {
		return rd.rows
	}
	perRecord := float64(done-headerEnd) / float64(records)
	keep := float64(rd.rows) / float64(records)
	more := float64(size-done) / perRecord * keep
	est := rd.rows + int(more*1.02) + 1024
	// A value needs at least two bytes ("1,"): never reserve more than that.
	return min(est, rd.rows+int((size-done)/2/int64(len(rd.names)))+1)
}

// store accumulates rows. Without a size estimate it uses chunks of growing
// size, so that growing never copies the data, and data() concatenates them
// once: peak memory about twice the data. With an estimate (reserve) it
// fills one array directly: peak about the data plus the estimate's margin;
// if the estimate is too small the rest goes to chunks as before.
type store struct {
	w     int
	full  [][]float64
	cur   []float64
	total int
}

const maxChunk = 1 << 20 // values per chunk (8 MiB)

// slot returns room for one more row, not yet part of the store.
func (s *store) slot() []float64 {
	if len(s.cur)+s.w > cap(s.cur) {
		if s.cur != nil {
			s.full = append(s.full, s.cur)
		}
		c := max(min(2*cap(s.cur), maxChunk), 64*s.w)
		c = max(c/s.w, 1) * s.w
		s.cur = make([]float64, 0, c)
	}
	n := len(s.cur)
	return s.cur[n : n+s.w : n+s.w]
}

// commit adds the row written into the last slot.
func (s *store) commit() {
	s.cur = s.cur[:len(s.cur)+s.w]
	s.total += s.w
}

// reserve moves the rows into one array with room for rows rows in all.
func (s *store) reserve(rows int) {
	if rows*s.w <= cap(s.cur) || rows*s.w <= s.total {
		return
	}
	a := make([]float64, 0, rows*s.w)
	for _, c := range s.full {
		a = append(a, c...)
	}
	a = append(a, s.cur...)
	s.full, s.cur = nil, a
}

func (s *store) data() []float64 {
	if len(s.full) == 0 && cap(s.cur)-len(s.cur) <= len(s.cur)/8 {
		// One array, little unused room: keep it (no copy).
		return s.cur[:len(s.cur):len(s.cur)]
	}
	out := make([]float64, s.total)
	n := 0
	for i, c := range s.full {
		n += copy(out[n:], c)
		s.full[i] = nil
	}
	copy(out[n:], s.cur)
	s.full, s.cur = nil, nil
	return out
}

// lineMark says that row starts at file line line; rows after it follow on
// consecutive lines until the next mark.
type lineMark struct{ row, line int }

// Line returns the 1-based file line of row i (0-based), or 0 when the table
// was not read from a file. It is meant for local error messages only.
func (t *Table) Line(i int) int {
	k := sort.Search(len(t.lines), func(k int) bool { return t.lines[k].row > i }) - 1
	if k < 0 || i < 0 || i >= t.Rows {
		return 0
	}
	return t.lines[k].line + (i - t.lines[k].row)
}

// CellError wraps err with the location of row i, column j (both 0-based)
// of t: its file line and column when t was loaded from a file, its row
// number otherwise. Packages that validate values after loading (a model
// checking that an outcome is in its support, say) use it so that their
// errors read like load errors:
//
//	line 17, column 3 ("y"): 2 is not 0 or 1
//
// The message is for the local user only and is never exported.
func (t *Table) CellError(i, j int, err error) *ParseError {
	pe := &ParseError{Row: i + 1, Line: t.Line(i), Column: j + 1, Err: err}
	if j >= 0 && j < len(t.Names) {
		pe.ColumnName = t.Names[j]
		if t.fileCols != nil {
			pe.Column = t.fileCols[j] + 1
		}
	}
	return pe
}

// FromColumns builds a table from column slices (all the same length), for
// tests and generated data. The values are copied. Names must be non-empty
// and unique, values finite.
func FromColumns(names []string, cols [][]float64) (*Table, error) {
	if len(names) == 0 {
		return nil, errors.New("dataset: no columns")
	}
	if len(names) != len(cols) {
		return nil, fmt.Errorf("dataset: %d names for %d columns", len(names), len(cols))
	}
	seen := make(map[string]bool, len(names))
	for j, n := range names {
		if n == "" {
			return nil, &ParseError{Column: j + 1, Err: ErrEmptyColumnName}
		}
		if seen[n] {
			return nil, &ParseError{Column: j + 1, ColumnName: n, Err: ErrDuplicateColumn}
		}
		seen[n] = true
	}
	rows := len(cols[0])
	w := len(names)
	data := make([]float64, rows*w)
	for j, c := range cols {
		if len(c) != rows {
			return nil, &ParseError{Column: j + 1, ColumnName: names[j],
				Err: errorf(ErrRagged, fmt.Sprintf("%d values, but column 1 has %d", len(c), rows))}
		}
		for i, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &ParseError{Row: i + 1, Column: j + 1, ColumnName: names[j],
					Err: errorf(ErrNonFinite, fmt.Sprintf("%v is not a finite number", v))}
			}
			data[i*w+j] = v
		}
	}
	return &Table{
		Names:  append([]string(nil), names...),
		Data:   data,
		Rows:   rows,
		Bounds: make([]*Bound, w),
	}, nil
}
