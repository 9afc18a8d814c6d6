package report

import (
	"math"
	"slices"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// Reference is the reference point of InterceptNote: Outside are the
// predictors whose public bound excludes 0, in the order of names, and
// Centre their bounds' centres (lo + hi)/2; every other predictor is at 0.
type Reference struct {
	Outside []string
	Centre  []float64
}

// InterceptReference returns the predictors among names (a regression's
// parameters: "intercept" first, then one coefficient per predictor) whose
// public bound excludes 0, with their bounds' centres, and ok = false when
// the model has no intercept, no predictor's bound excludes 0, or a
// predictor has no bound (its reference value would be unknown). From the
// public bounds only.
func InterceptReference(names []string, bounds map[string][2]float64) (ref Reference, ok bool) {
	if len(names) < 2 || names[0] != "intercept" {
		return ref, false
	}
	for _, nm := range names[1:] {
		b, has := bounds[nm]
		if !has {
			return Reference{}, false
		}
		if b[0] > 0 || b[1] < 0 {
			ref.Outside = append(ref.Outside, nm)
			ref.Centre = append(ref.Centre, (b[0]+b[1])/2)
		}
	}
	return ref, len(ref.Outside) > 0
}

// InterceptNote is the sentence shown under a regression's summary when
// its intercept is the linear predictor at a point outside the public
// bounds (some predictor's bound excludes 0, InterceptReference), ""
// otherwise. The intercept is then not a baseline, and its interval is
// that of an extrapolation (wide when the predictors' 0 is far away). The note gives the model's mean at a
// reference point inside the bounds instead: the predictors whose bound
// excludes 0 at their bounds' centres, the others at 0. Per draw,
// η = intercept + Σ_j β_j·c_j over those predictors, and the note states
// the median and the 2.5%–97.5% quantiles of the mean on the outcome's
// scale: the probability 1/(1 + e^−η) (logistic), the expected count e^η
// (Poisson) or η itself (linear); each is monotone in η, so these are that
// mean's quantiles. names and chains are the draws (chains[chain][iteration][param],
// diag.Summary's layout). Computed from the released draws and the public
// bounds: post-processing.
func InterceptNote(model string, names []string, bounds map[string][2]float64, chains [][][]float64) string {
	if !Regression(model) {
		return ""
	}
	ref, ok := InterceptReference(names, bounds)
	if !ok {
		return ""
	}
	idx := make([]int, len(ref.Outside))
	for i, nm := range ref.Outside {
		for j, n := range names {
			if n == nm {
				idx[i] = j
			}
		}
	}
	eta := make([][][]float64, len(chains))
	for c, ch := range chains {
		eta[c] = make([][]float64, len(ch))
		for t, x := range ch {
			v := x[0]
			for i, j := range idx {
				v += x[j] * ref.Centre[i]
			}
			eta[c][t] = []float64{v}
		}
	}
	s := diag.Summary([]string{"eta"}, eta)[0]
	mean, what := func(v float64) float64 { return v }, "the mean outcome is"
	scale := "the outcome"
	switch model {
	case "logistic":
		mean, what, scale = func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }, "the probability of the outcome is", "the log odds"
	case "poisson":
		mean, what, scale = math.Exp, "the expected count is", "the log of the expected count"
	}
	zeros := make([]string, len(ref.Outside))
	at := make([]string, len(ref.Outside))
	for i, nm := range ref.Outside {
		zeros[i] = nm
		at[i] = nm + " " + Num(ref.Centre[i], 'g', 4)
	}
	var atZero []string
	for _, nm := range names[1:] {
		if !slices.Contains(ref.Outside, nm) {
			atZero = append(atZero, nm)
		}
	}
	others := ""
	switch {
	case len(atZero) > 3:
		others = " and the other predictors at 0"
	case len(atZero) > 0:
		others = " and " + list(atZero) + " at 0"
	}
	return "The intercept is " + scale + " when " + list(zeros) + " " + isAre(len(zeros)) + " 0, outside " + its(len(zeros)) +
		" public bound" + plural(len(zeros)) + ": it is not a baseline, and its interval is that of an extrapolation. At " +
		list(at) + " (the centre" + plural(len(at)) + " of " + its(len(at)) + " bound" + plural(len(at)) + ")" + others + ", " + what + " " +
		Num(mean(s.Median), 'g', 3) + " (95% interval " + Num(mean(s.Q2_5), 'g', 3) + "–" + Num(mean(s.Q97_5), 'g', 3) + ")."
}

// list joins names as prose: "a", "a and b", "a, b and c".
func list(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func its(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
