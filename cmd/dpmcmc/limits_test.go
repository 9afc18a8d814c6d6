package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Impossible settings are refused with the reason, as one line on stderr
// and a non-zero exit, before any sampling (complements TestSampleErrors,
// TestPrivateRunRefusals and TestPlanCommand).
func TestImpossibleSettingsRefused(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 100, 1)
	out := filepath.Join(dir, "o.csv")
	priv := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet",
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", "dp-penalty"}
	for _, tc := range []struct {
		name  string
		args  []string
		want  string
		lines int // expected stderr lines (0: do not check)
	}{
		{"epsilon negative", append(clone(priv), "--epsilon", "-1", "--delta", "1e-5"), "epsilon must be a finite number > 0", 1},
		{"epsilon inf", append(clone(priv), "--epsilon", "inf", "--delta", "1e-5"), "epsilon must be a finite number > 0", 1},
		{"epsilon NaN", append(clone(priv), "--epsilon", "NaN", "--delta", "1e-5"), "epsilon must be a finite number > 0", 1},
		{"delta zero", append(clone(priv), "--epsilon", "1", "--delta", "0"), "delta must be in (0, 1)", 1},
		{"delta above one", append(clone(priv), "--epsilon", "1", "--delta", "1.5"), "delta must be in (0, 1)", 1},
		{"delta negative", append(clone(priv), "--epsilon", "1", "--delta", "-1e-5"), "delta must be in (0, 1)", 1},
		{"bound lo = hi", append(clone(priv), "--bound", "x=5:5", "--epsilon", "1", "--delta", "1e-5"), "x=5:5", 1},
		{"bound lo > hi", append(clone(priv[:len(priv)-6]), "--bound", "age=90:18", "--bound", "bmi=15:50", "--algorithm", "dp-penalty", "--epsilon", "1", "--delta", "1e-5"), "age=90:18", 1},
		{"bound not a number", append(clone(priv), "--bound", "age=a:b", "--epsilon", "1", "--delta", "1e-5"), "age=a:b", 1},
		{"chains zero", append(clone(priv), "--chains", "0", "--epsilon", "1", "--delta", "1e-5"), "chains must be at least 1", 1},
		{"chains negative", append(clone(priv), "--chains", "-3", "--epsilon", "1", "--delta", "1e-5"), "chains must be at least 1", 1},
		{"chains too many", append(clone(priv), "--chains", "65", "--epsilon", "1", "--delta", "1e-5"), "chains must be at most 64", 1},
		{"warmup negative", append(clone(priv), "--warmup", "-1", "--draws", "10", "--epsilon", "1", "--delta", "1e-5"), "warmup must be ≥ 0", 1},
		{"relation unknown", append(clone(priv), "--relation", "swap", "--epsilon", "1", "--delta", "1e-5"), `relation must be replace (got "swap")`, 1},
		{"tau negative", append(clone(priv), "--tau", "-1", "--epsilon", "1", "--delta", "1e-5"), "tau must be a finite number > 0", 1},
		{"clip NaN", append(clone(priv), "--clip", "NaN", "--epsilon", "1", "--delta", "1e-5"), "clip must be a finite number > 0", 1},
		{"batch above n", append(clone(priv[:len(priv)-1]), "dp-sgld", "--batch", "101", "--epsilon", "1", "--delta", "1e-5"), "batch = 101 must be in [1, n = 100]", 1},
		{"batch negative", append(clone(priv[:len(priv)-1]), "dp-barker", "--batch", "-1", "--epsilon", "1", "--delta", "1e-5"), "batch and batch-cap must be ≥ 1", 1},
		{"flag not a number", append(clone(priv), "--epsilon", "one"), "invalid value", 0},
		{"draws negative (private)", append(clone(priv[:len(priv)-1]), "noise-aware", "--draws", "-5", "--epsilon", "1", "--delta", "1e-5"), "draws must be ≥ 0", 1},
		{"draws too many to hold", append(clone(priv[:len(priv)-1]), "noise-aware", "--draws", "1000000000", "--epsilon", "1", "--delta", "1e-5"), "= 3e+09 numbers, 24 GB of memory; at most 268435456 (2.15 GB) per chain", 0},
		{"out is the data", append(clone(priv[:len(priv)-1]), "noise-aware", "--out", data, "--epsilon", "1", "--delta", "1e-5"), "is the data file: writing it would overwrite the data", 1},
		{"report is the out", append(clone(priv), "--report", out, "--epsilon", "1", "--delta", "1e-5"), "--report " + out + " is also the output of --out", 1},
		{"report is the data", append(clone(priv), "--report", data, "--epsilon", "1", "--delta", "1e-5"), "--report " + data + " is the data file", 1},
		{"out in a missing directory", append(clone(priv), "--out", filepath.Join(dir, "nodir", "o.csv"), "--epsilon", "1", "--delta", "1e-5"), "--out " + filepath.Join(dir, "nodir", "o.csv") + ": cannot write in", 1},
		{"unknown algorithm with a budget", append(clone(priv[:len(priv)-1]), "foo", "--epsilon", "1", "--delta", "1e-5"), `unknown algorithm "foo"`, 1},
		{"poisson outcome bound not whole", []string{"sample", "--data", data, "--model", "poisson", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=18:90", "--bound", "bmi=15:50", "--bound", "y=0:2.5", "--epsilon", "1", "--delta", "1e-5"}, `bound for the Poisson outcome "y": need whole numbers 0 ≤ lo < hi (got 0:2.5)`, 1},
		{"poisson outcome bound negative", []string{"sample", "--data", data, "--model", "poisson", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=18:90", "--bound", "bmi=15:50", "--bound", "y=-5:20", "--epsilon", "1", "--delta", "1e-5"}, "need whole numbers 0 ≤ lo < hi (got -5:20)", 1},
		{"bound width overflows", []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=-1e308:1e308", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5"}, `bound for column "age": -1e+308:1e+308 is too wide (its width overflows a double)`, 1},
		{"bound too narrow to scale by", []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=1e-320:2e-320", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5"}, `bound for column "age": 1e-320:2e-320 is too narrow to scale by`, 1},
		{"bound width below the doubles' precision", []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=1e15:1.0000000000001e15", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5"}, "is too narrow to scale by", 1},
		{"logistic outcome bound", []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=18:90", "--bound", "bmi=15:50", "--bound", "y=-5:5", "--epsilon", "1", "--delta", "1e-5"}, `a 0/1 outcome's bound is 0:1 (got -5:5)`, 1},
		{"leapfrog too many", append(clone(priv[:len(priv)-1]), "dp-hmc", "--leapfrog", "100000000", "--epsilon", "1", "--delta", "1e-5"), "leapfrog must be between 1 and 1024 (got 100000000)", 1},
		{"noise-aware too wide", []string{"plan", "--algorithm", "noise-aware", "--n", "100", "--dim", "100000", "--epsilon", "1", "--delta", "1e-5"}, "noise-aware handles at most 64 coefficients (this model has 100000)", 1},
		{"prior sd infinite", append(clone(priv), "--prior-sd", "Inf", "--epsilon", "1", "--delta", "1e-5"), "prior-sd=+Inf must be between 1e-100 and 1e100", 0},
		{"prior sd underflows", append(clone(priv), "--prior-sd", "1e-300", "--epsilon", "1", "--delta", "1e-5"), "prior-sd=1e-300 must be between 1e-100 and 1e100", 0},
		{"start overflows on the scaled space", append(clone(priv), "--init", "0,1e308,0", "--epsilon", "1", "--delta", "1e-5"), "chain 1: the starting value of intercept is +Inf on the scaled predictors' space (--scale bounds)", 0},
		{"box narrower than the starts", append(clone(priv), "--box", "0.5", "--epsilon", "1", "--delta", "1e-5", "--seed", "3"), "outside the parameter box (--box)", 0},
		{"help for no command", []string{"help", "foo"}, `no help for "foo"`, 1},
		// Review of 2026-11-28: each names the real fault.
		{"bound misspelt in a private run", append(clone(priv[:len(priv)-6]), "--bound", "age=18:90", "--bound", "bmii=15:50", "--epsilon", "1", "--delta", "1e-5"), `missing: bmi (give --bound COL=LO:HI from domain knowledge, never from the data); the bounds given for "bmii" name no column of the file`, 1},
		{"impute twice", append(clone(priv), "--impute", "age=50", "--impute", "age=60", "--epsilon", "1", "--delta", "1e-5"), "--impute age is given twice", 1},
		{"coding of one number", append(clone(priv), "--category", "bmi=a:1,b:1", "--epsilon", "1", "--delta", "1e-5"), `the coding of "bmi" gives every value the number 1: a coding needs at least two different numbers`, 1},
		{"code outside its bound", append(clone(priv), "--category", "bmi=a:0,b:500", "--epsilon", "1", "--delta", "1e-5"), `the coding of "bmi" maps "b" to 500, outside the column's public bound 15:50`, 1},
		{"no-privacy with a budget", append(clone(priv[:len(priv)-2]), "--no-privacy", "--epsilon", "1", "--delta", "1e-5"), "--no-privacy contradicts the budget", 1},
		{"dp-map with auto", append(clone(priv[:len(priv)-2]), "--init", "dp-map", "--epsilon", "1", "--delta", "1e-5"), "the algorithm is auto (the default of a private run), which chooses noise-aware", 1},
		{"init unknown", append(clone(priv), "--init", "foo", "--epsilon", "1", "--delta", "1e-5"), "--init: want uniform, zero, dp-map or comma-separated numbers", 1},
		{"bound too wide to scale by", []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=-1e300:1e300", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5"}, `bound for column "age": -1e+300:1e+300 is too wide to scale by (its width must be at most 1e100)`, 1},
		{"plan tau zero", []string{"plan", "--algorithm", "dp-hmc", "--n", "569", "--dim", "3", "--epsilon", "3", "--delta", "1e-5", "--tau", "0"}, "--tau 0: give a value > 0, or leave the flag out for its default", 1},
		{"plan draws zero", []string{"plan", "--algorithm", "dp-penalty", "--n", "569", "--epsilon", "3", "--delta", "1e-5", "--warmup", "0", "--draws", "0"}, "--draws 0: give a value ≥ 1", 1},
		{"plan algorithms listed", []string{"plan", "--algorithm", "foo", "--n", "100", "--epsilon", "1", "--delta", "1e-5"}, "(private: dp-barker, dp-barker-full,", 1},
		{"dp-map share 1", append(clone(priv), "--init", "dp-map", "--init-share", "1", "--epsilon", "1", "--delta", "1e-5"), "dp-map init: the budget share (--init-share, init.share) must be in (0, 1) (got 1)", 0},
		{"plan n = 1", []string{"plan", "--algorithm", "dp-penalty", "--n", "1", "--epsilon", "1", "--delta", "0.1"}, "--n must be at least 2", 1},
		{"plan epsilon zero", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "0", "--delta", "1e-5"}, "epsilon must be a finite number > 0", 1},
		{"plan delta one", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "1"}, "delta must be in (0, 1)", 1},
		{"plan chains zero", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "1e-5", "--chains", "0"}, "chains must be at least 1", 1},
		// A setting the sampler does not read, NaN: refused before the
		// budget is spent (it used to fail when the export wrote it).
		// 0 stands for "default" in the config; typed, it is refused.
		{"prior sd zero", append(clone(priv), "--prior-sd", "0", "--epsilon", "1", "--delta", "1e-5"), "--prior-sd 0: give a value > 0, or leave the flag out for its default", 1},
		{"leapfrog zero", append(clone(priv[:len(priv)-1]), "dp-hmc", "--leapfrog", "0", "--epsilon", "1", "--delta", "1e-5"), "--leapfrog 0: give a value > 0", 1},
		{"plan prior sd NaN", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "1e-5", "--prior-sd", "NaN"}, "--prior-sd must be a number between 1e-100 and 1e100 (got NaN)", 1},
		{"plan unknown model", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "1e-5", "--model", "foo"}, `--model: unknown model "foo"`, 1},
		{"plan unknown scale", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "1e-5", "--scale", "foo"}, `--scale must be bounds, auto or none (got "foo")`, 1},
		{"plan dim negative", []string{"plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "1e-5", "--dim", "-1"}, "--dim must be ≥ 1 (got -1)", 1},
		{"plan dp-penalty-sub without a clip", []string{"plan", "--algorithm", "dp-penalty-sub", "--n", "50", "--epsilon", "1", "--delta", "1e-5"}, "--clip is required to plan dp-penalty-sub without data", 1},
		{"account δ NaN", []string{"account", "gaussian", "--noise-multiplier", "1", "--delta", "NaN"}, "--delta must lie in (0, 1), got NaN", 1},
		{"account composition overflows", []string{"account", "composition", "--step-epsilon", "1e308", "--step-delta", "1e-7", "--count", "100", "--delta", "1e-5"}, "epsilon = +Inf: these inputs give no finite bound", 1},
		{"poisson outcome bound beyond exact counts", []string{"sample", "--data", data, "--model", "poisson", "--outcome", "y", "--out", out, "--quiet", "--bound", "age=18:90", "--bound", "bmi=15:50", "--bound", "y=0:1e154", "--epsilon", "1", "--delta", "1e-5"}, `bound for the Poisson outcome "y": counts up to 1e+15 are supported (got 0:1e+154)`, 1},
		{"predictors empty", append(clone(priv), "--predictors", ",", "--epsilon", "1", "--delta", "1e-5"), `--predictors "," names no column`, 1},
		{"model option twice", append(clone(priv), "--model-opt", "prior-sd=1", "--model-opt", "prior-sd=2", "--epsilon", "1", "--delta", "1e-5"), "--model-opt prior-sd is given twice", 1},
		{"lambda NaN", append(clone(priv), "--lambda", "NaN", "--format", "stan", "--epsilon", "1", "--delta", "1e-5"), "lambda must be a finite number > 0 (got NaN)", 1},
		{"chi infinite", append(clone(priv), "--chi", "Inf", "--epsilon", "1", "--delta", "1e-5"), "chi must be a finite number > 0 (got +Inf)", 1},
		{"box infinite", append(clone(priv), "--box", "Inf", "--epsilon", "1", "--delta", "1e-5"), "box must be a finite number > 0 (got +Inf)", 1},
		{"metric unknown", append(clone(priv[:len(priv)-1]), "hmc", "--metric", "full"), `metric must be dense or diag (got "full")`, 1},
		{"target-accept 1", append(clone(priv), "--target-accept", "1", "--epsilon", "1", "--delta", "1e-5"), "target-accept must be in (0, 1) (got 1)", 1},
		{"ops inner iterations too many", append(clone(priv[:len(priv)-1]), "ops", "--box", "10", "--inner-iterations", "100000000", "--epsilon", "1", "--delta", "1e-5"), "inner-iterations must be between 1 and 1000000 (got 100000000)", 1},
		// Found by the CLI review (2026-11-27): each used to be reported as
		// something else.
		{"epsilon without delta", append(clone(priv), "--epsilon", "1"), "delta must be in (0, 1) (got 0): a private run needs δ as well as ε", 1},
		{"predictor misspelt in a private run", append(clone(priv), "--predictors", "age,bmj", "--epsilon", "1", "--delta", "1e-5"), `column "bmj": not found in the header`, 1},
		{"outcome misspelt in a private run", append(clone(priv[:6]), "yy", "--out", out, "--quiet", "--bound", "age=18:90", "--bound", "bmi=15:50", "--epsilon", "1", "--delta", "1e-5"), `outcome column "yy" not found`, 1},
		{"plan outcome bound reversed", []string{"plan", "--algorithm", "noise-aware", "--model", "linear", "--n", "100", "--dim", "3", "--epsilon", "1", "--delta", "1e-5", "--noise-sd", "12", "--outcome-bound", "220:80"}, "--outcome-bound 220:80: the lower bound 220 must be less than the upper bound 80", 1},
		{"plan outcome bound with a stray '='", []string{"plan", "--algorithm", "noise-aware", "--model", "linear", "--n", "100", "--dim", "3", "--epsilon", "1", "--delta", "1e-5", "--noise-sd", "12", "--outcome-bound", "=80:220"}, `--outcome-bound =80:220: lower bound "=80" is not a number`, 1},
		{"chains × draws too many to hold", append(clone(priv[:len(priv)-1]), "noise-aware", "--chains", "64", "--draws", "6000000", "--epsilon", "1", "--delta", "1e-5"), "64 chains × (0 warmup + 6000000 draws) × 3 parameters = 1.15e+09 numbers, 9.22 GB of memory; at most 1073741824 (8.59 GB) for all chains together", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code == 0 {
				t.Fatalf("accepted; stdout %q", stdout)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q lacks the reason %q", stderr, tc.want)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr shows a crash: %q", stderr)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n") + 1; tc.lines > 0 && n != tc.lines {
				t.Errorf("want %d line(s) on stderr, got %d:\n%s", tc.lines, n, stderr)
			}
		})
	}
}

// δ ≥ 1/n is allowed (the user may have reasons) but the plan says why it
// is a poor choice, on stderr for sample and in the text of plan.
func TestDeltaAboveOneOverNWarns(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 100, 1)
	out := filepath.Join(dir, "o.csv")
	code, _, stderr := runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out,
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--algorithm", "dp-penalty", "--chains", "1",
		"--warmup", "5", "--draws", "5", "--epsilon", "1", "--delta", "0.02", "--seed", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: δ = 0.02 is not below 1/n = 0.01") {
		t.Errorf("no δ ≥ 1/n note on stderr:\n%s", stderr)
	}
	code, stdout, stderr := runCLI(t, "plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "0.02", "--text")
	if code != 0 || !strings.Contains(stdout, "Note: δ = 0.02 is not below 1/n") {
		t.Errorf("plan --text: exit %d\n%s%s", code, stdout, stderr)
	}
	// δ < 1/n: no note.
	code, stdout, _ = runCLI(t, "plan", "--algorithm", "dp-penalty", "--n", "100", "--epsilon", "1", "--delta", "0.001", "--text")
	if code != 0 || strings.Contains(stdout, "1/n") {
		t.Errorf("unexpected note for δ < 1/n:\n%s", stdout)
	}
}

// --quiet still prints what a user must not miss: that draws are not
// private, and a δ that weakens the guarantee itself. The data file is
// untouched by every refused run above (its first line is still the header).
func TestQuietKeepsPrivacyWarnings(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 100, 1)
	out := filepath.Join(dir, "o.csv")
	base := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--out", out, "--quiet",
		"--bound", "age=18:90", "--bound", "bmi=15:50", "--chains", "1", "--seed", "1"}
	code, _, stderr := runCLI(t, append(clone(base), "--algorithm", "hmc", "--warmup", "20", "--draws", "20")...)
	if code != 0 || !strings.Contains(stderr, "NOT PRIVATE") {
		t.Errorf("non-private --quiet: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, append(clone(base), "--algorithm", "noise-aware", "--draws", "20", "--epsilon", "1", "--delta", "0.02")...)
	if code != 0 || !strings.Contains(stderr, "warning: δ = 0.02 is not below 1/n = 0.01") {
		t.Errorf("δ ≥ 1/n --quiet: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, append(clone(base), "--algorithm", "noise-aware", "--draws", "20", "--epsilon", "1", "--delta", "1e-5")...)
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("δ < 1/n --quiet: exit %d, stderr %q", code, stderr)
	}
	b, err := os.ReadFile(data)
	if err != nil || !strings.HasPrefix(string(b), "y,age,bmi\n") {
		t.Errorf("the data file changed: %q…", string(b[:min(len(b), 40)]))
	}
}

func clone(s []string) []string { return append([]string(nil), s...) }

// --decimal-comma reads a semicolon file written with decimal commas; the
// loader's error without it names the flag.
func TestDecimalCommaFlag(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "dc.csv")
	var b strings.Builder
	b.WriteString("y;x\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d;%d,%d\n", i%2, 40+i%7, i%10)
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"sample", "--data", data, "--model", "logistic", "--outcome", "y", "--algorithm", "hmc",
		"--warmup", "50", "--draws", "50", "--chains", "1", "--seed", "1", "--quiet", "--out", filepath.Join(dir, "o.csv")}
	code, _, stderr := runCLI(t, args...)
	if code == 0 || !strings.Contains(stderr, `line 2, column 2 ("x"): "40,0" is not a number (it looks like a decimal comma`) || !strings.Contains(stderr, "--decimal-comma") {
		t.Errorf("without --decimal-comma: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := runCLI(t, append(args, "--decimal-comma")...)
	if code != 0 || !strings.Contains(stdout, "1 chain × 50 draws") {
		t.Errorf("with --decimal-comma: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A refusal of the algorithm auto chose says that auto chose it (the user
// named none).
func TestAutoChoiceNamedInRefusal(t *testing.T) {
	dir := t.TempDir()
	data := writeCohort(t, dir, 100, 1)
	// bmi has no bound, so noise-aware cannot run the gaussian model and
	// auto chooses dp-penalty, which needs a box.
	code, _, stderr := runCLI(t, "sample", "--data", data, "--model", "gaussian", "--predictors", "age,bmi",
		"--bound", "age=18:90", "--epsilon", "1", "--delta", "1e-5", "--quiet", "--out", filepath.Join(dir, "o.csv"))
	if code == 0 || !strings.Contains(stderr, "--algorithm auto chose dp-penalty (") || !strings.Contains(stderr, "a parameter --box") {
		t.Errorf("exit %d: %q", code, stderr)
	}
}

// A file of 300,000 columns (3.5 MB) crashed the loader, which sized its
// first chunk by rows (16,384 × 300,000 values), and looking up the named
// columns was quadratic in the columns; a gaussian model of thousands of
// columns inverted a dense d × d covariance. Each is now refused or read
// at once with the reason.
func TestWideFiles(t *testing.T) {
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.csv")
	var b strings.Builder
	const cols = 300000
	for j := range cols {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", j)
	}
	b.WriteString("\n1" + strings.Repeat(",1", cols-1) + "\n0" + strings.Repeat(",2", cols-1) + "\n")
	if err := os.WriteFile(wide, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.csv")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"every column a predictor", []string{"--model", "logistic", "--outcome", "c0", "--algorithm", "hmc"}, "× 300000 parameters = 9e+08 numbers"},
		{"a missing column", []string{"--model", "logistic", "--outcome", "c0", "--predictors", "zz", "--algorithm", "hmc"}, `column "zz": not found in the header`},
		{"gaussian", []string{"--model", "gaussian", "--algorithm", "hmc"}, "model gaussian reads 300000 columns; at most 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append([]string{"sample", "--data", wide, "--out", out, "--quiet"}, tc.args...)...)
			if code == 0 || !strings.Contains(stderr, tc.want) || len(stderr) > 2000 {
				t.Errorf("exit %d, stderr (%d bytes) %.500q lacks %q", code, len(stderr), stderr, tc.want)
			}
		})
	}
}

// A value outside the model's support is named with the file, its line
// and column, and the data row, said so that the two numbers (the line
// counts the header) do not look contradictory.
func TestSupportErrorNamesFileLineAndRow(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "cohort.csv")
	if err := os.WriteFile(data, []byte("y,age\n0,40\n1,50\n2,60\n0,70\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "sample", "--data", data, "--model", "logistic", "--outcome", "y", "--algorithm", "mh", "--out", filepath.Join(dir, "o.csv"), "--quiet")
	want := data + `: line 4, column 1 ("y"): data outside the model's support: logistic outcome must be 0 or 1 (data row 3; the file's line numbers count the header)`
	if code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// Asked-for help is the output: on stdout with exit 0, so that it pages
// (`dpmcmc sample -h | less` showed nothing when it went to stderr).
func TestHelpOnStdout(t *testing.T) {
	for _, args := range [][]string{{"sample", "-h"}, {"plan", "--help"}, {"help", "sample"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, "Usage: dpmcmc ") || !strings.Contains(stdout, "-epsilon") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %.80q", args, code, stdout, stderr)
		}
	}
}

// A bad flag gets one line: the reason, the nearest flag when the name looks
// mistyped, and where the flags are listed, not the whole flag list (which
// scrolled the reason off the screen); exit status 2.
func TestBadFlagOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sample", "--bounds", "x=1:2"}, "dpmcmc sample: flag provided but not defined: -bounds (did you mean --bound?); 'dpmcmc sample -h' lists the flags\n"},
		{[]string{"sample", "--algoritm", "mh"}, "dpmcmc sample: flag provided but not defined: -algoritm (did you mean --algorithm?); 'dpmcmc sample -h' lists the flags\n"},
		{[]string{"sample", "--categories", "sex=F:0,M:1"}, "dpmcmc sample: flag provided but not defined: -categories (did you mean --category?); 'dpmcmc sample -h' lists the flags\n"},
		{[]string{"plan", "-d", "6"}, "dpmcmc plan: flag provided but not defined: -d; 'dpmcmc plan -h' lists the flags\n"},
		{[]string{"plan", "-al", "mh"}, "dpmcmc plan: flag provided but not defined: -al (did you mean --algorithm?); 'dpmcmc plan -h' lists the flags\n"},
		{[]string{"plan", "--zzzzzz"}, "dpmcmc plan: flag provided but not defined: -zzzzzz; 'dpmcmc plan -h' lists the flags\n"},
		{[]string{"sample", "--epsilon"}, "dpmcmc sample: flag needs an argument: -epsilon; 'dpmcmc sample -h' lists the flags\n"},
		{[]string{"summary", "x.csv", "--foo"}, "dpmcmc summary: flag provided but not defined: -foo; 'dpmcmc summary -h' lists the flags\n"},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != 2 || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
