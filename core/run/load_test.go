package run

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// writeStreamCSV writes n rows of y (0/1), x1, x2 and a text column the
// models never load, with values outside the test bounds so that clipping
// happens in every chunk; every missingEvery-th row (0: none) has an NA.
func writeStreamCSV(t testing.TB, path string, n, missingEvery int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, "id,y,x1,note,x2")
	s := uint64(12345)
	next := func() float64 { // xorshift: deterministic, no math/rand dependency
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return float64(s>>11) / (1 << 53)
	}
	for i := range n {
		x1, x2 := 4*next()-2, 3*next()-1.5
		y := 0
		if next() < 1/(1+math.Exp(-(0.3+x1-0.5*x2))) {
			y = 1
		}
		x2s := strconv.FormatFloat(x2, 'g', 6, 64)
		if missingEvery > 0 && i%missingEvery == 3 {
			x2s = "NA"
		}
		fmt.Fprintf(w, "%d,%d,%.5f,\"a, b\",%s\n", i, y, x1, x2s)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// prepareBoth prepares cfg on the file with LoadData + Prepare and with
// PrepareStream.
func prepareBoth(t *testing.T, path string, cfg *Config) (table, stream *Prepared, terr, serr error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, _, terr := LoadData(f, cfg.clone())
	if terr == nil {
		table, terr = Prepare(cfg.clone(), tab)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	stream, _, serr = PrepareStream(f, cfg.clone())
	return table, stream, terr, serr
}

func (c *Config) clone() *Config {
	b, err := c.PublicJSON()
	if err != nil {
		panic(err)
	}
	out, err := ParseConfig(b)
	if err != nil {
		panic(err)
	}
	out.ProgressEvery = c.ProgressEvery
	return out
}

// TestPrepareStreamEqualsPrepare: for regression, synthetic, private and
// drop-missing runs over several chunks, PrepareStream gives the run
// LoadData + Prepare gives (model, resolved config, plan, clip counts),
// and the same draws bit for bit.
func TestPrepareStreamEqualsPrepare(t *testing.T) {
	dir := t.TempDir()
	const n = 2*streamChunkRows + 1234
	full := filepath.Join(dir, "full.csv")
	writeStreamCSV(t, full, n, 0)
	holes := filepath.Join(dir, "holes.csv")
	writeStreamCSV(t, holes, n, 97)
	bounds := map[string][2]float64{"x1": {-1.5, 1.5}, "x2": {-1, 1}}
	cfgs := map[string]*Config{
		"logistic-mh": {Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x1", "x2"}},
			Data: DataSpec{Bounds: bounds}, Algorithm: "mh", Chains: 2, Warmup: 10, Draws: 10, Seed: 3},
		"logistic-dp-penalty": {Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x2", "x1"}},
			Data: DataSpec{Bounds: bounds}, Algorithm: "dp-penalty", Chains: 2, Warmup: 5, Draws: 5, Seed: 4,
			Privacy: &Budget{Epsilon: 1, Delta: 1e-6}},
		"linear-hmc": {Model: model.Spec{Model: "linear", Outcome: "x2", Predictors: []string{"x1"}},
			Data: DataSpec{Bounds: bounds}, Algorithm: "hmc", Chains: 1, Warmup: 5, Draws: 5, Seed: 5},
		"gaussian-mala": {Model: model.Spec{Model: "gaussian", Predictors: []string{"x1", "x2"}},
			Data: DataSpec{Bounds: bounds}, Algorithm: "mala", Chains: 1, Warmup: 5, Draws: 5, Seed: 6},
		"drop-missing": {Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x1", "x2"}},
			Data: DataSpec{DropMissing: true}, Algorithm: "mh", Chains: 1, Warmup: 5, Draws: 5, Seed: 7},
		"impute-dp-penalty": {Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x1", "x2"}},
			Data: DataSpec{Bounds: bounds, Impute: map[string]float64{"x1": 0, "x2": 0.25}}, Algorithm: "dp-penalty", Chains: 1, Warmup: 5, Draws: 5, Seed: 8,
			Privacy: &Budget{Epsilon: 1, Delta: 1e-6}},
	}
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			path := full
			if cfg.Data.DropMissing || cfg.Data.Impute != nil {
				path = holes
			}
			tp, sp, terr, serr := prepareBoth(t, path, cfg)
			if terr != nil || serr != nil {
				t.Fatalf("table: %v; stream: %v", terr, serr)
			}
			if !reflect.DeepEqual(tp.Model, sp.Model) {
				t.Fatal("the models differ")
			}
			if !reflect.DeepEqual(tp.Config, sp.Config) || !reflect.DeepEqual(tp.Plan, sp.Plan) || !reflect.DeepEqual(tp.Clipped, sp.Clipped) {
				t.Fatalf("config, plan or clip counts differ:\n%+v\n%+v\n%v\n%v", tp.Plan, sp.Plan, tp.Clipped, sp.Clipped)
			}
			if len(bounds) > 0 && !cfg.Data.DropMissing && tp.Clipped["x1"].Below == 0 {
				t.Fatal("the test data were not clipped")
			}
			tr, err := tp.run(context.Background(), testKey, nil)
			if err != nil {
				t.Fatal(err)
			}
			sr, err := sp.run(context.Background(), testKey, nil)
			if err != nil {
				t.Fatal(err)
			}
			td, sd := tr.Draws(true), sr.Draws(true)
			for c := range td.Values {
				for i := range td.Values[c] {
					for k, v := range td.Values[c][i] {
						if math.Float64bits(v) != math.Float64bits(sd.Values[c][i][k]) {
							t.Fatalf("chain %d, draw %d differs", c, i)
						}
					}
				}
			}
		})
	}
}

// TestPrepareStreamErrors: data and model errors are wrapped in
// ErrNotStreamed (the caller re-reads the whole table for the exact
// message) and carry the loader's message; errors after the model is
// built are Prepare's, unwrapped.
func TestPrepareStreamErrors(t *testing.T) {
	dir := t.TempDir()
	const n = streamChunkRows + 500
	good := filepath.Join(dir, "good.csv")
	writeStreamCSV(t, good, n, 0)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(raw, []byte("\n"))
	lines[n-10] = []byte(`9,1,abc,"x",0.5`)
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, bytes.Join(lines, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	lines[n-10] = []byte(`9,2,0.1,"x",0.5`)
	outcome := filepath.Join(dir, "outcome.csv")
	if err := os.WriteFile(outcome, bytes.Join(lines, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	logit := func(alg string) *Config {
		return &Config{Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x1", "x2"}},
			Algorithm: alg, Chains: 1, Warmup: 5, Draws: 5}
	}
	// A cell that is not a number, in the second chunk.
	_, _, terr, serr := prepareBoth(t, bad, logit("mh"))
	if terr == nil || !errors.Is(serr, ErrNotStreamed) || !strings.Contains(serr.Error(), terr.Error()) {
		t.Fatalf("table: %v; stream: %v", terr, serr)
	}
	// An outcome outside the model's support.
	_, _, terr, serr = prepareBoth(t, outcome, logit("mh"))
	if !errors.Is(terr, model.ErrData) || !errors.Is(serr, ErrNotStreamed) || !errors.Is(serr, model.ErrData) {
		t.Fatalf("table: %v; stream: %v", terr, serr)
	}
	// A private run without bounds: refused after the model, as Prepare does.
	cfg := logit("dp-penalty")
	cfg.Privacy = &Budget{Epsilon: 1, Delta: 1e-6}
	_, _, terr, serr = prepareBoth(t, good, cfg)
	if terr == nil || serr == nil || errors.Is(serr, ErrNotStreamed) || terr.Error() != serr.Error() {
		t.Fatalf("table: %v; stream: %v", terr, serr)
	}
}

// memPredictors is the number of predictors of the memory test's model.
const memPredictors = 10

// TestPrepareStreamMemory guards the "memory on large files" row of
// docs/RELIABILITY.md: preparing a run with PrepareStream must not hold the
// data twice. A logistic model with 10 predictors on 5·10⁵ rows stores
// 8·11 (design matrix with intercept) + 8 (outcome) + 8 (signs) = 104 B/row;
// the peak resident set of a fresh process preparing the run (VmHWM) may
// exceed that by 20 % plus 8 MB (garbage between collections, the read
// buffer, the runtime). LoadData + Prepare also holds the 88 B/row table
// and must exceed the stream's peak by 30 % (so the bound would catch a
// second copy). The measured numbers are logged.
func TestPrepareStreamMemory(t *testing.T) {
	if mode := os.Getenv("DPMCMC_MEMTEST"); mode != "" {
		memChild(t, mode, os.Getenv("DPMCMC_MEMTEST_FILE"))
		return
	}
	if testing.Short() {
		t.Skip("writes a 5·10⁵-row file")
	}
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		t.Skip("needs Linux /proc to measure the peak resident set")
	}
	const n = 500_000
	path := filepath.Join(t.TempDir(), "big.csv")
	writeWideCSV(t, path, n)
	peak := func(mode string) float64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrepareStreamMemory$", "-test.v")
		cmd.Env = append(os.Environ(), "DPMCMC_MEMTEST="+mode, "DPMCMC_MEMTEST_FILE="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		_, after, ok := strings.Cut(string(out), "PEAK ")
		if !ok {
			t.Fatalf("%s: no peak in\n%s", mode, out)
		}
		b, err := strconv.ParseInt(strings.Fields(after)[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return float64(b)
	}
	stream, table := peak("stream"), peak("table")
	model := float64(n * 8 * (memPredictors + 3))
	t.Logf("peak RSS growth for %d rows (model storage %.0f B/row): PrepareStream %.1f B/row, LoadData+Prepare %.1f B/row", n, model/n, stream/n, table/n)
	if limit := 1.2*model + 8<<20; stream > limit {
		t.Errorf("PrepareStream peak %.1f MB > %.1f MB: the data are held twice?", stream/1e6, limit/1e6)
	}
	if table < 1.3*stream {
		t.Errorf("LoadData+Prepare peak %.1f MB is not 30 %% above PrepareStream's %.1f MB: the bound has no power", table/1e6, stream/1e6)
	}
}

// writeWideCSV writes n rows of y (0/1) and memPredictors predictors.
func writeWideCSV(t testing.TB, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("y")
	for k := range memPredictors {
		fmt.Fprintf(w, ",x%d", k+1)
	}
	w.WriteString("\n")
	for i := range n {
		fmt.Fprintf(w, "%d", i%2)
		for k := range memPredictors {
			fmt.Fprintf(w, ",%d.%03d", (i+k)%7-3, (i*31+k*17)%1000)
		}
		w.WriteString("\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// memChild prepares the run in this (fresh) process and prints the growth
// of the peak resident set.
func memChild(t *testing.T, mode, path string) {
	cfg := &Config{Model: model.Spec{Model: "logistic", Outcome: "y"}, Algorithm: "mh", Chains: 1, Warmup: 1, Draws: 1}
	for k := range memPredictors {
		cfg.Model.Predictors = append(cfg.Model.Predictors, fmt.Sprintf("x%d", k+1))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	debug.FreeOSMemory()
	before := procStatus(t, "VmRSS:")
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil { // resets VmHWM
		t.Skip(err)
	}
	var p *Prepared
	switch mode {
	case "stream":
		p, _, err = PrepareStream(f, cfg)
	default:
		tab, _, lerr := LoadData(f, cfg)
		if lerr != nil {
			t.Fatal(lerr)
		}
		p, err = Prepare(cfg, tab)
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("PEAK %d\n", procStatus(t, "VmHWM:")-before)
	runtime.KeepAlive(p)
}

func procStatus(t *testing.T, key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no " + key)
	return 0
}

// The bounds' clip counts, streamed or not: a predictor's values outside
// its bound on each side, and a 0/1 outcome's 2 (coded 1/2, or an entry
// error), which the bound 0:1 clips to 1 in a private run (issue #15: one
// row must not change what runs) and the count shows on screen.
func TestClipCountsStreamedOrNot(t *testing.T) {
	const csv = "y,x\n1,0.5\n2,3\n1,-7\n0,0.2\n"
	cfg := &Config{Model: model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"x"}}, Algorithm: "noise-aware",
		Chains: 1, Draws: 10, Privacy: &Budget{Epsilon: 1, Delta: 1e-5},
		Data: DataSpec{Bounds: map[string][2]float64{"x": {-1, 1}, "y": {0, 1}}}}
	want := dataset.ClipCounts{"x": {Below: 1, Above: 1}, "y": {Above: 1}}
	for _, stream := range []bool{false, true} {
		var p *Prepared
		var err error
		if stream {
			p, _, err = PrepareStream(strings.NewReader(csv), cfg.clone())
		} else {
			tab, _, lerr := LoadData(strings.NewReader(csv), cfg.clone())
			if lerr != nil {
				t.Fatal(lerr)
			}
			p, err = Prepare(cfg.clone(), tab)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.Clipped, want) {
			t.Errorf("stream %v: clip counts %v, want %v", stream, p.Clipped, want)
		}
	}
}
