package diag

import (
	"bufio"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readStanCSV is a minimal Stan CSV reader for the tests (the full reader
// lives in core/export, which this package must not import).
func readStanCSV(t testing.TB, path string) (names []string, draws [][]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Split(line, ",")
		if names == nil {
			names = fields
			continue
		}
		row := make([]float64, len(fields))
		for i, s := range fields {
			if row[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		draws = append(draws, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return names, draws
}

type reference struct {
	cols []string
	rows map[string][]float64
	keys []string
}

func readReference(t testing.TB, path string) reference {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ref := reference{cols: recs[0][1:], rows: map[string][]float64{}}
	for _, r := range recs[1:] {
		v := make([]float64, len(r)-1)
		for i, s := range r[1:] {
			if s == "NA" {
				v[i] = math.NaN()
				continue
			}
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		ref.rows[r[0]] = v
		ref.keys = append(ref.keys, r[0])
	}
	return ref
}

// blocker returns the two blocker chains as x[param name][chain][iteration].
func blocker(t testing.TB) map[string][][]float64 {
	out := map[string][][]float64{}
	for _, file := range []string{"blocker.1.csv", "blocker.2.csv"} {
		names, draws := readStanCSV(t, "../../testdata/diagnostics/"+file)
		for j, name := range names {
			col := make([]float64, len(draws))
			for i := range draws {
				col[i] = draws[i][j]
			}
			out[name] = append(out[name], col)
		}
	}
	return out
}

func TestBlockerMatchesPosterior(t *testing.T) {
	ref := readReference(t, "../../testdata/diagnostics/reference_posterior.csv")
	if len(ref.keys) != 48 {
		t.Fatalf("reference has %d parameters, want 48", len(ref.keys))
	}
	data := blocker(t)
	var w Workspace
	fns := map[string]func() float64{
		"rhat_rank":      w.Rhat,
		"rhat_raw":       func() float64 { return w.RhatBasic(false) },
		"ess_bulk":       w.ESSBulk,
		"ess_tail":       w.ESSTail,
		"ess_mean":       w.ESSMean,
		"ess_sd":         w.ESSSD,
		"ess_median":     w.ESSMedian,
		"ess_raw":        func() float64 { return w.ESSBasic(false) },
		"ess_quantile01": func() float64 { return w.ESSQuantile(0.01) },
		"ess_quantile10": func() float64 { return w.ESSQuantile(0.1) },
		"ess_quantile30": func() float64 { return w.ESSQuantile(0.3) },
		"mcse_mean":      w.MCSEMean,
		"mcse_sd":        w.MCSESD,
		"mcse_median":    w.MCSEMedian,
		"mcse_quantile01": func() float64 {
			return w.MCSEQuantile(0.01)
		},
		"mcse_quantile10": func() float64 { return w.MCSEQuantile(0.1) },
		"mcse_quantile30": func() float64 { return w.MCSEQuantile(0.3) },
	}
	for _, c := range ref.cols {
		if fns[c] == nil {
			t.Fatalf("reference column %q has no implementation", c)
		}
	}
	worst := map[string]float64{}
	for _, p := range ref.keys {
		x, ok := data[p]
		if !ok {
			t.Fatalf("parameter %q not in the blocker draws", p)
		}
		if !w.Load(x) {
			t.Fatalf("%s: load failed", p)
		}
		for k, c := range ref.cols {
			got, want := fns[c](), ref.rows[p][k]
			d := math.Abs(got - want)
			if math.IsNaN(want) && math.IsNaN(got) {
				d = 0
			}
			if !(d < 1e-8) {
				t.Errorf("%s %s = %.15g, want %.15g (|Δ| = %.3g)", p, c, got, want, d)
			}
			if d > worst[c] {
				worst[c] = d
			}
		}
	}
	for _, c := range ref.cols {
		t.Logf("%-16s max |Δ| = %.3g", c, worst[c])
	}
}
