package run

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// PrivacyReport states exactly what a private run protected and what it
// spent. Every field is public: the config, n (public under the replace-one
// relation, as in the papers), and quantities computed from them and from the
// number of iterations that ran. It holds no statistic of the data.
type PrivacyReport struct {
	Tool      string `json:"tool"`
	Algorithm string `json:"algorithm"`
	Model     string `json:"model"`
	// N is the number of rows (public).
	N int `json:"n"`
	// Relation is "replace" (one row's values replaced) or "add-remove".
	Relation string `json:"relation"`
	Unit     string `json:"unit_of_privacy"`
	// Bounds are the public column bounds the data were clipped to.
	Bounds map[string][2]float64 `json:"public_bounds"`
	// Mechanism describes the noise and clipping of one iteration.
	Mechanism string `json:"mechanism"`
	// Settings are the sampler's privacy-relevant settings (clip bounds,
	// noise scales, steps), all public.
	Settings map[string]float64 `json:"settings"`
	// Accountant names the method that gave Epsilon (tight, rdp, pld, ...).
	Accountant string `json:"accountant"`
	// EpsilonBudget and DeltaBudget are what the user allowed; Epsilon is
	// what was spent by the iterations that actually ran, at Delta.
	EpsilonBudget float64 `json:"epsilon_budget"`
	DeltaBudget   float64 `json:"delta_budget"`
	Epsilon       float64 `json:"epsilon_spent"`
	Delta         float64 `json:"delta"`
	// Mu is the Gaussian-DP μ of the whole release, when the mechanism is
	// a composition of Gaussian mechanisms.
	Mu float64 `json:"mu_gdp,omitempty"`
	// RDPOrder is the optimal Rényi order, for RDP accounting.
	RDPOrder float64 `json:"rdp_order,omitempty"`
	Chains   int     `json:"chains"`
	// Iterations per chain that ran, warmup included.
	Iterations    []int    `json:"iterations_per_chain"`
	Warmup        int      `json:"warmup_per_chain"`
	PlannedPerRun int      `json:"planned_iterations_per_chain"`
	Cancelled     bool     `json:"cancelled"`
	SeedPolicy    string   `json:"seed_policy"`
	Notes         []string `json:"notes,omitempty"`
	Statement     string   `json:"statement"`
}

// JSON returns the report as indented JSON.
func (r *PrivacyReport) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

// ReportLines implements export.PrivacyReport: the report as comment lines
// for Stan CSV headers.
func (r *PrivacyReport) ReportLines() []string {
	lines := []string{
		"privacy:",
		"  statement = " + r.Statement,
		"  algorithm = " + r.Algorithm,
		"  relation = " + r.Relation + " (" + r.Unit + ")",
		"  n = " + strconv.Itoa(r.N),
		"  epsilon_spent = " + fmtFloat(r.Epsilon),
		"  delta = " + fmtFloat(r.Delta),
		"  accountant = " + r.Accountant,
		"  epsilon_budget = " + fmtFloat(r.EpsilonBudget),
		"  chains = " + strconv.Itoa(r.Chains),
		"  iterations_per_chain = " + joinInts(r.Iterations) + " (warmup included)",
		"  mechanism = " + r.Mechanism,
	}
	if r.Mu > 0 {
		lines = append(lines, "  mu_gdp = "+fmtFloat(r.Mu))
	}
	keys := make([]string, 0, len(r.Settings))
	for k := range r.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		lines = append(lines, "  setting "+k+" = "+fmtFloat(r.Settings[k]))
	}
	bk := make([]string, 0, len(r.Bounds))
	for k := range r.Bounds {
		bk = append(bk, k)
	}
	sort.Strings(bk)
	for _, k := range bk {
		b := r.Bounds[k]
		lines = append(lines, fmt.Sprintf("  public bound %s = [%s, %s]", sanitize(k), fmtFloat(b[0]), fmtFloat(b[1])))
	}
	lines = append(lines, "  seed_policy = "+r.SeedPolicy)
	for _, n := range r.Notes {
		lines = append(lines, "  note = "+n)
	}
	return lines
}

// sanitize removes control characters from a column name for a comment line.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

func fmtFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// statement is the plain-language sentence a clinician can paste into a
// paper.
func statement(r *PrivacyReport) string {
	total := 0
	for _, it := range r.Iterations {
		total += it
	}
	rel := "replacing any one row of the dataset with any other row (the number of rows, n = " + strconv.Itoa(r.N) + ", is treated as public)"
	if r.Relation == "add-remove" {
		rel = "adding or removing any one row of the dataset"
	}
	s := fmt.Sprintf("The released posterior draws (%d chains, %d iterations in total, warmup included) were produced by %s and satisfy (ε = %s, δ = %s)-differential privacy with respect to %s, computed with the %s accountant from the iterations that actually ran.",
		r.Chains, total, r.Algorithm, roundUp(r.Epsilon, 3), fmtFloat(r.Delta), rel, r.Accountant)
	if len(r.Bounds) > 0 {
		s += " Data were clipped to public bounds chosen without looking at the data."
	}
	return s
}

// roundUp formats v rounded up to the given significant digits, so the
// sentence never understates ε.
func roundUp(v float64, digits int) string {
	if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmtFloat(v)
	}
	e := math.Floor(math.Log10(v)) - float64(digits-1)
	p := math.Pow(10, e)
	return strconv.FormatFloat(math.Ceil(v/p)*p, 'g', digits, 64)
}
