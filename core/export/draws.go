// Package export writes and reads posterior draws: a tidy draws CSV readable
// by R posterior's as_draws_df, and CmdStan-style Stan CSV with a header of
// public settings and the privacy report as comments.
//
// DESIGN.md privacy rule 5: an export holds only the draws, the public
// configuration and the privacy report. The writer API has exactly those
// slots (Draws, Export.Header, Export.Config, Export.Privacy) and no free-form
// map or "extra" field, and Draws refuses sampler columns (names ending in
// "__", e.g. lp__), so log-posterior values, clip fractions, timings or other
// data-dependent statistics have no place to go.
//
// Names that a spreadsheet could evaluate as a formula (leading =, +, -, @,
// tab or carriage return) are written with a leading apostrophe (OWASP
// "CSV Injection"), and fields are quoted per RFC 4180 where needed. The
// readers undo the apostrophe, so names round-trip exactly.
package export

import (
	"fmt"
	"strings"
)

// Draws are the posterior draws of one run.
type Draws struct {
	// Names are the parameter names, one per column.
	Names []string
	// Values[chain][iteration][param]. All chains have the same number of
	// iterations; each row has len(Names) values.
	Values [][][]float64
	// Warmup is the number of leading iterations of every chain that are
	// saved warmup draws (0 when warmup was not saved).
	Warmup int
	// Unmarked lists the inputs (0-based, in the order read) that nothing
	// marks as draws: no .chain, .iteration or .draw column, no Stan
	// comment line and no sampler column ending in "__". Such a file is
	// read as one chain, but it may as well be a data file.
	Unmarked []int
	// Algorithm is the sampler a Stan CSV's header names ("algorithm =
	// …"), "" when none does or when inputs name different ones.
	Algorithm string
	// NoWarmup reports that every input is a Stan CSV whose header says
	// num_warmup = 0: the chains ran no warmup (a tidy file does not say).
	NoWarmup bool
	// Private reports that every input is a Stan CSV whose header holds a
	// private run's privacy block (its epsilon_spent).
	Private bool
}

// Reserved column names of the tidy draws format.
const (
	ColChain     = ".chain"
	ColIteration = ".iteration"
	ColDraw      = ".draw"
)

// NumChains returns the number of chains.
func (d *Draws) NumChains() int { return len(d.Values) }

// NumIterations returns the saved iterations per chain, warmup included.
func (d *Draws) NumIterations() int {
	if len(d.Values) == 0 {
		return 0
	}
	return len(d.Values[0])
}

// NumParams returns the number of parameters.
func (d *Draws) NumParams() int { return len(d.Names) }

// Sampling returns the post-warmup draws [chain][iteration][param]
// (subslices of Values, not copies) — the input of diag.Summary.
func (d *Draws) Sampling() [][][]float64 {
	out := make([][][]float64, len(d.Values))
	for c, ch := range d.Values {
		out[c] = ch[min(d.Warmup, len(ch)):]
	}
	return out
}

// Param returns a copy of the post-warmup draws of parameter j as
// [chain][iteration], the layout of the diag functions.
func (d *Draws) Param(j int) [][]float64 {
	s := d.Sampling()
	out := make([][]float64, len(s))
	for c, ch := range s {
		out[c] = make([]float64, len(ch))
		for i, row := range ch {
			out[c][i] = row[j]
		}
	}
	return out
}

// Index returns the column of the named parameter, or -1.
func (d *Draws) Index(name string) int {
	for j, n := range d.Names {
		if n == name {
			return j
		}
	}
	return -1
}

// Validate checks the shape and the names: at least one chain, one
// post-warmup iteration and one parameter; rectangular values; names
// non-empty, unique, without control characters other than tab, not a
// reserved tidy column (.chain, .iteration, .draw) and not a sampler column
// (suffix "__", such as lp__, which would release a data-dependent value).
func (d *Draws) Validate() error {
	if err := CheckNames(d.Names); err != nil {
		return err
	}
	if len(d.Values) == 0 {
		return fmt.Errorf("export: no chains")
	}
	n := len(d.Values[0])
	// n = 0 is a run cancelled before its first draw: the file holds the
	// header only.
	if d.Warmup < 0 || n > 0 && d.Warmup >= n {
		return fmt.Errorf("export: %d warmup iterations of %d leave no draws", d.Warmup, n)
	}
	for c, ch := range d.Values {
		if len(ch) != n {
			return fmt.Errorf("export: chain %d has %d iterations, chain 1 has %d", c+1, len(ch), n)
		}
		for i, row := range ch {
			if len(row) != len(d.Names) {
				return fmt.Errorf("export: chain %d iteration %d has %d values for %d parameters", c+1, i+1, len(row), len(d.Names))
			}
		}
	}
	return nil
}

// CheckNames reports whether names can be exported as parameter names. A
// run calls it before sampling, so that a name no export can hold is
// refused before any privacy budget is spent.
func CheckNames(names []string) error {
	if len(names) == 0 {
		return fmt.Errorf("export: no parameters")
	}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if err := checkName(n); err != nil {
			return err
		}
		if seen[n] {
			return fmt.Errorf("export: duplicate parameter name %q", n)
		}
		seen[n] = true
	}
	return nil
}

func checkName(n string) error {
	switch {
	case n == "":
		return fmt.Errorf("export: empty parameter name")
	case n == ColChain || n == ColIteration || n == ColDraw:
		return fmt.Errorf("export: parameter name %q is reserved", n)
	case strings.HasSuffix(n, "__"):
		return fmt.Errorf("export: %q is a sampler column (suffix __); exports hold only parameters", n)
	}
	for _, r := range n {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return fmt.Errorf("export: parameter name %q contains a control character", n)
		}
	}
	return nil
}
