package main

// The engine's operations as plain Go functions over bytes, strings and
// slices: main.go (js && wasm) only converts JavaScript values to and from
// these. Keeping them free of syscall/js lets them be tested natively
// (go test ./wasm/) as well as under Node.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
	"github.com/dpmcmc/dpmcmc/core/run"
)

// MaxBytes is the largest CSV the page accepts: every chain worker holds its
// own copy of the file and of the parsed table.
const MaxBytes = 200 << 20

// PreviewRows is the number of data rows shown on screen (never exported).
const PreviewRows = 5

// apiError is an error as the page sees it. Line, Column and ColumnName are
// set for loader errors (*dataset.ParseError).
type apiError struct {
	Message    string `json:"message"`
	Line       int    `json:"line,omitempty"`
	Row        int    `json:"row,omitempty"`
	Column     int    `json:"column,omitempty"`
	ColumnName string `json:"columnName,omitempty"`
}

func toAPIError(err error) *apiError {
	if err == nil {
		return nil
	}
	e := &apiError{Message: err.Error()}
	var pe *dataset.ParseError
	if errors.As(err, &pe) {
		e.Line, e.Row, e.Column, e.ColumnName = pe.Line, pe.Row, pe.Column, pe.ColumnName
	}
	return e
}

// modelsJSON lists the models and their options for the model controls.
func modelsJSON() string { return mustJSON(model.Models()) }

// algorithmInfo is one entry of the algorithm list.
type algorithmInfo struct {
	Name    string `json:"name"`
	Private bool   `json:"private"`
	Doc     string `json:"doc"`
	// SharedRelease: one private release for the whole run (noise-aware):
	// the page starts chain 0, which makes it, and hands its release to the
	// other chains (newChain's release argument).
	SharedRelease bool `json:"shared_release,omitempty"`
	// WarmupNote says why the algorithm runs no warmup (run.WarmupNote:
	// noise-aware, exact, ops); the page then disables its warmup input
	// and shows it.
	WarmupNote string `json:"warmup_note,omitempty"`
	// Models lists the models the algorithm can run (run.AlgorithmModels:
	// exact, noise-aware); absent when it runs every model. The page lists
	// only the algorithms of its own models.
	Models []string `json:"models,omitempty"`
}

func algorithms() []algorithmInfo {
	var out []algorithmInfo
	for _, n := range run.Algorithms() {
		out = append(out, algorithmInfo{Name: n, Private: run.IsPrivate(n), Doc: run.AlgorithmDoc(n), SharedRelease: run.SharedRelease(n), WarmupNote: run.WarmupNote(n), Models: run.AlgorithmModels(n)})
	}
	return out
}

// inspectOptions are the loader options the page offers.
type inspectOptions struct {
	Delimiter   string `json:"delimiter,omitempty"`
	DropMissing bool   `json:"dropMissing,omitempty"`
	// DecimalComma reads "70,5" as 70.5 (run.DataSpec.DecimalComma).
	DecimalComma bool `json:"decimalComma,omitempty"`
}

// columnInfo describes one column for the screen (a local diagnostic: it
// is never exported and never used to set a bound or a tuning parameter).
type columnInfo struct {
	Name string `json:"name"`
	// Type is "binary" (0/1), "count" (integers ≥ 0), "number" or "text".
	Type string `json:"type"`
	// Error is the first cell of a number column (its first cell a
	// number) that is not one, a word past the preview ("forty"): the file
	// still loads without the column, and the page blocks a run that uses
	// it, naming the line (local only: the cell stays on this screen).
	Error *apiError `json:"error,omitempty"`
}

// inspectResult is what the page shows after loading a file.
type inspectResult struct {
	Columns []columnInfo `json:"columns"`
	Rows    int          `json:"rows"`
	Dropped int          `json:"dropped"`
	// Missing counts the missing cells of each numeric column that has
	// any (a local diagnostic for the screen: never exported, never in a
	// config). Rows with missing cells are kept and typed without them,
	// so that the page can offer to replace them (run.DataSpec.Impute).
	Missing map[string]int `json:"missing,omitempty"`
	// MissingLine is the file line of each such column's first missing
	// cell (local too), so that a message can name where to look.
	MissingLine map[string]int `json:"missing_line,omitempty"`
	Delimiter   string         `json:"delimiter"`
	Bytes       int            `json:"bytes"`
	Preview     [][]string     `json:"preview"`
	Error       *apiError      `json:"error,omitempty"`
}

// source is a CSV the engine reads: bytes already in Go (tests, Node), or a
// Blob read in chunks in a worker (main.go), so that a large file is never
// held whole in Go memory. Open returns a fresh reader from the start;
// readers report the unread size with Len (dataset.Load then allocates the
// table once).
type source interface {
	Size() int
	Open() io.Reader
}

// bytesSource is a source over bytes.
type bytesSource []byte

func (b bytesSource) Size() int       { return len(b) }
func (b bytesSource) Open() io.Reader { return bytes.NewReader(b) }

// inspect is inspectSource over bytes.
func inspect(data []byte, o inspectOptions) inspectResult {
	return inspectSource(bytesSource(data), o)
}

// inspectSource reads a CSV the way the samplers will (dataset.Load), and returns
// its columns with their types, the number of rows and the first rows as
// text for the on-screen preview. A column whose first value is text is
// typed "text" and left out of the numeric load; any other problem is
// reported as the loader's error (line, column, name).
func inspectSource(src source, o inspectOptions) inspectResult {
	size := src.Size()
	res := inspectResult{Bytes: size, Preview: [][]string{}, Columns: []columnInfo{}}
	if size > MaxBytes {
		res.Error = &apiError{Message: fmt.Sprintf("the file is %.1f MB; this page accepts files up to %d MB (use the dpmcmc command-line tool for larger data)", float64(size)/1e6, MaxBytes>>20)}
		return res
	}
	opts := dataset.Options{DecimalComma: o.DecimalComma}
	if o.Delimiter != "" {
		opts.Delimiter = rune(o.Delimiter[0])
	}
	opts.Missing = dataset.MissingAsNaN
	if o.DropMissing {
		opts.Missing = dataset.MissingDropRows
	}
	rd, err := dataset.NewReader(src.Open(), opts)
	if err != nil {
		res.Error = toAPIError(err)
		return res
	}
	header := append([]string(nil), rd.Header()...)
	delim := rd.Delimiter()
	res.Delimiter = string(delim)
	res.Preview = preview(src.Open(), delim, len(header))
	var numeric []string
	text := map[string]bool{}
	if len(res.Preview) > 0 {
		for j, name := range header {
			// Judged by the first preview cell that is not missing: a
			// yes/no column whose first cell is NA is still text.
			if v, ok := firstPresent(res.Preview, j); ok && isText(v) {
				text[name] = true
				continue
			}
			numeric = append(numeric, name)
		}
	} else {
		numeric = header
	}
	for _, name := range header {
		res.Columns = append(res.Columns, columnInfo{Name: name, Type: "text"})
	}
	if len(numeric) == 0 {
		res.Error = &apiError{Message: "no numeric column: every column holds text"}
		return res
	}
	opts.Delimiter = delim
	// Text columns are read too, unparsed, so that their missing cells are
	// counted like the numbers' (a text predictor can be coded and given
	// a value for them; a text outcome's missing cells block the run).
	// A number column with a word further down is read again as text, its
	// error kept for the page (columnInfo.Error), unless every number
	// column fails (a decimal-comma file: its error names the option) or
	// the error is not a word in a number column.
	bad := map[string]*apiError{}
	var t *dataset.Table
	var rep *dataset.LoadReport
	for {
		asText := func(h string) bool { return text[h] || bad[h] != nil }
		opts.Columns = append(slices.DeleteFunc(slices.Clone(numeric), asText), textNames(header, bad)...)
		opts.Columns = append(opts.Columns, textNames(header, text)...)
		opts.TextColumns = slices.DeleteFunc(slices.Clone(header), func(h string) bool { return !asText(h) })
		t, rep, err = dataset.Load(src.Open(), opts)
		var pe *dataset.ParseError
		if err == nil || !errors.Is(err, dataset.ErrNotNumeric) || !errors.As(err, &pe) || !wordInNumberCell(pe.Err.Error()) ||
			!slices.Contains(numeric, pe.ColumnName) || bad[pe.ColumnName] != nil || len(bad)+1 >= len(numeric) {
			break
		}
		bad[pe.ColumnName] = toAPIError(err)
	}
	if err != nil {
		res.Error = toAPIError(err)
		for i := range res.Columns {
			if !text[res.Columns[i].Name] {
				res.Columns[i].Type = "number"
			}
		}
		return res
	}
	res.Rows, res.Dropped, res.Missing, res.MissingLine = rep.Rows, rep.DroppedRows, rep.MissingCells, rep.FirstMissingLine
	for i := range res.Columns {
		if text[res.Columns[i].Name] {
			continue
		}
		if e := bad[res.Columns[i].Name]; e != nil {
			res.Columns[i].Type, res.Columns[i].Error = "number", e
			continue
		}
		j, _ := t.Col(res.Columns[i].Name)
		res.Columns[i].Type = columnType(t.Data, t.Cols(), j)
	}
	return res
}

// columnType types column j of the row-major data with w columns (read in
// place: a copy of every column would double the memory of a large file).
func columnType(data []float64, w, j int) string {
	binary, count, seen := true, true, false
	for k := j; k < len(data); k += w {
		x := data[k]
		if math.IsNaN(x) { // a missing cell (MissingAsNaN)
			continue
		}
		seen = true
		if x != 0 && x != 1 {
			binary = false
		}
		if x < 0 || x != math.Trunc(x) {
			count = false
		}
		if !binary && !count {
			return "number"
		}
	}
	if !seen {
		return "number" // every cell missing
	}
	if binary {
		return "binary"
	}
	return "count"
}

// firstPresent returns the first cell of column j in the preview rows that
// is not a missing value.
func firstPresent(rows [][]string, j int) (string, bool) {
	for _, r := range rows {
		if j < len(r) && !dataset.IsMissing(r[j]) {
			return r[j], true
		}
	}
	return "", false
}

// isText reports whether a cell is neither a number nor a missing value.
func isText(s string) bool {
	s = strings.TrimSpace(s)
	if dataset.IsMissing(s) {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	// "70,5" is a number written with a decimal comma: with the option it
	// loads, without it the loader names the option (not "text", which
	// would drop the column silently).
	return !dataset.IsNumber(s, true)
}

// preview returns the first PreviewRows data rows as text, each padded or
// cut to ncol fields. It is lenient: the loader reports the errors.
func preview(src io.Reader, delim rune, ncol int) [][]string {
	// Skip what the loader skips before the header (BOMs, Excel's "sep="
	// line), so that the first record is the header the loader read.
	r := csv.NewReader(dataset.SkipPreamble(src))
	r.Comma = delim
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	out := [][]string{}
	header := true
	for len(out) < PreviewRows {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && rec == nil {
				break
			}
		}
		if header {
			header = false
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		row := make([]string, ncol)
		for j := range row {
			if j < len(rec) {
				row[j] = strings.TrimSpace(rec[j])
			}
		}
		out = append(out, row)
	}
	return out
}

// chainInfo describes a chain that a worker is about to run.
type chainInfo struct {
	// Config is the resolved config (private settings derived from public
	// inputs), the one exports and the privacy report are made from.
	Config json.RawMessage `json:"config"`
	Names  []string        `json:"names"`
	Dim    int             `json:"dim"`
	Warmup int             `json:"warmup"`
	Total  int             `json:"total"`
	Rows   int             `json:"rows"`
	// Release is the JSON of the run's one private release, made by chain 0
	// of an algorithm with a shared release (noise-aware); the page hands
	// it to the other chains. It is the mechanism's output (public once
	// released), never the worker's noise key, which never leaves it.
	Release string `json:"release,omitempty"`
}

// newChain loads the CSV, prepares the run and returns chain c (0-based)
// with a fresh noise key from crypto/rand (the fixed test key in builds
// with the dpmcmc_testkey tag) — exactly what the command-line tool does
// for that chain.
//
// An algorithm with one release for the whole run (run.SharedRelease:
// noise-aware) needs the chains to share it while every worker has its own
// key: chain 0 (release "") makes the release with its worker's key, as the
// command-line tool does with the run's key, and returns it in
// chainInfo.Release; chains 1, 2, … are given that release and sample from
// it, their key driving only their own draws. The privacy report counts
// that one release.
func newChain(src source, cfgJSON string, c int, release string) (*run.Chain, chainInfo, error) {
	return newChainWithKey(src, cfgJSON, c, rng.NewKey(), release)
}

func newChainWithKey(src source, cfgJSON string, c int, key rng.Key, release string) (*run.Chain, chainInfo, error) {
	cfg, err := run.ParseConfig([]byte(cfgJSON))
	if err != nil {
		return nil, chainInfo{}, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, chainInfo{}, err
	}
	t, _, err := run.LoadData(src.Open(), cfg)
	if err != nil {
		return nil, chainInfo{}, err
	}
	p, err := run.Prepare(cfg, t)
	if err != nil {
		return nil, chainInfo{}, err
	}
	var ch *run.Chain
	makesRelease := false
	switch {
	case release != "":
		ch, err = p.NewChainFromRelease(c, key, []byte(release))
	case run.SharedRelease(p.Config.Algorithm) && c == 0:
		// Chain 0 makes the run's one release; no other chain ever uses
		// this key for a release.
		ch, err = p.NewChainSharedKey(c, key)
		makesRelease = true
	default:
		ch, err = p.NewChain(c, key) // refuses a shared-release algorithm
	}
	if err != nil {
		return nil, chainInfo{}, err
	}
	names := p.Model.ParamNames()
	resolved, err := p.Config.PublicJSON()
	if err != nil {
		return nil, chainInfo{}, err
	}
	info := chainInfo{Config: resolved, Names: names, Dim: len(names), Warmup: min(p.Config.Warmup, ch.Total()), Total: ch.Total(), Rows: t.Rows}
	if makesRelease {
		rel, err := ch.ReleaseJSON()
		if err != nil {
			return nil, chainInfo{}, err
		}
		info.Release = string(rel)
	}
	return ch, info, nil
}

// chainAbort is why a chain stopped before its end (its state became
// non-finite: run.NonFiniteError), as the worker hands it to the page and
// the page back to the results: the engine's message (the command-line
// tool's) and its fields.
type chainAbort struct {
	Message   string  `json:"message"`
	Algorithm string  `json:"algorithm"`
	Chain     int     `json:"chain"` // 1-based
	Iteration int     `json:"iteration"`
	Total     int     `json:"total"`
	Step      float64 `json:"step,omitempty"`
}

// abortOf returns why ch stopped before its end, or nil.
func abortOf(ch *run.Chain) *chainAbort {
	var nf *run.NonFiniteError
	if !errors.As(ch.Err(), &nf) {
		return nil
	}
	return &chainAbort{Message: nf.Error(), Algorithm: nf.Algorithm, Chain: nf.Chain, Iteration: nf.Iteration, Total: nf.Total, Step: nf.Step}
}

// err is the abort as the run's error (for the report).
func (a *chainAbort) err() error {
	return &run.NonFiniteError{Algorithm: a.Algorithm, Chain: a.Chain, Iteration: a.Iteration, Total: a.Total, Step: a.Step}
}

// chainData is one chain as the page holds it: every position that ran,
// warmup first, row-major.
type chainData struct {
	Positions  []float64
	Iterations int
}

// result rebuilds the run's result from the chains the page collected, so
// that exports go through the same code as the command-line tool
// (run.Result.Draws: chains cut to the shortest when cancelled).
func result(cfg *run.Config, names []string, chains []chainData) (*run.Result, error) {
	d := len(names)
	if d == 0 {
		return nil, errors.New("no parameters")
	}
	if len(chains) == 0 {
		return nil, errors.New("no chains")
	}
	res := &run.Result{Config: cfg, Names: names}
	for c, ch := range chains {
		if len(ch.Positions)%d != 0 {
			return nil, fmt.Errorf("chain %d: %d values is not a multiple of %d parameters", c+1, len(ch.Positions), d)
		}
		its := len(ch.Positions) / d
		w := min(cfg.Warmup, its)
		res.Chains = append(res.Chains, &run.ChainResult{
			Dim:        d,
			Warmup:     ch.Positions[:w*d],
			Draws:      ch.Positions[w*d:],
			Iterations: ch.charged(d),
		})
	}
	return res, nil
}

// charged is the iterations the privacy report charges for the chain: the
// count the page gives, but never fewer than the positions it holds (d per
// iteration). A chain whose worker failed after posting draws must not be
// charged less than the draws that are exported from it.
func (ch chainData) charged(d int) int {
	if d <= 0 {
		return ch.Iterations
	}
	return max(ch.Iterations, len(ch.Positions)/d)
}

// iterations is every chain's charged iterations (d parameters).
func iterations(chains []chainData, d int) []int {
	its := make([]int, len(chains))
	for i, c := range chains {
		its[i] = c.charged(d)
	}
	return its
}

// exportDraws writes the tidy draws CSV exactly as `dpmcmc sample --format
// draws` does.
func exportDraws(cfg *run.Config, names []string, chains []chainData) (string, error) {
	res, err := result(cfg, names, chains)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := export.WriteDrawsCSV(&b, res.Draws(false)); err != nil {
		return "", err
	}
	return b.String(), nil
}

// exportStan writes chain c (0-based) as a CmdStan CSV exactly as `dpmcmc
// sample --format stan` does, with the privacy report of a private run
// (n rows; cancelled says the run was stopped early; release as newReport).
func exportStan(cfg *run.Config, names []string, chains []chainData, c, n int, cancelled bool, release string) (string, error) {
	res, err := result(cfg, names, chains)
	if err != nil {
		return "", err
	}
	d := res.Draws(false)
	if c < 0 || c >= d.NumChains() {
		return "", fmt.Errorf("chain %d out of range", c+1)
	}
	e := export.Export{
		Draws:  d,
		Header: export.RunHeader(cfg.Model.Model, cfg.Algorithm, d, cfg.Warmup),
		Config: cfg,
	}
	if run.IsPrivate(cfg.Algorithm) {
		rep, err := newReport(cfg, n, len(names), iterations(chains, len(names)), cancelled, release)
		if err != nil {
			return "", err
		}
		e.Privacy = rep
	}
	var b bytes.Buffer
	if err := export.WriteStanCSV(&b, e, c); err != nil {
		return "", err
	}
	return b.String(), nil
}

// recommend picks the default algorithm for the declared model (its name,
// "" while undeclared) from the public n (rows) and d (parameters): among
// private algorithms when private is set. It is the command-line tool's
// --algorithm auto (run.Recommend) — noise-aware for a private logistic,
// linear or Poisson regression, and for the gaussian and banana models when
// meanBounded (every data column has a public bound) — when that algorithm
// is available, else the first available of the previous order.
func recommend(n, d int, private bool, modelName string, meanBounded bool) string {
	has := map[string]bool{}
	for _, a := range algorithms() {
		if a.Private == private {
			has[a.Name] = true
		}
	}
	if name, _ := run.Recommend(modelName, n, d, private, meanBounded); has[name] {
		return name
	}
	var order []string
	if private {
		switch {
		case n >= 1000 && d <= 20:
			// Gradient-based DP kernels pay off when n is large
			// enough for their clipped-gradient noise to be small.
			order = []string{"dp-hmc", "dp-mala", "dp-penalty", "dp-barker", "ops"}
		default:
			order = []string{"dp-penalty", "dp-mala", "dp-hmc", "dp-barker", "ops"}
		}
	} else {
		order = []string{"hmc", "mala", "mh"}
	}
	for _, a := range order {
		if has[a] {
			return a
		}
	}
	for _, a := range algorithms() {
		if a.Private == private {
			return a.Name
		}
	}
	return ""
}

// finite returns v, or nil (JSON null) when v is NaN or infinite.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// wordInNumberCell reports whether a not-a-number error is about a word
// ("forty", "yes"): the dataset's message then suggests a coding, not the
// decimal-comma option ("1,5").
func wordInNumberCell(msg string) bool {
	return strings.Contains(msg, "holds categories")
}

// textNames lists the header's columns marked in text (a non-zero value),
// in header order.
func textNames[V comparable](header []string, text map[string]V) []string {
	var out []string
	var zero V
	for _, h := range header {
		if text[h] != zero {
			out = append(out, h)
		}
	}
	return out
}
