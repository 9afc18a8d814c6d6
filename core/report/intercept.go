package report

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// Reference is the reference point of InterceptNote, one value per
// predictor (names[1:] of the regression): Centred lists the predictors
// whose 0 is far from their public bound's centre, set to that centre
// (Centre); every other predictor is at 0, and Zero lists how each of those
// reads ("smoker 0", "sex F" for a text column coded F=0).
type Reference struct {
	Centred []string
	Centre  []float64
	// Label, parallel to Centred, reads a text column whose lowest code is
	// not 0 ("sex F (its lowest code, 1)": its 0 is none of its
	// categories, so the reference is its first); "" for a bound's centre.
	Label []string
	Zero  []string
}

// Code is the reference category of a text column: the text of its lowest
// code (texts sharing it joined by "/") and that code.
type Code struct {
	Text  string
	Value float64
}

// InterceptReference chooses the reference point of InterceptNote from the
// public bounds and codings only. A predictor is centred when 0 is outside
// its bound [lo, hi] or in its outer quarter (|c| ≥ h/2 for the centre c
// and half-range h), unless it is a 0/1 predictor (bound [0, 1]) or a text
// column whose lowest code is 0 (codes: ReferenceCodes): their 0 is a
// category, the natural reference. A text column whose lowest code is not
// 0 is set to that code (its 0 is none of its categories; a review coded
// sex F = 1, M = 2 and got no note for an intercept at a sex that does not
// exist). ok is false when the model has no intercept, no predictor is
// centred or set to a code (the intercept is then at a point near the
// middle of the bounds), or a predictor has no bound.
func InterceptReference(names []string, bounds map[string][2]float64, codes map[string]Code) (ref Reference, ok bool) {
	if len(names) < 2 || names[0] != "intercept" {
		return ref, false
	}
	for _, nm := range names[1:] {
		b, has := bounds[nm]
		if !has {
			return Reference{}, false
		}
		code, coded := codes[nm]
		c, h := (b[0]+b[1])/2, (b[1]-b[0])/2
		switch {
		case coded && code.Value == 0:
			ref.Zero = append(ref.Zero, nm+" "+code.Text)
		case coded:
			ref.Centred = append(ref.Centred, nm)
			ref.Centre = append(ref.Centre, code.Value)
			ref.Label = append(ref.Label, nm+" "+code.Text+" (its lowest code, "+Num(code.Value, 'g', 4)+")")
		case b == [2]float64{0, 1} || math.Abs(c) < h/2:
			ref.Zero = append(ref.Zero, nm+" 0")
		default:
			ref.Centred = append(ref.Centred, nm)
			ref.Centre = append(ref.Centre, c)
			ref.Label = append(ref.Label, "")
		}
	}
	return ref, len(ref.Centred) > 0
}

// ReferenceCodes returns, for each column with a text coding (column →
// text → number), its lowest code and the text(s) coded so: the reference
// categories of InterceptReference.
func ReferenceCodes(categories map[string]map[string]float64) map[string]Code {
	out := map[string]Code{}
	for col, m := range categories {
		if len(m) == 0 {
			continue
		}
		low := math.Inf(1)
		for _, v := range m {
			low = math.Min(low, v)
		}
		texts := make([]string, 0, len(m))
		for text, v := range m {
			if v == low {
				texts = append(texts, text)
			}
		}
		sort.Strings(texts)
		out[col] = Code{Text: strings.Join(texts, "/"), Value: low}
	}
	return out
}

// Undetermined bounds of InterceptNote: a probability whose 95% interval
// reaches below UndeterminedProbability and above 1 − it, or an expected
// count whose interval spans more than a factor UndeterminedRatio, is not
// stated as a value.
const (
	UndeterminedProbability = 0.05
	UndeterminedRatio       = 100
)

// InterceptNote is the sentence shown under a regression's summary when its
// intercept is the linear predictor far from the public bounds' centres
// (InterceptReference), "" otherwise. The intercept is then not a
// baseline, and its interval is that of an extrapolation. The note gives
// the model's mean at the reference point instead: per draw
// η = intercept + Σ_j β_j·c_j over the centred predictors, and the median
// and 2.5%–97.5% quantiles of the mean on the outcome's scale, the
// probability 1/(1 + e^−η) (logistic), the expected count e^η (Poisson) or
// η itself (linear); each is monotone in η, so these are that mean's
// quantiles. A probability or count whose interval is too wide
// (UndeterminedProbability, UndeterminedRatio) is said to be undetermined,
// with its interval, rather than stated as a value. names and chains are
// the draws (chains[chain][iteration][param], diag.Summary's layout);
// codes the labels of coded columns (ZeroCodes). Computed from the released
// draws and the public bounds and codings: post-processing.
//
// outcome is the linear outcome's public bound ({0, 0}: unknown): the
// mean outcome lies inside it, so a 95% interval that reaches beyond it on
// both sides says less than the bound does and is undetermined too (a
// review: "147 (95% interval −736–1.05e+03)" mmHg for a bound 70–250).
func InterceptNote(model string, names []string, bounds map[string][2]float64, codes map[string]Code, chains [][][]float64, outcome [2]float64) string {
	if !Regression(model) {
		return ""
	}
	ref, ok := InterceptReference(names, bounds, codes)
	if !ok {
		return ""
	}
	idx := make([]int, len(ref.Centred))
	for i, nm := range ref.Centred {
		idx[i] = slices.Index(names, nm)
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
	mean, what, scale := func(v float64) float64 { return v }, "the mean outcome", "the outcome"
	switch model {
	case "logistic":
		mean, what, scale = func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }, "the probability of the outcome", "the log odds"
	case "poisson":
		mean, what, scale = math.Exp, "the expected count", "the log of the expected count"
	}
	mid, lo, hi := mean(s.Median), mean(s.Q2_5), mean(s.Q97_5)
	num := func(v float64) string { return Num(v, 'g', 3) }
	if model == "logistic" {
		num = Probability
	}
	var at, codedAt []string
	for i, nm := range ref.Centred {
		if ref.Label[i] != "" {
			codedAt = append(codedAt, ref.Label[i])
			continue
		}
		at = append(at, nm+" "+Num(ref.Centre[i], 'g', 4))
	}
	point := ""
	if len(at) > 0 {
		point = list(at) + " (the centre" + plural(len(at)) + " of " + its(len(at)) + " bound" + plural(len(at)) + ")"
	}
	if len(codedAt) > 0 {
		if point != "" {
			point += ", "
		}
		point += list(codedAt)
	}
	if len(ref.Zero) > 0 {
		point += ", with " + list(ref.Zero)
	}
	// "to" between ends that carry a sign or a space ("-1.57 to 5.65",
	// "6.73e-06 to 1 − 2.8e-10"), where a dash would read as a minus.
	sep := "–"
	if strings.ContainsAny(num(lo)+num(hi), " -−") {
		sep = " to "
	}
	interval := "95% interval " + num(lo) + sep + num(hi)
	value := what + " is " + num(mid) + " (" + interval + ")."
	undetermined := model == "logistic" && lo < UndeterminedProbability && hi > 1-UndeterminedProbability ||
		model == "poisson" && hi > UndeterminedRatio*lo ||
		model == "linear" && outcome[0] < outcome[1] && lo < outcome[0] && hi > outcome[1]
	if undetermined {
		value = "these draws do not determine " + what + " (" + interval + ")."
		if model == "linear" {
			value = "these draws do not determine " + what + " (" + interval + ", wider than its public bound " + Num(outcome[0], 'g', 4) + "–" + Num(outcome[1], 'g', 4) + ")."
		}
	}
	return "The intercept is " + scale + " when " + list(ref.Centred) + " " + isAre(len(ref.Centred)) + " 0, far from the centre" + plural(len(ref.Centred)) +
		" of " + its(len(ref.Centred)) + " public bound" + plural(len(ref.Centred)) + ": it is not a baseline, and its interval is that of an extrapolation. At " +
		point + ", " + value
}

// Probability spells a probability with three significant digits, and one
// close to 1 with two of its distance from 1, so that 0.99994 does not read
// as a certain "1": 0.99994, 0.99959, 0.996 (and 0.00037 at the other
// end, as 'g' gives it); beyond seven decimals, as that distance: "1 −
// 1.6e-09". Only a probability that is 1 in floating point reads "1".
func Probability(p float64) string {
	if !(p > 0.995 && p < 1) {
		return Num(p, 'g', 3)
	}
	decimals := int(math.Ceil(-math.Log10(1-p))) + 1
	if decimals > 7 {
		return "1 − " + Num(1-p, 'g', 2)
	}
	s := strconv.FormatFloat(p, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
	}
	return s
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
