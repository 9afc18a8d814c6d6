package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestComparisonCheckpoints checks the per-cell checkpoints of the banana
// experiment: one after every (algorithm, ε) cell, each a valid resume table
// holding the cells done so far and the resumed cells still ahead, the last
// equal to the final runs table.
func TestComparisonCheckpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs small banana experiments")
	}
	dir := t.TempDir()
	base := Options{Quick: true, Repeats: 1, N: 2000, Seed: 7}
	// An earlier run with one cell: dp-hmc at ε = 10.
	o := base
	o.Algorithms, o.Epsilons = []string{"dp-hmc"}, []float64{10}
	first, err := Run(context.Background(), "banana", o)
	if err != nil {
		t.Fatal(err)
	}
	resume := filepath.Join(dir, "first_runs.csv")
	if err := WriteTable(first.Tables[0], resume); err != nil {
		t.Fatal(err)
	}
	o = base
	o.Algorithms, o.Epsilons, o.Resume = []string{"dp-penalty", "dp-hmc"}, []float64{4, 10}, resume
	var cps []*Table
	o.Checkpoint = func(tb *Table) error { cps = append(cps, tb); return nil }
	res, err := Run(context.Background(), "banana", o)
	if err != nil {
		t.Fatal(err)
	}
	// Cells visited: dp-penalty 4, 10; dp-hmc 4 (run), 10 (resumed).
	if len(cps) != 4 {
		t.Fatalf("%d checkpoints, want one per cell (4)", len(cps))
	}
	want := [][]string{
		{"dp-penalty 4", "dp-hmc 10"},
		{"dp-penalty 4", "dp-penalty 10", "dp-hmc 10"},
		{"dp-penalty 4", "dp-penalty 10", "dp-hmc 4", "dp-hmc 10"},
		{"dp-penalty 4", "dp-penalty 10", "dp-hmc 4", "dp-hmc 10"},
	}
	for i, cp := range cps {
		var got []string
		for _, r := range cp.Rows {
			got = append(got, fmt.Sprintf("%v %v", r[1], r[2]))
		}
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("checkpoint %d: cells %v, want %v", i+1, got, want[i])
		}
		p := filepath.Join(dir, fmt.Sprintf("cp%d.csv", i))
		if err := WriteTable(cp, p); err != nil {
			t.Fatal(err)
		}
		if _, err := readRuns(p, "banana", 2000); err != nil {
			t.Errorf("checkpoint %d is not a valid resume table: %v", i+1, err)
		}
	}
	if fmt.Sprint(cps[3].Rows) != fmt.Sprint(res.Tables[0].Rows) {
		t.Errorf("last checkpoint differs from the runs table:\n%v\n%v", cps[3].Rows, res.Tables[0].Rows)
	}
}
