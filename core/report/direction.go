package report

import (
	"math"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// Directions sorts a regression's slopes (every row but "intercept") by
// the sign their central 95% interval determines: up when the 2.5%
// quantile is above 0 (the predictor raises the odds, rate or outcome),
// down when the 97.5% quantile is below 0, and open when the interval
// contains 0 (the draws do not determine the direction). Rows with a
// non-finite quantile are left out.
func Directions(rows []diag.ParamSummary) (up, down, open []string) {
	for _, r := range rows {
		if r.Name == "intercept" || math.IsNaN(r.Q2_5) || math.IsNaN(r.Q97_5) || math.IsInf(r.Q2_5, 0) || math.IsInf(r.Q97_5, 0) {
			continue
		}
		switch {
		case r.Q2_5 > 0:
			up = append(up, r.Name)
		case r.Q97_5 < 0:
			down = append(down, r.Name)
		default:
			open = append(open, r.Name)
		}
	}
	return up, down, open
}

// DirectionNote is the plain-language line under a regression's summary
// that says which effects the draws determine in direction (Directions),
// "" for other models or without slopes. A table of wide odds-ratio
// intervals is easy to misread; this line says in words what it shows,
// e.g. that at a small budget no predictor's direction is determined even
// though none is "mostly the prior" (PriorNote). private says whether the
// draws are a private run's. converged is the run's convergence verdict:
// the intervals of chains that did not converge describe where the chains
// were stuck, not the posterior, so no direction is stated then.
// Post-processing of the released draws.
func DirectionNote(rows []diag.ParamSummary, model string, private, converged bool) string {
	if !Regression(model) {
		return ""
	}
	up, down, open := Directions(rows)
	if len(up)+len(down)+len(open) == 0 {
		return ""
	}
	if !converged {
		return "Direction of the effects: not stated, because the chains did not converge: their intervals show where the chains were, not what the data say."
	}
	what := "the outcome"
	switch model {
	case "logistic":
		what = "the odds"
	case "poisson":
		what = "the rate"
	}
	if len(up)+len(down) == 0 {
		s := "Direction of the effects: not determined for any predictor (every 95% interval includes no effect)"
		if private {
			return s + ": the data, as released at this budget, do not say whether any predictor raises or lowers " + what + ". A larger ε or more rows would be needed."
		}
		return s + ": the data do not say whether any predictor raises or lowers " + what + "."
	}
	var parts []string
	if len(up) > 0 {
		parts = append(parts, "raises "+what+": "+strings.Join(up, ", "))
	}
	if len(down) > 0 {
		parts = append(parts, "lowers "+what+": "+strings.Join(down, ", "))
	}
	if len(open) > 0 {
		parts = append(parts, "not determined (the interval includes no effect): "+strings.Join(open, ", "))
	}
	return "Direction of the effects (95% intervals): " + strings.Join(parts, "; ") + "."
}

// LittleLearned is the sentence added to the verdict of a private
// regression run whose chains converged but whose draws determine no
// predictor's direction (Directions: every slope's 95% interval contains
// 0), "" otherwise. "Converged" alone reads as a usable result; at a small
// budget the honest posterior can be too wide to act on, and the verdict
// says so where it is read first (the page shows it as a warning, not in
// green). Post-processing of the released draws.
func LittleLearned(rows []diag.ParamSummary, model string, private, converged bool) string {
	if !private || !converged || !Regression(model) {
		return ""
	}
	up, down, open := Directions(rows)
	if len(open) == 0 || len(up)+len(down) > 0 {
		return ""
	}
	return "But no predictor's direction is determined (every 95% interval includes no effect): at this budget and number of rows the intervals are too wide to act on."
}
