package export

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ParseError is a reading error at a position of the input (1-based line;
// Column the 1-based field, as the data loader counts columns, with its
// header Name; or, for a CSV syntax error, Byte, the 1-based byte column
// encoding/csv gives; 0 when unknown).
type ParseError struct {
	File   string // set by ReadFiles
	Line   int
	Column int
	Name   string
	Byte   int
	Err    error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	switch {
	case e.Line > 0 && e.Column > 0 && e.Name != "":
		fmt.Fprintf(&b, "line %d, column %d (%q): ", e.Line, e.Column, e.Name)
	case e.Line > 0 && e.Column > 0:
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	case e.Line > 0 && e.Byte > 0:
		fmt.Fprintf(&b, "line %d, byte %d: ", e.Line, e.Byte)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// commentFilter passes the input through while watching for comment lines
// ('#' at the start of a line outside a quoted field) and recording the
// CmdStan settings that locate the saved warmup draws.
type commentFilter struct {
	r        io.Reader
	atStart  bool // at the start of a line
	inCmt    bool // inside a comment line
	inQuote  bool
	line     []byte
	keys     map[string]string
	comments int // comment lines seen
}

func newCommentFilter(r io.Reader) *commentFilter {
	return &commentFilter{r: r, atStart: true, keys: map[string]string{}}
}

func (f *commentFilter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	for _, c := range p[:n] {
		switch {
		case f.inCmt:
			if c == '\n' {
				f.comment()
				f.inCmt, f.atStart = false, true
			} else if len(f.line) < 4096 {
				f.line = append(f.line, c)
			}
		case f.atStart && c == '#' && !f.inQuote:
			f.inCmt, f.atStart = true, false
			f.line = f.line[:0]
		default:
			f.atStart = false
			if c == '"' {
				f.inQuote = !f.inQuote
			} else if c == '\n' && !f.inQuote {
				f.atStart = true
			}
		}
	}
	if err == io.EOF && f.inCmt {
		f.comment()
		f.inCmt = false
	}
	return n, err
}

// comment records "key = value" from a comment line for the keys
// num_warmup, save_warmup, thin, num_samples, algorithm and epsilon_spent
// (of the "# privacy:" block a private run writes; first occurrence wins).
func (f *commentFilter) comment() {
	f.comments++
	s := strings.TrimSpace(strings.TrimSuffix(string(f.line), "\r"))
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return
	}
	k = strings.TrimSpace(k)
	switch k {
	case "num_warmup", "save_warmup", "thin", "num_samples", "algorithm", "epsilon_spent":
	default:
		return
	}
	if _, dup := f.keys[k]; dup {
		return
	}
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "(Default)"))
	f.keys[k] = v
}

// savedWarmup returns the number of saved warmup draws per chain from the
// CmdStan header: ⌈num_warmup/thin⌉ when save_warmup is on, else 0.
func (f *commentFilter) savedWarmup() (int, error) {
	sw := f.keys["save_warmup"]
	if sw != "1" && sw != "true" {
		return 0, nil
	}
	nw, err := strconv.Atoi(f.keys["num_warmup"])
	if err != nil || nw < 0 {
		return 0, fmt.Errorf("save_warmup is on but num_warmup = %q", f.keys["num_warmup"])
	}
	thin := 1
	if s, ok := f.keys["thin"]; ok {
		if thin, err = strconv.Atoi(s); err != nil || thin < 1 {
			return 0, fmt.Errorf("bad thin = %q", s)
		}
	}
	return (nw + thin - 1) / thin, nil
}

// ReadDraws reads one draws file, detecting its format: a tidy draws CSV
// (a header with .chain, .iteration or .draw; any number of chains) or a
// Stan CSV (one chain; '#' comment lines skipped; sampler columns ending in
// "__" dropped; saved warmup located from the num_warmup, save_warmup and
// thin comments). A leading UTF-8 byte-order mark is ignored. Errors are
// *ParseError with line and column.
func ReadDraws(r io.Reader) (*Draws, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
	f := newCommentFilter(br)
	cr := csv.NewReader(f)
	cr.Comment = '#'
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{Err: errors.New("no header line")}
	}
	if err != nil {
		return nil, csvError(err)
	}
	head = slices.Clone(head)
	hline, _ := cr.FieldPos(0)
	var d *Draws
	if slices.ContainsFunc(head, func(h string) bool { return h == ColChain || h == ColIteration || h == ColDraw }) {
		d, err = readTidy(cr, head, hline)
	} else {
		d, err = readStan(cr, f, head, hline)
	}
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, &ParseError{Err: err}
	}
	return d, nil
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Line: pe.Line, Byte: pe.Column, Err: pe.Err}
	}
	return &ParseError{Err: err}
}

// columns maps header fields to parameter columns, skipping the skipped
// ones, and checks the names.
func columns(cr *csv.Reader, head []string, skip func(string) bool) (names []string, cols []int, err error) {
	seen := map[string]bool{}
	for i, h := range head {
		if skip(h) {
			continue
		}
		name := unsafeName(h)
		if err := checkName(name); err != nil {
			line, _ := cr.FieldPos(i)
			return nil, nil, &ParseError{Line: line, Column: i + 1, Err: errors.New(strings.TrimPrefix(err.Error(), "export: "))}
		}
		if seen[name] {
			line, _ := cr.FieldPos(i)
			return nil, nil, &ParseError{Line: line, Column: i + 1, Err: fmt.Errorf("duplicate column %q", name)}
		}
		seen[name] = true
		names = append(names, name)
		cols = append(cols, i)
	}
	if len(names) == 0 {
		line, _ := cr.FieldPos(0)
		return nil, nil, &ParseError{Line: line, Err: errors.New("no parameter columns")}
	}
	return names, cols, nil
}

// parseValue parses field i of rec; an error names the line, the column
// (the field, counted from 1, as the data loader's errors count it; a
// review saw "column 23" for a 7th field, a byte offset) and its header
// name.
func parseValue(cr *csv.Reader, head, rec []string, i int) (float64, error) {
	s := rec[i]
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		switch s {
		case "NA", "nan", "-nan":
			return math.NaN(), nil
		}
		line, _ := cr.FieldPos(i)
		return 0, &ParseError{Line: line, Column: i + 1, Name: head[i], Err: fmt.Errorf("%q is not a number", s)}
	}
	return v, nil
}

func readStan(cr *csv.Reader, f *commentFilter, head []string, hline int) (*Draws, error) {
	sampler := false
	names, cols, err := columns(cr, head, func(h string) bool {
		s := strings.HasSuffix(h, "__")
		sampler = sampler || s
		return s
	})
	if err != nil {
		return nil, err
	}
	var rows [][]float64
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		row := make([]float64, len(cols))
		for k, i := range cols {
			if row[k], err = parseValue(cr, head, rec, i); err != nil {
				return nil, err
			}
		}
		rows = append(rows, row)
	}
	warm, err := f.savedWarmup()
	if err != nil {
		return nil, &ParseError{Err: err}
	}
	if warm >= len(rows) {
		return nil, &ParseError{Line: hline, Err: fmt.Errorf("%d draws after %d saved warmup draws: nothing to read", len(rows)-min(warm, len(rows)), warm)}
	}
	// A file cut at a line end parses: its header says how many draws it
	// should hold.
	if v, ok := f.keys["num_samples"]; ok {
		ns, err := strconv.Atoi(v)
		thin := 1
		if t, ok := f.keys["thin"]; ok {
			thin, _ = strconv.Atoi(t)
		}
		if err == nil && ns >= 0 && thin >= 1 {
			if want := (ns + thin - 1) / thin; len(rows)-warm != want {
				return nil, &ParseError{Line: hline, Err: fmt.Errorf("the header says num_samples = %d (%d draws saved with thin = %d), but the file has %d draws after warmup: it is truncated or was edited", ns, want, thin, len(rows)-warm)}
			}
		}
	}
	_, private := f.keys["epsilon_spent"]
	d := &Draws{Names: names, Values: [][][]float64{rows}, Warmup: warm, Algorithm: f.keys["algorithm"], NoWarmup: f.keys["num_warmup"] == "0", Private: private}
	if !sampler && f.comments == 0 {
		d.Unmarked = []int{0}
	}
	return d, nil
}

func readTidy(cr *csv.Reader, head []string, hline int) (*Draws, error) {
	ci, ii, di := -1, -1, -1
	for i, h := range head {
		var p *int
		switch h {
		case ColChain:
			p = &ci
		case ColIteration:
			p = &ii
		case ColDraw:
			p = &di
		default:
			continue
		}
		if *p >= 0 {
			line, _ := cr.FieldPos(i)
			return nil, &ParseError{Line: line, Column: i + 1, Err: fmt.Errorf("duplicate column %q", h)}
		}
		*p = i
	}
	names, cols, err := columns(cr, head, func(h string) bool {
		return h == ColChain || h == ColIteration || h == ColDraw || h == ""
	})
	if err != nil {
		return nil, err
	}
	type row struct {
		iter int
		v    []float64
		line int
	}
	chains := map[int][]row{}
	n := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		n++
		posInt := func(i, def int) (int, error) {
			if i < 0 {
				return def, nil
			}
			k, err := strconv.Atoi(rec[i])
			if err != nil || k < 1 {
				line, _ := cr.FieldPos(i)
				return 0, &ParseError{Line: line, Column: i + 1, Name: head[i], Err: fmt.Errorf("must be a positive integer, got %q", rec[i])}
			}
			return k, nil
		}
		c, err := posInt(ci, 1)
		if err != nil {
			return nil, err
		}
		it, err := posInt(ii, len(chains[c])+1)
		if err != nil {
			return nil, err
		}
		if _, err := posInt(di, n); err != nil {
			return nil, err
		}
		v := make([]float64, len(cols))
		for k, i := range cols {
			if v[k], err = parseValue(cr, head, rec, i); err != nil {
				return nil, err
			}
		}
		line, _ := cr.FieldPos(0)
		chains[c] = append(chains[c], row{it, v, line})
	}
	if len(chains) == 0 {
		// A header-only file: a run cancelled before its first draw.
		return &Draws{Names: names, Values: [][][]float64{{}}}, nil
	}
	ids := make([]int, 0, len(chains))
	for id := range chains {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	d := &Draws{Names: names}
	for _, id := range ids {
		rs := chains[id]
		slices.SortStableFunc(rs, func(a, b row) int { return a.iter - b.iter })
		for k := 1; k < len(rs); k++ {
			if rs[k].iter == rs[k-1].iter {
				return nil, &ParseError{Line: rs[k].line, Err: fmt.Errorf("chain %d has iteration %d twice", id, rs[k].iter)}
			}
		}
		if len(rs) != len(chains[ids[0]]) {
			return nil, &ParseError{Line: rs[len(rs)-1].line, Err: fmt.Errorf("chain %d has %d draws, chain %d has %d", id, len(rs), ids[0], len(chains[ids[0]]))}
		}
		ch := make([][]float64, len(rs))
		for k, r := range rs {
			ch[k] = r.v
		}
		d.Values = append(d.Values, ch)
	}
	return d, nil
}

// ReadChains reads several inputs and joins their chains in order: each
// Stan CSV is one chain, a tidy CSV contributes all of its chains. All
// inputs must have the same parameter names, iterations and saved warmup.
func ReadChains(rs ...io.Reader) (*Draws, error) {
	return readAll(len(rs), func(i int) (*Draws, error) { return ReadDraws(rs[i]) })
}

// ReadFiles reads the named files as ReadChains does; errors name the file.
func ReadFiles(paths ...string) (*Draws, error) {
	return readAllNamed(len(paths), func(i int) string { return paths[i] }, func(i int) (*Draws, error) {
		f, err := os.Open(paths[i])
		if err != nil {
			return nil, err
		}
		defer f.Close()
		d, err := ReadDraws(f)
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File = paths[i]
		}
		return d, err
	})
}

func readAll(n int, read func(int) (*Draws, error)) (*Draws, error) {
	return readAllNamed(n, func(i int) string { return fmt.Sprintf("input %d", i+1) }, read)
}

// readAllNamed is readAll whose errors call input i name(i).
func readAllNamed(n int, name func(int) string, read func(int) (*Draws, error)) (*Draws, error) {
	if n == 0 {
		return nil, errors.New("export: no input")
	}
	var all *Draws
	for i := 0; i < n; i++ {
		d, err := read(i)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = d
			continue
		}
		switch {
		case !slices.Equal(d.Names, all.Names):
			return nil, fmt.Errorf("export: %s has parameters %v, %s has %v: the files are not chains of one run", name(i), d.Names, name(0), all.Names)
		case d.NumIterations() != all.NumIterations() || d.Warmup != all.Warmup:
			return nil, fmt.Errorf("export: %s has %d iterations (%d warmup), %s has %d (%d warmup)",
				name(i), d.NumIterations(), d.Warmup, name(0), all.NumIterations(), all.Warmup)
		}
		if len(d.Unmarked) > 0 {
			all.Unmarked = append(all.Unmarked, i)
		}
		if d.Algorithm != all.Algorithm {
			all.Algorithm = ""
		}
		all.NoWarmup = all.NoWarmup && d.NoWarmup
		all.Private = all.Private && d.Private
		all.Values = append(all.Values, d.Values...)
	}
	return all, nil
}
