package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/run"
)

func init() {
	register("summary", "diagnostics table of a draws CSV", runSummary)
}

// runSummary implements `dpmcmc summary [--json] [--model M] [--bound
// COL=LO:HI]... [--category COL=CODING]... FILE [FILE...]`: it reads a tidy draws CSV (which holds all
// chains) or one Stan CSV per chain, and prints mean, sd, the 95% central
// interval, R-hat, bulk/tail ESS and the MCSE of the mean of every parameter
// (with --model logistic or poisson, also the odds or rate ratios of the
// coefficients per each predictor's public step, report.Step of its
// --bound; per 1 without one; with --model linear, the change of the
// outcome per step), followed by the convergence verdict
// (diag.Assess; Vehtari et al. 2021). Saved warmup draws are left out. The
// cells are spelled by core/report, as on the page: with the run's bounds,
// the table is the page's.
func runSummary(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("summary", "[--json] [--model M] [--bound COL=LO:HI]... [--category COL=CODING]... [--private] FILE [FILE...]", stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	private := fs.Bool("private", false, "the draws are a private run's: the verdict and the direction line say what a private run's reader needs (as dpmcmc sample and the page print them; implied by Stan CSVs whose header holds a privacy block)")
	modelName := fs.String("model", "", "the model that produced the draws (logistic or poisson add the odds or rate ratios of the coefficients, linear the change of the outcome, per each predictor's public step)")
	var boundFlags listFlag
	fs.Var(&boundFlags, "bound", "public bound COL=LO:HI of a predictor (repeatable, as in sample): its ratios are per a step from the bound (10^floor(log10((HI-LO)/5)): 5 to 50 steps in the bound; 1 for whole-number bounds less than 5 wide), per 1 without one")
	var categoryFlags listFlag
	fs.Var(&categoryFlags, "category", "COL=CODING (repeatable, as in sample), e.g. sex=F:0,M:1: the intercept's note names the text coded 0 (\"sex F\") rather than \"sex 0\"; without --bound COL the column's bound is that of the numbers")
	files, err := parseFlagsAndFiles(fs, args)
	if err != nil {
		return err
	}
	if *modelName != "" && !knownModel(*modelName) {
		return fmt.Errorf("summary: unknown --model %q", *modelName)
	}
	bounds := map[string][2]float64{}
	if len(boundFlags) > 0 {
		bs, err := dataset.ParseBounds(boundFlags)
		if err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		for k, b := range bs {
			bounds[k] = [2]float64{b.Lo, b.Hi}
		}
	}
	cats, err := parseCategoryFlags(categoryFlags)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	flagged := slices.Sorted(maps.Keys(bounds))
	// A coded column without a bound has the bound of its numbers, as in
	// sample (the coding is public).
	coded := run.Config{}
	coded.Data.Bounds, coded.Data.Categories = bounds, cats
	run.CodedBounds(&coded)
	bounds = coded.Data.Bounds
	steps, err := report.Steps(bounds)
	if err != nil {
		return fmt.Errorf("summary: --bound: %w", err)
	}
	seen := map[string]string{}
	for _, f := range files {
		key := filepath.Clean(f)
		if abs, err := filepath.Abs(f); err == nil {
			key = abs
		}
		if prev, ok := seen[key]; ok {
			// One chain read twice would look like two agreeing chains.
			return fmt.Errorf("summary: %s is given twice (as %s): each file is one chain, and a chain read twice looks like two that agree", f, prev)
		}
		seen[key] = f
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "dpmcmc summary: no draws file given")
		fs.Usage()
		return errUsage
	}
	d, err := export.ReadFiles(files...)
	if err != nil {
		return err
	}
	for _, col := range flagged {
		if !slices.Contains(d.Names, col) {
			// The outcome's bound, copied from sample's flags, is fine; a
			// typo would otherwise silently give per-1 ratios.
			fmt.Fprintf(stderr, "dpmcmc summary: note: --bound %s names no parameter of the draws (%s): it sets no ratio step\n", col, strings.Join(d.Names, ", "))
		}
	}
	for _, col := range slices.Sorted(maps.Keys(cats)) {
		if !slices.Contains(d.Names, col) {
			fmt.Fprintf(stderr, "dpmcmc summary: note: --category %s names no parameter of the draws (%s)\n", col, strings.Join(d.Names, ", "))
		}
	}
	for _, i := range d.Unmarked {
		fmt.Fprintf(stderr, "dpmcmc summary: note: %s has no %s, %s or %s column and no Stan comment or sampler column (lp__, …): it is read as one chain of draws; if it is a data file, the table describes its rows, not a posterior\n", files[i], export.ColChain, export.ColIteration, export.ColDraw)
	}
	draws := d.Sampling()
	rows := diag.Summary(d.Names, draws)
	verdict := diag.Assess(rows, d.NumChains()).WithStuck(diag.StuckChains(d.Sampling()))
	n := d.NumIterations() - d.Warmup
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Chains     int                 `json:"chains"`
			Draws      int                 `json:"draws_per_chain"`
			Warmup     int                 `json:"warmup_draws_skipped"`
			Parameters []diag.ParamSummary `json:"parameters"`
			Verdict    diag.Verdict        `json:"verdict"`
		}{d.NumChains(), n, d.Warmup, rows, verdict})
	}
	heading := report.Heading(d.NumChains(), n, d.Warmup)
	if d.Warmup == 0 && (run.WarmupNote(d.Algorithm) != "" || d.NoWarmup) {
		// A Stan CSV of a sampler that runs no warmup (noise-aware, exact,
		// ops), or of a run with --warmup 0, says so in its header, as
		// sample's heading does. (A tidy draws file names no sampler: its
		// heading is the page's caption, which e2e/results compares with it.)
		heading = report.HeadingNoWarmup(d.NumChains(), n)
	}
	// A Stan CSV of a private run says so in its privacy block: its reader
	// gets the private run's verdict without --private (a review was told
	// to "run longer chains", which would spend the budget again).
	return writeSummaryTable(stdout, heading, rows, verdict, *modelName, steps, *private || d.Private, d.Algorithm,
		report.InterceptNote(*modelName, d.Names, bounds, report.ReferenceCodes(cats), draws, [2]float64{}))
}

// writeSummaryTable prints the heading (report.Heading), the summary table of model (see
// report.Summary; "" for no ratio column; ratios per steps, report.Steps of
// the public bounds), the verdict and, for a regression, the direction of
// its effects (report.DirectionNote; private: the draws are a private
// run's, which adds the budget's remedy when no direction is determined),
// noise-aware's measured calibration (report.CalibrationNote), and, for
// converged draws, which parameters are heavy-tailed
// (report.TailNote) and interceptNote (report.InterceptNote of the draws
// and the public bounds). algorithm is the sampler of the draws ("" when
// unknown): noise-aware's verdict and tail note have their own wording.
func writeSummaryTable(stdout io.Writer, heading string, rows []diag.ParamSummary, verdict diag.Verdict, model string, steps map[string]float64, private bool, algorithm, interceptNote string) error {
	noiseAware := algorithm == run.NoiseAware && report.Regression(model)
	fmt.Fprintf(stdout, "%s\n\n", heading)
	t := report.Summary(rows, model, steps)
	// Numbers are right-aligned; names are padded so they read left-aligned.
	w := len("parameter")
	for _, r := range t.Rows {
		w = max(w, len(r[0]))
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := func(cells []string) {
		fmt.Fprintf(tw, "%-*s\t%s\t\n", w, cells[0], strings.Join(cells[1:], "\t"))
	}
	keys := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		keys[j] = c.Key
	}
	line(keys)
	for _, r := range t.Rows {
		line(r)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	v := report.Verdict(verdict, private, algorithm)
	if little := report.LittleLearned(rows, model, private, verdict.Converged); little != "" {
		v += " " + little
	}
	fmt.Fprintf(stdout, "\n%s\n", v)
	if note := report.DirectionNote(rows, model, private, verdict.Converged); note != "" {
		fmt.Fprintln(stdout, note)
	}
	if noiseAware {
		fmt.Fprintln(stdout, report.CalibrationNote(model))
	}
	if verdict.Converged {
		if note := report.TailNote(rows, noiseAware); note != "" {
			fmt.Fprintln(stdout, note)
		}
		if interceptNote != "" {
			fmt.Fprintln(stdout, interceptNote)
		}
	}
	return nil
}

// knownModel reports whether name is one of core/model's models.
func knownModel(name string) bool {
	for _, m := range model.Models() {
		if m.Name == name {
			return true
		}
	}
	return false
}

// parseFlagsAndFiles parses flags placed anywhere among the file arguments
// ("--" ends the flags) and returns the files.
func parseFlagsAndFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := parseQuietly(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return files, nil
		}
		if k := len(args) - len(rest); k > 0 && args[k-1] == "--" {
			return append(files, rest...), nil
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
}
