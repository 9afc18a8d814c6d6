package diag

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// ParamSummary is one row of a posterior summary table, computed from all
// chains pooled (posterior::summarise_draws with quantiles 2.5, 5, 50, 95,
// 97.5%). Undefined values are NaN and marshal to JSON null.
type ParamSummary struct {
	Name   string
	Mean   float64
	SD     float64 // sample sd, divisor S − 1
	Median float64
	// MAD is the median absolute deviation from the median times
	// 1.4826 (posterior::mad; the sd for normal draws). Where it is far
	// below SD, a few draws far out inflate the sd (HeavyTailed).
	MAD      float64
	Q2_5     float64 // type-7 quantiles
	Q5       float64
	Q95      float64
	Q97_5    float64
	Rhat     float64 // rank-normalised split R̂, max of bulk and folded
	ESSBulk  float64
	ESSTail  float64
	MCSEMean float64
	MCSESD   float64
	// NonFinite counts the draws that are NaN or ±Inf (they make every
	// diagnostic undefined; Assess names them).
	NonFinite int
}

// MarshalJSON writes the row with posterior's column names; NaN and ±Inf
// become null.
func (p ParamSummary) MarshalJSON() ([]byte, error) {
	num := jnum
	return json.Marshal(struct {
		Name     string `json:"variable"`
		Mean     any    `json:"mean"`
		SD       any    `json:"sd"`
		Median   any    `json:"median"`
		MAD      any    `json:"mad"`
		Q2_5     any    `json:"q2.5"`
		Q5       any    `json:"q5"`
		Q95      any    `json:"q95"`
		Q97_5    any    `json:"q97.5"`
		Rhat     any    `json:"rhat"`
		ESSBulk  any    `json:"ess_bulk"`
		ESSTail  any    `json:"ess_tail"`
		MCSEMean any    `json:"mcse_mean"`
		MCSESD   any    `json:"mcse_sd"`
	}{p.Name, num(p.Mean), num(p.SD), num(p.Median), num(p.MAD), num(p.Q2_5), num(p.Q5),
		num(p.Q95), num(p.Q97_5), num(p.Rhat), num(p.ESSBulk), num(p.ESSTail),
		num(p.MCSEMean), num(p.MCSESD)})
}

// Summary summarises every parameter of draws indexed
// chains[chain][iteration][param]; names[j] labels parameter j. Chains must
// have equal lengths (otherwise every diagnostic is NaN). One Workspace is
// reused for all parameters.
func Summary(names []string, chains [][][]float64) []ParamSummary {
	var w Workspace
	out := make([]ParamSummary, len(names))
	for j, name := range names {
		out[j] = w.summary(name, chains, j)
	}
	return out
}

func (w *Workspace) summary(name string, chains [][][]float64, j int) ParamSummary {
	nan := math.NaN()
	s := ParamSummary{Name: name, Mean: nan, SD: nan, Median: nan, MAD: nan, Q2_5: nan,
		Q5: nan, Q95: nan, Q97_5: nan, Rhat: nan, ESSBulk: nan, ESSTail: nan,
		MCSEMean: nan, MCSESD: nan}
	if !w.LoadParam(chains, j) {
		return s
	}
	s.Mean = mean(w.x)
	s.SD = math.Sqrt(variance(w.x, s.Mean))
	for _, v := range w.x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			s.NonFinite++
		}
	}
	if s.NonFinite == 0 {
		sorted := w.sortedDraws()
		s.Median = median(sorted)
		s.MAD = w.mad(s.Median)
		s.Q2_5 = QuantileSorted(sorted, 0.025)
		s.Q5 = QuantileSorted(sorted, 0.05)
		s.Q95 = QuantileSorted(sorted, 0.95)
		s.Q97_5 = QuantileSorted(sorted, 0.975)
	}
	s.Rhat = w.Rhat()
	s.ESSBulk = w.ESSBulk()
	s.ESSTail = w.ESSTail()
	s.MCSEMean = w.MCSEMean()
	s.MCSESD = w.MCSESD()
	return s
}

// Thresholds of the convergence verdict (Vehtari et al. 2021, §4.5 and §5):
// use the draws only if R̂ < 1.01 and both bulk-ESS and tail-ESS exceed 100
// per chain (400 for the recommended four chains), so that R̂ itself and the
// MCSEs are reliable.
const (
	RhatMax         = 1.01
	ESSPerChainMin  = 100
	RecommendChains = 4
)

// Verdict is a plain-language convergence assessment of a summary table.
type Verdict struct {
	Converged  bool
	MaxRhat    float64 // NaN if any R̂ is undefined
	MinESSBulk float64
	MinESSTail float64
	ESSMin     float64  // the ESS threshold used: 100 × chains
	Problems   []string // one sentence per failing check
	Message    string   // one-paragraph verdict for the screen
}

// Assess applies the Vehtari et al. (2021) thresholds to a summary of
// nChains chains: converged when every R̂ < 1.01 and every bulk- and tail-ESS
// ≥ 100·nChains. Undefined (NaN) diagnostics count as failures. Fewer than
// four chains are flagged as a caveat, not a failure.
func Assess(rows []ParamSummary, nChains int) Verdict {
	v := Verdict{MaxRhat: math.Inf(-1), MinESSBulk: math.Inf(1), MinESSTail: math.Inf(1),
		ESSMin: float64(ESSPerChainMin * max(nChains, 1))}
	var badR, badB, badT, undef, nonFinite []string
	for _, r := range rows {
		if math.IsNaN(r.Rhat) || math.IsNaN(r.ESSBulk) || math.IsNaN(r.ESSTail) {
			if r.NonFinite > 0 {
				nonFinite = append(nonFinite, fmt.Sprintf("%s (%d %s)", r.Name, r.NonFinite, plural(r.NonFinite, "draw", "draws")))
			} else {
				undef = append(undef, r.Name)
			}
			v.MaxRhat = math.NaN()
		}
		if !math.IsNaN(v.MaxRhat) {
			v.MaxRhat = max(v.MaxRhat, r.Rhat)
		}
		v.MinESSBulk = min(v.MinESSBulk, r.ESSBulk)
		v.MinESSTail = min(v.MinESSTail, r.ESSTail)
		if r.Rhat >= RhatMax {
			badR = append(badR, r.Name)
		}
		if r.ESSBulk < v.ESSMin {
			badB = append(badB, r.Name)
		}
		if r.ESSTail < v.ESSMin {
			badT = append(badT, r.Name)
		}
	}
	if len(rows) == 0 {
		v.MaxRhat, v.MinESSBulk, v.MinESSTail = math.NaN(), math.NaN(), math.NaN()
		undef = append(undef, "(no parameters)")
	}
	list := func(s []string) string {
		if len(s) > 5 {
			return strings.Join(s[:5], ", ") + fmt.Sprintf(" and %d more", len(s)-5)
		}
		return strings.Join(s, ", ")
	}
	if len(nonFinite) > 0 {
		v.Problems = append(v.Problems, "some draws are not finite numbers (NaN or ±Inf), so the diagnostics are undefined, for "+list(nonFinite))
	}
	if len(undef) > 0 {
		v.Problems = append(v.Problems, "diagnostics are undefined (constant draws, or too few iterations) for "+list(undef))
	}
	if len(badR) > 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("R-hat is %.3g or more for %s: the chains disagree", RhatMax, list(badR)))
	}
	if len(badB) > 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("bulk-ESS is below %.0f for %s: too few effective draws for means and medians", v.ESSMin, list(badB)))
	}
	if len(badT) > 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("tail-ESS is below %.0f for %s: too few effective draws for the 5%% and 95%% quantiles", v.ESSMin, list(badT)))
	}
	v.Converged = len(v.Problems) == 0
	if v.Converged {
		v.Message = fmt.Sprintf("converged: every R-hat is below %.2f and every bulk and tail ESS is at least %.0f (100 per chain; Vehtari et al. 2021).", RhatMax, v.ESSMin)
	} else {
		v.Message = "not converged: " + strings.Join(v.Problems, "; ") + ". " + LongerChainsAdvice
	}
	if nChains < RecommendChains {
		v.Message += fmt.Sprintf(" Note: %d chain(s); at least %d are recommended for a reliable R-hat.", nChains, RecommendChains)
	}
	return v
}

// StuckChains returns the numbers (from 1) of the chains of at least two
// draws whose every draw equals their first in every parameter: chains
// that never moved. An HMC chain started where the gradient is huge (a
// Poisson regression on raw ages, from U(−2, 2)) adapts its step to almost
// nothing and then "accepts" 92% of moves that change no bit of its
// position (a review); an MH chain whose every proposal is rejected looks
// the same. Its diagnostics are undefined and more iterations do not help.
func StuckChains(chains [][][]float64) []int {
	var out []int
	for c, ch := range chains {
		if len(ch) < 2 {
			continue
		}
		stuck := true
		for _, row := range ch[1:] {
			for j, x := range row {
				if x != ch[0][j] {
					stuck = false
					break
				}
			}
			if !stuck {
				break
			}
		}
		if stuck {
			out = append(out, c+1)
		}
	}
	return out
}

// StuckAdvice replaces LongerChainsAdvice in a verdict with chains that
// never moved (WithStuck).
const StuckAdvice = "More iterations will not move such a chain: start the chains elsewhere (--init zero, or Starting values: zero on the page) or, for a regression on raw measurements, sample it on its predictors scaled by their public bounds (--scale auto with a --bound per predictor, or the page's Parameterization), and run again."

// WithStuck returns v with, first among its problems, the chains that
// never moved (StuckChains) and StuckAdvice instead of LongerChainsAdvice;
// v itself when stuck is empty.
func (v Verdict) WithStuck(stuck []int) Verdict {
	if len(stuck) == 0 {
		return v
	}
	nums := make([]string, len(stuck))
	for i, c := range stuck {
		nums[i] = fmt.Sprint(c)
	}
	what := "chain " + nums[0] + " never moved: every one of its draws is the same point"
	if len(stuck) > 1 {
		what = "chains " + strings.Join(nums, ", ") + " never moved: every draw of each is the same point"
	}
	what += " (a step adapted to almost nothing during warmup, which moves no bit of the position however often it is accepted, or every proposal rejected)"
	// Whatever followed the advice (the note on fewer than four chains)
	// stays.
	tail := ""
	if i := strings.Index(v.Message, LongerChainsAdvice); i >= 0 {
		tail = v.Message[i+len(LongerChainsAdvice):]
	}
	v.Converged = false
	v.Problems = append([]string{what}, v.Problems...)
	v.Message = "not converged: " + strings.Join(v.Problems, "; ") + ". " + StuckAdvice + tail
	return v
}

// LongerChainsAdvice ends the message of a verdict that is not converged.
// For a private run it is wrong advice, and core/report replaces it.
const LongerChainsAdvice = "Run longer chains (or more of them) before using these draws."

// MarshalJSON writes the verdict with snake_case keys; NaN and ±Inf become
// null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Converged  bool     `json:"converged"`
		MaxRhat    any      `json:"max_rhat"`
		MinESSBulk any      `json:"min_ess_bulk"`
		MinESSTail any      `json:"min_ess_tail"`
		ESSMin     any      `json:"ess_threshold"`
		Problems   []string `json:"problems"`
		Message    string   `json:"message"`
	}{v.Converged, jnum(v.MaxRhat), jnum(v.MinESSBulk), jnum(v.MinESSTail),
		jnum(v.ESSMin), v.Problems, v.Message})
}

func jnum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
