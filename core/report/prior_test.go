package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// Age 18:90 (centre 54, half-range 36) and dose 0:5 (2.5, 2.5) with s = 20
// on the scaled coefficients: slopes 20/36 and 20/2.5 per unit; the
// intercept θ_0 = β_0 − 1.5β_age − β_dose has sd 20·√(1 + 1.5² + 1²).
func TestPriorSDs(t *testing.T) {
	names := []string{"intercept", "age", "dose"}
	bounds := map[string][2]float64{"age": {18, 90}, "dose": {0, 5}}
	got := PriorSDs(names, bounds, 20, true)
	want := map[string]float64{"age": 20.0 / 36, "dose": 8, "intercept": 20 * math.Sqrt(1+2.25+1)}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12*w {
			t.Errorf("%s: prior sd %v, want %v", k, got[k], w)
		}
	}
	if u := PriorSDs(names, bounds, 10, false); u["age"] != 10 || u["intercept"] != 10 {
		t.Errorf("unscaled: %v", u)
	}
	// Without an intercept the slopes are scaled by max(|lo|, |hi|).
	if g := PriorSDs([]string{"age"}, bounds, 20, true); math.Abs(g["age"]-20.0/90) > 1e-15 {
		t.Errorf("no intercept: %v", g)
	}
	// A missing bound: a scaled run's prior sds are unknown.
	if g := PriorSDs(names, map[string][2]float64{"age": {18, 90}}, 20, true); len(g) != 0 {
		t.Errorf("missing bound: %v", g)
	}
}

func TestPriorNote(t *testing.T) {
	prior := map[string]float64{"intercept": 10, "age": 1, "dose": 2}
	rows := []diag.ParamSummary{{Name: "intercept", SD: 9}, {Name: "age", SD: 0.7}, {Name: "dose", SD: 1.42}}
	if got := MostlyPrior(rows, prior, nil); strings.Join(got, ",") != "intercept,dose" {
		t.Errorf("MostlyPrior = %v", got)
	}
	note := PriorNote(rows, prior, nil, true)
	if !strings.Contains(note, "intercept, dose") || strings.Contains(note, "age") || !strings.Contains(note, "ε") {
		t.Errorf("note %q", note)
	}
	if note := PriorNote(rows, prior, nil, false); note == "" || strings.Contains(note, "ε") {
		t.Errorf("non-private note %q", note)
	}
	rows[0].SD, rows[2].SD = 1, 1
	if note := PriorNote(rows, prior, nil, true); note != "" {
		t.Errorf("nothing mostly prior, note %q", note)
	}
}

// The tail note names the parameters whose sd is carried by a few far
// draws: a normal sample (sd/MAD ≈ 1) is not named, a sample with 3% of
// its draws 100 sds out is, with its median and MAD quoted.
func TestTailNote(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	normal, heavy := make([][]float64, 4000), make([][]float64, 4000)
	for i := range normal {
		normal[i] = []float64{r.NormFloat64()}
		v := r.NormFloat64()
		if i%33 == 0 {
			v *= 100
		}
		heavy[i] = []float64{v}
	}
	rows := diag.Summary([]string{"age"}, [][][]float64{normal})
	rows = append(rows, diag.Summary([]string{"bmi"}, [][][]float64{heavy})...)
	if math.Abs(rows[0].MAD/rows[0].SD-1) > 0.05 || rows[1].SD < 10*rows[1].MAD {
		t.Fatalf("sd %v, MAD %v; sd %v, MAD %v", rows[0].SD, rows[0].MAD, rows[1].SD, rows[1].MAD)
	}
	note := TailNote(rows, true)
	if !strings.HasPrefix(note, "Heavy tails: bmi (sd ") || strings.Contains(note, "age") ||
		!strings.Contains(note, "median "+Num(rows[1].Median, 'g', 4)) || !strings.Contains(note, "release's noise") {
		t.Errorf("note %q", note)
	}
	if TailNote(rows[:1], false) != "" {
		t.Error("a normal sample is called heavy-tailed")
	}
}

// The pull note names a coefficient whose prior moves its mean by more than
// half a posterior sd: the review's blood-pressure intercept (mean 97.0, sd
// 1.84, prior N(0, 10²): 97·1.84/(100 − 1.84²) = 1.8 sds), not a slope
// far inside its prior.
func TestPriorPullNote(t *testing.T) {
	rows := []diag.ParamSummary{{Name: "intercept", Mean: 97, SD: 1.84}, {Name: "bmi", Mean: 0.85, SD: 0.1}}
	prior := map[string]float64{"intercept": 10, "bmi": 10}
	pulls := PriorPull(rows, prior, nil, nil)
	if len(pulls) != 1 || pulls[0].Name != "intercept" || math.Abs(pulls[0].SDs-97*1.84/(100-1.84*1.84)) > 1e-12 || pulls[0].Kind != Toward {
		t.Fatalf("%+v", pulls)
	}
	note := PriorPullNote(rows, prior, nil, false, nil)
	if !strings.HasPrefix(note, "The prior pulls intercept (about 1.8 posterior sds, its prior sd 10) toward 0: the posterior mean sits that much nearer 0") ||
		!strings.Contains(note, "(estimated from each coefficient's mean, sd and prior sd on its own)") ||
		!strings.Contains(note, "(scale bounds, where the intercept is at the bounds' centre). Coefficients correlated with these (the slopes of predictors far from 0, with the intercept) move too, by amounts this estimate does not show.") {
		t.Errorf("note %q", note)
	}
	// A prior already on the scaled coefficients (a private run): widening
	// it is the only remedy, not the scaling it already has; the warning
	// about correlated coefficients stays (a review: it was dropped there).
	if note := PriorPullNote(rows, prior, nil, true, nil); strings.Contains(note, "scale bounds") || !strings.Contains(note, "widen it (the prior scale: --prior-sd") || !strings.Contains(note, "does not show") {
		t.Errorf("scaled note %q", note)
	}
	if PriorPullNote(rows[1:], prior, nil, false, nil) != "" {
		t.Error("a slope far inside its prior is said to be pulled")
	}
	// Joint shifts m̂ − m (run.PriorShifts): the slopes that move with a
	// pulled intercept are named, away from 0 (bmi: data alone 0.73, mean
	// 0.85: 1.2 sds) or across it (a sign the prior reversed), and the
	// warning that they are not shown goes.
	rows3 := append(rows, diag.ParamSummary{Name: "age", Mean: -0.2, SD: 0.1})
	prior["age"] = 10
	joint := PriorPullNote(rows3, prior, nil, false, []float64{3.3, -0.12, 0.5})
	for _, want := range []string{
		"The prior pulls intercept (about 1.8 posterior sds, its prior sd 10) toward 0, moves bmi (about 1.2 posterior sds, its prior sd 10) away from 0 and moves age (about 5.0 posterior sds, its prior sd 10) across 0, reversing the sign the data alone give (age 0.3) (the coefficients are correlated): each posterior mean sits that far from where the data alone would put it (estimated from the draws' means and covariances",
	} {
		if !strings.HasPrefix(joint, want) || strings.Contains(joint, "does not show") {
			t.Errorf("joint note %q, want %q", joint, want)
		}
	}
	// A prior centred elsewhere (noise-aware linear's intercept at the
	// outcome's centre): the direction is relative to that centre.
	centred := PriorPullNote(rows[:1], prior, map[string]float64{"intercept": 160}, true, []float64{-20})
	if !strings.HasPrefix(centred, "The prior pulls intercept (about 10.9 posterior sds, its prior sd 10, centred at 160) toward its prior's centre: the posterior mean sits that much nearer its prior's centre") {
		t.Errorf("centred note %q", centred)
	}
	// Across a centre that is not 0: no sign is reversed (a review: the
	// note said so of an intercept at 150 whose data-alone value was 170,
	// both positive).
	across := PriorPullNote([]diag.ParamSummary{{Name: "intercept", Mean: 150, SD: 5}}, prior, map[string]float64{"intercept": 160}, true, []float64{20})
	if !strings.HasPrefix(across, "The prior moves intercept (about 4.0 posterior sds, its prior sd 10, centred at 160) across its prior's centre, from the other side, where the data alone put it (intercept 170):") || strings.Contains(across, "sign") {
		t.Errorf("centred across note %q", across)
	}
	// A centred intercept and a slope at 0, both pulled: each toward its own.
	mixed := PriorPullNote(rows3, prior, map[string]float64{"intercept": 160}, true, []float64{-20, 0, 0.5})
	if !strings.HasPrefix(mixed, "The prior pulls intercept (about 10.9 posterior sds, its prior sd 10, centred at 160) toward its prior's centre (0 where none is stated) and moves age") ||
		!strings.Contains(mixed, ": each posterior mean sits that far from where the data alone would put it") {
		t.Errorf("mixed note %q", mixed)
	}
	// Mostly prior is judged against the prior's centre: an intercept at
	// 158 ± 9 under N(160, 10²) excludes 0 but is the prior's width.
	atCentre := []diag.ParamSummary{{Name: "intercept", Mean: 158, SD: 9, Q2_5: 140, Q97_5: 176}}
	if got := MostlyPrior(atCentre, prior, map[string]float64{"intercept": 160}); len(got) != 1 {
		t.Errorf("an intercept at its prior's centre, as wide as its prior, is not mostly prior: %v", got)
	}
	if got := MostlyPrior(atCentre, prior, nil); len(got) != 0 {
		t.Errorf("an interval excluding its 0 centre is called mostly prior: %v", got)
	}
	if got := PriorPullNote(atCentre, prior, map[string]float64{"intercept": 160}, true, nil); got != "" {
		t.Errorf("an intercept at its prior's centre is said to be pulled: %q", got)
	}
	// A coefficient that is mostly prior (sd above 0.71 of the prior's) is
	// PriorNote's, not pulled as well (a review saw both name glucose).
	mostly := []diag.ParamSummary{{Name: "glucose", Mean: 0.05, SD: 0.1}}
	if got := PriorPullNote(mostly, map[string]float64{"glucose": 0.133}, nil, true, nil); got != "" || len(MostlyPrior(mostly, map[string]float64{"glucose": 0.133}, nil)) != 1 {
		t.Errorf("mostly prior and pulled: %q", got)
	}
	// As wide, but its 95% interval excludes 0: the data pull it away from
	// the prior (the review's raw-units smoothness, 102 ± 24 per unit under
	// a flat prior, 21.06 ± 8.46 under N(0, 10²)). It is pulled, by about
	// 21.06·8.46/(100 − 8.46²) = 6.3 sds, not "mostly the prior" with the
	// advice of a narrower prior.
	conflict := []diag.ParamSummary{{Name: "smoothness", Mean: 21.06, SD: 8.46, Q2_5: 3.98, Q97_5: 38.0}}
	p10 := map[string]float64{"smoothness": 10}
	if got := MostlyPrior(conflict, p10, nil); len(got) != 0 {
		t.Errorf("a prior in conflict with the data is called mostly prior: %v", got)
	}
	if note := PriorPullNote(conflict, p10, nil, false, nil); !strings.HasPrefix(note, "The prior pulls smoothness (about 6.3 posterior sds, its prior sd 10) toward 0") {
		t.Errorf("conflict note %q", note)
	}
	// Wider than its prior and away from 0 (a non-normal posterior, such
	// as a coefficient under separation): named by one note, not neither.
	wide := []diag.ParamSummary{{Name: "smoothness", Mean: 25, SD: 11, Q2_5: 6, Q97_5: 50}}
	if got := MostlyPrior(wide, p10, nil); len(got) != 0 {
		t.Errorf("wider than its prior, away from 0, called mostly prior: %v", got)
	}
	if note := PriorPullNote(wide, p10, nil, false, nil); !strings.HasPrefix(note, "The prior pulls smoothness (by more than this estimate can tell: its posterior sd is at least its prior sd 10, though its 95% interval excludes 0) toward 0") {
		t.Errorf("wide conflict note %q", note)
	}
}
