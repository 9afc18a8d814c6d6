package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/run"
)

const wdbc = "../../testdata/logistic/breast_cancer_wdbc.csv"

var bc5Raw = []string{"--data", wdbc, "--model", "logistic", "--outcome", "malignant",
	"--predictors", "mean_radius,mean_texture,mean_smoothness,mean_compactness,mean_symmetry",
	"--bound", "mean_radius=0:30", "--bound", "mean_texture=0:40", "--bound", "mean_smoothness=0:0.2",
	"--bound", "mean_compactness=0:0.4", "--bound", "mean_symmetry=0:0.4"}

func readReport(t *testing.T, out string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(strings.TrimSuffix(out, ".csv") + ".privacy.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// `--algorithm auto`, and no --algorithm in a private run, choose
// noise-aware for a regression model, print which and why, and record it in
// the report; the run converges on the 569 breast-cancer rows at ε = 3.
func TestSampleAutoChoosesNoiseAware(t *testing.T) {
	dir := t.TempDir()
	for i, extra := range [][]string{{"--algorithm", "auto"}, {}} {
		out := filepath.Join(dir, []string{"auto.csv", "none.csv"}[i])
		args := append(append([]string{"sample"}, bc5Raw...), "--epsilon", "3", "--delta", "1e-5", "--seed", "3", "--out", out)
		code, stdout, stderr := runCLI(t, append(args, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		if !strings.Contains(stderr, "algorithm: noise-aware (recommended for logistic") {
			t.Errorf("%v: stderr does not say which algorithm:\n%s", extra, stderr)
		}
		if !strings.Contains(strings.ToLower(stdout), "converged: every r-hat") {
			t.Errorf("%v: not converged:\n%s", extra, stdout)
		}
		if !strings.Contains(stdout, "\n4 chains × 1000 draws (no warmup)\n") {
			t.Errorf("%v: the heading of draws that had no warmup:\n%s", extra, stdout)
		}
		rep := readReport(t, out)
		notes, _ := json.Marshal(rep["notes"])
		if rep["algorithm"] != "noise-aware" || !strings.Contains(string(notes), "chosen by --algorithm auto") ||
			!strings.Contains(string(notes), "approximate") || rep["epsilon_spent"].(float64) > 3 {
			t.Errorf("%v: report %v", extra, rep)
		}
		if !strings.Contains(rep["mechanism"].(string), "once for the whole run") {
			t.Errorf("mechanism: %v", rep["mechanism"])
		}
	}
}

// `--algorithm noise-aware` runs the linear and Poisson models end to end
// (outcome bounds required: the linear scale, the Poisson mean cap) and
// refuses a model it does not support.
func TestSampleNoiseAwareLinearPoisson(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ model, data, outcome, ybound string }{
		{"linear", "../../testdata/noiseaware/linear_small.csv", "y", "y=-10:10"},
		{"poisson", "../../testdata/noiseaware/poisson_small.csv", "visits", "visits=0:20"},
	} {
		out := filepath.Join(dir, c.model+".csv")
		args := []string{"sample", "--data", c.data, "--model", c.model, "--outcome", c.outcome,
			"--bound", "age=18:90", "--bound", "dose=0:10", "--bound", c.ybound, "--algorithm", "noise-aware",
			"--epsilon", "2", "--delta", "1e-5", "--chains", "2", "--draws", "300", "--seed", "1", "--out", out, "--quiet"}
		if c.model == "linear" {
			// The noise sd is known to the model and must be given: no
			// silent default of 1 in the outcome's units.
			if code, _, stderr := runCLI(t, args...); code == 0 || !strings.Contains(stderr, "--model-opt noise-sd=S") {
				t.Errorf("private linear run without a noise sd: exit %d, %s", code, stderr)
			}
			args = append(args, "--model-opt", "noise-sd=1.5")
		}
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.model, code, stderr)
		}
		rep := readReport(t, out)
		if rep["algorithm"] != "noise-aware" || rep["model"] != c.model {
			t.Errorf("%s: report %v", c.model, rep)
		}
		if notes := fmt.Sprint(rep["notes"]); c.model == "linear" && !strings.Contains(notes, "noise sd σ = 1.5 (in the outcome's units) is public and known") {
			t.Errorf("linear report does not state the noise sd: %s", notes)
		}
	}
	code, _, stderr := runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gmm",
		"--predictors", "age", "--bound", "age=18:90", "--algorithm", "noise-aware", "--epsilon", "1", "--delta", "1e-5",
		"--out", filepath.Join(dir, "g.csv"), "--quiet")
	if code == 0 || !strings.Contains(stderr, "noise-aware works for the logistic, linear, poisson, gaussian and banana models") {
		t.Errorf("gmm model: exit %d, %s", code, stderr)
	}
	// The gaussian model runs when every data column it reads is bounded,
	// and is refused, with the column named, when one is not.
	code, stdout, stderr := runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--predictors", "dose,age", "--bound", "age=18:90", "--bound", "dose=0:10", "--algorithm", "noise-aware", "--epsilon", "1", "--delta", "1e-5",
		"--out", filepath.Join(dir, "g.csv"), "--quiet")
	if code != 0 {
		t.Errorf("gaussian model with its columns bounded: exit %d, %s", code, stderr)
	}
	// Under its summary a line says which column each theta is the mean of.
	if !strings.Contains(stdout, "\nParameters: theta1 the mean of dose, theta2 the mean of age.\n") {
		t.Errorf("gaussian model: no line naming the columns of theta1, theta2:\n%s", stdout)
	}
	code, _, stderr = runCLI(t, "sample", "--data", "../../testdata/noiseaware/linear_small.csv", "--model", "gaussian",
		"--predictors", "age,y", "--bound", "age=18:90", "--algorithm", "noise-aware", "--epsilon", "1", "--delta", "1e-5",
		"--out", filepath.Join(dir, "g.csv"), "--quiet")
	if code == 0 || !strings.Contains(stderr, "give a bound for y") {
		t.Errorf("gaussian model with y unbounded: exit %d, %s", code, stderr)
	}
}

// `dpmcmc plan --algorithm noise-aware` states the releases, their noise
// and the ε spent, without data.
func TestPlanNoiseAware(t *testing.T) {
	code, stdout, stderr := runCLI(t, "plan", "--algorithm", "noise-aware", "--n", "569", "--dim", "6", "--epsilon", "3", "--delta", "1e-5", "--text")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"noise-aware with 4 chains", "0 warmup + 1000 draws", "ε = 3", "score S at expansion point 2", "noise std",
		// The measured calibration, before any run (the summary's line).
		"\n" + report.CalibrationNote("logistic") + "\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("plan lacks %q:\n%s", want, stdout)
		}
	}
	// In JSON: forecast.calibration for noise-aware, none for dp-penalty.
	for alg, want := range map[string]string{"noise-aware": report.CalibrationNote("logistic"), "dp-penalty": ""} {
		code, stdout, stderr := runCLI(t, "plan", "--algorithm", alg, "--n", "569", "--dim", "6", "--epsilon", "3", "--delta", "1e-5")
		var p struct {
			Forecast struct {
				Calibration string `json:"calibration"`
			} `json:"forecast"`
		}
		if code != 0 || json.Unmarshal([]byte(stdout), &p) != nil || p.Forecast.Calibration != want {
			t.Errorf("%s plan: exit %d, forecast.calibration %q, want %q; %s", alg, code, p.Forecast.Calibration, want, stderr)
		}
	}
	if code, _, _ := runCLI(t, "plan", "--algorithm", "noise-aware", "--n", "569", "--epsilon", "3", "--delta", "1e-5"); code == 0 {
		t.Error("plan without --dim accepted")
	}
	if code, _, _ := runCLI(t, "plan", "--algorithm", "noise-aware", "--model", "poisson", "--n", "569", "--dim", "3", "--epsilon", "3", "--delta", "1e-5"); code == 0 {
		t.Error("poisson plan without --outcome-bound accepted")
	}
	if code, _, stderr := runCLI(t, "plan", "--algorithm", "noise-aware", "--model", "poisson", "--outcome-bound", "0:20", "--n", "569", "--dim", "3", "--epsilon", "3", "--delta", "1e-5"); code != 0 {
		t.Errorf("poisson plan: %s", stderr)
	}
	// The linear model's release and preview depend on the outcome's bound
	// and the noise sd, as a run's do: without the bound the plan is
	// refused (it used to assume -1:1), and --noise-sd sets the preview's
	// unit √φ = noise-sd / half-range.
	lin := []string{"plan", "--algorithm", "noise-aware", "--model", "linear", "--n", "100", "--dim", "3", "--epsilon", "1", "--delta", "1e-5"}
	if code, _, stderr := runCLI(t, append(lin, "--noise-sd", "1")...); code == 0 || !strings.Contains(stderr, "--outcome-bound") {
		t.Errorf("linear plan without --outcome-bound: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(lin, "--outcome-bound", "-10:10")...); code == 0 || !strings.Contains(stderr, "--noise-sd") {
		t.Errorf("linear plan without --noise-sd: exit %d, %s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, append(lin, "--outcome-bound", "-10:10", "--noise-sd", "2")...)
	if code != 0 || !strings.Contains(stdout, `"effect_unit": 0.2`) {
		t.Errorf("linear plan with --noise-sd 2 and bound ±10: exit %d, want effect_unit 0.2:\n%s%s", code, stdout, stderr)
	}
	// Every private linear plan takes --noise-sd (not only noise-aware's),
	// and a noise sd that makes φ leave the doubles is refused by name.
	dpLin := []string{"plan", "--algorithm", "dp-penalty", "--model", "linear", "--n", "100", "--dim", "3", "--epsilon", "1", "--delta", "1e-5"}
	if code, _, stderr := runCLI(t, dpLin...); code == 0 || !strings.Contains(stderr, "--noise-sd") {
		t.Errorf("dp-penalty linear plan without --noise-sd: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(dpLin, "--noise-sd", "2")...); code != 0 {
		t.Errorf("dp-penalty linear plan with --noise-sd: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(lin, "--outcome-bound", "-50:50", "--noise-sd", "1e-200")...); code == 0 || !strings.Contains(stderr, "noise sd 1e-200") {
		t.Errorf("noise sd 1e-200: exit %d, %s", code, stderr)
	}
	for _, bad := range [][]string{{"--noise-sd", "-1"}, {"--noise-sd", "2", "--model", "logistic"}} {
		if code, _, _ := runCLI(t, append(append(lin, "--outcome-bound", "-10:10"), bad...)...); code == 0 {
			t.Errorf("plan %v accepted", bad)
		}
	}
}

// `dpmcmc plan --algorithm auto` resolves from the public n and dim as the
// page and `sample` do, and says so.
func TestPlanAuto(t *testing.T) {
	for _, c := range []struct{ model, n, want string }{
		{"banana", "5000", "dp-hmc"}, {"banana", "500", "dp-penalty"}, {"logistic", "569", "noise-aware"},
	} {
		code, stdout, stderr := runCLI(t, "plan", "--algorithm", "auto", "--model", c.model, "--n", c.n, "--dim", "2", "--epsilon", "2", "--delta", "1e-5", "--clip", "2", "--text")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
		if !strings.Contains(stdout, "chosen by --algorithm auto: "+c.want+" (") {
			t.Errorf("%v: plan does not name %s:\n%s", c, c.want, stdout)
		}
	}
}

// The summary names the coefficients whose posterior is mostly the prior
// (posterior sd above 1/√2 × prior sd in the user's units): at ε = 0.5 on
// the 569 rows most are (3–5 of 6 in five runs with fresh noise; at least 2
// asserted); non-private HMC on the scaled predictors (the same N(0, 20²)
// prior) has none; with N(0, 10²) per unit in the user's units, the
// smoothness coefficient (a range 0.2 wide) is barely informed (sd 8.5),
// and the note says so without ε. That run uses scale auto (the same
// posterior, sampled on the scaled space): sampled in the user's units,
// 500 + 500 iterations did not converge (R-hat up to 2.5) and, with the
// accept draws from the run's fresh key, the note named symmetry instead
// in one of a few runs.
// sampleBC5 runs `dpmcmc sample` on the 569 breast-cancer rows with
// bc5Raw's predictors and bounds, seed 3, the draws in dir, and returns
// what it printed.
func sampleBC5(t *testing.T, dir string, args ...string) string {
	t.Helper()
	all := append(append(append([]string{"sample"}, bc5Raw...), args...), "--seed", "3", "--out", filepath.Join(dir, "d.csv"))
	code, stdout, stderr := runCLI(t, all...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return stdout
}

func TestSampleNamesMostlyPriorCoefficients(t *testing.T) {
	dir := t.TempDir()
	hmc := []string{"--algorithm", "hmc", "--no-privacy", "--warmup", "500", "--draws", "500"}
	// Prior sds in the user's units: on the scaled space (s = 20) a
	// slope's is 20/h and the intercept's 20·√(1 + Σ(c/h)²) (bc5Raw's
	// bounds: centres equal the half-ranges, Σ(c/h)² = 5); in the user's
	// units 10 each.
	half := map[string]float64{"mean_radius": 15, "mean_texture": 20, "mean_smoothness": 0.1, "mean_compactness": 0.2, "mean_symmetry": 0.2}
	scaledPrior := func(name string) float64 {
		if name == "intercept" {
			return 20 * math.Sqrt(6)
		}
		return 20 / half[name]
	}
	userPrior := func(string) float64 { return 10 }
	for _, c := range []struct {
		args    []string
		prior   func(string) float64
		min     int    // coefficients named, at least (-1: as the table says)
		has, no string // in the note, and not
	}{
		{[]string{"--epsilon", "0.5", "--delta", "1e-5"}, scaledPrior, -1, "the data, as released at this budget,", "zzz"},
		{append([]string{"--scale", "bounds"}, hmc...), scaledPrior, 0, "", ""},
		// In the user's units N(0, 10²) holds smoothness (about 100 per
		// unit under a flat prior) near 0: as wide as mostly prior, but its
		// interval excludes 0, so the prior-pull line names it instead.
		{append([]string{"--scale", "auto"}, hmc...), userPrior, 0, "", ""},
	} {
		stdout := sampleBC5(t, dir, c.args...)
		if slices.Contains(c.args, "auto") && !regexp.MustCompile(`The prior pulls .*mean_smoothness \(about \d+\.\d posterior sds, its prior sd 10\)`).MatchString(stdout) {
			t.Errorf("%v: the prior-pull line does not name mean_smoothness:\n%s", c.args, stdout)
		}
		// The note names exactly the rows whose sd cell is above 1/√2 of
		// the prior sd (rows within 2% of the threshold skipped: the sd
		// cell has 3 significant digits). The private run's count varies
		// with its fresh noise (1–5 of 6 seen at ε = 0.5).
		_, note, found := strings.Cut(stdout, "Mostly the prior: ")
		names, _, _ := strings.Cut(note, " (")
		named := map[string]bool{}
		if found {
			for _, nm := range strings.Split(names, ", ") {
				named[nm] = true
			}
		}
		want := 0
		for _, r := range summaryRows(t, stdout) {
			ratio := r.SD / c.prior(r.Name)
			if math.Abs(ratio/(math.Sqrt2/2)-1) < 0.02 {
				continue
			}
			mostly := ratio > math.Sqrt2/2 && !(r.Q2_5 > 0 || r.Q97_5 < 0)
			if mostly {
				want++
			}
			if named[r.Name] != mostly {
				t.Errorf("%v: %s sd %v, prior sd %v: named %v in %q", c.args, r.Name, r.SD, c.prior(r.Name), named[r.Name], note)
			}
		}
		if !found {
			if c.min > 0 || want > 0 {
				t.Errorf("%v: no prior note:\n%s", c.args, stdout)
			}
			continue
		}
		if c.min == 0 {
			t.Errorf("%v: unexpected prior note:\n%s", c.args, stdout)
			continue
		}
		if n := len(named); n < c.min || !strings.Contains(note, c.has) || strings.Contains(note, c.no) {
			t.Errorf("%v: note names %d (want ≥ %d), has %q, not %q:\n%s", c.args, n, c.min, c.has, c.no, note)
		}
	}
}

// Under a regression's summary a line says which predictors' effects the
// draws determine in direction, and it agrees with the table's 2.5% and
// 97.5% columns: non-private (on the scaled space, where HMC converges in
// 500 + 500 iterations; in the user's units it does not, and the accept
// draws come from the run's fresh key, so that outcome varies), the
// breast-cancer slopes radius, texture and smoothness raise the odds
// (2.5% quantiles 1.1, 0.27 and 54 per unit); at ε = 0.5
// no direction is determined and the line says so, with the budget's
// remedy. The private run also prints noise-aware's measured calibration.
func TestSampleSaysEffectDirections(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args    []string
		private bool
		has     string
	}{
		{[]string{"--algorithm", "hmc", "--no-privacy", "--scale", "bounds", "--warmup", "500", "--draws", "500"}, false, "raises the odds: mean_radius, mean_texture, mean_smoothness"},
		{[]string{"--epsilon", "0.5", "--delta", "1e-5"}, true, "not determined for any predictor"},
	} {
		stdout := sampleBC5(t, dir, c.args...)
		_, note, ok := strings.Cut(stdout, "Direction of the effects")
		note, _, _ = strings.Cut(note, "\n")
		if !ok || !strings.Contains(note, c.has) {
			t.Errorf("%v: direction line %q lacks %q:\n%s", c.args, note, c.has, stdout)
			continue
		}
		// The line is the one the table's own 2.5% and 97.5% columns give
		// (the printed quantiles keep their signs).
		rows := summaryRows(t, stdout)
		if want := report.DirectionNote(rows, "logistic", c.private, true); "Direction of the effects"+note != want {
			t.Errorf("%v: printed %q, the table gives %q", c.args, "Direction of the effects"+note, want)
		}
		if len(rows) != 6 {
			t.Fatalf("no summary table (%d rows):\n%s", len(rows), stdout)
		}
		// The private run (noise-aware) states its measured calibration;
		// non-private HMC does not.
		if cal := report.CalibrationNote("logistic"); strings.Contains(stdout, cal+"\n") != c.private {
			t.Errorf("%v: calibration line present %v, want %v:\n%s", c.args, !c.private, c.private, stdout)
		}
	}
}

// summaryRows parses the summary table sample prints: each row's name, sd,
// 2.5% and 97.5% quantiles.
func summaryRows(t *testing.T, stdout string) []diag.ParamSummary {
	t.Helper()
	var rows []diag.ParamSummary
	lines := strings.Split(stdout, "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != "parameter" {
			continue
		}
		sd, lo, hi := slices.Index(f, "sd"), slices.Index(f, "2.5%"), slices.Index(f, "97.5%")
		for _, row := range lines[i+1:] {
			g := strings.Fields(row)
			if len(g) <= hi {
				break
			}
			v := make([]float64, 3)
			for k, j := range []int{sd, lo, hi} {
				x, err := strconv.ParseFloat(g[j], 64)
				if err != nil {
					t.Fatalf("row %q: %v", row, err)
				}
				v[k] = x
			}
			rows = append(rows, diag.ParamSummary{Name: g[0], SD: v[0], Q2_5: v[1], Q97_5: v[2]})
		}
		break
	}
	return rows
}

// A non-private regression run in the user's units that does not converge
// says on stderr (the summary on stdout stays `dpmcmc summary`'s) that --scale auto would sample the same posterior better, when every
// predictor has a public bound (the raw breast-cancer predictors: HMC at
// 4 × (300 + 300) does not converge in the user's units); with --scale
// auto (4 × (1000 + 1000): R-hat ≤ 1.001) it converges and says nothing of
// the kind, and neither does a run missing a bound. The draws differ from
// run to run (fresh noise key), so the settings are far from the edge.
func TestSampleHintsScaleAuto(t *testing.T) {
	dir := t.TempDir()
	base := append(append([]string{"sample"}, bc5Raw...), "--algorithm", "hmc", "--warmup", "300", "--draws", "300", "--seed", "1", "--quiet")
	code, stdout, stderr := runCLI(t, append(base, "--out", filepath.Join(dir, "none.csv"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Not converged") || !strings.Contains(stderr, "Hint: the coefficients were sampled in the user's units") || strings.Contains(stdout, "Hint:") {
		t.Errorf("user units: no verdict, or the hint is not on stderr only:\n%s\nstderr:\n%s", stdout, stderr)
	}
	long := append(append([]string{"sample"}, bc5Raw...), "--algorithm", "hmc", "--warmup", "1000", "--draws", "1000", "--seed", "1", "--quiet")
	code, stdout, stderr = runCLI(t, append(long, "--scale", "auto", "--out", filepath.Join(dir, "auto.csv"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Converged") || strings.Contains(stdout+stderr, "Hint:") {
		t.Errorf("scale auto:\n%s\nstderr:\n%s", stdout, stderr)
	}
	noBound := slices.Clone(base)
	i := slices.Index(noBound, "mean_symmetry=0:0.4")
	noBound = slices.Delete(noBound, i-1, i+1)
	code, stdout, stderr = runCLI(t, append(noBound, "--out", filepath.Join(dir, "nobound.csv"))...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, "Hint:") {
		t.Errorf("a predictor without a bound, yet the hint:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

// `dpmcmc plan` for the mean-statistic models: with every data column's
// bound given, auto chooses noise-aware, spends the budget once and
// forecasts the posterior sds against the non-private ones; --bound is
// refused for a regression, whose bounds enter through --dim and --clip.
func TestPlanNoiseAwareMeanModels(t *testing.T) {
	code, stdout, stderr := runCLI(t, "plan", "--algorithm", "auto", "--model", "banana", "--n", "5000", "--dim", "2",
		"--bound", "x1=-200:200", "--bound", "x2=-200:200", "--epsilon", "2", "--delta", "1e-6", "--chains", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p struct {
		Algorithm string   `json:"algorithm"`
		Epsilon   float64  `json:"epsilon"`
		Dim       int      `json:"dim"`
		Notes     []string `json:"notes"`
		Forecast  struct {
			Kind        string `json:"kind"`
			MeanPreview struct {
				NoiseSD []float64 `json:"noise_sd"`
				SDRatio []float64 `json:"sd_ratio"`
			} `json:"mean_preview"`
		} `json:"forecast"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	// σ = 2·‖(200, 200)‖/μ over n = 5000; the sampling sds √(2000/5000)
	// and √(2500/5000).
	if p.Algorithm != "noise-aware" || p.Epsilon > 2 || p.Epsilon < 1.999 || p.Forecast.Kind != "exact" || len(p.Forecast.MeanPreview.SDRatio) != 2 {
		t.Fatalf("plan %+v", p)
	}
	// The noise sd on a mean is the release's std (its note) over n.
	var std float64
	for _, note := range p.Notes {
		if _, rest, ok := strings.Cut(note, "noise std "); ok {
			std, _ = strconv.ParseFloat(strings.TrimRight(strings.Fields(rest)[0], ","), 64)
		}
	}
	// On the scaled sums; each column's half-width is 200.
	if p.Dim != 2 || std == 0 || len(p.Forecast.MeanPreview.NoiseSD) != 2 || math.Abs(p.Forecast.MeanPreview.NoiseSD[0]-200*std/5000) > 1e-9*std {
		t.Fatalf("dim %d, noise sd on a mean %v, release std %v (notes %v)", p.Dim, p.Forecast.MeanPreview.NoiseSD, std, p.Notes)
	}
	for j, v := range []float64{2000, 2500} {
		s := math.Sqrt(v / 5000)
		if want := math.Hypot(1, p.Forecast.MeanPreview.NoiseSD[j]/s); math.Abs(p.Forecast.MeanPreview.SDRatio[j]-want) > 1e-12 {
			t.Errorf("sd ratio %d: %v, want %v", j, p.Forecast.MeanPreview.SDRatio[j], want)
		}
	}
	code, _, stderr = runCLI(t, "plan", "--algorithm", "noise-aware", "--model", "logistic", "--n", "500", "--dim", "2", "--bound", "x=0:1", "--epsilon", "1", "--delta", "1e-6")
	if code == 0 || !strings.Contains(stderr, "--bound and --predictors are for the gaussian and banana models") {
		t.Errorf("--bound with logistic: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "plan", "--algorithm", "auto", "--model", "Gaussian", "--n", "500", "--bound", "x1=0:1", "--epsilon", "1", "--delta", "1e-6")
	if code == 0 || !strings.Contains(stderr, "give --predictors") {
		t.Errorf("gaussian without its columns: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "plan", "--algorithm", "auto", "--model", "gaussian", "--predictors", "x1,x2", "--dim", "3", "--n", "500", "--bound", "x1=0:1", "--bound", "x2=0:1", "--epsilon", "1", "--delta", "1e-6")
	if code == 0 || !strings.Contains(stderr, "one parameter per data column (2)") {
		t.Errorf("--dim 3 with two columns: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "plan", "--algorithm", "noise-aware", "--model", "banana", "--predictors", "x1", "--n", "500", "--bound", "x1=0:1", "--epsilon", "1", "--delta", "1e-6")
	if code == 0 || !strings.Contains(stderr, "at least two data columns") {
		t.Errorf("a one-column banana: exit %d, %s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "plan", "--algorithm", "auto", "--model", "gaussian", "--predictors", "x1,x2", "--n", "500", "--bound", "x1=0:1", "--bound", "x2=0:1", "--epsilon", "1", "--delta", "1e-6", "--text")
	if code != 0 || !strings.HasPrefix(stdout, "noise-aware with 4 chains on n = 500") {
		t.Errorf("gaussian with its columns bounded: exit %d, %s%s", code, stdout, stderr)
	}
}

// Above noise-aware's dimension limit the forecast that a per-iteration
// sampler cannot converge names fewer predictors, not noise-aware (which
// would refuse the model).
func TestForecastAboveNoiseAwareLimit(t *testing.T) {
	for _, alg := range []string{"dp-penalty", "auto"} {
		code, stdout, stderr := runCLI(t, "plan", "--algorithm", alg, "--model", "logistic", "--n", "300", "--dim", "71", "--epsilon", "3", "--delta", "1e-5", "--text")
		if code != 0 || !strings.Contains(stdout, "they will not converge; use fewer predictors (noise-aware handles at most 64 coefficients; this model has 71)") || strings.Contains(stdout, "use noise-aware") {
			t.Errorf("%s: exit %d, %s%s", alg, code, stdout, stderr)
		}
	}
	if code, stdout, _ := runCLI(t, "plan", "--algorithm", "dp-penalty", "--model", "logistic", "--n", "300", "--dim", "64", "--epsilon", "3", "--delta", "1e-5", "--text"); code != 0 || !strings.Contains(stdout, "use noise-aware") {
		t.Errorf("d = 64: %s", stdout)
	}
	if want := fmt.Sprintf("use noise-aware (regression models with at most %d coefficients)", run.MaxNoiseAwareDim); !strings.Contains(report.PrivateNotConvergedAdvice, want) {
		t.Errorf("the verdict's advice %q does not say %q", report.PrivateNotConvergedAdvice, want)
	}
}
