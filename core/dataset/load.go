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
// The values are stored contiguously (Table.Data); peak memory is about
// twice the size of the loaded values plus a 1 MiB read buffer. On error the
// Table is nil and the report, when not nil, describes what was read.
func Load(src io.Reader, opts Options) (*Table, *LoadReport, error) {
	return load(src, opts, tuning{})
}

func load(src io.Reader, opts Options, tu tuning) (*Table, *LoadReport, error) {
	rd, err := newReader(src, opts, tu)
	if err != nil {
		return nil, nil, err
	}
	w := len(rd.names)
	st := store{w: w}
	var marks []lineMark
	prev := math.MinInt
	for {
		row, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			rep := rd.Report()
			return nil, &rep, err
		}
		st.add(row)
		if rd.rowLine != prev+1 {
			marks = append(marks, lineMark{row: rd.rows - 1, line: rd.rowLine})
		}
		prev = rd.rowLine
	}
	rep := rd.Report()
	if rd.rows == 0 {
		if rd.dropped > 0 {
			return nil, &rep, &ParseError{Err: errorf(ErrNoRows, fmt.Sprintf("no data rows left: all %d rows have a missing value", rd.dropped))}
		}
		return nil, &rep, &ParseError{Line: rd.hline, Err: errorf(ErrNoRows, "the file has a header but no data rows")}
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

// store accumulates rows in chunks so that growing never copies the data;
// data() concatenates them once. Peak memory is about twice the data.
type store struct {
	w     int
	full  [][]float64
	cur   []float64
	total int
}

const maxChunk = 1 << 20 // values per chunk (8 MiB)

func (s *store) add(row []float64) {
	if len(s.cur)+s.w > cap(s.cur) {
		if s.cur != nil {
			s.full = append(s.full, s.cur)
		}
		c := max(2*cap(s.cur), 64*s.w)
		if c > maxChunk {
			c = max(maxChunk/s.w, 1) * s.w
		}
		s.cur = make([]float64, 0, c)
	}
	s.cur = append(s.cur, row...)
	s.total += s.w
}

func (s *store) data() []float64 {
	if len(s.full) == 0 && len(s.cur) == cap(s.cur) {
		return s.cur
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
