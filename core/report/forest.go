package report

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// ForestRow is one row of a forest plot: the posterior median and the 90%
// central interval (5% and 95% quantiles of the pooled draws) on the plot's
// scale, and Label, the same three numbers spelled by Interval, followed on
// a ratio or change scale by the step they are per ("1.65 (1.49–1.82) per
// 0.01", "5.42 (4.28 to 6.7) per 10").
type ForestRow struct {
	Name        string
	Mid, Lo, Hi float64
	Step        float64 // the public step of a ratio or change (Step); 1 for other parameters
	Label       string
	Defined     bool // all three numbers finite (and positive on a log axis)
	CoversRef   bool // the interval contains Forest.Ref
}

// Forest is a forest plot of the coefficients: odds ratios (logistic) or
// rate ratios (Poisson) on a log axis with a reference line at 1,
// changes of the outcome (linear) on a linear axis with a reference line at
// 0; for models without predictors, every parameter on a linear axis with no
// reference line. Ratios and changes are per each predictor's public step
// (steps: see Summary). The intercept is left out of
// regressions (its ratio has no per-step meaning).
type Forest struct {
	Scale   string  // "odds ratio", "rate ratio", "change" (linear) or "value"
	Log     bool    // log axis
	PerStep bool    // a linear regression's changes per each predictor's step (Log: always per step)
	HasRef  bool    // draw a reference line at Ref
	Ref     float64 // no effect: 1 for ratios, 0 for coefficients
	Caption string  // the axis caption
	Rows    []ForestRow
	Min     float64 // axis range (both > 0 on a log axis)
	Max     float64
	Ticks   []float64
}

// NewForest builds the forest plot of rows (diag.Summary) for model.
func NewForest(rows []diag.ParamSummary, model string, steps map[string]float64) Forest {
	f := Forest{Scale: "value", Caption: "posterior median and 90% interval"}
	reg := Regression(model)
	if ratio := Ratio(model); ratio != "" {
		f.Scale, f.Log, f.HasRef, f.Ref = ratio, true, true, 1
		f.Caption = ratio + " per step of the predictor (stated on the right): median and 90% interval (log scale)"
	} else if reg {
		f.Scale, f.HasRef, f.Ref, f.PerStep = "change", true, 0, true
		f.Caption = "change of the outcome per step of the predictor (stated on the right): median and 90% interval"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	if f.HasRef {
		lo, hi = f.Ref, f.Ref
	}
	for _, r := range rows {
		if reg && r.Name == "intercept" {
			continue
		}
		row := ForestRow{Name: r.Name, Mid: r.Median, Lo: r.Q5, Hi: r.Q95, Step: 1}
		switch {
		case f.Log:
			row.Step = StepOf(steps, r.Name)
			row.Mid, row.Lo, row.Hi = math.Exp(row.Step*row.Mid), math.Exp(row.Step*row.Lo), math.Exp(row.Step*row.Hi)
			row.Label = Interval(row.Mid, row.Lo, row.Hi) + " per " + StepText(row.Step)
		case f.PerStep:
			row.Step = StepOf(steps, r.Name)
			row.Mid, row.Lo, row.Hi = row.Step*row.Mid, row.Step*row.Lo, row.Step*row.Hi
			row.Label = ChangeInterval(row.Mid, row.Lo, row.Hi) + " per " + StepText(row.Step)
		default:
			row.Label = Interval(row.Mid, row.Lo, row.Hi)
		}
		row.Defined = finite(row.Mid) && finite(row.Lo) && finite(row.Hi) && (!f.Log || row.Lo > 0)
		if row.Defined {
			lo, hi = min(lo, row.Lo), max(hi, row.Hi)
			row.CoversRef = f.HasRef && row.Lo <= f.Ref && f.Ref <= row.Hi
		}
		f.Rows = append(f.Rows, row)
	}
	if lo > hi { // nothing defined
		lo, hi = 0, 1
		if f.Log {
			lo, hi = 0.5, 2
		}
	}
	f.Min, f.Max, f.Ticks = axis(lo, hi, f.Log)
	return f
}

// Pos is x's position on the axis, 0 at Min and 1 at Max.
func (f Forest) Pos(x float64) float64 {
	if f.Log {
		return (math.Log(x) - math.Log(f.Min)) / (math.Log(f.Max) - math.Log(f.Min))
	}
	return (x - f.Min) / (f.Max - f.Min)
}

// Tick spells an axis tick.
func Tick(x float64) string { return Num(x, 'g', 3) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// axis widens [lo, hi] to round ends and returns the ticks: on a log axis
// 1, 2, 5 × 10^k (more within one decade, only powers of ten
// beyond three, every ⌈decades/5⌉-th power beyond six), on a linear axis 1, 2, 5 ×
// 10^k steps, about five ticks.
func axis(lo, hi float64, log bool) (float64, float64, []float64) {
	if log {
		a, b := math.Log10(lo), math.Log10(hi)
		if b-a < 0.3 { // less than a factor of 2: pad to a factor of 2 around the middle
			m := (a + b) / 2
			a, b = m-0.15, m+0.15
		}
		pad := 0.04 * (b - a) // the ends of the intervals clear the frame
		a, b = a-pad, b+pad
		mults := []float64{1, 2, 5}
		switch {
		case b-a <= 1:
			mults = []float64{1, 1.2, 1.5, 2, 3, 5, 7}
		case b-a > 3:
			mults = []float64{1}
		}
		// Beyond six decades (a weakly informed coefficient in large
		// units: odds ratios from 1e-100 to 1e100), every tenth or so
		// power: at most about six ticks, never a wall of them.
		step := 1.0
		if b-a > 6 {
			step = math.Ceil((b - a) / 5)
		}
		var ticks []float64
		for k := step * math.Floor(a/step); k <= math.Ceil(b); k += step {
			for _, m := range mults {
				t := m * math.Pow(10, k)
				if math.Log10(t) >= a-1e-12 && math.Log10(t) <= b+1e-12 {
					ticks = append(ticks, t)
				}
			}
		}
		return math.Pow(10, a), math.Pow(10, b), ticks
	}
	if hi-lo < 1e-12*max(1, math.Abs(lo)) {
		lo, hi = lo-0.5, hi+0.5
	}
	raw := (hi - lo) / 5
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	var ticks []float64
	for i := 0; ; i++ {
		t := lo + float64(i)*step
		if t > hi+step/2 {
			break
		}
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		ticks = append(ticks, t)
	}
	return lo, hi, ticks
}
