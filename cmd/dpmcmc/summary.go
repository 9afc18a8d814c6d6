package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/export"
)

func init() {
	register("summary", "diagnostics table of a draws CSV", runSummary)
}

// runSummary implements `dpmcmc summary [--json] FILE [FILE...]`: it reads a
// tidy draws CSV (which holds all chains) or one Stan CSV per chain, and
// prints mean, sd, the 95% central interval, R-hat, bulk/tail ESS and the
// MCSE of the mean of every parameter, followed by the convergence verdict
// (diag.Assess; Vehtari et al. 2021). Saved warmup draws are left out.
func runSummary(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("summary", "[--json] FILE [FILE...]", stderr)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	files, err := parseFlagsAndFiles(fs, args)
	if err != nil {
		return err
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
	draws := d.Sampling()
	rows := diag.Summary(d.Names, draws)
	verdict := diag.Assess(rows, d.NumChains())
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
	return writeSummaryTable(stdout, d.NumChains(), n, d.Warmup, rows, verdict)
}

// writeSummaryTable prints the diagnostics table and the verdict.
func writeSummaryTable(stdout io.Writer, chains, n, warmup int, rows []diag.ParamSummary, verdict diag.Verdict) error {
	fmt.Fprintf(stdout, "%d chain(s) × %d draws", chains, n)
	if warmup > 0 {
		fmt.Fprintf(stdout, " (%d saved warmup draws per chain skipped)", warmup)
	}
	fmt.Fprint(stdout, "\n\n")
	// Numbers are right-aligned; names are padded so they read left-aligned.
	w := len("parameter")
	for _, r := range rows {
		w = max(w, len(r.Name))
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tmean\tsd\t2.5%%\t97.5%%\trhat\tess_bulk\tess_tail\tmcse_mean\t\n", w, "parameter")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", fmt.Sprintf("%-*s", w, r.Name),
			num(r.Mean, 'g', 4), num(r.SD, 'g', 3), num(r.Q2_5, 'g', 4), num(r.Q97_5, 'g', 4),
			num(r.Rhat, 'f', 4), num(r.ESSBulk, 'f', 0), num(r.ESSTail, 'f', 0), num(r.MCSEMean, 'g', 2))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%s\n", verdict.Message)
	return nil
}

// num formats v for the table; undefined values print as NA (R's spelling).
func num(v float64, format byte, prec int) string {
	if math.IsNaN(v) {
		return "NA"
	}
	return strconv.FormatFloat(v, format, prec, 64)
}

// parseFlagsAndFiles parses flags placed anywhere among the file arguments
// ("--" ends the flags) and returns the files.
func parseFlagsAndFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
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
