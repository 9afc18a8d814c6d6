// Package experiment reproduces the papers' experiments (DP-HMC paper §4:
// banana and 10-d Gaussian comparison, clipping study; Heikkilä et al.: DP
// Barker on the Welling–Teh GMM; DP-Fast MH: truncated mixture and logistic
// regression) with the project's own kernels and accountants. Each
// experiment generates its data as its paper describes, runs the chains,
// computes the papers' metrics and returns tables (written as CSV) and
// figure specifications (rendered by the plot sub-package, which only the
// command-line tool imports, so this package stays free of plotting code).
//
// Privacy noise comes from a fresh crypto/rand key per run (rng.NewKey), as
// in production; the public seed drives data, starting points and
// proposals. Numbers are therefore reproducible in distribution, not bit
// for bit.
package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"time"
)

// Options control one experiment run.
type Options struct {
	// Quick runs the CI-sized version (small n, few ε, one repeat).
	Quick bool
	// Repeats overrides the number of repeats (0: the paper's, or 1 when Quick).
	Repeats int
	// Seed is the public seed (data, starting points, proposals).
	Seed uint64
	// Workers bounds concurrent chains (0: GOMAXPROCS).
	Workers int
	// Log receives progress lines (nil: discard).
	Log io.Writer
	// Epsilons overrides the ε grid of the experiments that sweep ε.
	Epsilons []float64
	// Algorithms restricts the algorithms run (nil: all).
	Algorithms []string
	// Models restricts the clipping experiment to these models (banana,
	// gauss; nil: both).
	Models []string
	// N overrides the number of data rows of the banana, gauss and
	// clipping experiments (0: the paper's 10⁵, 10⁴ when Quick).
	N int
	// Resume is a runs table (NAME_runs.csv) of an earlier run of the
	// banana or gauss experiment: its (algorithm, ε) cells with at least
	// the wanted repeats are reused, not run again; cells of algorithms
	// not wanted are kept as they are.
	Resume string
	// Checkpoint, when set, receives the banana and gauss runs table after
	// every (algorithm, ε) cell: the cells done so far and the resumed
	// cells still ahead, a valid Resume table (a run stopped after hours
	// loses at most the cell in progress).
	Checkpoint func(*Table) error
}

func (o Options) eps(def []float64) []float64 {
	if len(o.Epsilons) > 0 {
		return o.Epsilons
	}
	return def
}

func (o Options) wants(alg string) bool {
	if len(o.Algorithms) == 0 {
		return true
	}
	for _, a := range o.Algorithms {
		if a == alg {
			return true
		}
	}
	return false
}

func (o Options) logf(format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", a...)
	}
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) repeats(full int) int {
	if o.Repeats > 0 {
		return o.Repeats
	}
	if o.Quick {
		return 1
	}
	return full
}

// Table is one CSV file: a header and rows of values.
type Table struct {
	Name   string // file name without extension
	Header []string
	Rows   [][]any
}

// Add appends a row.
func (t *Table) Add(v ...any) { t.Rows = append(t.Rows, v) }

// Series is one line or point set of a figure.
type Series struct {
	Label string
	X, Y  []float64
	// Lo, Hi are optional error bars (absolute y values).
	Lo, Hi []float64
	// Points draws markers only (no line).
	Points bool
	// Line draws a line only (no markers).
	Line bool
}

// Figure is one plot.
type Figure struct {
	Name           string // file name without extension
	Title          string
	XLabel, YLabel string
	LogX, LogY     bool
	Series         []Series
	// Width, Height in centimetres (0: 16 × 10).
	Width, Height float64
	// LegendBottom, LegendLeft move the legend (default: top right).
	LegendBottom, LegendLeft bool
	// Dense draws Points series with small markers (scatter plots of draws).
	Dense bool
	// XTicks, when set, are the labelled x ticks (e.g. the ε grid).
	XTicks []float64
	// YMin, YMax, when YMin < YMax, fix the y range (e.g. a coverage axis).
	YMin, YMax float64
}

// Output is what an experiment produced.
type Output struct {
	Tables  []*Table
	Figures []*Figure
	// Summary lines: the headline numbers (also in the tables).
	Summary []string
	Elapsed time.Duration
}

// Experiment is one reproducible experiment.
type Experiment struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, o Options) (*Output, error)
	// Reads names the optional Options it reads, as the command's flags:
	// "eps" (Epsilons), "algorithms", "n", "repeats", "resume", "models".
	// The command notes any other one given as ignored.
	Reads []string
}

var registry = map[string]Experiment{}

func register(e Experiment) { registry[e.Name] = e }

// List returns the experiments sorted by name.
func List() []Experiment {
	var out []Experiment
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get returns the named experiment.
func Get(name string) (Experiment, bool) {
	e, ok := registry[name]
	return e, ok
}

// Run runs the named experiment.
func Run(ctx context.Context, name string, o Options) (*Output, error) {
	e, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown experiment %q", name)
	}
	t0 := time.Now()
	out, err := e.Run(ctx, o)
	if out != nil {
		out.Elapsed = time.Since(t0)
	}
	return out, err
}

// WriteTables writes every table of out as DIR/NAME.csv and returns the
// paths.
func WriteTables(out *Output, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, t := range out.Tables {
		p := filepath.Join(dir, t.Name+".csv")
		if err := WriteTable(t, p); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteTable writes t as CSV to path, through a temporary file renamed into
// place (a reader never sees half a table).
func WriteTable(t *Table, path string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(t.Header)
	for _, r := range t.Rows {
		rec := make([]string, len(r))
		for i, v := range r {
			rec[i] = format(v)
		}
		_ = w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func format(v any) string {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}
