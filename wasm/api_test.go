package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/rng"
	"github.com/dpmcmc/dpmcmc/core/run"
)

func demoCSV(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../site/demo/cohort.csv")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInspectDemo(t *testing.T) {
	r := inspect(demoCSV(t), inspectOptions{})
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if r.Rows != 2000 || len(r.Preview) != PreviewRows || r.Delimiter != "," {
		t.Fatalf("rows %d preview %d delim %q", r.Rows, len(r.Preview), r.Delimiter)
	}
	want := map[string]string{"age10": "number", "smoker": "binary", "event": "binary", "visits": "count"}
	for _, c := range r.Columns {
		if w, ok := want[c.Name]; ok && c.Type != w {
			t.Errorf("%s: type %s, want %s", c.Name, c.Type, w)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	for _, tc := range []struct {
		csv, want string
		line      int
	}{
		{"b\n2\nabc\n", `line 3, column 1 ("b")`, 3}, // the only number column
		{"a,b\n1,2\n3,4,5\n", "line 3", 3},
		{"a,b\n1,2.5\n3,4,5\n", "line 3", 3},
		{"a,b\n1,2\n3\n", "line 3", 3},
		{"", "empty", 0},
	} {
		r := inspect([]byte(tc.csv), inspectOptions{})
		if r.Error == nil || !strings.Contains(r.Error.Message, tc.want) || r.Error.Line != tc.line {
			t.Errorf("%q: error %+v, want %q at line %d", tc.csv, r.Error, tc.want, tc.line)
		}
	}
	big := make([]byte, MaxBytes+1)
	if r := inspect(big, inspectOptions{}); r.Error == nil || !strings.Contains(r.Error.Message, "up to 200 MB") {
		t.Errorf("big file: %+v", r.Error)
	}
}

// A word in a number column past its first cell ("forty" on line 4) does
// not stop the file: the column is read as text, typed "number" with its
// error (line, column, the cell), so that the page can block a run that
// uses it and offer to leave it out; the other columns load. A file whose
// every number column fails keeps the file's error (a decimal-comma file
// names its option), and so does a non-word (a decimal comma in one column).
func TestInspectWordInNumberColumn(t *testing.T) {
	r := inspect([]byte("y,age,bmi\n1,40,22\n0,50,23\n1,forty,24\n0,60,yes\n"), inspectOptions{})
	if r.Error != nil || r.Rows != 4 {
		t.Fatalf("%+v", r)
	}
	got := map[string]columnInfo{}
	for _, c := range r.Columns {
		got[c.Name] = c
	}
	if got["y"].Type != "binary" || got["y"].Error != nil {
		t.Errorf("y: %+v", got["y"])
	}
	for name, line := range map[string]int{"age": 4, "bmi": 5} {
		c := got[name]
		if c.Type != "number" || c.Error == nil || c.Error.Line != line || c.Error.ColumnName != name || !strings.Contains(c.Error.Message, "is not a number") {
			t.Errorf("%s: %+v (error %+v), want its error at line %d", name, c, c.Error, line)
		}
	}
	if r := inspect([]byte("a,b\n1,2\nx,y\n"), inspectOptions{}); r.Error == nil || r.Error.Line != 3 {
		t.Errorf("every number column has a word: %+v", r)
	}
	if r := inspect([]byte("a,b\n1,2\n3,4,5\n"), inspectOptions{}); r.Error == nil {
		t.Errorf("a ragged row loads: %+v", r)
	}
	if r := inspect([]byte("a,b\n1,2\n3,\"4,5\"\n"), inspectOptions{}); r.Error == nil || !strings.Contains(r.Error.Message, "decimal comma") {
		t.Errorf("a decimal comma is not a word: %+v", r.Error)
	}
}

// A file with missing cells loads for the screen: every row is kept, the
// columns are typed from their other cells, and the missing cells are
// counted per column, text columns included, so that the page can ask for
// public values to put in them (the run's data.impute) instead of refusing
// the file.
func TestInspectMissingCells(t *testing.T) {
	r := inspect([]byte("y,age,bmi,empty,sex,smoker\nyes,50,NA,,F,NA\nno,,22.5,,NA,yes\nNA,61,30,.,M,no\n"), inspectOptions{})
	if r.Error != nil || r.Rows != 3 || r.Dropped != 0 {
		t.Fatalf("%+v", r)
	}
	// smoker's first cell is NA: its type comes from the first present cell.
	want := map[string]string{"y": "text", "age": "count", "bmi": "number", "empty": "number", "sex": "text", "smoker": "text"}
	for _, c := range r.Columns {
		if c.Type != want[c.Name] {
			t.Errorf("%s typed %s, want %s", c.Name, c.Type, want[c.Name])
		}
	}
	// Text columns' missing cells are counted too (the clinician audit's
	// smoker NAs had been invisible on the page).
	if !maps.Equal(r.Missing, map[string]int{"y": 1, "age": 1, "bmi": 1, "empty": 3, "sex": 1, "smoker": 1}) {
		t.Errorf("missing %v", r.Missing)
	}
	// And the line of each column's first one, for the page's messages.
	if !maps.Equal(r.MissingLine, map[string]int{"y": 4, "age": 3, "bmi": 2, "empty": 2, "sex": 3, "smoker": 2}) {
		t.Errorf("first missing lines %v", r.MissingLine)
	}
	if r := inspect([]byte("a\n1\n"), inspectOptions{}); r.Missing != nil {
		t.Errorf("no missing cells: %v", r.Missing)
	}
}

// A semicolon file written with decimal commas (as many European locales
// export): without the option the column is not silently typed "text" and
// dropped, the loader names the option; with it the values are numbers.
func TestInspectDecimalComma(t *testing.T) {
	csv := []byte("age;weight\n34;70,5\n51;82\n47;66,25\n")
	r := inspect(csv, inspectOptions{})
	if r.Error == nil || !strings.Contains(r.Error.Message, `"70,5" is not a number (it looks like a decimal comma`) || !strings.Contains(r.Error.Message, "numbers use a decimal comma") || r.Error.Line != 2 {
		t.Errorf("without the option: %+v", r.Error)
	}
	r = inspect(csv, inspectOptions{DecimalComma: true})
	if r.Error != nil || r.Rows != 3 || len(r.Columns) != 2 || r.Columns[1].Type != "number" {
		t.Errorf("with the option: rows %d, columns %+v, error %+v", r.Rows, r.Columns, r.Error)
	}
	// Text stays text with the option.
	if r := inspect([]byte("a;b\nx;1,5\ny;2\n"), inspectOptions{DecimalComma: true}); r.Error != nil || r.Columns[0].Type != "text" || r.Columns[1].Type != "number" {
		t.Errorf("text column with the option: %+v %+v", r.Columns, r.Error)
	}
}

func TestInspectTextColumnAndMarkup(t *testing.T) {
	r := inspect([]byte("<img src=x onerror=alert(1)>,name\n1,Ann\n2,Bob\n"), inspectOptions{})
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if r.Columns[0].Name != "<img src=x onerror=alert(1)>" || r.Columns[0].Type != "count" || r.Columns[1].Type != "text" {
		t.Fatalf("columns %+v", r.Columns)
	}
	if r.Preview[1][1] != "Bob" {
		t.Fatalf("preview %v", r.Preview)
	}
}

const testConfig = `{"model":{"model":"logistic","outcome":"event","predictors":["age10","bmi5","sbp20","smoker"]},
"data":{"bounds":{"age10":[-4.2,3],"bmi5":[-2.4,4.6],"sbp20":[-2.5,4.5],"smoker":[0,1],"event":[0,1]}},
"algorithm":"hmc","chains":2,"warmup":50,"draws":40,"seed":7}`

// TestChainsMatchRun checks that chains advanced in slices, collected and
// exported the page's way equal run.Prepared.Run exported the CLI's way.
func TestChainsMatchRun(t *testing.T) {
	key := rng.NewKey() // the same key for both paths (fixed in testkey builds)
	data := demoCSV(t)
	var chains []chainData
	var names []string
	for c := range 2 {
		ch, info, err := newChainWithKey(bytesSource(data), testConfig, c, key, "")
		if err != nil {
			t.Fatal(err)
		}
		names = info.Names
		var pos []float64
		for !ch.Finished() {
			pos = append(pos, ch.Advance(7)...)
		}
		chains = append(chains, chainData{Positions: pos, Iterations: ch.Done()})
	}
	cfg, _ := run.ParseConfig([]byte(testConfig))
	got, err := exportDraws(cfg, names, chains)
	if err != nil {
		t.Fatal(err)
	}

	cfg2, _ := run.ParseConfig([]byte(testConfig))
	tab, _, err := run.LoadData(bytes.NewReader(data), cfg2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := run.Prepare(cfg2, tab)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	res := &run.Result{Config: cfg2, Names: p.Model.ParamNames()}
	for c := range 2 {
		cr, err := p.RunChain(context.Background(), c, key, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Chains = append(res.Chains, cr)
	}
	if err := export.WriteDrawsCSV(&want, res.Draws(false)); err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Fatalf("draws differ:\n%.300s\nvs\n%.300s", got, want.String())
	}

	// The page's results view: the table's cells are report.Summary of the
	// same draws, the cells `dpmcmc sample` and `dpmcmc summary --model
	// logistic` print.
	v, err := results(cfg, names, chains, runInfo{Rows: 2000, Chains: []localChain{{Iterations: 90, Accepted: 80, Ms: 1500}, {Iterations: 90, Accepted: 81}}})
	if err != nil {
		t.Fatal(err)
	}
	cli := res.Draws(false)
	// The ratios are per the public steps of the config's bounds: 1 for
	// the demo's predictors (age10 −4.2–3, already in decades; smoker 0–1).
	steps := map[string]float64{"age10": 1, "bmi5": 1, "sbp20": 1, "smoker": 1, "event": 1}
	wantTab := report.Summary(diag.Summary(cli.Names, cli.Values), "logistic", steps)
	if !v.Summarized || v.Draws != 40 || len(v.Table.Rows) != 5 || v.Table.RatioName != "odds ratio" || v.Table.Rows[0][10] != "" || v.Table.Rows[1][10] == "" {
		t.Fatalf("view %+v", v)
	}
	if got := []string{v.Table.Rows[1][9], v.Table.Rows[4][9]}; got[0] != "1" || got[1] != "1" {
		t.Errorf("steps of age10, smoker: %q", got)
	}
	for i := range wantTab.Rows {
		if strings.Join(v.Table.Rows[i], "|") != strings.Join(wantTab.Rows[i], "|") {
			t.Errorf("row %d: %q, want %q", i, v.Table.Rows[i], wantTab.Rows[i])
		}
	}
	if v.Private || !strings.HasPrefix(v.Statement, "NOT PRIVATE: these draws were produced by hmc") || v.ReportJSON != "" || v.Budget != "" {
		t.Errorf("statement %q report %q budget %q", v.Statement, v.ReportJSON, v.Budget)
	}
	if len(v.Forest.Rows) != 4 || !v.Forest.Log || v.Forest.Rows[0].Name != "age10" || v.Forest.Rows[0].Step != 1 || !strings.HasSuffix(v.Forest.Rows[0].Label, " per 1") {
		t.Errorf("forest %+v", v.Forest)
	}
	if len(v.Local) != 2 || v.Local[0] != "chain 1: acceptance 0.889 over 90 iterations, in 1.5 s" {
		t.Errorf("local %q", v.Local)
	}
	if !strings.HasPrefix(v.Caption, "Posterior summary: 2 chains × 40 draws after warmup; odds ratios") {
		t.Errorf("caption %q", v.Caption)
	}
	stan, err := exportStan(cfg, names, chains, 1, 2000, false, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := export.ReadDraws(strings.NewReader(stan))
	if err != nil || d.NumIterations() != 40 || d.NumParams() != 5 {
		t.Fatalf("stan: %v %v", err, d)
	}
}

func TestCancelledChainsCutToShortest(t *testing.T) {
	cfg, _ := run.ParseConfig([]byte(testConfig))
	names := []string{"a"}
	chains := []chainData{{Positions: make([]float64, 60), Iterations: 60}, {Positions: make([]float64, 55), Iterations: 55}}
	out, err := exportDraws(cfg, names, chains)
	if err != nil {
		t.Fatal(err)
	}
	d, err := export.ReadDraws(strings.NewReader(out))
	if err != nil || d.NumIterations() != 5 || d.NumChains() != 2 {
		t.Fatalf("%v %+v", err, d)
	}
}

func TestRecommend(t *testing.T) {
	if got := recommend(2000, 5, false, "logistic", false); got != "hmc" {
		t.Fatalf("non-private default %q", got)
	}
	for _, a := range algorithms() {
		if a.Doc == "" {
			t.Errorf("%s has no doc", a.Name)
		}
	}
}

// Issue #15 item 2: the page never offers add-remove, but a config posted
// to the engine with it (plan, newChain, privacy report) is refused with
// the same reason as the CLI: sampling is private under replace-one only.
func TestEngineRefusesAddRemove(t *testing.T) {
	const cfgJSON = `{"model":{"model":"logistic","outcome":"event","predictors":["age10","smoker"]},
"data":{"bounds":{"age10":[-4.2,3],"smoker":[0,1],"event":[0,1]}},
"algorithm":"dp-penalty","chains":2,"seed":7,"privacy":{"epsilon":1,"delta":1e-5,"relation":"add-remove"}}`
	data := bytesSource(demoCSV(t))
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), `relation "add-remove" is not available for sampling`) || !strings.Contains(err.Error(), "dpmcmc account") {
			t.Errorf("%s: %v", what, err)
		}
	}
	_, err := plan(data, cfgJSON)
	check("plan", err)
	_, _, err = newChainWithKey(data, cfgJSON, 0, rng.NewKey(), "")
	check("newChain", err)
	cfg, err := run.ParseConfig([]byte(cfgJSON))
	if err != nil {
		t.Fatal(err)
	}
	_, err = reportJSON(cfg, 2000, 3, []int{10, 10}, false, "")
	check("report", err)
	// The same config under replace runs.
	ok := strings.Replace(cfgJSON, `"add-remove"`, `"replace"`, 1)
	if _, err := plan(data, ok); err != nil {
		t.Errorf("replace refused: %v", err)
	}
}

// A private run's view carries privacy.json (the export), its statement and
// the budget spent, spelled by core/report (ε rounded up); a run cut before
// two draws has no table.
func TestResultsPrivate(t *testing.T) {
	const cfgJSON = `{"model":{"model":"logistic","outcome":"event","predictors":["age10","smoker"]},
"data":{"bounds":{"age10":[-4.2,3],"smoker":[0,1],"event":[0,1]}},
"algorithm":"dp-penalty","chains":2,"warmup":5,"draws":5,"seed":7,"privacy":{"epsilon":2,"delta":1e-5}}`
	chains, info := runDemoChains(t, cfgJSON, 2)
	cfg, err := run.ParseConfig(info.Config)
	if err != nil {
		t.Fatal(err)
	}
	v, err := results(cfg, info.Names, chains, runInfo{Rows: 2000})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := newReport(cfg, 2000, 3, []int{10, 10}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := rep.JSON()
	if !v.Private || v.ReportJSON != string(want) || v.Statement != rep.Statement {
		t.Errorf("report %q\nstatement %q", v.ReportJSON, v.Statement)
	}
	if v.CalibrationNote != "" {
		t.Errorf("dp-penalty given noise-aware's calibration note %q", v.CalibrationNote)
	}
	if v.Budget != "Privacy budget spent: "+report.Budget(rep.Epsilon, 2, 1e-5)+"." || !strings.Contains(v.Budget, "of 2 (δ = 1e-05)") {
		t.Errorf("budget %q", v.Budget)
	}
	b, err := budget(cfg, 2000, 3, []int{5, 5}, false)
	if err != nil || !(b.Fraction > 0 && b.Fraction < 1) || !strings.HasPrefix(b.Text, "ε spent ") {
		t.Errorf("budget %+v %v", b, err)
	}
	// While chains run the counts lag the workers: the text says so.
	live, err := budget(cfg, 2000, 3, []int{5, 5}, true)
	if err != nil || live.Fraction != b.Fraction || !strings.HasPrefix(live.Text, "ε spent so far at least ") || !strings.HasSuffix(live.Text, "chains still running") {
		t.Errorf("live budget %+v %v", live, err)
	}
	// Cut to one draw per chain after warmup: no summary.
	short := []chainData{{Positions: chains[0].Positions[:6*3], Iterations: 6}, chains[1]}
	v, err = results(cfg, info.Names, short, runInfo{Rows: 2000, Cancelled: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.Summarized || v.Verdict != report.TooFewDraws || v.Draws != 1 {
		t.Errorf("short view %+v", v)
	}
}

// The page's plan carries the mixing forecast (issue #16 part A).
func TestPlanCarriesForecast(t *testing.T) {
	const cfgJSON = `{"model":{"model":"logistic","outcome":"event","predictors":["age10","smoker"]},
"data":{"bounds":{"age10":[-4.2,3],"smoker":[0,1],"event":[0,1]}},
"algorithm":"dp-penalty","chains":2,"seed":7,"privacy":{"epsilon":1,"delta":1e-5}}`
	p, err := plan(bytesSource(demoCSV(t)), cfgJSON)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Plan.Forecast; f == nil || f.Kind != "random-walk-bound" || !strings.Contains(string(b), `"forecast":{"kind":"random-walk-bound"`) || strings.Contains(string(b), `"calibration"`) {
		t.Fatalf("plan JSON %s", b)
	}
	// noise-aware's forecast carries its measured calibration, which the
	// page shows under the forecast before any run.
	na, err := plan(bytesSource(demoCSV(t)), strings.Replace(cfgJSON, `"dp-penalty"`, `"noise-aware"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	if f := na.Plan.Forecast; f == nil || f.Calibration != report.CalibrationNote("logistic") {
		t.Fatalf("noise-aware forecast %+v", f)
	}
}

// The plan counts, per column, the values its public bound clipped (shown
// on the page, labelled local); the resolved config, which exports carry,
// does not.
func TestPlanCountsClippedValues(t *testing.T) {
	data := demoCSV(t)
	below, above := 0, 0
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	j := slices.Index(strings.Split(rows[0], ","), "age10")
	for _, r := range rows[1:] {
		var v float64
		if _, err := fmt.Sscan(strings.Split(r, ",")[j], &v); err != nil {
			t.Fatal(err)
		}
		if v < -1 {
			below++
		} else if v > 1 {
			above++
		}
	}
	cfg := func(age string) string {
		return `{"model":{"model":"logistic","outcome":"event","predictors":["age10","smoker"]},
"data":{"bounds":{"age10":` + age + `,"smoker":[0,1],"event":[0,1]}},
"algorithm":"noise-aware","chains":2,"seed":7,"privacy":{"epsilon":1,"delta":1e-5}}`
	}
	p, err := plan(bytesSource(data), cfg("[-1,1]"))
	if err != nil {
		t.Fatal(err)
	}
	if below == 0 || above == 0 || p.Clipped["age10"] != (clipCount{Below: below, Above: above}) || len(p.Clipped) != 1 {
		t.Fatalf("clipped %v, want age10 %d below and %d above only", p.Clipped, below, above)
	}
	if strings.Contains(string(p.Config), "below") || strings.Contains(string(p.Config), "above") {
		t.Errorf("the resolved config carries a count: %s", p.Config)
	}
	if p, err = plan(bytesSource(data), cfg("[-4.2,3]")); err != nil || p.Clipped != nil {
		t.Fatalf("bounds that hold every value: clipped %v, %v", p.Clipped, err)
	}
}

// Issue #16: the page's default sampler is the command-line tool's
// --algorithm auto (run.Recommend) for the declared model: noise-aware for
// a private logistic, linear or Poisson regression.
func TestRecommendIsCLIAuto(t *testing.T) {
	for _, m := range []string{"logistic", "linear", "poisson", "gaussian", "banana", ""} {
		for _, nd := range [][2]int{{569, 6}, {5000, 3}, {200, 30}} {
			for _, private := range []bool{true, false} {
				for _, bounded := range []bool{true, false} {
					want, _ := run.Recommend(m, nd[0], nd[1], private, bounded)
					if got := recommend(nd[0], nd[1], private, m, bounded); got != want {
						t.Errorf("recommend(%d, %d, %v, %q, %v) = %s, the CLI's auto %s", nd[0], nd[1], private, m, bounded, got, want)
					}
				}
			}
		}
	}
	if got := recommend(5000, 2, true, "banana", true); got != run.NoiseAware {
		t.Errorf("private banana with bounded columns: default %s", got)
	}
	if got := recommend(569, 6, true, "logistic", false); got != run.NoiseAware {
		t.Errorf("private logistic default %s", got)
	}
}

const noiseAwareConfig = `{"model":{"model":"logistic","outcome":"event","predictors":["age10","bmi5","sbp20","smoker"]},
"data":{"bounds":{"age10":[-4.2,3],"bmi5":[-2.4,4.6],"sbp20":[-2.5,4.5],"smoker":[0,1],"event":[0,1]}},
"algorithm":"noise-aware","chains":3,"warmup":0,"draws":40,"seed":7,"privacy":{"epsilon":3,"delta":1e-5}}`

// Issue #16: the page's workers each draw their own key, yet a noise-aware
// run makes ONE release: chain 0 makes it and hands it on (chainInfo.Release),
// chains 1 and 2 sample from it. With the key the command-line tool gives
// every chain (the fixed key of a testkey build) the page's chains equal
// the CLI's bit for bit; a chain without the release is refused; the report
// counts one release whatever the chains.
func TestNoiseAwarePageChainsShareOneRelease(t *testing.T) {
	data := demoCSV(t)
	key := rng.NewKey()
	if _, _, err := newChainWithKey(bytesSource(data), noiseAwareConfig, 1, key, ""); !errors.Is(err, run.ErrNeedsSharedKey) {
		t.Fatalf("chain 1 without the release: %v", err)
	}
	ch0, info0, err := newChainWithKey(bytesSource(data), noiseAwareConfig, 0, key, "")
	if err != nil {
		t.Fatal(err)
	}
	if info0.Release == "" || !strings.Contains(info0.Release, `"s":[[`) {
		t.Fatalf("chain 0 handed on no release: %q", info0.Release)
	}
	page := [][]float64{slices.Clone(ch0.Advance(ch0.Total()))}
	other := [][]float64{page[0]}
	for c := 1; c < 3; c++ {
		ch, info, err := newChainWithKey(bytesSource(data), noiseAwareConfig, c, key, info0.Release)
		if err != nil {
			t.Fatal(err)
		}
		if info.Release != "" {
			t.Errorf("chain %d handed on a release", c)
		}
		page = append(page, slices.Clone(ch.Advance(ch.Total())))
		// The same chain in a worker with another key: the same release,
		// other draws.
		chk, _, err := newChainWithKey(bytesSource(data), noiseAwareConfig, c, rng.KeyFromBytes([32]byte{byte(c)}), info0.Release)
		if err != nil {
			t.Fatal(err)
		}
		other = append(other, slices.Clone(chk.Advance(chk.Total())))
	}
	// The CLI: one key for every chain (run.Prepared.Run).
	cfg, _ := run.ParseConfig([]byte(noiseAwareConfig))
	tab, _, err := run.LoadData(bytes.NewReader(data), cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := run.Prepare(cfg, tab)
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		ch, err := p.NewChainSharedKey(c, key)
		if err != nil {
			t.Fatal(err)
		}
		if want := ch.Advance(ch.Total()); !slices.Equal(page[c], want) {
			t.Fatalf("chain %d: the page's draws differ from the CLI's", c+1)
		}
		if c > 0 && slices.Equal(other[c], page[c]) {
			t.Fatalf("chain %d: another worker key gave the same draws", c+1)
		}
	}
	// One release in the report, whatever the chains.
	resolved, _ := run.ParseConfig(info0.Config)
	r3, err := newReport(resolved, 2000, 5, []int{40, 40, 40}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	one := *resolved
	one.Chains = 1
	r1, err := newReport(&one, 2000, 5, []int{40}, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if r3.Epsilon != r1.Epsilon || r3.Epsilon > 3 || r3.Epsilon < 2.99 || !strings.Contains(r3.Mechanism, "once for the whole run") {
		t.Errorf("ε with 3 chains %v, with 1 %v; mechanism %q", r3.Epsilon, r1.Epsilon, r3.Mechanism)
	}
	// With the release the page holds, the report (results, the Stan CSV
	// and privacy.json) is the CLI's for the same run, and holds nothing
	// computed from the release: it equals the report of the public inputs.
	withRel, err := newReport(resolved, 2000, 5, []int{40, 40, 40}, false, info0.Release)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := run.NewReport(resolved, 2000, 5, []int{40, 40, 40}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.NoteRelease(resolved, 2000, 5, []byte(info0.Release)); err != nil {
		t.Fatal(err)
	}
	a, _ := withRel.JSON()
	b, _ := cli.JSON()
	if string(a) != string(b) || withRel.Epsilon != r3.Epsilon || strings.Contains(string(a), "design_min_eigenvalue") {
		t.Errorf("the page's report with the release differs from the CLI's or states a value from it:\n%s\n---\n%s", a, b)
	}
	view, err := results(resolved, []string{"a", "b", "c", "d", "e"}, []chainData{{Positions: make([]float64, 200), Iterations: 40}, {Positions: make([]float64, 200), Iterations: 40}, {Positions: make([]float64, 200), Iterations: 40}}, runInfo{Rows: 2000, Release: info0.Release})
	if err != nil {
		t.Fatal(err)
	}
	if view.ReportJSON != string(a) {
		t.Errorf("the results' report is not the CLI's:\n%s", view.ReportJSON)
	}
	// The measured calibration of noise-aware's intervals, under the
	// summary and among the report's notes, as the CLI states them.
	if cal := report.CalibrationNote("logistic"); cal == "" || view.CalibrationNote != cal || !slices.Contains(withRel.Notes, cal) {
		t.Errorf("calibration note %q, report notes %q", view.CalibrationNote, withRel.Notes)
	}
	// A release of other rows: the report is still made (the budget was
	// spent), and says the release could not be checked.
	foreign, err := newReport(resolved, 1999, 5, []int{40, 40, 40}, false, info0.Release)
	if err != nil || !strings.Contains(strings.Join(foreign.Notes, " "), "could not be checked against this run's plan: the run's release: noise-aware: the release was made on 2000 rows") {
		t.Errorf("a release made on other rows: %v, notes %q", err, foreign.Notes)
	}
}

// A chain whose state becomes non-finite (dp-sgld at step 1e6 on the demo:
// the prior's pull overshoots) stops there; the worker's handle reports
// why (abortOf: chain, iteration, step, the CLI's message), and the
// results of a run with that abort are marked not usable as the command-line
// tool does: no summary, no draws to export, and a report that charges
// every iteration that ran and says the run stopped.
func TestAbortedChainResults(t *testing.T) {
	data := demoCSV(t)
	cfgJSON := strings.Replace(strings.Replace(testConfig, `"algorithm":"hmc"`, `"algorithm":"dp-sgld","settings":{"step":1e6},"privacy":{"epsilon":2,"delta":1e-4}`, 1),
		`"warmup":50,"draws":40`, `"warmup":100,"draws":200`, 1)
	var chains []chainData
	var info chainInfo
	var abort *chainAbort
	for c := range 2 {
		ch, in, err := newChainWithKey(bytesSource(data), cfgJSON, c, rng.KeyFromBytes([32]byte{1}), "")
		if err != nil {
			t.Fatal(err)
		}
		info = in
		var pos []float64
		for !ch.Finished() {
			pos = append(pos, ch.Advance(7)...)
		}
		a := abortOf(ch)
		if a == nil {
			t.Fatalf("chain %d ran %d of %d iterations without an abort", c+1, ch.Done(), ch.Total())
		}
		if a.Chain != c+1 || a.Iteration != ch.Done() || a.Total != 300 || a.Step != 1e6 || a.Algorithm != "dp-sgld" ||
			!strings.Contains(a.Message, fmt.Sprintf("dp-sgld chain %d: the state became non-finite (NaN or Inf) at iteration %d of 300 at step 1e+06", c+1, a.Iteration)) {
			t.Fatalf("abort %+v", a)
		}
		if abort == nil {
			abort = a
		}
		chains = append(chains, chainData{Positions: pos, Iterations: ch.Done()})
	}
	cfg, err := run.ParseConfig(info.Config)
	if err != nil {
		t.Fatal(err)
	}
	v, err := results(cfg, info.Names, chains, runInfo{Rows: 2000, Aborted: abort})
	if err != nil {
		t.Fatal(err)
	}
	if v.Summarized || v.Draws != 0 || !strings.HasPrefix(v.Verdict, "Not usable: "+abort.Message) {
		t.Fatalf("summarized %v, draws %d, verdict %q", v.Summarized, v.Draws, v.Verdict)
	}
	var rep run.PrivacyReport
	if err := json.Unmarshal([]byte(v.ReportJSON), &rep); err != nil {
		t.Fatal(err)
	}
	want, err := newReport(cfg, 2000, len(info.Names), iterations(chains, len(info.Names)), true, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Iterations, iterations(chains, len(info.Names))) || rep.Epsilon != want.Epsilon || !(rep.Epsilon > 0) || !rep.Cancelled ||
		rep.Aborted != fmt.Sprintf("dp-sgld chain 1, at iteration %d of 300, step 1e+06", abort.Iteration) ||
		!strings.HasPrefix(rep.Statement, "This dp-sgld run stopped before its end") || v.Statement != rep.Statement {
		t.Fatalf("report: iterations %v, ε %v (want %v), aborted %q, statement %q", rep.Iterations, rep.Epsilon, want.Epsilon, rep.Aborted, rep.Statement)
	}
}

// The algorithm list tells the page which samplers run no warmup
// (noise-aware and exact: iid draws; ops), so that it disables the warmup
// input.
func TestAlgorithmsWarmupNote(t *testing.T) {
	for _, a := range algorithms() {
		if got, want := a.WarmupNote != "", a.Name == run.NoiseAware || a.Name == run.Exact || a.Name == "ops"; got != want {
			t.Errorf("%s: warmup note %q", a.Name, a.WarmupNote)
		}
		if a.Name == run.NoiseAware && !strings.Contains(a.WarmupNote, "iid") {
			t.Errorf("noise-aware: warmup note %q", a.WarmupNote)
		}
	}
}

// A chain whose worker fails after posting draws (the page's 'error' path)
// must be charged at least the iterations behind the draws it holds: the
// page charges its planned iterations, and the engine never fewer than its
// stored positions (found by a review: the report charged 0 for such a chain
// while its draws were exported).
func TestReportChargesEveryStoredDraw(t *testing.T) {
	const cfgJSON = `{"model":{"model":"logistic","outcome":"event","predictors":["age10","smoker"]},
"data":{"bounds":{"age10":[-4.2,3],"smoker":[0,1],"event":[0,1]}},
"algorithm":"dp-penalty","chains":2,"warmup":50,"draws":50,"seed":7,"privacy":{"epsilon":2,"delta":1e-5}}`
	chains, info := runDemoChains(t, cfgJSON, 2)
	cfg, err := run.ParseConfig(info.Config)
	if err != nil {
		t.Fatal(err)
	}
	// Chain 2 failed after posting 80 of its 100 iterations, and the page
	// said it ran none.
	chains[1].Positions = chains[1].Positions[:80*len(info.Names)]
	chains[1].Iterations = 0
	v, err := results(cfg, info.Names, chains, runInfo{Rows: 2000, Cancelled: true})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Epsilon float64 `json:"epsilon_spent"`
	}
	if err := json.Unmarshal([]byte(v.ReportJSON), &got); err != nil {
		t.Fatal(err)
	}
	want, err := newReport(cfg, 2000, len(info.Names), []int{100, 80}, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Epsilon != want.Epsilon || v.Draws == 0 {
		t.Errorf("report ε %v with %d draws exported per chain, want %v (100 + 80 iterations charged)", got.Epsilon, v.Draws, want.Epsilon)
	}
}

// runDemoChains runs k chains of cfgJSON on the demo cohort to their end,
// each with a fresh key, as the page's workers do, and returns what the
// page would hold.
func runDemoChains(t *testing.T, cfgJSON string, k int) ([]chainData, chainInfo) {
	t.Helper()
	data := demoCSV(t)
	var chains []chainData
	var info chainInfo
	for c := range k {
		ch, in, err := newChainWithKey(bytesSource(data), cfgJSON, c, rng.NewKey(), "")
		if err != nil {
			t.Fatal(err)
		}
		info = in
		pos := ch.Advance(ch.Total())
		chains = append(chains, chainData{Positions: append([]float64(nil), pos...), Iterations: ch.Done()})
	}
	return chains, info
}

// The page's tail note (report.TailNote, shown in tail-note) names a
// parameter of converged draws whose sd a few far draws carry, and the
// prior-pull note (prior-pull-note) an intercept far in its N(0, 10²)
// prior; neither names the well-behaved slopes.
func TestResultsTailAndPriorPullNotes(t *testing.T) {
	cfg, _ := run.ParseConfig([]byte(testConfig))
	cfg.Chains, cfg.Warmup, cfg.Draws = 4, 0, 500
	names := []string{"intercept", "age10", "bmi5", "sbp20", "smoker"}
	r := rand.New(rand.NewPCG(3, 4))
	var chains []chainData
	for range 4 {
		pos := make([]float64, 0, 500*5)
		for i := range 500 {
			bmi := 0.1 * r.NormFloat64()
			if i%40 == 0 {
				bmi *= 100
			}
			pos = append(pos, 97+1.84*r.NormFloat64(), 0.5+0.1*r.NormFloat64(), bmi, 0.1*r.NormFloat64(), 0.1*r.NormFloat64())
		}
		chains = append(chains, chainData{Positions: pos, Iterations: 500})
	}
	v, err := results(cfg, names, chains, runInfo{Rows: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Converged || !strings.HasPrefix(v.TailNote, "Heavy tails: bmi5 (sd ") || strings.Contains(v.TailNote, "age10") {
		t.Errorf("converged %v, tail note %q", v.Converged, v.TailNote)
	}
	if !strings.HasPrefix(v.PriorPullNote, "The prior pulls intercept (about ") || strings.Contains(v.PriorPullNote, "age10") {
		t.Errorf("prior-pull note %q", v.PriorPullNote)
	}
	// The same draws as a linear regression: changes of the outcome per
	// step (age10's bound -4.2:3 gives step 1), said in the caption, in the
	// table's last column and on the forest plot.
	cfg.Model.Model = "linear"
	lin, err := results(cfg, names, chains, runInfo{Rows: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !lin.Table.PerStep || lin.Table.Columns[len(lin.Table.Columns)-1].Key != "change_per_step" ||
		!strings.Contains(lin.Caption, "; changes of the outcome per step are step × the coefficient's median") ||
		lin.Forest.Scale != "change" || !strings.HasSuffix(lin.Forest.Rows[0].Label, " per 1") {
		t.Errorf("linear: caption %q, columns %v, forest %+v", lin.Caption, lin.Table.Columns, lin.Forest)
	}
	// Every predictor's bound holds 0: the intercept needs no note. With
	// age10's bound 1:9 it is an extrapolation, and the note gives the mean
	// at age10 5.
	if v.InterceptNote != "" || lin.InterceptNote != "" {
		t.Errorf("intercept note with 0 inside the bounds: %q", v.InterceptNote)
	}
	cfg.Data.Bounds["age10"] = [2]float64{1, 9}
	if lin, err = results(cfg, names, chains, runInfo{Rows: 100}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lin.InterceptNote, "The intercept is the outcome when age10 is 0, far from the centre of its public bound: ") ||
		!strings.Contains(lin.InterceptNote, "At age10 5 (the centre of its bound), with bmi5 0, sbp20 0 and smoker 0, the mean outcome is 99.5 (") {
		t.Errorf("intercept note %q", lin.InterceptNote)
	}
}
