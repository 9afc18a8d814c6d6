package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

const (
	defaultBufSize = 1 << 20  // read size; records are parsed in place
	minBufSize     = 4 << 10  // smallest buffer, for small known inputs
	maxRecordBytes = 64 << 20 // longest single record (line) accepted
)

// Reader streams a CSV file row by row as float64 values, with the same
// rules as Load. Memory use is bounded by the read buffer and the longest
// record, so arbitrarily long files can be processed.
type Reader struct {
	src     io.Reader
	opts    Options
	buf     []byte
	scratch []byte // unescaped quoted fields; cap ≥ len(buf), never reallocated mid-record
	pos     int
	end     int
	eof     bool
	line    int // file line at pos, 1-based
	bytes   int64

	delim   byte
	trimTab bool
	special [256]bool // bytes that end an unquoted field, or are an error there

	header   []string             // all header names, file order
	names    []string             // loaded names, output order
	fileCol  []int                // output column -> file column
	cats     []map[string]float64 // per output column, nil when not mapped
	catKeys  [][]string           // per output column, sorted keys for messages
	impute   []float64            // per output column, the value of a missing cell
	imputed  []bool               // per output column, whether impute applies
	missing  []int                // per output column, missing cells seen
	missing1 []int                // per output column, the file line of its first missing cell (0: none)
	text     []bool               // per output column, not parsed (TextColumns)
	colOf    map[string]int       // header name -> file column
	hline    int                  // line of the header
	fastOut  []int                // per file column: output column, -1 skipped, -2 mapped
	fast     bool                 // fastRow may be used

	fields [][]byte
	flines []int // line where each field starts

	row           []float64
	rowLine       int
	rows, dropped int
	err           error // sticky
}

// NewReader reads the header of src (detecting the delimiter unless one is
// given) and returns a Reader positioned at the first data row. Errors are
// *ParseError values wrapping one of the package's sentinel errors.
func NewReader(src io.Reader, opts Options) (*Reader, error) {
	return newReader(src, opts, tuning{})
}

// tuning lets tests put buffer boundaries anywhere and compare the fast path
// with the general one.
type tuning struct {
	bufSize int  // initial buffer size (0: default)
	noFast  bool // never use fastRow
}

func newReader(src io.Reader, opts Options, tu tuning) (*Reader, error) {
	bufSize := tu.bufSize
	if err := opts.validate(); err != nil {
		return nil, &ParseError{Err: err}
	}
	fixed := bufSize > 0
	if !fixed {
		bufSize = defaultBufSize
	}
	if size, ok := knownSize(src); ok {
		if opts.MaxBytes > 0 && size > opts.MaxBytes {
			return nil, &ParseError{Err: tooLarge(opts.MaxBytes, size)}
		}
		if !fixed && size+1 < int64(bufSize) {
			bufSize = max(int(size)+1, minBufSize)
		}
	}
	if opts.MaxBytes > 0 {
		src = io.LimitReader(src, opts.MaxBytes+1)
	}
	r := &Reader{
		src:     src,
		opts:    opts,
		buf:     make([]byte, bufSize),
		scratch: make([]byte, 0, bufSize),
		line:    1,
	}
	// Byte order marks. A UTF-8 BOM is skipped, and so is a repeated one
	// (a tool that adds its own BOM to a file that already had one): U+FEFF
	// at the start of a file is never part of a column name.
	for {
		if err := r.ensure(3); err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(r.buf[r.pos:r.end], utf8BOM) {
			break
		}
		r.pos += 3
	}
	if b := r.buf[r.pos:r.end]; bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) {
		return nil, &ParseError{Line: 1, Err: errorf(ErrEncoding, "the file is UTF-16 encoded; save it as UTF-8 (\"CSV UTF-8\") and load it again")}
	}
	// Excel's delimiter hint: a first line "sep=;" (or "sep=," ...) names
	// the delimiter and is not the header.
	sep, err := r.sepLine()
	if err != nil {
		return nil, err
	}

	switch {
	case opts.Delimiter != 0:
		r.delim = byte(opts.Delimiter) // an explicit choice wins over the hint
	case sep != 0:
		r.delim = sep
	default:
		// Look at the first two records, reading up to 1 MiB for them.
		for !r.eof && r.end-r.pos < defaultBufSize && !twoRecords(r.buf[r.pos:r.end]) {
			if err := r.fill(); err != nil {
				return nil, err
			}
		}
		r.delim = detectDelimiter(r.buf[r.pos:r.end], r.eof)
	}
	r.trimTab = r.delim != '\t'
	r.special[r.delim] = true
	r.special['\n'] = true
	r.special['\r'] = true
	r.special['"'] = true

	if err := r.nextRecord(); err != nil {
		if err == io.EOF {
			return nil, &ParseError{Err: ErrEmpty}
		}
		return nil, err
	}
	r.hline = r.flines[0]
	if err := r.setHeader(); err != nil {
		return nil, err
	}
	r.fast = r.fast && !tu.noFast
	return r, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ensure reads until n unconsumed bytes are buffered or the input ends.
func (r *Reader) ensure(n int) error {
	for !r.eof && r.end-r.pos < n {
		if err := r.fill(); err != nil {
			return err
		}
	}
	return nil
}

// maxSepLine is the longest first line examined as a "sep=" hint.
const maxSepLine = 64

// sepLine consumes Excel's delimiter hint if the first line is one (see
// sepHint) and returns its delimiter, or 0 (consuming nothing).
func (r *Reader) sepLine() (byte, error) {
	if err := r.ensure(maxSepLine + 2); err != nil {
		return 0, err
	}
	c, n, err := sepHint(r.buf[r.pos:r.end], r.eof)
	if err != nil {
		return 0, &ParseError{Line: r.line, Err: err}
	}
	if n > 0 {
		r.pos += n
		r.line++
	}
	return c, nil
}

// sepHint recognises Excel's delimiter hint at the start of b: a first
// line "sep=C" with C a single character, "sep" in any case, optionally in
// double quotes, optionally followed by delimiters or spaces (a
// spreadsheet that saved the hint as a row of empty cells), then the line
// end. It returns C and the length of the line with its end, or n = 0 when
// the line is not a hint. b must hold maxSepLine + 2 bytes or the whole
// input (eof). A hint naming a character that cannot be a delimiter is an
// error.
func sepHint(b []byte, eof bool) (c byte, n int, err error) {
	line := b
	if k := bytes.IndexAny(b, "\r\n"); k >= 0 && k <= maxSepLine {
		line = b[:k]
	} else if k >= 0 || !eof || len(b) > maxSepLine {
		return 0, 0, nil // no line end within maxSepLine bytes: not a hint
	}
	t := line
	quoted := len(t) > 0 && t[0] == '"'
	if quoted {
		t = t[1:]
	}
	if len(t) < 5 || !strings.EqualFold(string(t[:4]), "sep=") {
		return 0, 0, nil
	}
	c = t[4]
	t = t[5:]
	if quoted {
		if len(t) == 0 || t[0] != '"' {
			return 0, 0, nil
		}
		t = t[1:]
	}
	for len(t) > 0 && (t[0] == c || t[0] == ' ') {
		t = t[1:]
	}
	if len(t) > 0 {
		return 0, 0, nil
	}
	if o := (Options{Delimiter: rune(c)}); o.validate() != nil {
		return 0, 0, errorf(ErrOptions, fmt.Sprintf("the first line %s declares the delimiter %s, which cannot be one (use comma, semicolon, tab or another ASCII punctuation character)", quoteCell(line), quoteCell([]byte{c})))
	}
	n = len(line)
	if n < len(b) && b[n] == '\r' {
		n++
	}
	if n < len(b) && b[n] == '\n' {
		n++
	}
	return c, n, nil
}

// SkipPreamble returns src without what NewReader skips before the header
// line: UTF-8 byte order marks and Excel's "sep=" line. Code that reads the
// same file with another CSV parser (the page's preview uses encoding/csv)
// calls it so that its first record is the header NewReader reads.
func SkipPreamble(src io.Reader) io.Reader {
	br := bufio.NewReaderSize(src, 4096)
	for {
		b, _ := br.Peek(3)
		if !bytes.Equal(b, utf8BOM) {
			break
		}
		br.Discard(3)
	}
	b, err := br.Peek(maxSepLine + 2)
	if _, n, herr := sepHint(b, err != nil); herr == nil && n > 0 {
		br.Discard(n)
	}
	return br
}

// notUTF8 describes a column name that is not valid UTF-8: the first bad
// byte, and the usual cause (a spreadsheet's legacy "CSV" format).
func notUTF8(name []byte) error {
	i := 0
	for i < len(name) {
		r, size := utf8.DecodeRune(name[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return errorf(ErrEncoding, fmt.Sprintf("the column name is not valid UTF-8 (byte 0x%02X at byte %d of the name); "+
		"the file was probably saved in a legacy encoding such as Windows-1252 or Latin-1 (Excel's \"CSV (Comma delimited)\"): "+
		"save it as \"CSV UTF-8\" and load it again", name[i], i+1))
}

func (r *Reader) setHeader() error {
	r.header = make([]string, len(r.fields))
	r.colOf = make(map[string]int, len(r.fields))
	for j, f := range r.fields {
		name := string(f)
		if name == "" {
			msg := "the header has an empty column name; every column needs a unique name"
			if j == len(r.fields)-1 && j > 0 {
				msg = fmt.Sprintf("empty column name: the header line ends with a delimiter (%s), which leaves the last column without a name; remove the trailing delimiter or name the column", quoteCell([]byte{r.delim}))
			}
			return &ParseError{Line: r.flines[j], Column: j + 1, Err: errorf(ErrEmptyColumnName, msg)}
		}
		if !utf8.Valid(f) {
			return &ParseError{Line: r.flines[j], Column: j + 1, ColumnName: name, Err: notUTF8(f)}
		}
		if strings.HasPrefix(name, "\ufeff") {
			// A byte order mark inside the header (not at the start of the
			// file, where it is skipped): files joined after saving, or a
			// cell copied with its BOM. The name would look like another
			// column's on screen while being a different string.
			return &ParseError{Line: r.flines[j], Column: j + 1, ColumnName: strings.TrimPrefix(name, "\ufeff"),
				Err: errorf(ErrEncoding, "the column name starts with a byte order mark (U+FEFF), an invisible character that belongs only at the start of a file; remove it (files joined after saving, or a cell copied with its BOM, leave one)")}
		}
		if k, dup := r.colOf[name]; dup {
			return &ParseError{Line: r.flines[j], Column: j + 1, ColumnName: name,
				Err: errorf(ErrDuplicateColumn, fmt.Sprintf("duplicate column name (also column %d); column names must be unique", k+1))}
		}
		r.colOf[name] = j
		r.header[j] = name
	}
	if r.opts.Columns == nil {
		r.names = r.header
		r.fileCol = make([]int, len(r.header))
		for j := range r.fileCol {
			r.fileCol[j] = j
		}
	} else {
		r.names = make([]string, len(r.opts.Columns))
		r.fileCol = make([]int, len(r.opts.Columns))
		for k, name := range r.opts.Columns {
			j, ok := r.colOf[name]
			if !ok {
				return &ParseError{Line: r.flines[0], ColumnName: name,
					Err: errorf(ErrUnknownColumn, "not found in the header; the columns are "+listNames(r.header))}
			}
			r.names[k] = name
			r.fileCol[k] = j
		}
	}
	r.cats = make([]map[string]float64, len(r.names))
	r.catKeys = make([][]string, len(r.names))
	for col, m := range r.opts.Categories {
		outs, err := r.outputsOf(col, "has a category mapping")
		if err != nil {
			return err
		}
		for _, k := range outs {
			tm := make(map[string]float64, len(m))
			keys := make([]string, 0, len(m))
			for key, v := range m {
				key = strings.TrimSpace(key)
				tm[key] = v
				keys = append(keys, key)
			}
			slices.Sort(keys)
			r.cats[k] = tm
			r.catKeys[k] = keys
		}
	}
	r.text = make([]bool, len(r.names))
	for _, col := range r.opts.TextColumns {
		for k, name := range r.names {
			if name == col {
				r.text[k] = true
			}
		}
	}
	r.impute = make([]float64, len(r.names))
	r.imputed = make([]bool, len(r.names))
	r.missing = make([]int, len(r.names))
	r.missing1 = make([]int, len(r.names))
	for col, v := range r.opts.Impute {
		outs, err := r.outputsOf(col, "has a value for missing cells")
		if err != nil {
			return err
		}
		for _, k := range outs {
			r.impute[k], r.imputed[k] = v, true
		}
	}
	r.row = make([]float64, len(r.names))
	r.fastOut = make([]int, len(r.header))
	for j := range r.fastOut {
		r.fastOut[j] = -1
	}
	for k, fc := range r.fileCol {
		r.fastOut[fc] = k
		if r.cats[k] != nil || r.text[k] {
			r.fastOut[fc] = -2
		}
	}
	// With a decimal comma and a comma delimiter, "1,5" is two fields to the
	// tokenizer but one number to scanNumber.
	r.fast = !(r.opts.DecimalComma && r.delim == ',')
	return nil
}

// outputsOf returns the output columns that load header column col (none
// when it is not loaded), or an error saying that col, which what (an
// option naming it), is not in the header.
func (r *Reader) outputsOf(col, what string) ([]int, error) {
	j, ok := r.colOf[col]
	if !ok {
		return nil, &ParseError{Line: r.flines[0], ColumnName: col,
			Err: errorf(ErrUnknownColumn, what+" but is not in the header; the columns are "+listNames(r.header))}
	}
	var out []int
	for k, fc := range r.fileCol {
		if fc == j {
			out = append(out, k)
		}
	}
	return out, nil
}

// fastRow parses the record at r.pos, into row, if it is the common case: plain numbers
// without quotes or padding, the right number of fields, whole in the buffer
// and ended by a line end. It then stores the values in row, consumes the
// record and returns true. Otherwise it returns false having consumed
// nothing, and the general path (tryRecord, slowCell) handles the record
// with full error reporting; that happens for blank lines, quotes, spaces,
// missing values, text, mapped columns, errors and once per buffer refill.
// It accepts exactly what the general path would accept with the same
// values.
func (r *Reader) fastRow(row []float64) bool {
	buf := r.buf[:r.end]
	end := len(buf)
	i := r.pos
	delim := r.delim
	dc := r.opts.DecimalComma
	out := r.fastOut
	sp := &r.special
	last := len(out) - 1
	for fc, k := range out {
		if k >= 0 {
			v, j, st := scanNumber(buf, i, dc)
			if st != numOK {
				return false
			}
			row[k] = v
			i = j
		} else if k == -1 {
			j := i
			for j < end && !sp[buf[j]] {
				j++
			}
			i = j
		} else {
			return false
		}
		if i >= end {
			return false
		}
		c := buf[i]
		if c == delim && fc < last {
			i++
			continue
		}
		if fc == last {
			if c == '\n' {
				i++
				break
			}
			if c == '\r' && i+1 < end {
				i++
				if buf[i] == '\n' {
					i++
				}
				break
			}
		}
		return false
	}
	r.rowLine = r.line
	r.pos = i
	r.line++
	return true
}

// Names returns the names of the loaded columns, in output order. The slice
// must not be modified.
func (r *Reader) Names() []string { return r.names }

// Header returns every column name of the file, in file order. The slice must
// not be modified.
func (r *Reader) Header() []string { return r.header }

// Delimiter returns the delimiter in use.
func (r *Reader) Delimiter() rune { return rune(r.delim) }

// Line returns the file line on which the row last returned by Next starts.
func (r *Reader) Line() int { return r.rowLine }

// Report describes what has been read so far; after Next has returned io.EOF
// it describes the whole load. Its counts are local diagnostics (see
// LoadReport).
func (r *Reader) Report() LoadReport {
	rep := LoadReport{Rows: r.rows, Columns: len(r.names), DroppedRows: r.dropped, Delimiter: rune(r.delim), Bytes: r.bytes}
	for k, m := range r.missing {
		if m > 0 {
			if rep.MissingCells == nil {
				rep.MissingCells = map[string]int{}
			}
			rep.MissingCells[r.names[k]] = m
			if rep.FirstMissingLine == nil {
				rep.FirstMissingLine = map[string]int{}
			}
			rep.FirstMissingLine[r.names[k]] = r.missing1[k]
		}
	}
	return rep
}

// Next returns the next row of values (one per loaded column, in output
// order), or io.EOF after the last row. The slice is reused by the next call.
// Rows with missing values are dropped under MissingDropRows. After an error,
// Next keeps returning that error.
func (r *Reader) Next() ([]float64, error) {
	if err := r.next(r.row); err != nil {
		return nil, err
	}
	return r.row, nil
}

// next reads the next row into row (len(r.names) values).
func (r *Reader) next(row []float64) error {
	if r.err != nil {
		return r.err
	}
	for {
		if r.fast && r.fastRow(row) {
			r.rows++
			return r.checkMaxValues()
		}
		if err := r.nextRecord(); err != nil {
			r.err = err
			return err
		}
		if len(r.fields) != len(r.header) {
			r.err = r.raggedError()
			return r.err
		}
		missing := false
		dc := r.opts.DecimalComma
		for k, fc := range r.fileCol {
			tok := r.fields[fc]
			if len(tok) > 0 && r.cats[k] == nil && !r.text[k] {
				if v, st := parseNumber(tok, dc); st == numOK {
					row[k] = v
					continue
				}
			}
			v, miss, err := r.slowCell(k, fc, tok)
			if err != nil {
				r.err = err
				return err
			}
			if miss {
				missing = true
				continue
			}
			row[k] = v
		}
		if missing {
			r.dropped++
			continue
		}
		r.rows++
		r.rowLine = r.flines[0]
		return r.checkMaxValues()
	}
}

// checkMaxValues fails once the rows read hold more than Options.MaxValues
// values, naming the row's line.
func (r *Reader) checkMaxValues() error {
	if r.opts.MaxValues <= 0 || int64(r.rows)*int64(len(r.names)) <= r.opts.MaxValues {
		return nil
	}
	r.err = &ParseError{Line: r.rowLine, Err: errorf(ErrTooLarge, fmt.Sprintf("more than %d values (%d rows × %d columns) to hold in memory: load fewer columns (only the model's are read) or fewer rows", r.opts.MaxValues, r.rows, len(r.names)))}
	return r.err
}

// consumed returns the number of input bytes parsed so far.
func (r *Reader) consumed() int64 { return r.bytes - int64(r.end-r.pos) }

// slowCell handles every cell that is not a plain number: missing tokens,
// category mappings, infinities and errors.
func (r *Reader) slowCell(k, fc int, tok []byte) (v float64, missing bool, err error) {
	pe := func(e error) error {
		return &ParseError{Line: r.flines[fc], Column: fc + 1, ColumnName: r.header[fc], Err: e}
	}
	if len(tok) == 0 || isMissingToken(tok) {
		r.missing[k]++
		if r.missing1[k] == 0 {
			r.missing1[k] = r.flines[fc]
		}
		switch {
		case r.imputed[k]:
			return r.impute[k], false, nil
		case r.opts.Missing == MissingDropRows:
			return 0, true, nil
		case r.opts.Missing == MissingAsNaN:
			return math.NaN(), false, nil
		}
		what := "empty cell"
		if len(tok) > 0 {
			what = quoteCell(tok)
		}
		advice := MissingAdvice
		if r.opts.Outcome != "" && r.header[fc] == r.opts.Outcome {
			advice = OutcomeMissingAdvice
		}
		return 0, false, pe(errorf(ErrMissing, "missing value ("+what+"); "+advice))
	}
	if r.text[k] {
		return math.NaN(), false, nil
	}
	if m := r.cats[k]; m != nil {
		if v, ok := m[string(tok)]; ok {
			return v, false, nil
		}
		msg := fmt.Sprintf("%s is not one of the mapped values %s", quoteCell(tok), listNames(r.catKeys[k]))
		if !utf8.Valid(tok) {
			msg += " (the cell is not valid UTF-8: save the file as \"CSV UTF-8\")"
		}
		return 0, false, pe(errorf(ErrCategory, msg))
	}
	v, st := parseNumber(tok, r.opts.DecimalComma)
	switch st {
	case numOK:
		return v, false, nil
	case numOverflow:
		return 0, false, pe(errorf(ErrNonFinite, fmt.Sprintf("%s is too large for a 64-bit float (not a finite number)", quoteCell(tok))))
	}
	if isInfToken(tok) {
		return 0, false, pe(errorf(ErrNonFinite, fmt.Sprintf("%s is not a finite number", quoteCell(tok))))
	}
	msg := quoteCell(tok) + " is not a number"
	switch {
	case !r.opts.DecimalComma && looksDecimalComma(tok):
		msg += " (it looks like a decimal comma, or a thousands separator: if the file writes decimals with a comma, choose the decimal-comma option (dpmcmc: --decimal-comma; the page: \"numbers use a decimal comma\"))"
	case r.opts.DecimalComma && bytes.IndexByte(tok, '.') >= 0:
		msg += " (with the decimal-comma option, '.' is not accepted in numbers: thousands separators are ambiguous; if this file writes decimals with a point, turn the option off: dpmcmc: leave out --decimal-comma; the page: untick \"numbers use a decimal comma\")"
	case hasLetter(tok):
		msg += fmt.Sprintf("; if column %q holds categories, give an explicit mapping of its values to numbers (e.g. yes=1, no=0: dpmcmc: --category %s=yes:1,no:0, or \"categories\" in the run config; the page: the \"text coding\" column of step 3), or leave the column out", r.header[fc], r.header[fc])
	}
	return 0, false, pe(errorf(ErrNotNumeric, msg))
}

func (r *Reader) raggedError() error {
	got, want := len(r.fields), len(r.header)
	msg := fmt.Sprintf("the row has %d %s but the header has %d", got, plural(got, "field", "fields"), want)
	if got > want {
		return &ParseError{Line: r.flines[want], Column: want + 1, Err: errorf(ErrRagged, msg)}
	}
	return &ParseError{Line: r.flines[got-1], Column: got + 1, ColumnName: r.header[got], Err: errorf(ErrRagged, msg)}
}

// nextRecord tokenizes the next non-blank record into r.fields and r.flines,
// reading more input as needed. It returns io.EOF at the end of the input.
func (r *Reader) nextRecord() error {
	for {
		done, err := r.tryRecord()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if err := r.fill(); err != nil {
			return err
		}
	}
}

// fill moves the unconsumed bytes to the front of the buffer (growing it if
// a single record fills it) and reads until the buffer is full or the input
// ends.
func (r *Reader) fill() error {
	if r.eof {
		return nil
	}
	if r.pos > 0 {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
	}
	if r.end == len(r.buf) {
		if len(r.buf) >= maxRecordBytes {
			return &ParseError{Line: r.line, Err: errorf(ErrTooLarge, fmt.Sprintf("a single record is longer than %d MiB", maxRecordBytes>>20))}
		}
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
		r.scratch = make([]byte, 0, len(nb))
	}
	n, err := io.ReadFull(r.src, r.buf[r.end:])
	r.end += n
	r.bytes += int64(n)
	if r.opts.MaxBytes > 0 && r.bytes > r.opts.MaxBytes {
		return &ParseError{Err: tooLarge(r.opts.MaxBytes, -1)}
	}
	switch err {
	case nil:
	case io.EOF, io.ErrUnexpectedEOF:
		r.eof = true
	default:
		return &ParseError{Line: r.line, Err: fmt.Errorf("reading the input: %w", err)}
	}
	return nil
}

// tryRecord tokenizes the record at r.pos. It returns done=false, leaving the
// position unchanged, when the buffer ends before the record does and more
// input may follow; io.EOF when no record is left.
func (r *Reader) tryRecord() (done bool, err error) {
	buf := r.buf[:r.end]
	end := len(buf)
	i, line := r.pos, r.line
	trimTab := r.trimTab
	// Skip blank lines (empty, or only spaces).
	for {
		j := i
		for j < end && (buf[j] == ' ' || (buf[j] == '\t' && trimTab)) {
			j++
		}
		if j == end {
			if r.eof {
				r.pos, r.line = end, line
				return false, io.EOF
			}
			r.pos, r.line = i, line
			return false, nil
		}
		if buf[j] == '\n' {
			i, line = j+1, line+1
			continue
		}
		if buf[j] == '\r' {
			if j+1 == end && !r.eof {
				r.pos, r.line = i, line
				return false, nil
			}
			i, line = j+1, line+1
			if i < end && buf[i] == '\n' {
				i++
			}
			continue
		}
		break
	}
	r.pos, r.line = i, line

	delim := r.delim
	sp := &r.special
	fields := r.fields[:0]
	flines := r.flines[:0]
	sc := r.scratch[:0]
	for {
		fline := line
		j := i
		for j < end && (buf[j] == ' ' || (buf[j] == '\t' && trimTab)) {
			j++
		}
		var val []byte
		if j < end && buf[j] == '"' {
			j++
			start := j
			esc := false
			for {
				q := bytes.IndexByte(buf[j:end], '"')
				if q < 0 {
					if !r.eof {
						return false, nil
					}
					return false, &ParseError{Line: fline, Column: len(fields) + 1, ColumnName: r.headerName(len(fields)),
						Err: errorf(ErrQuote, "a quoted field is not closed before the end of the file")}
				}
				line += countLines(buf[j : j+q])
				j += q + 1
				if j == end && !r.eof {
					return false, nil
				}
				if j < end && buf[j] == '"' {
					esc = true
					j++
					continue
				}
				break
			}
			closing := j - 1
			if !esc {
				val = buf[start:closing]
			} else {
				n0 := len(sc)
				for k := start; k < closing; k++ {
					c := buf[k]
					sc = append(sc, c)
					if c == '"' {
						k++
					}
				}
				val = sc[n0:len(sc):len(sc)]
			}
			val = trimSpace(val, trimTab)
			for j < end && (buf[j] == ' ' || (buf[j] == '\t' && trimTab)) {
				j++
			}
			if j == end && !r.eof {
				return false, nil
			}
			if j < end && buf[j] != delim && buf[j] != '\n' && buf[j] != '\r' {
				return false, &ParseError{Line: line, Column: len(fields) + 1, ColumnName: r.headerName(len(fields)),
					Err: errorf(ErrQuote, fmt.Sprintf("unexpected %s after a closing quote (a quote inside a quoted field must be doubled)", quoteCell(buf[j:j+1])))}
			}
		} else {
			start := j
			for j < end && !sp[buf[j]] {
				j++
			}
			if j == end && !r.eof {
				return false, nil
			}
			if j < end && buf[j] == '"' {
				return false, &ParseError{Line: line, Column: len(fields) + 1, ColumnName: r.headerName(len(fields)),
					Err: errorf(ErrQuote, "a quote inside an unquoted field (quote the whole field and double inner quotes)")}
			}
			val = buf[start:j]
			for len(val) > 0 && (val[len(val)-1] == ' ' || (val[len(val)-1] == '\t' && trimTab)) {
				val = val[:len(val)-1]
			}
		}
		fields = append(fields, val)
		flines = append(flines, fline)
		if j == end { // r.eof
			i = j
			break
		}
		c := buf[j]
		if c == delim {
			i = j + 1
			continue
		}
		// End of line.
		if c == '\r' {
			if j+1 == end && !r.eof {
				return false, nil
			}
			j++
			if j < end && buf[j] == '\n' {
				j++
			}
		} else {
			j++
		}
		i = j
		line++
		break
	}
	r.pos, r.line = i, line
	r.fields, r.flines = fields, flines
	return true, nil
}

func (r *Reader) headerName(j int) string {
	if j < len(r.header) {
		return r.header[j]
	}
	return ""
}

// countLines counts line ends in b: "\n", "\r\n" and a lone "\r".
func countLines(b []byte) int {
	n := 0
	for k := 0; k < len(b); k++ {
		switch b[k] {
		case '\n':
			n++
		case '\r':
			if k+1 < len(b) && b[k+1] == '\n' {
				continue
			}
			n++
		}
	}
	return n
}

func trimSpace(b []byte, tab bool) []byte {
	for len(b) > 0 && (b[0] == ' ' || (b[0] == '\t' && tab)) {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || (b[len(b)-1] == '\t' && tab)) {
		b = b[:len(b)-1]
	}
	return b
}

// detectDelimiter picks comma, tab or semicolon from the first two records of
// b (see Options.Delimiter).
func detectDelimiter(b []byte, eof bool) byte {
	cands := [3]byte{',', '\t', ';'} // preference on ties
	h, next, ok := delimCounts(b, eof)
	var d [3]int
	have2 := false
	if ok {
		d, _, have2 = delimCounts(b[next:], eof)
	}
	best := -1
	if have2 {
		for c := range cands {
			if h[c] > 0 && d[c] == h[c] && (best < 0 || h[c] > h[best]) {
				best = c
			}
		}
	}
	if best < 0 {
		for c := range cands {
			if h[c] > 0 && (best < 0 || h[c] > h[best]) {
				best = c
			}
		}
	}
	if best < 0 {
		return ','
	}
	return cands[best]
}

// delimCounts counts commas, tabs and semicolons outside quotes in the first
// non-blank record of b. ok reports whether the record is complete; next is
// the offset just past it.
func delimCounts(b []byte, eof bool) (counts [3]int, next int, ok bool) {
	i := 0
	for i < len(b) && (b[i] == '\n' || b[i] == '\r' || b[i] == ' ') {
		i++
	}
	if i == len(b) {
		return counts, i, false
	}
	inQuote := false
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == ',':
			counts[0]++
		case c == '\t':
			counts[1]++
		case c == ';':
			counts[2]++
		case c == '\n' || c == '\r':
			return counts, i + 1, true
		}
	}
	return counts, i, eof
}

// twoRecords reports whether b holds two complete records.
func twoRecords(b []byte) bool {
	_, next, ok := delimCounts(b, false)
	if !ok {
		return false
	}
	_, _, ok = delimCounts(b[next:], false)
	return ok
}

func knownSize(src io.Reader) (int64, bool) {
	switch s := src.(type) {
	case interface{ Len() int }:
		return int64(s.Len()), true
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size(), true
		}
	}
	return 0, false
}

func tooLarge(limit, size int64) error {
	msg := "the input is larger than the limit of " + formatBytes(limit)
	if size >= 0 {
		msg = fmt.Sprintf("the input (%s) is larger than the limit of %s", formatBytes(size), formatBytes(limit))
	}
	return errorf(ErrTooLarge, msg)
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%d bytes (%.1f GiB)", n, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// listNames formats names for an error message, eliding long lists.
func listNames(names []string) string {
	const maxShown = 12
	var b strings.Builder
	for i, n := range names {
		if i == maxShown {
			fmt.Fprintf(&b, ", … (%d more)", len(names)-maxShown)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
