// Package report spells the results of a run for people: the posterior
// summary table (mean, sd, 95% interval, R-hat, bulk/tail ESS, MCSE of the
// mean, and odds or rate ratios), the convergence verdict, the privacy
// budget spent, the statement of a non-private run, the local diagnostics
// and the rows of a forest plot. The command-line tool (`dpmcmc summary`,
// `dpmcmc sample`) and the page (the wasm engine, writing the DOM through
// honnef.co/go/js/dom/v2) print with these functions only, so that a number
// has one spelling wherever it appears.
//
// Nothing here computes a statistic: the summaries come from core/diag
// (Vehtari et al. 2021, posterior::summarise_draws), the privacy numbers from
// core/run. Ratios are stated per a public step of each predictor (Step:
// a round number from the predictor's public bound, never from the data)
// and are exp of the step times the coefficient's quantiles (x ↦ exp(step·x)
// is increasing for step > 0, so it maps a quantile of β to the same
// quantile of the ratio exp(step·β), up to the linear interpolation between
// neighbouring draws): exp(step·median) with
// exp(step·2.5%)–exp(step·97.5%) in the table, exp(step·5%)–exp(step·95%)
// in the forest plot.
package report

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// Num formats v with strconv's format and precision; NaN prints as NA
// (R's spelling) and infinities as Inf and -Inf.
func Num(v float64, format byte, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NA"
	case math.IsInf(v, 1):
		return "Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, format, prec, 64)
}

// Ratio is the name of the ratio scale of a model's coefficients: "odds
// ratio" (logistic), "rate ratio" (Poisson), or "" (no ratio scale).
func Ratio(model string) string {
	switch model {
	case "logistic":
		return "odds ratio"
	case "poisson":
		return "rate ratio"
	}
	return ""
}

// Regression reports whether the model's parameters are an intercept and
// one coefficient per predictor (the models with an outcome column).
func Regression(model string) bool {
	switch model {
	case "logistic", "poisson", "linear":
		return true
	}
	return false
}

// Column is one column of the summary table: Key is the CLI's header
// (posterior's column name), Label the page's.
type Column struct {
	Key, Label string
}

// Table is the summary table as text: Rows[i][j] is the cell of parameter i
// in Columns[j]; column 0 is the parameter's name.
type Table struct {
	Columns []Column
	Rows    [][]string
	// RatioName is Ratio(model): the last column holds the ratios when it
	// is not empty.
	RatioName string
	// PerStep reports whether the last two columns are the predictor's step
	// and the effect per step: ratios (RatioName) for logistic and Poisson,
	// changes of the outcome for linear regression.
	PerStep bool
}

// The columns every summary table has.
var baseColumns = []Column{
	{"parameter", "parameter"},
	{"mean", "mean"},
	{"sd", "sd"},
	{"2.5%", "2.5%"},
	{"97.5%", "97.5%"},
	{"rhat", "R-hat"},
	{"ess_bulk", "bulk ESS"},
	{"ess_tail", "tail ESS"},
	{"mcse_mean", "MCSE of mean"},
}

// Summary is the summary table of rows (diag.Summary) for a model. For the
// coefficients of a regression it adds two columns: the predictor's public
// step (Step; steps from Steps of the run's public bounds, 1 for a predictor
// without a bound) and the effect per step. For logistic and Poisson models
// that is the ratio per step, exp(step·median) with
// exp(step·2.5%)–exp(step·97.5%) (step > 0, so these are the quantiles of
// exp(step·β)); for linear regression the change of the outcome per step,
// step·median with step·2.5%–step·97.5% (ChangeInterval). The intercept's
// cells are empty. The coefficient columns stay per unit, in the user's
// units. model may be "" (unknown: no per-step columns).
func Summary(rows []diag.ParamSummary, model string, steps map[string]float64) Table {
	t := Table{Columns: append([]Column(nil), baseColumns...), RatioName: Ratio(model), PerStep: Regression(model)}
	switch {
	case t.RatioName != "":
		key := strings.ReplaceAll(t.RatioName, " ", "_") + "_per_step"
		t.Columns = append(t.Columns, Column{"step", "step"}, Column{key, t.RatioName + " per step (95% interval)"})
	case t.PerStep:
		t.Columns = append(t.Columns, Column{"step", "step"}, Column{"change_per_step", "change per step (95% interval)"})
	}
	for _, r := range rows {
		cells := []string{r.Name,
			Num(r.Mean, 'g', 4), Num(r.SD, 'g', 3), Num(r.Q2_5, 'g', 4), Num(r.Q97_5, 'g', 4),
			Num(r.Rhat, 'f', 4), Num(r.ESSBulk, 'f', 0), Num(r.ESSTail, 'f', 0), Num(r.MCSEMean, 'g', 2)}
		if t.PerStep {
			step, cell := "", ""
			if r.Name != "intercept" {
				s := StepOf(steps, r.Name)
				step = StepText(s)
				if t.RatioName != "" {
					cell = Interval(math.Exp(s*r.Median), math.Exp(s*r.Q2_5), math.Exp(s*r.Q97_5))
				} else {
					cell = ChangeInterval(s*r.Median, s*r.Q2_5, s*r.Q97_5)
				}
			}
			cells = append(cells, step, cell)
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// ChangeInterval spells a change with its interval, three significant
// digits each, "to" between the ends because they may be negative:
// "5.42 (4.28 to 6.7)", "-5.77 (-7.43 to -4.27)".
func ChangeInterval(mid, lo, hi float64) string {
	return Num(mid, 'g', 3) + " (" + Num(lo, 'g', 3) + " to " + Num(hi, 'g', 3) + ")"
}

// Interval spells a ratio with its interval: "1.23 (1.01–1.5)", three
// significant digits, and more where three would round a value other than 1
// to "1" (ratioNum): an upper end of 1.0016 reads "1.002", not "1", so the
// text tells whether the interval includes 1 (no effect).
func Interval(mid, lo, hi float64) string {
	return ratioNum(mid) + " (" + ratioNum(lo) + "–" + ratioNum(hi) + ")"
}

// ratioNum is Num(v, 'g', 3), with up to 9 significant digits when fewer
// would spell a v ≠ 1 as 1.
func ratioNum(v float64) string {
	for prec := 3; ; prec++ {
		s := Num(v, 'g', prec)
		if v == 1 || prec == 9 || s != "1" {
			return s
		}
	}
}

// RhatOK reports whether r's R-hat is defined and below diag.RhatMax (the
// page flags the other cells).
func RhatOK(r diag.ParamSummary) bool { return r.Rhat < diag.RhatMax }

// Heading is the line above the summary table: chains × draws per chain
// after warmup, and the saved warmup draws skipped, if any.
func Heading(chains, draws, warmupSkipped int) string {
	s := chainsTimesDraws(chains, draws) + " after warmup"
	if warmupSkipped > 0 {
		s += " (" + strconv.Itoa(warmupSkipped) + " saved warmup draws per chain skipped)"
	}
	return s
}

// HeadingNoWarmup is Heading for a sampler that runs no warmup (its draws
// are independent from the first, run.WarmupNote): "4 chains × 1000 draws
// (no warmup)".
func HeadingNoWarmup(chains, draws int) string {
	return chainsTimesDraws(chains, draws) + " (no warmup)"
}

func chainsTimesDraws(chains, draws int) string {
	s := strconv.Itoa(chains) + " chain"
	if chains != 1 {
		s += "s"
	}
	s += " × " + strconv.Itoa(draws) + " draw"
	if draws != 1 {
		s += "s"
	}
	return s
}

// Verdict is the convergence verdict as a sentence. For a private run
// (private) that did not converge, the generic advice to run longer chains
// is replaced: at a fixed ε more iterations spread the same budget over
// more steps, so each moves less (docs/SAMPLERS.md, "Mixing forecast").
// For noise-aware (algorithm; "" when unknown) the advice is
// NoiseAwareNotConvergedAdvice: its draws cost nothing after its release,
// but another run is another release.
func Verdict(v diag.Verdict, private bool, algorithm string) string {
	m := v.Message
	if private && !v.Converged {
		advice := PrivateNotConvergedAdvice
		if algorithm == "noise-aware" {
			advice = NoiseAwareNotConvergedAdvice
		}
		m = strings.Replace(m, diag.LongerChainsAdvice, advice, 1)
		m = strings.Replace(m, diag.StuckAdvice, advice, 1)
	}
	return capitalize(m)
}

// NoiseAwareNotConvergedAdvice replaces diag.LongerChainsAdvice in the
// verdict of a noise-aware run that did not converge.
const NoiseAwareNotConvergedAdvice = "Do not use these draws. noise-aware's draws are post-processing of its one release and cost no privacy, but another run makes a new release and spends its ε again: plan enough draws before the run (its default, 4 chains × 1000 draws, is enough on most data)."

// PrivateNotConvergedAdvice replaces diag.LongerChainsAdvice in a private
// run's verdict.
const PrivateNotConvergedAdvice = "Do not use these draws. Longer chains do not help a private run at the same ε (the budget is spread over more steps, so each moves less); the plan's forecast says before a run whether its chains can converge: use noise-aware (regression models with at most 64 coefficients) or a larger ε."

// Cancelled is the sentence added to the verdict of a cancelled run.
func Cancelled(draws int) string {
	return "The run was cancelled: chains are cut to the shortest, " + strconv.Itoa(draws) + " draws each after warmup."
}

// TooFewDraws replaces the table when fewer than two draws per chain are
// left after warmup.
const TooFewDraws = "Too few draws after warmup for a summary (the run was stopped early)."

// NotPrivate is the statement of a run by a sampler that adds no noise.
func NotPrivate(algorithm string) string {
	return "NOT PRIVATE: these draws were produced by " + algorithm + ", a sampler that adds no privacy noise. They are not differentially private and can reveal information about individual rows."
}

// Budget spells the privacy budget spent: ε rounded up to three
// significant digits (never understated), the budget and δ.
func Budget(spent, budget, delta float64) string {
	d := SpentDigits(spent, budget)
	return "ε spent " + Up(spent, d) + " of " + Num(budget, 'g', max(d, 4)) + " (δ = " + Num(delta, 'g', -1) + ")"
}

// SpentDigits is the number of significant digits the ε spent is spelled
// with (rounded up, Up): 3, or as many more (up to 6) as keep an ε spent
// within the budget from reading above it. A budget typed as 2.34567 and
// spent to 2.3456697 reads "2.34567 of 2.34567", not "2.35 of 2.346" (a
// review found the page and the statement showing more than the typed ε).
func SpentDigits(spent, budget float64) int {
	if !(spent > 0) || !(spent <= budget) {
		return 3
	}
	for d := 3; d < 6; d++ {
		if x, err := strconv.ParseFloat(Up(spent, d), 64); err == nil && x <= budget {
			return d
		}
	}
	return 6
}

// BudgetSoFar spells the budget spent while chains still run, from the
// iterations reported so far: a lower bound, said as one.
func BudgetSoFar(spent, budget, delta float64) string {
	d := SpentDigits(spent, budget)
	return "ε spent so far at least " + Up(spent, d) + " of " + Num(budget, 'g', max(d, 4)) + " (δ = " + Num(delta, 'g', -1) + "); chains still running"
}

// Up formats v ≥ 0 with the given significant digits, rounded up.
func Up(v float64, digits int) string {
	if !(v > 0) || math.IsInf(v, 0) {
		return Num(v, 'g', digits)
	}
	s := strconv.FormatFloat(v, 'e', digits-1, 64)
	x, _ := strconv.ParseFloat(s, 64)
	if x < v {
		// One unit in the last kept digit: mantissa d.dd…e±XX.
		exp, _ := strconv.Atoi(s[strings.IndexByte(s, 'e')+1:])
		x += math.Pow(10, float64(exp-digits+1))
	}
	return strconv.FormatFloat(x, 'g', digits, 64)
}

// Chain holds one chain's local diagnostics: not private, never exported,
// shown only to whoever ran the chain.
type Chain struct {
	Iterations int
	Accepted   int
	Clipped    int64 // row terms clipped to the public bounds (of Rows)
	Rows       int64
	Divergent  int // after warmup
	// DivergentWarmup counts divergent transitions during warmup (the
	// step and metric still adapting: expected, and not a sign that the
	// draws are biased, unlike Divergent).
	DivergentWarmup int
	Seconds         float64 // wall time; 0 when not measured
	// IndependentDraws marks a chain whose every iteration is an
	// independent draw with no accept step (noise-aware, whose draws are
	// post-processing of one release; exact, the closed-form posterior's
	// draws): its acceptance says nothing, so it is not printed.
	IndependentDraws bool
}

// LocalHeading introduces the local diagnostics.
const LocalHeading = "Local diagnostics (not private, not exported; they stay on this device)"

// Local spells chain c's (0-based) local diagnostics.
func Local(c int, ch Chain) string {
	var b strings.Builder
	if ch.IndependentDraws {
		b.WriteString("chain " + strconv.Itoa(c+1) + ": " + strconv.Itoa(ch.Iterations) + " independent draws (no accept step)")
	} else {
		b.WriteString("chain " + strconv.Itoa(c+1) + ": acceptance " +
			Num(float64(ch.Accepted)/float64(max(ch.Iterations, 1)), 'f', 3) +
			" over " + strconv.Itoa(ch.Iterations) + " iterations")
	}
	if ch.Rows > 0 && ch.Clipped > 0 {
		b.WriteString(", " + Num(100*float64(ch.Clipped)/float64(ch.Rows), 'g', 2) + "% of row terms clipped")
	}
	if ch.Divergent > 0 {
		b.WriteString(", " + strconv.Itoa(ch.Divergent) + " divergent")
		if ch.DivergentWarmup > 0 {
			b.WriteString(" after warmup")
		}
	}
	if ch.DivergentWarmup > 0 {
		b.WriteString(", " + strconv.Itoa(ch.DivergentWarmup) + " divergent during warmup (while the step adapts)")
	}
	if ch.Seconds > 0 {
		b.WriteString(", in " + Num(ch.Seconds, 'g', 3) + " s")
	}
	return b.String()
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
