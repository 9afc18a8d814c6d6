package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/experiment"
)

// Every experiment's --quick version runs, writes its CSV tables, its
// summary and its figures (SVG and PNG), and its numbers are finite.
func TestExperimentQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every quick experiment")
	}
	for _, e := range experiment.List() {
		t.Run(e.Name, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			if code := runMain([]string{"experiment", e.Name, "--quick", "--quiet", "--out", dir}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			var csvs, svgs, pngs int
			for _, f := range files {
				st, err := os.Stat(f)
				if err != nil || st.Size() == 0 {
					t.Errorf("%s empty", f)
				}
				switch filepath.Ext(f) {
				case ".csv":
					csvs++
					checkFinite(t, f)
				case ".svg":
					svgs++
				case ".png":
					pngs++
				}
			}
			if csvs == 0 || svgs == 0 || svgs != pngs {
				t.Errorf("outputs: %d csv, %d svg, %d png: %v", csvs, svgs, pngs, files)
			}
			if _, err := os.Stat(filepath.Join(dir, e.Name+"_summary.txt")); err != nil {
				t.Error(err)
			}
		})
	}
}

// checkFinite checks the metric columns of a table: every number is finite
// except where NaN or ±Inf is meaningful (clip fraction of algorithms that
// do not clip ratios; ε of a non-private chain).
func checkFinite(t *testing.T, path string) {
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
	if len(recs) < 2 {
		t.Fatalf("%s: no rows", path)
	}
	for _, r := range recs[1:] {
		for j, v := range r {
			col := recs[0][j]
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue // text column
			}
			if strings.Contains(col, "clip_fraction") || strings.Contains(col, "epsilon") || strings.HasSuffix(col, "_se") {
				continue
			}
			if math.IsNaN(x) || math.IsInf(x, 0) {
				if strings.Contains(r[0], "exact") || strings.Contains(strings.Join(r, ","), "non-private") {
					continue
				}
				t.Errorf("%s: column %s = %s in row %v", filepath.Base(path), col, v, r)
			}
		}
	}
}

func TestExperimentUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"experiment", "nope", "--quick"}, &stdout, &stderr); code == 0 {
		t.Fatal("unknown experiment accepted")
	}
	if code := runMain([]string{"experiment"}, &stdout, &stderr); code == 0 {
		t.Fatal("missing name accepted")
	}
}
