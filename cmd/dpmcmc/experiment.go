package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/experiment"
	"github.com/dpmcmc/dpmcmc/core/experiment/plot"
)

func init() {
	register("experiment", "reproduce a paper's experiment (figures, CSV); NAME or all", runExperiment)
}

// runExperiment runs one experiment (or all) and writes its CSV tables, a
// summary and its figures (SVG and PNG).
func runExperiment(args []string, stdout, stderr io.Writer) error {
	var names []string
	for _, e := range experiment.List() {
		names = append(names, e.Name)
	}
	fs := newFlagSet("experiment", "NAME|all [--quick] [--out DIR] [--img DIR] [--repeats N] [--seed S]\n\nExperiments:\n"+experimentList(), stderr)
	var (
		quick   bool
		out     string
		img     string
		repeats int
		seed    uint64
		workers int
		quiet   bool
		epsList string
		algs    string
		nRows   int
		resume  string
		models  string
	)
	fs.StringVar(&models, "models", "", "clipping: comma-separated models (banana, gauss; default: both)")
	fs.IntVar(&nRows, "n", 0, "data rows of banana, gauss, clipping (default: the paper's 100000; 10000 with --quick)")
	fs.StringVar(&resume, "resume", "", "banana, gauss: reuse the (algorithm, ε) cells of this earlier NAME_runs.csv that have the repeats asked for")
	fs.StringVar(&epsList, "eps", "", "comma-separated ε values (default: the paper's grid)")
	fs.StringVar(&algs, "algorithms", "", "comma-separated algorithms to run (default: all)")
	fs.BoolVar(&quick, "quick", false, "CI-sized run (small n, few ε, one repeat)")
	fs.StringVar(&out, "out", "results", "directory for the CSV tables and the summary")
	fs.StringVar(&img, "img", "", "directory for the figures (default: --out)")
	fs.IntVar(&repeats, "repeats", 0, "repeats (default: the paper's; 1 with --quick)")
	fs.Uint64Var(&seed, "seed", 20240601, "public seed (data, starting points, proposals); privacy noise uses a fresh key")
	fs.IntVar(&workers, "workers", 0, "concurrent chains (default: GOMAXPROCS)")
	fs.BoolVar(&quiet, "quiet", false, "no progress lines")
	// The name comes first; flags may follow it.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if name == "" {
		fmt.Fprintln(stderr, "dpmcmc experiment: give an experiment name or all")
		fs.Usage()
		return errUsage
	}
	run := []string{name}
	if name == "all" {
		run = names
	} else if _, ok := experiment.Get(name); !ok {
		return fmt.Errorf("unknown experiment %q (available: %s, all)", name, strings.Join(names, ", "))
	}
	if img == "" {
		img = out
	}
	for _, d := range []string{out, img} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	o := experiment.Options{Quick: quick, Repeats: repeats, Seed: seed, Workers: workers, N: nRows, Resume: resume}
	if set := strings.TrimSpace(epsList); epsList != "" && (set == "" || strings.Contains(strings.ReplaceAll(set, " ", ""), ",,") || strings.HasSuffix(set, ",") || strings.HasPrefix(set, ",")) {
		return fmt.Errorf("--eps %q: want comma-separated positive numbers, e.g. 0.5,1,3", epsList)
	}
	for _, f := range strings.Split(epsList, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) {
			return fmt.Errorf("--eps: %q is not a positive number", f)
		}
		o.Epsilons = append(o.Epsilons, v)
	}
	if algs != "" {
		for _, a := range strings.Split(algs, ",") {
			if a = strings.TrimSpace(a); a == "" {
				return fmt.Errorf("--algorithms %q: want comma-separated algorithm names", algs)
			}
			o.Algorithms = append(o.Algorithms, a)
		}
	}
	if models != "" {
		for _, m := range strings.Split(models, ",") {
			if m = strings.TrimSpace(m); m != "banana" && m != "gauss" {
				return fmt.Errorf("--models: %q is not a model of the clipping experiment (banana, gauss)", m)
			}
			o.Models = append(o.Models, m)
		}
	}
	switch {
	case nRows < 0:
		return fmt.Errorf("--n must be ≥ 1 (got %d; 0 or unset: the experiment's default)", nRows)
	case repeats < 0:
		return fmt.Errorf("--repeats must be ≥ 1 (got %d; 0 or unset: the experiment's default)", repeats)
	case workers < 0:
		return fmt.Errorf("--workers must be ≥ 1 (got %d; 0 or unset: GOMAXPROCS)", workers)
	}
	if !quiet {
		o.Log = stderr
	}
	// An option the experiment does not read is named, not dropped in
	// silence (gmm has no ε grid to override).
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, n := range run {
		e, _ := experiment.Get(n)
		var ignored []string
		for _, opt := range []string{"eps", "algorithms", "n", "repeats", "resume", "models"} {
			if given[opt] && !slices.Contains(e.Reads, opt) {
				ignored = append(ignored, "--"+opt)
			}
		}
		if len(ignored) > 0 {
			fmt.Fprintf(stderr, "note: experiment %s does not use %s: ignored\n", n, strings.Join(ignored, ", "))
		}
	}
	for _, n := range run {
		// banana and gauss write their runs table after every cell to
		// OUT/NAME_runs.partial.csv (usable with --resume), removed once
		// the run has written its tables.
		partial := filepath.Join(out, n+"_runs.partial.csv")
		o.Checkpoint = func(t *experiment.Table) error { return experiment.WriteTable(t, partial) }
		res, err := experiment.Run(ctx, n, o)
		if err != nil {
			if _, serr := os.Stat(partial); serr == nil {
				return fmt.Errorf("experiment %s: %w (the cells done so far are in %s: continue with --resume %s)", n, err, partial, partial)
			}
			return fmt.Errorf("experiment %s: %w", n, err)
		}
		if len(o.Algorithms) > 0 && allEmpty(res.Tables) {
			return fmt.Errorf("experiment %s: no algorithm of --algorithms %s is part of it: nothing ran", n, strings.Join(o.Algorithms, ","))
		}
		paths, err := experiment.WriteTables(res, out)
		if err != nil {
			return err
		}
		if err := os.Remove(partial); err != nil && !os.IsNotExist(err) {
			return err
		}
		for _, f := range res.Figures {
			ps, err := plot.Render(f, img)
			if err != nil {
				return err
			}
			paths = append(paths, ps...)
		}
		sp := filepath.Join(out, n+"_summary.txt")
		mode := "full"
		if quick {
			mode = "quick"
		}
		text := fmt.Sprintf("# dpmcmc experiment %s (%s, seed %d, %s)\n%s\n", n, mode, seed, res.Elapsed.Round(1e9), strings.Join(res.Summary, "\n"))
		if err := os.WriteFile(sp, []byte(text), 0o644); err != nil {
			return err
		}
		paths = append(paths, sp)
		fmt.Fprintf(stdout, "%s (%s): %s\n", n, res.Elapsed.Round(1e7), strings.Join(paths, " "))
	}
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	return nil
}

func experimentList() string {
	var b strings.Builder
	for _, e := range experiment.List() {
		fmt.Fprintf(&b, "  %-10s %s\n", e.Name, e.Summary)
	}
	return b.String()
}

// allEmpty reports whether no table has a row.
func allEmpty(tables []*experiment.Table) bool {
	for _, t := range tables {
		if len(t.Rows) > 0 {
			return false
		}
	}
	return true
}
