package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// writeCohort writes a logistic dataset of n rows whose values depend on
// seed: two seeds give two datasets with the same n and different values.
func writeCohort(t *testing.T, dir string, n int, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("y,age,bmi\n")
	for range n {
		age := 20 + 60*r.Float64()
		bmi := 18 + 20*r.Float64()
		y := 0
		if r.Float64() < 1/(1+mathExp(-(0.04*(age-50)+0.1*(bmi-25)))) {
			y = 1
		}
		fmt.Fprintf(&b, "%d,%.6g,%.6g\n", y, age, bmi)
	}
	p := filepath.Join(dir, fmt.Sprintf("cohort%d.csv", seed))
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mathExp(x float64) float64 {
	// small helper to keep the generator self-contained
	s, term := 1.0, 1.0
	for k := 1; k < 40; k++ {
		term *= x / float64(k)
		s += term
	}
	return s
}

// Every export of a private run holds nothing computed from the data but the
// draws (and n): with the same config and seed, two datasets of the same
// size give byte-identical exports once the draw rows are removed.
func TestPrivateExportsHoldOnlyDrawsAndN(t *testing.T) {
	dir := t.TempDir()
	for _, alg := range []string{"dp-penalty", "dp-hmc", "dp-mala", "ops", "noise-aware"} {
		var stanRest, tidyHead, reports []string
		for _, seed := range []uint64{1, 2} {
			data := writeCohort(t, dir, 300, seed)
			out := filepath.Join(dir, fmt.Sprintf("%s-%d.csv", alg, seed))
			args := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y",
				"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", alg,
				"--epsilon", "1", "--delta", "1e-5", "--chains", "2", "--warmup", "20", "--draws", "30",
				"--seed", "5", "--out", out, "--format", "stan", "--quiet"}
			if alg == "ops" {
				args = append(args, "--box", "5", "--inner-iterations", "50")
			}
			if alg == "dp-mala" {
				args = append(args, "--step", "0.001", "--grad-clip", "5")
			}
			code, _, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", alg, code, stderr)
			}
			var rest []string
			for _, c := range []string{"_1", "_2"} {
				b, err := os.ReadFile(strings.TrimSuffix(out, ".csv") + c + ".csv")
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(string(b), "\n")
				for i, l := range lines {
					// keep comments and the column header; drop draw rows
					if strings.HasPrefix(l, "#") || i == firstNonComment(lines) {
						rest = append(rest, l)
					}
				}
			}
			stanRest = append(stanRest, strings.Join(rest, "\n"))
			rep, err := os.ReadFile(strings.TrimSuffix(out, ".csv") + ".privacy.json")
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(rep, &m); err != nil {
				t.Fatal(err)
			}
			if m["n"].(float64) != 300 || m["epsilon_spent"].(float64) > 1 {
				t.Fatalf("%s: report %s", alg, rep)
			}
			reports = append(reports, string(rep))
			tidy := filepath.Join(dir, fmt.Sprintf("%s-%d-tidy.csv", alg, seed))
			code, _, stderr = runCLI(t, replaceFlag(replaceFlag(args, "--out", tidy), "--format", "draws")...)
			if code != 0 {
				t.Fatalf("%s tidy: %s", alg, stderr)
			}
			b, _ := os.ReadFile(tidy)
			tidyHead = append(tidyHead, strings.SplitN(string(b), "\n", 2)[0])
		}
		if stanRest[0] != stanRest[1] {
			t.Errorf("%s: Stan CSV headers differ between datasets:\n%s\n---\n%s", alg, stanRest[0], stanRest[1])
		}
		if reports[0] != reports[1] {
			t.Errorf("%s: privacy reports differ between datasets:\n%s\n---\n%s", alg, reports[0], reports[1])
		}
		if tidyHead[0] != tidyHead[1] {
			t.Errorf("%s: tidy headers differ", alg)
		}
		for _, forbidden := range []string{"acceptance_rate", "accept_stat", "clip_fraction", "clipped_rows", "lp__", "log_lik", "elapsed", "seconds", "stepsize"} {
			if strings.Contains(strings.ToLower(stanRest[0]), forbidden) {
				t.Errorf("%s: export mentions %q:\n%s", alg, forbidden, stanRest[0])
			}
		}
	}
}

func firstNonComment(lines []string) int {
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") {
			return i
		}
	}
	return -1
}

func replaceFlag(args []string, flag, value string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		if out[i] == flag && i+1 < len(out) {
			out[i+1] = value
		}
	}
	return out
}

func TestPrivateRunRefusals(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 100, 1)
	out := filepath.Join(dir, "o.csv")
	base := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet"}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--algorithm", "dp-penalty", "--epsilon", "1", "--delta", "1e-5"}, "public bound"},
		{[]string{"--algorithm", "dp-penalty", "--bound", "age=18:90", "--bound", "bmi=15:50"}, "--epsilon"},
		{[]string{"--algorithm", "dp-penalty", "--bound", "age=18:90", "--bound", "bmi=15:50", "--epsilon", "0", "--delta", "1e-5"}, "epsilon"},
		{[]string{"--algorithm", "dp-penalty", "--bound", "age=18:90", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1"}, "delta"},
		{[]string{"--algorithm", "dp-penalty", "--bound", "age=18:90", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5", "--no-privacy"}, "no-privacy"},
		{[]string{"--algorithm", "mh", "--epsilon", "1", "--delta", "1e-5"}, "not a private algorithm"},
		{[]string{"--algorithm", "dp-penalty", "--bound", "age=18:90", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5", "--drop-missing"}, "drop_missing"},
		{[]string{"--algorithm", "dp-penalty", "--bound", "age=18:90", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5", "--tau", "0.01", "--draws", "100000"}, "allows"},
	} {
		code, _, stderr := runCLI(t, append(append([]string{}, base...), tc.extra...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.extra, code, stderr, tc.want)
		}
	}
}

func TestPlanCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "plan", "--algorithm", "dp-penalty", "--n", "100000", "--epsilon", "2", "--delta", "1e-6", "--chains", "1", "--tau", "0.17")
	if code != 0 {
		t.Fatal(stderr)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	if p["total_iterations"].(float64) != 580 {
		t.Fatalf("plan: %s", stdout)
	}
	code, stdout, _ = runCLI(t, "plan", "--algorithm", "dp-hmc", "--n", "1000", "--dim", "3", "--epsilon", "1", "--delta", "1e-5", "--warmup", "100", "--draws", "100", "--text")
	if code != 0 || !bytes.Contains([]byte(stdout), []byte("τ_g")) {
		t.Fatalf("plan --text: %s", stdout)
	}
	for _, bad := range [][]string{
		{"plan", "--algorithm", "mh", "--n", "10", "--epsilon", "1", "--delta", "1e-3"},
		{"plan", "--algorithm", "dp-hmc", "--n", "10", "--epsilon", "1", "--delta", "1e-3"},
		{"plan", "--algorithm", "dp-penalty", "--n", "10", "--epsilon", "-1", "--delta", "1e-3"},
	} {
		if code, _, _ := runCLI(t, bad...); code == 0 {
			t.Errorf("%v accepted", bad)
		}
	}
}

// The plan carries the mixing forecast: JSON (forecast.will_mix, the sds)
// and --text (a "Forecast:" sentence), from public inputs only; --prior-sd
// and the assumed clip √dim enter it.
func TestPlanForecast(t *testing.T) {
	args := []string{"plan", "--algorithm", "dp-hmc", "--n", "569", "--dim", "6", "--epsilon", "3", "--delta", "1e-5", "--prior-sd", "2.5"}
	code, stdout, stderr := runCLI(t, append(args, "--text")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"Forecast: with these settings each chain can move at most about 0.9 posterior sds", "will not converge", "clip = √dim = 2.449 assumed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan --text lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = runCLI(t, args...)
	if code != 0 {
		t.Fatal(stderr)
	}
	var p struct {
		Forecast struct {
			WillMix     bool    `json:"will_mix"`
			SDsPerChain float64 `json:"sds_per_chain"`
			Text        string  `json:"text"`
		} `json:"forecast"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	if p.Forecast.WillMix || p.Forecast.SDsPerChain < 0.85 || p.Forecast.SDsPerChain > 0.88 || p.Forecast.Text == "" {
		t.Fatalf("plan JSON forecast %+v", p.Forecast)
	}
}

// A private sample prints the forecast on stderr before running, even with
// --quiet when it says the chains will not converge; the exports do not
// carry it.
func TestSamplePrintsForecast(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 300, 1)
	out := filepath.Join(dir, "draws.csv")
	code, _, stderr := runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y",
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", "dp-penalty",
		"--epsilon", "1", "--delta", "1e-5", "--chains", "2", "--warmup", "20", "--draws", "100",
		"--seed", "5", "--out", out, "--quiet")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "forecast: with these settings each chain can move at most about") || !strings.Contains(stderr, "will not converge") {
		t.Fatalf("stderr lacks the forecast:\n%s", stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "draws*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("forecast")) {
			t.Errorf("%s carries the forecast", f)
		}
	}
}

// TestImputeMissingPredictors: a private run replaces a predictor's missing
// cells by the declared public value and keeps every row (n is that of the
// file), states the value in the report and the statement, and never the
// count, which only stderr shows. Values that would be wrong are refused by
// name: the outcome, a column that is not a predictor, a value outside the
// public bound, mid without a bound, and values for only some predictors.
func TestImputeMissingPredictors(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(writeCohort(t, dir, 200, 3))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	for i := 5; i < len(lines); i += 20 { // "y,age,bmi": blank the age of 10 rows
		f := strings.Split(lines[i], ",")
		f[1] = "NA"
		lines[i] = strings.Join(f, ",")
	}
	data := filepath.Join(dir, "holes.csv")
	if err := os.WriteFile(data, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.csv")
	base := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out,
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--epsilon", "3", "--delta", "1e-5", "--seed", "2"}
	code, _, stderr := runCLI(t, base...)
	if code == 0 || !strings.Contains(stderr, `"age"`) || !strings.Contains(stderr, "--impute") {
		t.Fatalf("without --impute: exit %d, %s", code, stderr)
	}
	// A value for age only would publish that age is the column with
	// missing cells: a private run needs one for every predictor.
	code, _, stderr = runCLI(t, append(base, "--impute", "age=mid")...)
	if code == 0 || !strings.Contains(stderr, "needs one for every predictor, missing: bmi") {
		t.Fatalf("--impute age only: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, append(base, "--impute", "age=mid", "--impute", "bmi=mid")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "replaced 10 missing cells of age by 54") {
		t.Errorf("stderr does not show the local count: %s", stderr)
	}
	var rep struct {
		N         int                `json:"n"`
		Imputed   map[string]float64 `json:"missing_cells_replaced_by"`
		Statement string             `json:"statement"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "o.privacy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.N != 200 || rep.Imputed["age"] != 54 || rep.Imputed["bmi"] != 32.5 || !strings.Contains(rep.Statement, "age = 54") {
		t.Fatalf("report: n %d, imputed %v, statement %q", rep.N, rep.Imputed, rep.Statement)
	}
	for _, f := range []string{"o.csv", "o.privacy.json"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if bytes.Contains(b, []byte("10 missing")) || bytes.Contains(b, []byte("missing_count")) {
			t.Errorf("%s carries the count of missing cells", f)
		}
	}
	for _, tc := range []struct {
		impute, want string
	}{
		{"y=0", "cannot be given a value"},
		{"height=170", "not in the header"},
		{"age=95", "outside its public bound"},
		{"age=mid,bmi", "want COL=VALUE"},
		{"age=old", "not a number"},
		{"age=52,5", "typed values use '.' as the decimal point"},
	} {
		code, _, stderr := runCLI(t, append(base, "--impute", tc.impute)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--impute %s: exit %d, stderr %q, want %q", tc.impute, code, stderr, tc.want)
		}
	}
	if code, _, stderr := runCLI(t, append(slices.Clone(base), "--model", "gaussian", "--predictors", "age,bmi", "--impute", "age=50")...); code == 0 || !strings.Contains(stderr, "only a regression's predictors can be given one") {
		t.Errorf("a gaussian model's observation: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(base, "--predictors", "age", "--impute", "age=50,bmi=20")...); code == 0 || !strings.Contains(stderr, "not a predictor") {
		t.Errorf("a column that is not a predictor: exit %d, %s", code, stderr)
	}
	noBound := slices.Delete(slices.Clone(base), 9, 11) // without --bound age=18:90
	if code, _, stderr := runCLI(t, append(noBound, "--impute", "age=mid")...); code == 0 || !strings.Contains(stderr, "has no public bound") {
		t.Errorf("mid without a bound: exit %d, %s", code, stderr)
	}
}

// TestClipCountsShownNotExported: the values a public bound clipped are
// counted on stderr, per column and side, and appear in no export; a 0/1
// outcome's 2 is clipped to 1 by its bound 0:1 (as the page gives it: one
// row must not stop a private run), and the count says how to map a 1/2
// coding.
func TestClipCountsShownNotExported(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 200, 4)
	src, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	above := 0
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	for _, l := range lines[1:] {
		age, err := strconv.ParseFloat(strings.Split(l, ",")[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		if age > 70 {
			above++
		}
	}
	out := filepath.Join(dir, "o.csv")
	base := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out,
		"--bound", "bmi=15:50", "--epsilon", "3", "--delta", "1e-5", "--seed", "2"}
	code, _, stderr := runCLI(t, append(base, "--bound", "age=18:70")...)
	if code != 0 {
		t.Fatal(stderr)
	}
	want := fmt.Sprintf("clipped %d values above 70 of age to its bound 18:70 (this count is not private and is not exported", above)
	if above == 0 || !strings.Contains(stderr, want) || strings.Contains(stderr, "of bmi") {
		t.Fatalf("stderr does not count the %d clipped ages (and only them): %s", above, stderr)
	}
	for _, f := range []string{"o.csv", "o.privacy.json"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if bytes.Contains(b, []byte("values above")) || bytes.Contains(b, []byte(fmt.Sprintf("clipped %d", above))) {
			t.Errorf("%s mentions the clip count", f)
		}
	}
	f := strings.Split(lines[1], ",")
	f[0] = "2"
	lines[1] = strings.Join(f, ",")
	coded := filepath.Join(dir, "coded12.csv")
	if err := os.WriteFile(coded, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base[2] = coded
	code, _, stderr = runCLI(t, append(base, "--bound", "age=18:90", "--bound", "y=0:1")...)
	if code != 0 || !strings.Contains(stderr, "clipped 1 value above 1 of y to its bound 0:1") || !strings.Contains(stderr, `{"y": {"1": 0, "2": 1}}`) {
		t.Fatalf("a 2 in the 0/1 outcome: exit %d, %s", code, stderr)
	}
}

// A column written as text runs from the CLI with --category (before, only
// a config file could give the coding), takes the bound of its numbers
// without --bound, and the coding is in the privacy report, so that the
// direction of its coefficient can be read from the report alone.
func TestSampleCategoryFlag(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "sex.csv")
	var b strings.Builder
	b.WriteString("y,age,sex\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%d,%d,%s\n", i%2, 20+i%60, []string{"F", "M"}[(i/3)%2])
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.csv")
	code, stdout, stderr := runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--bound", "age=18:90",
		"--category", "sex=F:0,M:1", "--epsilon", "3", "--delta", "1e-5", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The intercept's note names sex's category coded 0, and summary
	// --category prints the same note from the draws.
	note := regexp.MustCompile(`(?m)^The intercept is the log odds when age is 0, .* At age 54 \(the centre of its bound\), with sex F, .*$`).FindString(stdout)
	if note == "" {
		t.Fatalf("no intercept note naming sex F:\n%s", stdout)
	}
	summaryArgs := []string{"summary", "--model", "logistic", "--private", "--bound", "age=18:90", out}
	if code, summary, stderr := runCLI(t, append(summaryArgs, "--category", "sex=F:0,M:1")...); code != 0 || !strings.Contains(summary, note) {
		t.Errorf("summary --category: exit %d, want %q\n%s%s", code, note, summary, stderr)
	}
	// Without the coding sex has no bound, so no reference point is stated;
	// with only its bound, its 0 is named as a number.
	if _, summary, _ := runCLI(t, summaryArgs...); strings.Contains(summary, "with sex") {
		t.Errorf("summary without --category states a reference for sex:\n%s", summary)
	}
	if _, summary, _ := runCLI(t, append(summaryArgs, "--bound", "sex=0:1")...); !strings.Contains(summary, "with sex 0,") {
		t.Errorf("summary --bound sex=0:1:\n%s", summary)
	}
	if code, _, stderr := runCLI(t, append(summaryArgs, "--category", "sex=F:0")...); code == 0 || !strings.Contains(stderr, "--category sex: give every value") {
		t.Errorf("summary with a bad coding: exit %d, %s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "o.privacy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Bounds     map[string][2]float64         `json:"public_bounds"`
		Categories map[string]map[string]float64 `json:"categories"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bounds["sex"] != [2]float64{0, 1} || rep.Categories["sex"]["M"] != 1 || rep.Categories["sex"]["F"] != 0 {
		t.Errorf("report bounds %v, categories %v", rep.Bounds, rep.Categories)
	}
	// A coding that does not parse names the flag and the column.
	code, _, stderr = runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--bound", "age=18:90",
		"--category", "sex=F:0", "--epsilon", "3", "--delta", "1e-5", "--out", out, "--quiet")
	if code == 0 || !strings.Contains(stderr, "--category sex: give every value the column can take") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// The gaussian model does not estimate the columns' covariance: a run
// says which one it assumes (the identity, variance 1 in the columns'
// units, unless --model-opt cov=FILE.csv gives one), on stderr and in the
// privacy report, as a linear run states its noise sd.
func TestGaussianCovarianceIsStated(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "g.csv")
	var b strings.Builder
	b.WriteString("x\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%d\n", 100+(i*37)%60)
	}
	covFile := filepath.Join(dir, "cov.csv")
	for _, f := range []struct{ name, text string }{{data, b.String()}, {covFile, "300\n"}} {
		if err := os.WriteFile(f.name, []byte(f.text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "o.csv")
	code, _, stderr := runCLI(t, "sample", "--data", data, "--model", "gaussian", "--algorithm", "exact", "--out", out, "--seed", "1")
	if code != 0 || !strings.Contains(stderr, "note: gaussian model: the columns' covariance Σ is public and known, not estimated, and is the identity here") {
		t.Errorf("non-private, no cov: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "sample", "--data", data, "--model", "gaussian", "--model-opt", "cov="+covFile, "--bound", "x=0:200",
		"--epsilon", "1", "--delta", "1e-5", "--out", filepath.Join(dir, "p.csv"))
	if code != 0 || !strings.Contains(stderr, "note: gaussian model: the columns' covariance Σ (the model's cov) is public and known") {
		t.Errorf("private, cov given: exit %d, stderr %s", code, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "p.privacy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "gaussian model: the columns' covariance Σ (the model's cov) is public and known") {
		t.Errorf("the privacy report does not state the covariance:\n%s", raw)
	}
}

// A starting point the sampler does not read is named, not silently
// dropped: an init share without dp-map, and an init for noise-aware,
// whose draws are independent (before, --init 1,2,3 also dropped a given
// --init-share).
func TestIgnoredStartNotes(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 300, 2)
	code, _, stderr := runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--bound", "age=18:90,bmi=15:50",
		"--epsilon", "2", "--delta", "1e-5", "--init", "0,0.1,0.1", "--init-share", "0.3", "--out", filepath.Join(dir, "o.csv"))
	for _, want := range []string{
		"note: init-share is read only with init dp-map (it is the share of the budget the private mode estimate spends): it is ignored",
		"note: the starting point (init values) is not read by noise-aware: its draws are independent draws from the posterior, with no starting point",
	} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, want %q in\n%s", code, want, stderr)
		}
	}
	// dp-hmc reads the init: no note about it. --save-warmup in the tidy
	// format is named too.
	code, _, stderr = runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--bound", "age=18:90", "--bound", "bmi=15:50",
		"--algorithm", "dp-hmc", "--epsilon", "2", "--delta", "1e-5", "--init", "zero", "--save-warmup", "--out", filepath.Join(dir, "p.csv"))
	if code != 0 || strings.Contains(stderr, "starting point") || strings.Contains(stderr, "init-share") || !strings.Contains(stderr, "note: --save-warmup is read with --format stan only") {
		t.Errorf("dp-hmc with --init zero: exit %d\n%s", code, stderr)
	}
}
