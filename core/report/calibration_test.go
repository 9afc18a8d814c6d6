package report

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// covers reports whether the stated range c contains the measured range
// [lo, hi] widened to whole percents (PercentRange) and is at most two points wider on either
// side: a re-run of the experiment moves every cell by its Monte Carlo
// error, and the note need not change unless a cell leaves the stated
// range or the range overstates the spread.
func covers(c CoverageRange, lo, hi float64) bool {
	const tol = 1e-9
	m := PercentRange(lo, hi)
	return c.Lo <= m.Lo+tol && c.Hi >= m.Hi-tol && c.Lo >= m.Lo-0.02-tol && c.Hi <= m.Hi+0.02+tol
}

// The logistic calibration the summary states (90% and 95% intervals) is
// the published utility table's (results/utility/utility_coverage.csv, the
// recommended algorithm's rows): a re-run of the experiment that moves a
// cell outside the stated range, or a stated range more than two points
// wider than the table's, fails here until the note is updated.
func TestCalibrationNoteMatchesResults(t *testing.T) {
	f, err := os.Open("../../results/utility/utility_coverage.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range recs[0] {
		col[h] = j
	}
	clin := [2]float64{math.Inf(1), math.Inf(-1)}
	large, clin95, large95 := clin, clin, clin
	rows := 0
	widen := func(r *[2]float64, s string) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		r[0], r[1] = min(r[0], v), max(r[1], v)
	}
	for _, rec := range recs[1:] {
		if rec[col["algorithm"]] != "auto" {
			continue
		}
		rows++
		widen(&clin, rec[col["coverage_90_prior_predictive_sd2.5"]])
		widen(&clin, rec[col["coverage_90_prior_predictive_sd5"]])
		widen(&large, rec[col["coverage_90_prior_predictive"]])
		widen(&clin95, rec[col["coverage_95_prior_predictive_sd2.5"]])
		widen(&clin95, rec[col["coverage_95_prior_predictive_sd5"]])
		widen(&large95, rec[col["coverage_95_prior_predictive"]])
	}
	if rows != 12 {
		t.Fatalf("%d rows of the recommended algorithm, want 12 (3 sizes × 4 ε)", rows)
	}
	if !covers(NoiseAwareClinicalCoverage, clin[0], clin[1]) {
		t.Errorf("clinical effect sizes: stated %v, the table has %.3f–%.3f", NoiseAwareClinicalCoverage, clin[0], clin[1])
	}
	if !covers(NoiseAwareLargeEffectCoverage, large[0], large[1]) {
		t.Errorf("large effects: stated %v, the table has %.3f–%.3f", NoiseAwareLargeEffectCoverage, large[0], large[1])
	}
	if !covers(NoiseAwareClinicalCoverage95, clin95[0], clin95[1]) {
		t.Errorf("clinical effect sizes, 95%% intervals: stated %v, the table has %.3f–%.3f", NoiseAwareClinicalCoverage95, clin95[0], clin95[1])
	}
	if !covers(NoiseAwareLargeEffectCoverage95, large95[0], large95[1]) {
		t.Errorf("large effects, 95%% intervals: stated %v, the table has %.3f–%.3f", NoiseAwareLargeEffectCoverage95, large95[0], large95[1])
	}
	note := CalibrationNote("logistic")
	for _, want := range []string{"80–95%", "75–88%", "88–98%", "82–94%", "90% intervals", "95% intervals"} {
		if !strings.Contains(note, want) {
			t.Errorf("logistic note %q lacks %q", note, want)
		}
	}
	for _, m := range []string{"linear", "poisson"} {
		if CalibrationNote(m) == "" {
			t.Errorf("no calibration note for %s", m)
		}
	}
	for _, m := range []string{"gaussian", "banana", "gmm", ""} {
		if n := CalibrationNote(m); n != "" {
			t.Errorf("%s: note %q, want none", m, n)
		}
	}
}
