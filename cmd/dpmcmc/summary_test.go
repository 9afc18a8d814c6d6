package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/report"
)

const blocker1, blocker2 = "../../testdata/diagnostics/blocker.1.csv", "../../testdata/diagnostics/blocker.2.csv"

func TestSummaryTable(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", blocker1, blocker2}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	lines := strings.Split(s, "\n")
	if !strings.HasPrefix(s, "2 chains × 1000 draws after warmup\n") {
		t.Errorf("first line %q", lines[0])
	}
	head := lines[2]
	for _, col := range []string{"parameter", "mean", "sd", "2.5%", "97.5%", "rhat", "ess_bulk", "ess_tail", "mcse_mean"} {
		if !strings.Contains(head, col) {
			t.Errorf("header %q lacks %q", head, col)
		}
	}
	// 48 parameter rows, right-aligned to the header's width.
	rows := lines[3 : 3+48]
	for _, r := range rows {
		if len(r) != len(head) {
			t.Errorf("row %q not aligned with header %q", r, head)
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(rows[0]), "d ") {
		t.Errorf("first row %q", rows[0])
	}
	// R posterior: rhat(d) = 1.00780272388603, ess_bulk = 465.136513484671.
	if f := strings.Fields(rows[0]); f[5] != "1.0078" || f[6] != "465" {
		t.Errorf("row d = %v", f)
	}
	// 2 chains: threshold 200; sigmasq_delta has tail-ESS 48.6.
	if !strings.Contains(s, "Not converged") || !strings.Contains(s, "sigmasq_delta") {
		t.Errorf("verdict missing:\n%s", s)
	}
}

// --private: the verdict of draws that did not converge gives a private
// run's advice (as dpmcmc sample and the page do), not "run longer chains".
func TestSummaryPrivateVerdict(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", "--private", blocker1, blocker2}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := out.String(); !strings.Contains(s, report.PrivateNotConvergedAdvice) || strings.Contains(s, diag.LongerChainsAdvice) {
		t.Errorf("private verdict:\n%s", s)
	}
}

// A Stan CSV whose header holds a private run's privacy block (as sample
// --format stan writes it) gets the private verdict without --private;
// with one file not private, the plain one.
func TestSummaryPrivateFromHeader(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, src := range []string{blocker1, blocker2} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("p%d.csv", i+1))
		if err := os.WriteFile(path, append([]byte("# privacy:\n#   epsilon_spent = 3\n"), b...), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	var out, errb bytes.Buffer
	if code := runMain(append([]string{"summary"}, files...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := out.String(); !strings.Contains(s, report.PrivateNotConvergedAdvice) || strings.Contains(s, diag.LongerChainsAdvice) {
		t.Errorf("private files' verdict:\n%s", s)
	}
	out.Reset()
	if code := runMain([]string{"summary", files[0], blocker2}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := out.String(); !strings.Contains(s, diag.LongerChainsAdvice) {
		t.Errorf("one file not private, verdict:\n%s", s)
	}
}

func TestSummaryJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", blocker1, "--json", blocker2}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Chains     int `json:"chains"`
		Draws      int `json:"draws_per_chain"`
		Parameters []struct {
			Variable string  `json:"variable"`
			Rhat     float64 `json:"rhat"`
			ESSTail  float64 `json:"ess_tail"`
		} `json:"parameters"`
		Verdict struct {
			Converged bool   `json:"converged"`
			Message   string `json:"message"`
		} `json:"verdict"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if got.Chains != 2 || got.Draws != 1000 || len(got.Parameters) != 48 || got.Verdict.Converged {
		t.Errorf("%+v", got)
	}
	if p := got.Parameters[1]; p.Variable != "sigmasq_delta" || abs(p.Rhat-1.01090196780102) > 1e-8 || abs(p.ESSTail-48.5806371372426) > 1e-8 {
		t.Errorf("sigmasq_delta %+v", p)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestSummaryTidyFile(t *testing.T) {
	d, err := export.ReadFiles(blocker1, blocker2)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "draws.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := export.WriteDrawsCSV(f, d); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var a, b, errb bytes.Buffer
	if code := runMain([]string{"summary", path}, &a, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	runMain([]string{"summary", blocker1, blocker2}, &b, &errb)
	if a.String() != b.String() {
		t.Errorf("tidy and Stan summaries differ:\n%s\n%s", a.String(), b.String())
	}
}

// A file that nothing marks as draws (a data file: no tidy column, no Stan
// comment or sampler column) is still summarised, with a note on stderr
// naming it; draws files (Stan CSV, tidy) get no such note.
func TestSummaryNotesUnmarkedFile(t *testing.T) {
	data := "../../testdata/logistic/bc5_design_std.csv"
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", blocker1, data}, &out, &errb); code == 0 {
		t.Errorf("a Stan file and a data file with other columns were joined:\n%s", out.String())
	}
	out.Reset()
	errb.Reset()
	if code := runMain([]string{"summary", data}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), data+" has no .chain, .iteration or .draw column") || !strings.Contains(errb.String(), "not a posterior") {
		t.Errorf("no note for a data file:\n%s", errb.String())
	}
	errb.Reset()
	if code := runMain([]string{"summary", blocker1, blocker2}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Errorf("exit %d, stderr for Stan files: %q", code, errb.String())
	}
	d, err := export.ReadDraws(strings.NewReader("a,b,lp__\n1,2,3\n4,5,6\n"))
	if err != nil || len(d.Unmarked) != 0 {
		t.Errorf("a file with a sampler column read as unmarked: %v %v", d, err)
	}
}

func TestSummaryErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "Usage") {
		t.Errorf("no files: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := runMain([]string{"summary", "--bogus", blocker1}, &out, &errb); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
	errb.Reset()
	if code := runMain([]string{"summary", filepath.Join(t.TempDir(), "missing.csv")}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "missing.csv") {
		t.Errorf("missing file: exit %d, stderr %q", code, errb.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("a,b\n1,2\n3,oops\n"), 0o644)
	errb.Reset()
	if code := runMain([]string{"summary", bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), `line 3, column 2 ("b"): "oops" is not a number`) {
		t.Errorf("bad file: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := runMain([]string{"summary", "-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "--json") && !strings.Contains(out.String(), "-json") {
		t.Errorf("help: exit %d, stderr %q", code, errb.String())
	}
}

// --model logistic adds the step and odds-ratio columns, spelled by
// core/report as on the page: without a bound, per 1: exp(median)
// (exp(2.5%)–exp(97.5%)).
func TestSummaryRatioColumn(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", "--model", "logistic", blocker1, blocker2}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	if !regexp.MustCompile(`  step +odds_ratio_per_step$`).MatchString(lines[2]) {
		t.Errorf("header %q", lines[2])
	}
	d, err := export.ReadFiles(blocker1, blocker2)
	if err != nil {
		t.Fatal(err)
	}
	r := diag.Summary(d.Names, d.Sampling())[0]
	want := report.Interval(math.Exp(r.Median), math.Exp(r.Q2_5), math.Exp(r.Q97_5))
	if cells := regexp.MustCompile(` {2,}`).Split(strings.TrimSpace(lines[3]), -1); len(cells) != 11 || cells[9] != "1" || cells[10] != want {
		t.Errorf("row %q: cells %q, want the last %q", lines[3], cells, want)
	}
	if code := runMain([]string{"summary", "--model", "logit", blocker1}, &out, &errb); code == 0 {
		t.Error("an unknown --model was accepted")
	}
}

// --bound COL=LO:HI (as in sample) states each predictor's ratio per the
// public step of its bound (report.Step): per 0.01 for a bound 0.03:0.2,
// exp(0.01·median) (exp(0.01·2.5%)–exp(0.01·97.5%)); the coefficient
// columns stay per unit. A bad bound is refused.
func TestSummaryBoundSteps(t *testing.T) {
	d, err := export.ReadFiles(blocker1, blocker2)
	if err != nil {
		t.Fatal(err)
	}
	rows := diag.Summary(d.Names, d.Sampling())
	name := rows[0].Name
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", "--model", "poisson", "--bound", name + "=0.03:0.2", "--bound", "unused=0:1", blocker1, blocker2}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	if !regexp.MustCompile(`  step +rate_ratio_per_step$`).MatchString(lines[2]) {
		t.Errorf("header %q", lines[2])
	}
	r := rows[0]
	want := report.Interval(math.Exp(0.01*r.Median), math.Exp(0.01*r.Q2_5), math.Exp(0.01*r.Q97_5))
	cells := regexp.MustCompile(` {2,}`).Split(strings.TrimSpace(lines[3]), -1)
	if len(cells) != 11 || cells[0] != name || cells[1] != report.Num(r.Mean, 'g', 4) || cells[9] != "0.01" || cells[10] != want {
		t.Errorf("row %q: cells %q, want step 0.01 and %q", lines[3], cells, want)
	}
	// Every other parameter (no bound) stays per 1.
	for i, line := range lines[4 : 3+len(rows)] {
		r := rows[i+1]
		want := report.Interval(math.Exp(r.Median), math.Exp(r.Q2_5), math.Exp(r.Q97_5))
		if c := regexp.MustCompile(` {2,}`).Split(strings.TrimSpace(line), -1); r.Name != "intercept" && (c[9] != "1" || c[10] != want) {
			t.Errorf("row %q: want per 1 %q", line, want)
		}
	}
	// Linear regression: the change of the outcome per step, step × the
	// quantiles (no exp), spelled by report.ChangeInterval.
	out.Reset()
	if code := runMain([]string{"summary", "--model", "linear", "--bound", name + "=0.03:0.2", blocker1, blocker2}, &out, &errb); code != 0 {
		t.Fatalf("linear: exit %d: %s", code, errb.String())
	}
	lines = strings.Split(out.String(), "\n")
	if !regexp.MustCompile(`  step +change_per_step$`).MatchString(lines[2]) {
		t.Errorf("linear header %q", lines[2])
	}
	want = report.ChangeInterval(0.01*r.Median, 0.01*r.Q2_5, 0.01*r.Q97_5)
	if cells := regexp.MustCompile(` {2,}`).Split(strings.TrimSpace(lines[3]), -1); len(cells) != 11 || cells[9] != "0.01" || cells[10] != want {
		t.Errorf("linear row %q: cells %q, want step 0.01 and %q", lines[3], cells, want)
	}
	for _, bad := range []string{name + "=1:1", name + "=2:1", name + "=x:1", "=0:1"} {
		out.Reset()
		errb.Reset()
		if code := runMain([]string{"summary", "--model", "logistic", "--bound", bad, blocker1}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "bound") {
			t.Errorf("--bound %s: exit %d, stderr %q", bad, code, errb.String())
		}
	}
}

// `dpmcmc sample` prints its summary with the run's bounds: the ratio of
// age (bound 18:90) per 10 years, bmi (15:50) per 1, the same table as
// `dpmcmc summary --bound` of the same bounds on the written draws.
func TestSampleSummaryUsesBounds(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 200, 1)
	out := filepath.Join(dir, "d.csv")
	bounds := []string{"--bound", "age=18:90", "--bound", "bmi=15:50"}
	code, stdout, stderr := runCLI(t, append([]string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out,
		"--algorithm", "mh", "--chains", "2", "--warmup", "50", "--draws", "60", "--seed", "5", "--quiet"}, bounds...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, summary, stderr := runCLI(t, append([]string{"summary", "--model", "logistic", out}, bounds...)...)
	if code != 0 {
		t.Fatalf("summary: exit %d: %s", code, stderr)
	}
	if strings.TrimSpace(stdout) != strings.TrimSpace(summary) {
		t.Errorf("sample printed\n%s\nsummary --bound printed\n%s", stdout, summary)
	}
	steps := map[string]string{}
	for _, line := range strings.Split(summary, "\n")[3:] {
		c := regexp.MustCompile(` {2,}`).Split(strings.TrimSpace(line), -1)
		if len(c) == 11 {
			steps[c[0]] = c[9]
		}
	}
	if steps["age"] != "10" || steps["bmi"] != "1" {
		t.Errorf("steps %v, want age 10, bmi 1:\n%s", steps, summary)
	}
}

// A --bound that names no parameter (a typo, or the outcome's bound copied
// from sample's flags) is said on stderr: it sets no ratio step.
func TestSummaryBoundNamesNoParameter(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", "--bound", "zz=0:1", blocker1, blocker2}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "note: --bound zz names no parameter of the draws") {
		t.Errorf("stderr %q", errb.String())
	}
}

// The Stan CSVs of a noise-aware run name their sampler in the header, so
// `dpmcmc summary` heads them "(no warmup)" as sample does; a tidy draws
// file names none and keeps "after warmup"; CmdStan's own "algorithm =
// hmc" keeps it too.
func TestSummaryHeadingNoWarmupFromStanHeader(t *testing.T) {
	dir := t.TempDir()
	stan := filepath.Join(dir, "na.csv")
	code, _, stderr := runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--predictors", "age", "--bound", "age=18:90", "--algorithm", "noise-aware", "--epsilon", "1", "--delta", "1e-5",
		"--chains", "2", "--draws", "50", "--out", stan, "--format", "stan", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "summary", filepath.Join(dir, "na_1.csv"), filepath.Join(dir, "na_2.csv"))
	if code != 0 || !strings.HasPrefix(stdout, "2 chains × 50 draws (no warmup)\n") {
		t.Fatalf("summary of noise-aware Stan files: exit %d\n%s%s", code, stdout, stderr)
	}
	tidy := filepath.Join(dir, "na_tidy.csv")
	if code, _, stderr = runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--predictors", "age", "--bound", "age=18:90", "--algorithm", "noise-aware", "--epsilon", "1", "--delta", "1e-5",
		"--chains", "2", "--draws", "50", "--out", tidy, "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, stdout, _ = runCLI(t, "summary", tidy); code != 0 || !strings.HasPrefix(stdout, "2 chains × 50 draws after warmup\n") {
		t.Fatalf("summary of a tidy file: exit %d\n%s", code, stdout)
	}
	// A sampler that has a warmup, run with --warmup 0: its Stan header says
	// num_warmup = 0, and the summary says no warmup ran.
	mh := filepath.Join(dir, "mh.csv")
	if code, _, stderr = runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--algorithm", "mh", "--chains", "2", "--warmup", "0", "--draws", "50", "--out", mh, "--format", "stan", "--quiet", "--seed", "4"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, stdout, _ = runCLI(t, "summary", filepath.Join(dir, "mh_1.csv"), filepath.Join(dir, "mh_2.csv")); code != 0 || !strings.HasPrefix(stdout, "2 chains × 50 draws (no warmup)\n") {
		t.Fatalf("summary of Stan files of a run with --warmup 0: exit %d\n%s", code, stdout)
	}
}

// A non-private run of the gaussian model with --algorithm auto draws
// exactly (run.Exact): the choice is named on stderr, the flag's default
// warmup is not run (the draws are iid), the summary says "(no warmup)"
// and `dpmcmc summary` reads the same from the Stan header. An explicit
// --warmup is kept, headed "after warmup" and called unnecessary.
func TestSampleAutoExactNonPrivate(t *testing.T) {
	dir := t.TempDir()
	stan := filepath.Join(dir, "ex.csv")
	code, stdout, stderr := runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--predictors", "age", "--algorithm", "auto", "--chains", "2", "--draws", "300", "--out", stan, "--format", "stan", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "algorithm: exact (non-private default for the gaussian and banana models") ||
		!strings.Contains(stdout, "2 chains × 300 draws (no warmup)") || !strings.Contains(stdout, "Converged") ||
		!strings.Contains(stderr, "300 independent draws (no accept step)") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	// Reproducible from the seed: exact has no accept step, and its draws
	// come from the public stream.
	again := filepath.Join(dir, "again.csv")
	if code, _, stderr := runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--predictors", "age", "--algorithm", "auto", "--chains", "2", "--draws", "300", "--out", again, "--format", "stan", "--seed", "3", "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for c := 1; c <= 2; c++ {
		a, errA := os.ReadFile(filepath.Join(dir, fmt.Sprintf("ex_%d.csv", c)))
		b, errB := os.ReadFile(filepath.Join(dir, fmt.Sprintf("again_%d.csv", c)))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("chain %d: two runs with seed 3 differ (%v %v)", c, errA, errB)
		}
	}
	if code, _, stderr := runCLI(t, "summary", filepath.Join(dir, "ex_1.csv"), filepath.Join(dir, ".", "ex_1.csv")); code == 0 || !strings.Contains(stderr, "is given twice") {
		t.Errorf("one chain given twice: exit %d, %s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "summary", filepath.Join(dir, "ex_1.csv"), filepath.Join(dir, "ex_2.csv"))
	if code != 0 || !strings.HasPrefix(stdout, "2 chains × 300 draws (no warmup)\n") {
		t.Fatalf("summary of exact Stan files: exit %d\n%s%s", code, stdout, stderr)
	}
	tidy := filepath.Join(dir, "w.csv")
	if code, stdout, stderr = runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--predictors", "age", "--algorithm", "exact", "--chains", "1", "--warmup", "20", "--draws", "30", "--out", tidy); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "1 chain × 30 draws after warmup") || strings.Contains(stdout, "no warmup") ||
		!strings.Contains(stderr, "warmup 20 per chain as given, though exact needs none") {
		t.Errorf("explicit warmup:\n%s\n%s", stdout, stderr)
	}
	b, err := os.ReadFile(tidy)
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(string(b), "\n") - 1; rows != 30 {
		t.Errorf("explicit warmup 20 + 30 draws: %d draws written", rows)
	}
	if code, _, stderr = runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "linear",
		"--outcome", "y", "--predictors", "age", "--algorithm", "exact", "--out", tidy, "--quiet"); code == 0 || !strings.Contains(stderr, "exact draws are for the gaussian and banana models") {
		t.Errorf("exact on linear: exit %d: %s", code, stderr)
	}
}

// A converged regression whose predictors' bounds exclude 0 has its
// intercept explained after the summary (report.InterceptNote), by sample
// and by summary --bound alike; the mean at the bounds' centres is a
// probability of the outcome here.
func TestSampleInterceptNote(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 2000, 3)
	out := filepath.Join(dir, "d.csv")
	bounds := []string{"--bound", "age=18:90", "--bound", "bmi=15:50"}
	code, stdout, stderr := runCLI(t, append([]string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out,
		"--bound", "y=0:1", "--epsilon", "3", "--delta", "1e-5", "--seed", "5", "--quiet"}, bounds...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	note := regexp.MustCompile(`(?m)^The intercept is the log odds when age and bmi are 0, far from the centres of their public bounds: .* At age 54 and bmi 32\.5 \(the centres of their bounds\), the probability of the outcome is (0\.\d+) \(95% interval (0\.\d+)–(0\.\d+)\)\.$`)
	m := note.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no intercept note:\n%s", stdout)
	}
	if lo, mid, hi := parseF(t, m[2]), parseF(t, m[1]), parseF(t, m[3]); !(lo < mid && mid < hi) {
		t.Errorf("interval %v–%v around %v", lo, hi, mid)
	}
	if code, summary, _ := runCLI(t, append([]string{"summary", "--model", "logistic", "--private", out}, bounds...)...); code != 0 || note.FindString(summary) != m[0] {
		t.Errorf("summary --bound: exit %d, want the note %q\n%s", code, m[0], summary)
	}
	if _, summary, _ := runCLI(t, "summary", "--model", "logistic", out); note.MatchString(summary) {
		t.Error("summary without the bounds states the intercept's reference point")
	}
}

func parseF(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A draws file with a chain that never moved: the verdict names it first
// and does not advise longer chains (the page's verdict is the same
// function's: wasm/results.go).
func TestSummaryStuckChain(t *testing.T) {
	var b strings.Builder
	b.WriteString(".chain,.iteration,.draw,a,b\n")
	for c := 1; c <= 4; c++ {
		for i := 1; i <= 200; i++ {
			a, bb := math.Sin(float64(i*c)), math.Cos(float64(3*i+c))
			if c == 3 {
				a, bb = 0.25, -1.5
			}
			fmt.Fprintf(&b, "%d,%d,%d,%v,%v\n", c, i, (c-1)*200+i, a, bb)
		}
	}
	f := filepath.Join(t.TempDir(), "stuck.csv")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runMain([]string{"summary", f}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := out.String(); !strings.Contains(s, "Not converged: chain 3 never moved: every one of its draws is the same point") || !strings.Contains(s, diag.StuckAdvice) || strings.Contains(s, diag.LongerChainsAdvice) {
		t.Errorf("summary:\n%s", s)
	}
}
