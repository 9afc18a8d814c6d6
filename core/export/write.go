package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// SafeName returns a parameter name as a CSV field: a name that a
// spreadsheet would read as a formula (first character =, +, -, @, tab or
// carriage return) or a Stan CSV reader as a comment (#) or that starts with an apostrophe gets one leading
// apostrophe (OWASP CSV Injection guidance; the apostrophe before an
// apostrophe keeps the mapping invertible), and the field is quoted per
// RFC 4180 when it contains a comma, a double quote, CR or LF, or starts or
// ends with a space.
func SafeName(name string) string {
	if name != "" {
		switch name[0] {
		case '=', '+', '-', '@', '\t', '\r', '\'', '#':
			// '#' also starts a comment line in Stan CSV: a header whose
			// first name began with it would be read as a comment.
			name = "'" + name
		}
	}
	if strings.ContainsAny(name, ",\"\r\n") || strings.HasPrefix(name, " ") || strings.HasSuffix(name, " ") {
		name = `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	}
	return name
}

// unsafeName inverts the apostrophe of SafeName on an unquoted field value.
func unsafeName(field string) string {
	if strings.HasPrefix(field, "'") && len(field) > 1 {
		switch field[1] {
		case '=', '+', '-', '@', '\t', '\r', '\'', '#':
			return field[1:]
		}
	}
	return field
}

// appendFloat formats v with the shortest representation that parses back to
// the same float64 (strconv 'g', -1); infinities are written Inf and -Inf
// (R's spelling), NaN as NaN.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// WriteDrawsCSV writes the post-warmup draws as a tidy draws CSV: columns
// .chain, .iteration, .draw (all 1-based; .iteration counts within a chain
// after warmup, .draw over all chains), then one column per parameter. R:
// posterior::as_draws_df(read.csv(file, check.names = FALSE)). The file holds
// draws only; the configuration and privacy report travel separately.
func WriteDrawsCSV(w io.Writer, d *Draws) error {
	if err := d.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(ColChain + "," + ColIteration + "," + ColDraw)
	for _, n := range d.Names {
		bw.WriteByte(',')
		bw.WriteString(SafeName(n))
	}
	bw.WriteByte('\n')
	var buf []byte
	draw := 0
	for c, ch := range d.Sampling() {
		for i, row := range ch {
			draw++
			buf = strconv.AppendInt(buf[:0], int64(c+1), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(draw), 10)
			for _, v := range row {
				buf = append(buf, ',')
				buf = appendFloat(buf, v)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// StanHeader holds the public settings written in the CmdStan-style header.
type StanHeader struct {
	Model     string // model name as chosen by the user, e.g. "logistic"
	Algorithm string // sampler, e.g. "dp_barker"
	// NumSamples and NumWarmup are the iterations per chain before
	// thinning, as configured. Zero means: derive from the draws
	// (saved draws × Thin).
	NumSamples int
	NumWarmup  int
	Thin       int // 0 means 1
}

// RunHeader is the header of the draws d kept from a run of model and
// algorithm with plannedWarmup warmup iterations per chain: the number of
// samples (and of saved warmup draws) is the draws' own, so that a
// cancelled run, whose chains are cut to the shortest, exports what it
// kept; a run whose warmup draws are not saved states its planned warmup.
func RunHeader(model, algorithm string, d *Draws, plannedWarmup int) StanHeader {
	h := StanHeader{Model: model, Algorithm: algorithm}
	if d.Warmup == 0 {
		h.NumWarmup = plannedWarmup
	}
	return h
}

// PublicConfig is the run configuration as an export sees it. Implement it
// only on the public, data-independent configuration (DESIGN.md rule 5).
type PublicConfig interface {
	// PublicJSON returns the configuration as a JSON object; it is
	// embedded as one comment line "# config = {...}".
	PublicJSON() ([]byte, error)
}

// PrivacyReport is the accountant's report as an export sees it.
type PrivacyReport interface {
	// ReportLines returns the report as lines of text, each written as a
	// comment line "# <line>". A line must not contain CR, LF or other
	// control characters (tab excepted).
	ReportLines() []string
}

// Export is everything an exported Stan CSV may contain: the draws, the
// public header and configuration, and the privacy report. Config and
// Privacy may be nil.
type Export struct {
	Draws   *Draws
	Header  StanHeader
	Config  PublicConfig
	Privacy PrivacyReport
}

func checkLine(what, s string) error {
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return fmt.Errorf("export: %s %q contains a line break or control character", what, s)
		}
	}
	return nil
}

// WriteStanCSV writes chain (0-based) of e.Draws as a CmdStan-style CSV
// file: the header comments (model, method = sample, num_samples,
// num_warmup, save_warmup, thin, algorithm, id), the configuration as
// "# config = <json>", the privacy report lines, then the column header
// and the draws (saved warmup first, as CmdStan does). There is no lp__ or
// other sampler column and no timing comment. Write one file per chain;
// ReadFiles reads them back as chains.
func WriteStanCSV(w io.Writer, e Export, chain int) error {
	d := e.Draws
	if d == nil {
		return fmt.Errorf("export: no draws")
	}
	if err := d.Validate(); err != nil {
		return err
	}
	if chain < 0 || chain >= d.NumChains() {
		return fmt.Errorf("export: chain %d out of range [0, %d)", chain, d.NumChains())
	}
	h := e.Header
	if err := checkLine("model name", h.Model); err != nil {
		return err
	}
	if err := checkLine("algorithm", h.Algorithm); err != nil {
		return err
	}
	thin := max(h.Thin, 1)
	if h.Thin < 0 || h.NumSamples < 0 || h.NumWarmup < 0 {
		return fmt.Errorf("export: negative iteration count in the header")
	}
	saved := d.NumIterations() - d.Warmup
	ns := h.NumSamples
	if ns == 0 {
		ns = saved * thin
	}
	if (ns+thin-1)/thin != saved {
		return fmt.Errorf("export: num_samples = %d with thin = %d saves %d draws, have %d", ns, thin, (ns+thin-1)/thin, saved)
	}
	nw := h.NumWarmup
	if d.Warmup > 0 {
		if nw == 0 {
			nw = d.Warmup * thin
		}
		if (nw+thin-1)/thin != d.Warmup {
			return fmt.Errorf("export: num_warmup = %d with thin = %d saves %d warmup draws, have %d", nw, thin, (nw+thin-1)/thin, d.Warmup)
		}
	}
	var cfg []byte
	if e.Config != nil {
		raw, err := e.Config.PublicJSON()
		if err != nil {
			return fmt.Errorf("export: config: %w", err)
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return fmt.Errorf("export: config is not valid JSON: %w", err)
		}
		if b.Len() == 0 || b.Bytes()[0] != '{' {
			return fmt.Errorf("export: config must be a JSON object")
		}
		cfg = b.Bytes()
	}
	var report []string
	if e.Privacy != nil {
		report = e.Privacy.ReportLines()
		for _, l := range report {
			if err := checkLine("privacy report line", l); err != nil {
				return err
			}
		}
	}
	save := 0
	if d.Warmup > 0 {
		save = 1
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# model = %s\n", h.Model)
	fmt.Fprintf(bw, "# method = sample (Default)\n")
	fmt.Fprintf(bw, "#   sample\n")
	fmt.Fprintf(bw, "#     num_samples = %d\n", ns)
	fmt.Fprintf(bw, "#     num_warmup = %d\n", nw)
	fmt.Fprintf(bw, "#     save_warmup = %d\n", save)
	fmt.Fprintf(bw, "#     thin = %d\n", thin)
	fmt.Fprintf(bw, "#     algorithm = %s\n", h.Algorithm)
	fmt.Fprintf(bw, "# id = %d\n", chain+1)
	if cfg != nil {
		fmt.Fprintf(bw, "# config = %s\n", cfg)
	}
	for _, l := range report {
		if l == "" {
			bw.WriteString("#\n")
			continue
		}
		bw.WriteString("# " + l + "\n")
	}
	for j, n := range d.Names {
		if j > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(SafeName(n))
	}
	bw.WriteByte('\n')
	var buf []byte
	for _, row := range d.Values[chain] {
		buf = buf[:0]
		for j, v := range row {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = appendFloat(buf, v)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
