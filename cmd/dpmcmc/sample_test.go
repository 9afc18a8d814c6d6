package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/run"
)

const bc5 = "../../testdata/logistic/bc5_design_std.csv"

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(args, &o, &e)
	return code, o.String(), e.String()
}

func TestSampleWritesDrawsAndStan(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "d.csv")
	code, stdout, stderr := runCLI(t, "sample", "--data", bc5, "--model", "logistic", "--outcome", "y",
		"--predictors", "mean_radius,mean_texture", "--algorithm", "mh", "--chains", "2",
		"--warmup", "200", "--draws", "300", "--seed", "7", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "mean_radius") {
		t.Errorf("summary missing from stdout:\n%s", stdout)
	}
	d, err := export.ReadFiles(out)
	if err != nil {
		t.Fatal(err)
	}
	if d.NumChains() != 2 || d.NumIterations() != 300 || strings.Join(d.Names, ",") != "intercept,mean_radius,mean_texture" {
		t.Fatalf("got %d chains × %d draws of %v", d.NumChains(), d.NumIterations(), d.Names)
	}
	// The same seed gives the same public randomness, but the noise key is
	// fresh; non-private kernels draw their accept uniforms from the noise
	// stream, so only the shape is compared here.
	stan := filepath.Join(dir, "s.csv")
	code, _, stderr = runCLI(t, "sample", "--data", bc5, "--model", "logistic", "--outcome", "y",
		"--predictors", "mean_radius", "--algorithm", "hmc", "--chains", "2",
		"--warmup", "100", "--draws", "100", "--out", stan, "--format", "stan", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"s_1.csv", "s_2.csv"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"# method = sample", "num_samples = 100", "algorithm = hmc", "intercept,mean_radius"} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s lacks %q", f, want)
			}
		}
	}
	code, stdout, stderr = runCLI(t, "summary", filepath.Join(dir, "s_1.csv"), filepath.Join(dir, "s_2.csv"))
	if code != 0 || !strings.Contains(stdout, "2 chains × 100 draws after warmup") {
		t.Fatalf("summary of stan files: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A flag the chosen sampler does not read is named, not silently dropped:
// in a non-private run on stderr, in a private one in the plan's notes.
func TestSampleNamesIgnoredSettings(t *testing.T) {
	dir := t.TempDir()
	base := []string{"sample", "--data", bc5, "--model", "logistic", "--outcome", "y", "--predictors", "mean_radius",
		"--chains", "1", "--warmup", "20", "--draws", "20", "--out", filepath.Join(dir, "o.csv")}
	code, _, stderr := runCLI(t, append(base, "--algorithm", "mh", "--leapfrog", "5", "--grad-clip", "2")...)
	if code != 0 || !strings.Contains(stderr, "note: mh ignores the settings grad-clip, leapfrog: they are for other samplers\n") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, append(base, "--algorithm", "hmc", "--leapfrog", "5")...)
	if code != 0 || strings.Contains(stderr, "ignores") {
		t.Fatalf("hmc reads --leapfrog: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, append(base, "--algorithm", "noise-aware", "--tau", "0.5", "--bound", "mean_radius=-3:4",
		"--epsilon", "1", "--delta", "1e-5")...)
	if code != 0 || !strings.Contains(stderr, "note: noise-aware ignores the setting tau: it is for other samplers\n") {
		t.Fatalf("noise-aware: exit %d: %s", code, stderr)
	}
}

// A flag given twice with two values is named on stderr by a run that goes
// ahead (an error stays one line); the last one is used (scripts append
// overrides to a base command), the same value twice passes without a
// word, and the repeatable flags repeat.
func TestSampleNotesRepeatedFlags(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.csv")
	code, _, stderr := runCLI(t, "sample", "--data", bc5, "--model", "logistic", "--outcome", "y", "--predictors", "mean_radius",
		"--algorithm", "noise-aware", "--bound", "mean_radius=-3:4", "--bound", "y=0:1", "--draws", "20", "--out", out,
		"--epsilon", "1", "--delta", "1e-5", "--chains=2", "--epsilon=3", "--delta", "0.00001", "--seed", "4", "--seed", "04", "--quiet=0", "--quiet=false")
	if code != 0 || !strings.Contains(stderr, "note: --epsilon is given twice (1, then 3): the last one, 3, is used\n") ||
		strings.Count(stderr, "given twice") != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if rep := readReport(t, out); rep["epsilon_budget"] != 3.0 {
		t.Errorf("budget %v, want the last --epsilon, 3", rep["epsilon_budget"])
	}
}

func TestSampleErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "o.csv")
	base := []string{"sample", "--model", "logistic", "--outcome", "y", "--algorithm", "mh", "--out", out, "--quiet", "--draws", "10", "--warmup", "0"}
	for _, tc := range []struct {
		name, csv string
		extra     []string
		want      string
	}{
		{"ragged", "y,x\n1,2\n0\n", nil, "line 3"},
		{"non-numeric", "y,x\n1,2\n0,abc\n", nil, `"abc"`},
		{"empty", "", nil, "empty"},
		{"header only", "y,x\n", nil, "no data rows"},
		{"missing outcome", "a,x\n1,2\n", nil, `"y"`},
		{"inf", "y,x\n1,Inf\n", nil, "line 2"},
		{"duplicate", "y,x,x\n1,2,3\n", nil, `"x"`},
		{"outside support", "y,x\n1,2\n2,3\n", nil, "y"},
		{"unknown algorithm", "y,x\n1,2\n", []string{"--algorithm", "nuts"}, `unknown algorithm "nuts"`},
		{"bad bound", "y,x\n1,2\n", []string{"--bound", "x=3:1"}, "x"},
		{"no chains", "y,x\n1,2\n", []string{"--chains", "0"}, "chains"},
		{"bad model opt", "y,x\n1,2\n", []string{"--model-opt", "temper=2"}, "temper"},
		{"unexportable name", "y,\"a\nb\"\n1,2\n", nil, "rename the column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, base...), "--data", write(strings.ReplaceAll(tc.name, " ", "_")+".csv", tc.csv))
			args = append(args, tc.extra...)
			code, _, stderr := runCLI(t, args...)
			if code == 0 {
				t.Fatalf("exit 0, want an error containing %q", tc.want)
			}
			if !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr %q lacks %q", stderr, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 {
				t.Errorf("want one line on stderr, got %d:\n%s", n+1, stderr)
			}
		})
	}
}

// Issue #15 item 2: sampling is private under replace-one only (the run
// uses and reports the exact n), so `sample` refuses --relation add-remove,
// from the flag, from a config file and with --print-config, before
// reading data; the message names the setting, says why and points to
// `dpmcmc account`. --relation replace keeps working.
func TestSampleRefusesAddRemove(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 100, 1)
	out := filepath.Join(dir, "o.csv")
	priv := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet",
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", "dp-penalty", "--epsilon", "1", "--delta", "1e-5"}
	cfgFile := filepath.Join(dir, "run.json")
	if err := os.WriteFile(cfgFile, []byte(`{"model":{"model":"logistic","outcome":"y"},"algorithm":"dp-penalty","chains":2,`+
		`"data":{"bounds":{"age":[18,90],"bmi":[15,50],"y":[0,1]}},"privacy":{"epsilon":1,"delta":1e-5,"relation":"add-remove"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"flag", append(clone(priv), "--relation", "add-remove")},
		{"flag, print-config", append(clone(priv), "--relation", "add-remove", "--print-config")},
		{"flag, non-private algorithm", []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--algorithm", "mh", "--relation", "add-remove", "--print-config"}},
		{"config file", []string{"sample", "--config", cfgFile, "--data", data, "--out", out, "--quiet"}},
		{"config file, print-config", []string{"sample", "--config", cfgFile, "--print-config"}},
		{"plan", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "1e-5", "--relation", "add-remove"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != 1 || stdout != "" {
				t.Fatalf("exit %d (want 1), stdout %q", code, stdout)
			}
			for _, want := range []string{`relation "add-remove" is not available for sampling`, "exact number of rows n", `"replace"`, "dpmcmc account"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q lacks %q", stderr, want)
				}
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n") + 1; n != 1 {
				t.Errorf("want one line on stderr, got %d:\n%s", n, stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused run wrote %s", out)
			}
		})
	}
	// --relation replace (the flag contract scripts use) still works; a
	// config's add-remove is overridden by it.
	for _, args := range [][]string{
		append(clone(priv), "--relation", "replace", "--print-config"),
		{"sample", "--config", cfgFile, "--relation", "replace", "--print-config"},
	} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, `"relation":"replace"`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	// `dpmcmc account` keeps add-remove: there it is a formula.
	if code, stdout, stderr := runCLI(t, "account", "gaussian", "--noise-multiplier", "1", "--relation", "add-remove", "--delta", "1e-5"); code != 0 || !strings.Contains(stdout, `"add-remove"`) {
		t.Errorf("account add-remove: exit %d, %s%s", code, stdout, stderr)
	}
}

// Issue #15 item 5, end to end: an ops run's privacy.json, its Stan CSV
// comment lines and the statement printed on stderr all carry the
// convergence condition of the one-posterior-sample guarantee.
func TestOPSExportsStateCondition(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 100, 1)
	out := filepath.Join(dir, "o.csv")
	code, _, stderr := runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out,
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", "ops", "--box", "10", "--inner-iterations", "50",
		"--chains", "2", "--draws", "2", "--epsilon", "1", "--delta", "1e-5", "--seed", "3", "--format", "stan")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const cond = "if the inner Metropolis–Hastings run behind each draw (50 iterations from the previous draw, the first from the initial value) has converged to the tempered posterior"
	b, err := os.ReadFile(filepath.Join(dir, "o.privacy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Statement, Condition string }
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Condition != cond || !strings.Contains(rep.Statement, "ops and, "+cond+", satisfy (ε = 1, δ = 0)") || !strings.Contains(rep.Statement, "not a worst-case guarantee") {
		t.Errorf("privacy.json: condition %q\nstatement %q", rep.Condition, rep.Statement)
	}
	stan, err := os.ReadFile(filepath.Join(dir, "o_1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stan), "#   statement = "+rep.Statement+"\n") || !strings.Contains(string(stan), "#   condition = "+cond+"\n") {
		t.Errorf("Stan CSV comments lack the statement or the condition:\n%s", stan)
	}
	if !strings.Contains(stderr, rep.Statement) {
		t.Errorf("stderr lacks the statement:\n%s", stderr)
	}
}

// A config file that leaves out "warmup" or "draws" gets what the flags
// would give: 1000 + 2000 for a non-private run, the plan's for a private
// one (0 + 0 in the printed config). Before, a file without "warmup" ran none (HMC on
// raw predictors then had R-hat Inf under a heading that said "after
// warmup"), and a private run from a file drew the flags' 2000 instead of
// its plan. A key the file does give, 0 included, is kept.
func TestSampleConfigIterationDefaults(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bare := write("bare.json", `{"model": {"model": "logistic", "outcome": "y", "predictors": ["mean_radius"]}}`)
	given := write("given.json", `{"model": {"model": "logistic", "outcome": "y", "predictors": ["mean_radius"]}, "warmup": 0, "draws": 300}`)
	iters := func(args ...string) (int, int) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"sample", "--data", bc5, "--out", filepath.Join(dir, "o.csv"), "--print-config"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var c struct{ Warmup, Draws int }
		if err := json.Unmarshal([]byte(stdout), &c); err != nil {
			t.Fatalf("%v: %v in %q", args, err, stdout)
		}
		return c.Warmup, c.Draws
	}
	priv := []string{"--bound", "mean_radius=-3:5", "--epsilon", "3", "--delta", "1e-5"}
	for _, c := range []struct {
		name          string
		args          []string
		warmup, draws int
	}{
		{"non-private, bare file", []string{"--config", bare, "--algorithm", "hmc"}, 1000, 2000},
		{"non-private, no file", []string{"--model", "logistic", "--outcome", "y", "--predictors", "mean_radius", "--algorithm", "hmc"}, 1000, 2000},
		{"non-private, file gives them", []string{"--config", given, "--algorithm", "hmc"}, 0, 300},
		{"non-private, flag over file", []string{"--config", given, "--algorithm", "hmc", "--warmup", "50"}, 50, 300},
		// 0 + 0 in a private config: the planner's to choose
		{"private, bare file: planned", append([]string{"--config", bare, "--algorithm", "dp-penalty"}, priv...), 0, 0},
		{"private, no file: planned", append([]string{"--model", "logistic", "--outcome", "y", "--predictors", "mean_radius", "--algorithm", "dp-penalty"}, priv...), 0, 0},
		{"private, file gives them", append([]string{"--config", given, "--algorithm", "dp-penalty"}, priv...), 0, 300},
	} {
		w, d := iters(c.args...)
		if w != c.warmup || d != c.draws {
			t.Errorf("%s: %d warmup + %d draws, want %d + %d", c.name, w, d, c.warmup, c.draws)
		}
	}
	// Keys in another letter case count, as ParseConfig reads them.
	upper := write("upper.json", `{"model": {"model": "logistic", "outcome": "y", "predictors": ["mean_radius"]}, "Warmup": 500, "Draws": 300}`)
	if w, d := iters("--config", upper, "--algorithm", "hmc"); w != 500 || d != 300 {
		t.Errorf("upper-case keys: %d + %d, want 500 + 300", w, d)
	}
	// A private run's printed config, run again, plans as the flags did.
	code, printed, stderr := runCLI(t, append([]string{"sample", "--data", bc5, "--model", "logistic", "--outcome", "y", "--predictors", "mean_radius", "--algorithm", "dp-penalty", "--out", filepath.Join(dir, "p.csv"), "--print-config"}, priv...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	round := write("round.json", printed)
	code, _, stderr = runCLI(t, "sample", "--config", round, "--data", bc5, "--out", filepath.Join(dir, "p.csv"), "--chains", "1")
	if code != 0 || !strings.Contains(stderr, "(500 warmup + 500 draws)") {
		t.Errorf("round trip: exit %d, stderr %q", code, stderr)
	}
	// The heading says "no warmup" whenever none ran.
	code, stdout, stderr := runCLI(t, "sample", "--config", given, "--data", bc5, "--algorithm", "mh", "--chains", "2", "--out", filepath.Join(dir, "g.csv"), "--quiet", "--seed", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "2 chains × 300 draws (no warmup)") {
		t.Errorf("heading of a run without warmup:\n%s", stdout)
	}
}

// A config's explicit "chains": 0 is refused as --chains 0 is (it used to
// run 4 chains), and a config type error says where it is.
func TestConfigZeroChainsAndTypeErrorPlace(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 50, 4)
	for _, c := range []struct{ json, want string }{
		{`{"model":{"model":"logistic","outcome":"y"},"algorithm":"hmc","chains":0}`, `run config: chains 0: give at least 1, or leave "chains" out for the default (4)`},
		{"{\"model\":{\"model\":\"linear\",\"outcome\":\"y\",\n\"options\":{\"noise-sd\":1}}}", `each value of model.options (e.g. "noise-sd": "1.5") must be a string (got a JSON number) at line 2, column 23`},
	} {
		cfg := filepath.Join(dir, "c.json")
		if err := os.WriteFile(cfg, []byte(c.json), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCLI(t, "sample", "--config", cfg, "--data", data, "--out", filepath.Join(dir, "o.csv")); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q", c.json, code, stderr)
		}
	}
}

// A load error of a file read with a forced delimiter names the delimiter
// as a possible cause.
func TestForcedDelimiterNamedInLoadError(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "q.csv")
	if err := os.WriteFile(data, []byte("\"a\",\"y\"\n1,0\n2,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "sample", "--data", data, "--delimiter", ";", "--model", "logistic", "--outcome", "y", "--algorithm", "hmc", "--out", filepath.Join(dir, "o.csv"))
	if code == 0 || !strings.Contains(stderr, "line 1, column 1: ") || !strings.Contains(stderr, "(read with the delimiter ';' that --delimiter or the config sets; leave it out to have the file's detected)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// A run of one draw per chain prints no table and says why, naming the
// files it wrote and the heading of the warmup it ran; only ops is told
// that more chains give more independent draws.
func TestSampleOneDrawPerChainSaysWhy(t *testing.T) {
	dir := t.TempDir()
	stan := filepath.Join(dir, "s.csv")
	code, stdout, stderr := runCLI(t, "sample", "--data", bc5, "--model", "logistic", "--outcome", "y",
		"--predictors", "mean_radius", "--algorithm", "mh", "--chains", "3",
		"--warmup", "10", "--draws", "1", "--out", stan, "--format", "stan", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"3 chains × 1 draw after warmup: no summary table", "s_1.csv … " + filepath.Join(dir, "s_3.csv") + ". More --draws give one."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, not := range []string{"(no warmup)", "ops:"} {
		if strings.Contains(stdout, not) {
			t.Errorf("stdout has %q:\n%s", not, stdout)
		}
	}
}

// --impute takes a text value of the column's declared coding (a review:
// sex=F was "not a number" although --category sex=F:0,M:1 was given).
func TestImputeTakesACodedValue(t *testing.T) {
	cfg := run.Config{Data: run.DataSpec{Categories: map[string]map[string]float64{"sex": {"F": 0, "M": 1}}}}
	if err := applyImpute(&cfg, []string{"sex=M"}); err != nil || cfg.Data.Impute["sex"] != 1 {
		t.Fatalf("sex=M: %v, %v", err, cfg.Data.Impute)
	}
	cfg.Data.Impute = nil
	if err := applyImpute(&cfg, []string{"sex=X"}); err == nil || !strings.Contains(err.Error(), "not a number, mid or a value of sex's coding (F, M)") {
		t.Errorf("sex=X: %v", err)
	}
}
