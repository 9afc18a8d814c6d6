package report

import (
	"math"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// MostlyPriorShare is the share of a coefficient's prior sd above which its
// posterior sd marks it as mostly prior: with a N(0, s²) prior and a
// Gaussian likelihood of precision λ, sd_post/sd_prior = (1 + λs²)^−½, so
// 1/√2 is where the data (as released) carry exactly the prior's
// information (λ = 1/s²); above it they carry less than the prior.
const MostlyPriorShare = 0.7071067811865476

// PriorSDs returns every regression coefficient's prior sd in the user's
// units, for a N(0, s²) prior on each coefficient of the model's own
// parameterization. Unscaled: s for each. Scaled by the public bounds
// (model.Scaling, x̃_j = (x_j − c_j)/h_j): a slope's is s/h_j and, with an
// intercept θ_0 = β_0 − Σ_j β_j c_j/h_j, the intercept's is
// s·√(1 + Σ_j (c_j/h_j)²). names are the parameters in order (the
// intercept, when there is one, is named "intercept" and comes first);
// bounds the public bounds of the predictors. Without a bound for every
// predictor a scaled run's prior sds are unknown and the map is empty.
func PriorSDs(names []string, bounds map[string][2]float64, s float64, scaled bool) map[string]float64 {
	out := map[string]float64{}
	if !(s > 0) {
		return out
	}
	if !scaled {
		for _, nm := range names {
			out[nm] = s
		}
		return out
	}
	intercept := len(names) > 0 && names[0] == "intercept"
	xiv := make([]model.Interval, len(names))
	for j, nm := range names {
		if j == 0 && intercept {
			xiv[j] = model.Interval{Lo: 1, Hi: 1}
			continue
		}
		b, ok := bounds[nm]
		if !ok {
			return out
		}
		xiv[j] = model.Interval{Lo: b[0], Hi: b[1]}
	}
	sc, err := model.NewScaling(xiv, names, intercept)
	if err != nil {
		return out
	}
	v0 := 1.0
	for j, nm := range names {
		if j == 0 && intercept {
			continue
		}
		out[nm] = s / sc.Half[j]
		v0 += (sc.Centre[j] / sc.Half[j]) * (sc.Centre[j] / sc.Half[j])
	}
	if intercept {
		out["intercept"] = s * math.Sqrt(v0)
	}
	return out
}

// MostlyPrior returns, in row order, the coefficients whose posterior sd is
// above MostlyPriorShare of their prior sd (prior from PriorSDs), unless
// their 95% interval excludes their prior's centre (centres, 0 when
// absent): a posterior that wide but away from the
// prior's centre is a prior in conflict with the data, which PriorPull
// names (a review found a raw-units smoothness coefficient, 102 ± 24 per
// unit under a flat prior, shrunk to 21 ± 8.5 by N(0, 10²) and called
// "mostly the prior", with the advice of a narrower prior).
func MostlyPrior(rows []diag.ParamSummary, prior, centres map[string]float64) []string {
	var out []string
	for _, r := range rows {
		if p, ok := prior[r.Name]; ok && p > 0 && r.SD > MostlyPriorShare*p && !excludes(r, centres[r.Name]) {
			out = append(out, r.Name)
		}
	}
	return out
}

// PriorNote is the sentence shown under the summary when some coefficients
// are mostly prior (MostlyPrior, with its centres), "" otherwise; private
// says whether the draws are a private run's. It is computed from the released draws and the
// public prior: post-processing.
func PriorNote(rows []diag.ParamSummary, prior, centres map[string]float64, private bool) string {
	names := MostlyPrior(rows, prior, centres)
	if len(names) == 0 {
		return ""
	}
	what, their := "it", "its interval shows"
	if len(names) > 1 {
		what, their = "them", "their intervals show"
	}
	data, more := "the data say", "More rows or a narrower prior (only if it is public knowledge) would narrow them."
	if private {
		data, more = "the data, as released at this budget, say", "A larger ε, more rows or fewer predictors narrow them."
	}
	return "Mostly the prior: " + strings.Join(names, ", ") + " (posterior sd above " + Num(MostlyPriorShare, 'g', 2) +
		" × the prior sd, so the prior carries more information than the data): " + data + " little about " + what + "; " + their + " the prior's width, not an estimate. " + more
}

// excludes reports whether r's 95% interval lies on one side of c (its
// prior's centre).
func excludes(r diag.ParamSummary, c float64) bool {
	return r.Q2_5 > c || r.Q97_5 < c
}

// HeavyTailRatio is the sd-to-MAD ratio (diag.ParamSummary) above which a
// parameter's draws are called heavy-tailed: about 1 for normal draws
// (1.2 for Student's t with 5 degrees of freedom, 1.5 with 3), so 2 means
// a few draws far from the rest carry the sd.
const HeavyTailRatio = 2

// HeavyTailed returns, in row order, the parameters whose sd exceeds
// HeavyTailRatio times their MAD.
func HeavyTailed(rows []diag.ParamSummary) []diag.ParamSummary {
	var out []diag.ParamSummary
	for _, r := range rows {
		if r.MAD > 0 && r.SD > HeavyTailRatio*r.MAD && !math.IsInf(r.SD, 0) {
			out = append(out, r)
		}
	}
	return out
}

// TailNote is the sentence shown under the summary when some parameters
// are heavy-tailed (HeavyTailed), "" otherwise. Their sd and mean are then
// carried by a few far draws, so the sd overstates the spread of the rest
// and "mean ± 2 sd" is far wider than the interval. For noise-aware on a
// regression (noiseAware), such draws come from the release's noise on the Fisher
// information, which in some draws leaves a direction of the coefficients
// almost uninformed (docs/SAMPLERS.md). Computed from the draws alone:
// post-processing.
func TailNote(rows []diag.ParamSummary, noiseAware bool) string {
	heavy := HeavyTailed(rows)
	if len(heavy) == 0 {
		return ""
	}
	parts := make([]string, len(heavy))
	for i, r := range heavy {
		parts[i] = r.Name + " (sd " + Num(r.SD, 'g', 3) + " against " + Num(r.MAD, 'g', 3) + " from the middle of the draws, the MAD; median " + Num(r.Median, 'g', 4) + ")"
	}
	why := "a few draws far from the rest"
	if noiseAware {
		why = "a few draws far from the rest (draws in which the release's noise leaves a direction of the coefficients almost uninformed)"
	}
	return "Heavy tails: " + strings.Join(parts, ", ") + ": " + why + " inflate the sd and pull the mean. Read the median and the 2.5%–97.5% interval, which they barely move, not mean ± 2 sd."
}

// PriorPullShare is the shift, in posterior sds, above which PriorPullNote
// says the prior pulls a coefficient.
const PriorPullShare = 0.5

// Pull is one coefficient the prior moves (PriorPull): by SDs posterior
// sds (+Inf: more than the estimate can tell), in direction Kind, from
// DataAlone, where the data alone would put its mean.
type Pull struct {
	Name      string
	SDs       float64
	Kind      PullKind
	DataAlone float64
}

// PullKind is the direction of a Pull, relative to the prior's centre
// (0, or the one PriorPull's centres give).
type PullKind int

// The directions of a Pull.
const (
	// Toward: the data alone would put the mean farther from the centre,
	// on the same side.
	Toward PullKind = iota
	// Away: nearer the centre, on the same side (a coefficient correlated
	// with a pulled one).
	Away
	// Across: on the other side (the prior reversed the sign).
	Across
)

// PriorPull returns, in row order, the coefficients that their N(c, s²)
// prior (s from PriorSDs, c from centres, 0 when absent) moves by more
// than PriorPullShare posterior sds. With a Gaussian likelihood of mean m̂
// and precision λ, the posterior mean is m − c = λ(m̂ − c)/(λ + 1/s²) and
// its sd² = 1/(λ + 1/s²), so λ = 1/sd² − 1/s² and m̂ − m =
// (m − c)·sd²/(s² − sd²): the marginal estimate, always toward c (from
// the summary, not a refit). joint, when not nil, holds each row's m̂ − m
// estimated for all coefficients together (run.PriorShifts: the slopes
// that move with a pulled intercept included, in any direction) and is
// used instead. A coefficient that is mostly prior (sd above
// MostlyPriorShare of its prior's, MostlyPrior) is left to PriorNote,
// which says that its interval is the prior's; one that wide whose 95%
// interval excludes its prior's centre is named here: the data pull it away from the
// prior, which pulls it back. When its sd is not even below its prior's
// (a non-normal posterior, such as a logistic coefficient under
// separation), the shift is +Inf: too large for this estimate.
func PriorPull(rows []diag.ParamSummary, prior, centres map[string]float64, joint []float64) []Pull {
	if len(joint) != len(rows) {
		joint = nil
	}
	var out []Pull
	for i, r := range rows {
		s, ok := prior[r.Name]
		c := centres[r.Name]
		if !ok || !(s > 0) || math.IsNaN(r.Mean) || !(r.SD <= MostlyPriorShare*s || excludes(r, c)) {
			continue
		}
		if !(r.SD < s) {
			// Wider than its prior and away from c: no Gaussian likelihood
			// gives that, so the shift cannot be estimated (+Inf), but the
			// data pull against the prior all the same.
			out = append(out, Pull{Name: r.Name, SDs: math.Inf(1), Kind: Toward, DataAlone: math.NaN()})
			continue
		}
		delta := (r.Mean - c) * r.SD * r.SD / (s*s - r.SD*r.SD)
		if joint != nil {
			delta = joint[i]
		}
		sh := math.Abs(delta) / r.SD
		if !(sh > PriorPullShare) {
			continue
		}
		a, b := r.Mean-c, r.Mean+delta-c
		kind := Toward
		switch {
		case a*b < 0:
			kind = Across
		case math.Abs(b) < math.Abs(a):
			kind = Away
		}
		out = append(out, Pull{Name: r.Name, SDs: sh, Kind: kind, DataAlone: r.Mean + delta})
	}
	return out
}

// PriorPullNote is the sentence shown under the summary when the prior
// moves some coefficients (PriorPull), "" otherwise: in the user's units a
// N(0, 10²) prior is strong on an intercept at the predictors' zero (a
// blood-pressure intercept of about 100 mmHg was pulled by 1.9 posterior
// sds), and the slopes correlated with it move too. scaled says that the
// prior is already on the coefficients of the predictors scaled by their
// public bounds (every private regression run): the remedy is then only a
// wider prior. centres and joint are PriorPull's; without joint the note
// says that correlated coefficients' moves are not shown. Computed from
// the draws and the public prior: post-processing.
func PriorPullNote(rows []diag.ParamSummary, prior, centres map[string]float64, scaled bool, joint []float64) string {
	pulls := PriorPull(rows, prior, centres, joint)
	if len(joint) != len(rows) {
		joint = nil
	}
	if len(pulls) == 0 {
		return ""
	}
	var toward, away, across, alone []string
	centred, uncentred, acrossCentred := false, false, false
	for _, p := range pulls {
		c := centres[p.Name]
		if c != 0 {
			centred = true
		} else {
			uncentred = true
		}
		at := ""
		if c != 0 {
			at = ", centred at " + Num(c, 'g', 4)
		}
		if math.IsInf(p.SDs, 1) {
			away := "0"
			if c != 0 {
				away = "its prior's centre"
			}
			toward = append(toward, p.Name+" (by more than this estimate can tell: its posterior sd is at least its prior sd "+Num(prior[p.Name], 'g', 3)+at+", though its 95% interval excludes "+away+")")
			continue
		}
		part := p.Name + " (about " + Num(p.SDs, 'f', 1) + " posterior sds, its prior sd " + Num(prior[p.Name], 'g', 3) + at + ")"
		switch p.Kind {
		case Away:
			away = append(away, part)
		case Across:
			across = append(across, part)
			alone = append(alone, p.Name+" "+Num(p.DataAlone, 'g', 3))
			acrossCentred = acrossCentred || c != 0
		default:
			toward = append(toward, part)
		}
	}
	// The reference point: 0, or the prior's centre where one is stated
	// (noise-aware linear's intercept), per coefficient when both occur.
	ref := "0"
	switch {
	case centred && uncentred:
		ref = "its prior's centre (0 where none is stated)"
	case centred:
		ref = "its prior's centre"
	}
	var clauses []string
	if len(toward) > 0 {
		clauses = append(clauses, "pulls "+strings.Join(toward, ", ")+" toward "+ref)
	}
	if len(away) > 0 {
		clauses = append(clauses, "moves "+strings.Join(away, ", ")+" away from "+ref)
	}
	if len(across) > 0 {
		// A sign is reversed only where the centre is 0.
		rev := ", reversing the sign the data alone give"
		if acrossCentred {
			rev = ", from the other side, where the data alone put it"
		}
		clauses = append(clauses, "moves "+strings.Join(across, ", ")+" across "+ref+rev+" ("+strings.Join(alone, ", ")+")")
	}
	moves := "The prior " + list(clauses)
	if len(away)+len(across) > 0 && len(toward) > 0 {
		moves += " (the coefficients are correlated)"
	}
	where := "the posterior mean sits that much nearer " + ref + " than the data alone would put it"
	if centred && uncentred {
		where = "each posterior mean sits that much nearer its prior's centre than the data alone would put it"
	}
	if len(away)+len(across) > 0 {
		where = "each posterior mean sits that far from where the data alone would put it"
	}
	remedy := "widen it, or put it on the coefficients of the predictors scaled by their public bounds (scale bounds, where the intercept is at the bounds' centre)."
	if scaled {
		remedy = "widen it (the prior scale: --prior-sd, or Prior scale on the page; it is already on the coefficients of the predictors scaled by their public bounds)."
	}
	how := "estimated from the draws' means and covariances and the prior, for all coefficients together"
	if joint == nil {
		how = "estimated from each coefficient's mean, sd and prior sd on its own"
		// In the user's units the intercept and the slopes of predictors
		// far from 0 are strongly correlated: pulling one moves the others
		// (a review saw a bmi slope 0.848 against least squares' 0.759
		// when only the intercept was named).
		remedy += " Coefficients correlated with these (the slopes of predictors far from 0, with the intercept) move too, by amounts this estimate does not show."
	}
	return moves + ": " + where + " (" + how + "). If that prior is not public knowledge you mean to use, " + remedy
}
