package dataset

import (
	"io"
	"math"
)

// Chunk is one piece of a file read by Chunks: a Table of at most the
// requested number of rows, whose Line and CellError refer to the file's
// lines, and where it sits in the file.
type Chunk struct {
	*Table
	// Start is the 0-based index, among all loaded rows, of the chunk's
	// first row.
	Start int
	// EstRows estimates the total number of rows from the input's size and
	// the byte length of the lines read so far (0 when the size is not
	// known). It is a memory-allocation hint only: it depends on line
	// lengths, never on the values, and must not be used for anything else.
	EstRows int
}

// Chunks reads a CSV file with the same rules, options, results and errors
// as Load, but hands the rows to fn in tables of at most chunkRows rows
// instead of returning one table. The chunk's Table and its Data are reused
// by the next call: fn must copy what it keeps. A caller that copies the
// rows into its own storage (a model's design matrix, say) thus never holds
// the file twice: memory is that storage plus one chunk.
//
// Rows are delivered in file order; the concatenation of the chunks' Data
// is Load's Table.Data, bit for bit. An error from fn stops the read and is
// returned as is; every other error is the one Load would return.
func Chunks(src io.Reader, opts Options, chunkRows int, fn func(Chunk) error) (*LoadReport, error) {
	return chunks(src, opts, chunkRows, fn, tuning{})
}

// maxChunkValues caps a chunk's buffer (8 MiB of float64).
const maxChunkValues = 1 << 20

func chunks(src io.Reader, opts Options, chunkRows int, fn func(Chunk) error, tu tuning) (*LoadReport, error) {
	chunkRows = max(chunkRows, 1)
	size, known := knownSize(src)
	rd, err := newReader(src, opts, tu)
	if err != nil {
		return nil, err
	}
	w := len(rd.names)
	headerEnd := rd.consumed()
	// A wide file gets shorter chunks: the buffer is sized by values, not
	// rows (a 3.5 MB header of 300,000 columns asked for 16,384 × 300,000
	// values up front).
	chunkRows = max(1, min(chunkRows, maxChunkValues/max(w, 1)))
	buf := make([]float64, chunkRows*w)
	t := &Table{Names: rd.names, Bounds: make([]*Bound, w), fileCols: rd.fileCol}
	start, est := 0, 0
	flush := func() error {
		if t.Rows == 0 {
			return nil
		}
		if known {
			est = max(estimateRows(size, headerEnd, rd), rd.rows)
		}
		t.Data = buf[: t.Rows*w : t.Rows*w]
		if err := fn(Chunk{Table: t, Start: start, EstRows: est}); err != nil {
			return err
		}
		start += t.Rows
		// A fresh table for the next chunk (fn may have kept the old
		// header; bounds set on it must not leak into the next one).
		t = &Table{Names: rd.names, Bounds: make([]*Bound, w), fileCols: rd.fileCol}
		return nil
	}
	prev := math.MinInt
	for {
		if err := rd.next(buf[t.Rows*w : (t.Rows+1)*w]); err != nil {
			if err == io.EOF {
				break
			}
			rep := rd.Report()
			return &rep, err
		}
		if rd.rowLine != prev+1 || t.Rows == 0 {
			t.lines = append(t.lines, lineMark{row: t.Rows, line: rd.rowLine})
		}
		prev = rd.rowLine
		t.Rows++
		if t.Rows == chunkRows {
			if err := flush(); err != nil {
				rep := rd.Report()
				return &rep, err
			}
		}
	}
	rep := rd.Report()
	if rd.rows == 0 {
		return &rep, noRows(rd)
	}
	if err := flush(); err != nil {
		return &rep, err
	}
	return &rep, nil
}
