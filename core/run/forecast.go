package run

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/report"
)

// The mixing forecast (issue #16 part A): before anything runs, from public
// inputs only, how far can a chain of a per-iteration DP sampler move, in
// units of the posterior's scale, and how many effective draws can it give?
//
// Noise of the accept test. The penalty-type kernels (dp-penalty, dp-hmc,
// dp-mala) release a noisy clipped log-likelihood ratio every iteration. A
// move of length ℓ = ‖θ' − θ‖ has ratio sensitivity 2rℓ (replace-one, r the
// clip) and the release has Gaussian-DP parameter μ_l, so its noise sd is
// σ_l = 2rℓ/μ_l (dp-penalty: σ = τ√n·2rℓ, μ_l = 1/(τ√n); dp-hmc: the same
// with τ_l, and μ_l is only part of the iteration's μ₁, since the L+1
// gradient releases spend the rest: μ₁² = μ_l² + (L+1)μ_g², so at the
// default τ_g = 5.5τ_l and L = 10, μ_l = μ₁/1.17; dp-mala: σ_l = c_l/μ_l
// with c_l ≥ 2rℓ, so 2rℓ/μ_l is a lower bound). μ_l is read from the
// kernel's own cost (mcmc.*Config.Cost), the nominal μ without the grid.
//
// Acceptance. The penalty test accepts with probability
// E min{1, exp(λ + σ_l Z − σ_l²/2)}, which where the target is flat (λ = 0)
// is 2Φ(−σ_l/2) = 2Φ(−x) with x = rℓ/μ_l. So an iteration's mean squared
// move is at most max_ℓ ℓ²·2Φ(−rℓ/μ_l) = κ²(μ_l/r)², κ² = max_x 2x²Φ(−x)
// = 0.3314 (at x = 1.19, acceptance 0.23), whatever the proposal.
//
// Travel and effective draws. For a reversible chain at stationarity and any
// direction u, E(uᵀ(θ_T − θ_0))² ≤ T·E(uᵀ(θ_1 − θ_0))² (spectral:
// 1 − λ^T ≤ T(1 − λ)), so T iterations travel at most κ√T·μ_l/r in total,
// which does not grow with the budget split: μ_chain,l = √T·μ_l is fixed by
// the chain's share of the budget (μ² adds over iterations and chains), so
// more iterations only mean more noise each. The integrated autocorrelation
// time of uᵀθ is at least (1 + ρ₁)/(1 − ρ₁) (Jensen over the spectrum), and
// g = 1 − ρ₁ = E(uᵀΔθ)²/(2s_u²), so a chain of T draws gives at most
// ESS ≤ T·κ²μ_l²/(4r²s_u²) = k²/4 effective draws of uᵀθ, where
// k = κ√T·μ_l/(r·s_u) is the number of posterior sds s_u it can travel: a
// random walk that covers k sds gives about k²/4 effective draws.
//
// The posterior's scale is bounded below from public inputs. For logistic
// regression every row's log-likelihood Hessian is at most H = F·X̄²/4 in
// every direction (X̄ the bound on ‖x̃‖ from the public column bounds, F the
// temper), so the posterior precision P = Σ_i F·p_i(1 − p_i)·x̃_i x̃_iᵀ + I/s₀²
// (s₀ the prior sd) has every eigenvalue at most n·H + 1/s₀²: every
// posterior sd is at least s_min = (n·H + 1/s₀²)^−½ (docs/RESULTS.md, "Step
// size": 2/(c√n)), the scale that limits the proposal step. Mixing is limited
// by the widest direction instead, and tr P ≤ n·H + d/s₀² bounds its
// smallest eigenvalue by the mean: the posterior sd in the widest direction
// is at least s_wide = (n·H/d + 1/s₀²)^−½ ≈ √d·s_min. The forecast counts
// travel in units of s_wide: k = κ√T·μ_l/(r·s_wide) bounds the sds any chain
// can travel along the widest direction, and k²/4 the effective draws of
// the coefficient combination along it.
//
// Threshold. Bulk-ESS ≥ 100 per chain (≥ 400 over 4 chains, Vehtari et al.
// 2021) needs k²/4 ≥ 100 over the draws: k ≥ MinSDsToMix = 20 per chain.
// Below it the forecast says the chains will not converge (even a chain
// started at the posterior cannot give 100 effective draws); above it, only
// that the budget does not forbid it. The start is not part of the verdict:
// far from the posterior the pull of the likelihood makes the walk partly
// ballistic (a log-likelihood ratio λ ≫ σ_l is accepted whatever its
// noise), so the diffusive bound does not hold during the transient
// (measured: chains at n = 50,000, ε = 8 moved 4.4–5.8 in parameter units,
// 40 times the diffusive 0.14), and nothing public bounds how far the start
// is from the posterior.
//
// Caveats: the acceptance bound is the flat-target one. Near the posterior
// it holds as measured (TestForecastMoveBoundMeasured: dp-penalty moves
// 0.75–0.82 of κ²(μ_l/r)² at x ≈ 1.2, as the flat prediction says; dp-hmc
// 0.06–0.2 of it). The ESS bound T·g/(2 − g) ≤ T·g/2 is used for small g.
// The guided random walk (GRW) has correlated moves and gets no forecast.

// MinSDsToMix is the forecast's threshold: a chain that cannot travel at
// least this many posterior sds during its draws cannot give 100 effective
// draws (k²/4 ≥ 100), and the forecast says it will not converge.
const MinSDsToMix = 20.0

// moveKappa2 is κ² = max_x 2x²Φ(−x) (at x ≈ 1.19): the largest mean squared
// accepted move of a penalty test, in units of (μ_l/r)².
const moveKappa2 = 0.3314

// stepNoiseX is x = rℓ/μ_l of the default proposal (ratio noise sd 2x = 2):
// 2x²Φ(−x) = 0.317 there, 96% of the maximum κ² at x = 1.19.
const stepNoiseX = 1.0

// Forecast is the mixing forecast of a planned run, computed from public
// inputs (n, d, public bounds, budget, algorithm, chains, settings).
type Forecast struct {
	// Kind is "random-walk-bound" (penalty-type kernels), "exact" (a
	// sampler whose draws do not spend privacy per iteration) or "none"
	// (no forecast for this sampler).
	Kind string `json:"kind"`
	// RatioMu is μ_l, the Gaussian-DP μ of one iteration's
	// log-likelihood-ratio release.
	RatioMu float64 `json:"ratio_mu,omitempty"`
	// PosteriorSDLower is s_min, the smallest possible posterior sd, in
	// parameter units (0: unknown for this model).
	PosteriorSDLower float64 `json:"posterior_sd_lower,omitempty"`
	// WidestSDLower is s_wide, a lower bound on the posterior sd in its
	// widest direction (0: unknown).
	WidestSDLower float64 `json:"widest_sd_lower,omitempty"`
	// MovePerChain is κ√T·μ_l/r, how far (L2, parameter units) one chain
	// can travel in total (warmup and draws), at most.
	MovePerChain float64 `json:"move_per_chain,omitempty"`
	// SDsPerChain is MovePerChain / WidestSDLower (0: unknown).
	SDsPerChain float64 `json:"sds_per_chain,omitempty"`
	// SDsInDraws is the same over the draws only.
	SDsInDraws float64 `json:"sds_in_draws,omitempty"`
	// EffectiveDraws bounds the effective draws of all chains together:
	// chains·min(draws, k²/4) with k = SDsInDraws (0: unknown).
	EffectiveDraws float64 `json:"effective_draws,omitempty"`
	// EpsilonToMix is the ε (at the plan's δ, same chains, iterations and
	// settings) at which the draws would reach MinSDsToMix (0: not
	// computed).
	EpsilonToMix float64 `json:"epsilon_to_mix,omitempty"`
	// WillMix is false when the forecast says the chains cannot converge.
	// True means only that the budget does not forbid it for the most
	// informative data the public bounds allow (WillMixTypical is the
	// check at a typical spread).
	WillMix bool `json:"will_mix"`
	// TypicalSpread (regression models) is the predictor spread, sd over
	// public half-range, of the typical-data check: weakSpread, as in
	// noise-aware's preview (0: no such check).
	TypicalSpread float64 `json:"typical_spread,omitempty"`
	// TypicalWidestSD is the widest posterior sd for predictors of that
	// spread: the slope's (n·H/d·f² + 1/s₀²)^−½, at least WidestSDLower.
	TypicalWidestSD float64 `json:"typical_widest_sd,omitempty"`
	// TypicalEffectiveDraws bounds the effective draws of all chains
	// together at TypicalWidestSD.
	TypicalEffectiveDraws float64 `json:"typical_effective_draws,omitempty"`
	// WillMixTypical (with TypicalSpread) is false when, for predictors of
	// the typical spread, the chains cannot converge: the budget's bound on
	// their travel falls short of MinSDsToMix typical sds. Measured on
	// realistic logistic designs (n = 569–5,000), runs at the ε where only
	// WillMix holds did not converge (R-hat 1.3–4).
	WillMixTypical *bool `json:"will_mix_typical,omitempty"`
	// EpsilonToMixTypical is the ε at which WillMixTypical would hold (0:
	// not computed).
	EpsilonToMixTypical float64 `json:"epsilon_to_mix_typical,omitempty"`
	// Text says it in words.
	Text string `json:"text"`
	// Calibration (noise-aware on a regression model) is how often the
	// sampler's intervals contained the truth in the published
	// simulations (report.CalibrationNote), said before any run as the
	// summary says it after one.
	Calibration string `json:"calibration,omitempty"`
	// Preview (noise-aware) is how informative the release can be, from
	// public inputs only: per assumed predictor spread, a slope's posterior
	// sd as a fraction of its prior sd (noiseaware.Plan.Preview).
	Preview *noiseaware.Preview `json:"preview,omitempty"`
	// EpsilonInformative (noise-aware, with a preview) is the ε at which the
	// preview would stop warning, at the same n, predictors and δ (0: no
	// warning, or none up to MaxInformativeEpsilon).
	EpsilonInformative float64 `json:"epsilon_informative,omitempty"`
	// WeakRelease (noise-aware, with a preview) is true when the preview warns
	// that the intervals will not tell the direction even of a strong
	// effect; the page marks the forecast as a warning then, as it does
	// when the chains will not mix.
	WeakRelease bool `json:"weak_release,omitempty"`
	// WeakIfLowMean (Poisson noise-aware) is true when the preview's
	// low-mean case (noiseaware.PoissonLowMean) warns so, though the
	// K-centred case does not: the text then says so, and the page marks
	// the forecast as a warning too.
	WeakIfLowMean bool `json:"weak_if_low_mean,omitempty"`
	// PredictorsInformative (noise-aware, with WeakRelease) is
	// the most predictors with which the preview would stop warning at the
	// same n, ε and δ (0: not even one; absent: no warning).
	PredictorsInformative *int `json:"predictors_informative,omitempty"`
	// MeanPreview (noise-aware on the gaussian or banana model) compares
	// the release noise on the column means with their sampling sd.
	MeanPreview *MeanPreview `json:"mean_preview,omitempty"`
}

// noiseAwareForecast is noise-aware's forecast: its chains always mix, and
// the preview (when there is one) says how much the release can tell
// about the slopes. For logistic regression it also gives a slope's
// posterior sd in log odds per predictor sd (the scaled sd times the
// spread), and warns when, for predictors spread over a quarter of their
// public half-range, that sd exceeds StrongEffectSD: the 95% intervals
// could then not exclude 0 for a strong effect (an odds ratio of e ≈ 2.7
// per predictor sd, 1.96·0.51 ≈ 1).
// PoissonNoPreview is the forecast's sentence for a Poisson regression the
// informativeness preview does not cover (noiseaware.Plan.Preview: counts
// centred at K need an intercept, and n·K must stay below 2⁵⁰).
const PoissonNoPreview = "No preview of how much the release can tell for this Poisson model (the preview needs an intercept and an outcome bound K with n·K below 2⁵⁰). At a small budget the intervals can be little narrower than the prior: read their widths and the \"Mostly the prior\" line after the run before reading any rate ratio"

// WideNoPreview is the forecast's sentence for a model with more
// coefficients than the preview covers (noiseaware.MaxPreviewDim).
var WideNoPreview = fmt.Sprintf("No preview of how much the release can tell above %d coefficients (its simulation grows as the cube of their number). At a small budget the intervals can be little narrower than the prior: read their widths and the \"Mostly the prior\" line after the run before reading any ratio", noiseaware.MaxPreviewDim)

// meanNoiseAwareForecast is noise-aware's forecast for the gaussian and
// banana models: the chains always mix (iid exact draws), and the preview
// says how much wider than the non-private posterior the intervals will be.
func meanNoiseAwareForecast(pv *MeanPreview, modelName string) *Forecast {
	f := &Forecast{Kind: "exact", WillMix: true, MeanPreview: pv,
		Text: "one private release of the column sums, clipped to their public bounds, made once before any draw, then exact independent draws that spend no privacy: the chains mix whatever ε; the intervals widen as ε shrinks to account for the release noise"}
	if pv == nil {
		return f
	}
	noise := make([]string, len(pv.NoiseSD))
	for j, v := range pv.NoiseSD {
		noise[j] = fmt.Sprintf("%.3g", v)
	}
	f.Text += fmt.Sprintf(". The release's noise sd on the column means is %s", strings.Join(noise, ", "))
	if len(pv.SDRatio) == 0 {
		return f
	}
	sds, ratios := make([]string, len(pv.SDRatio)), make([]string, len(pv.SDRatio))
	for j := range pv.SDRatio {
		of := fmt.Sprintf("θ%d", j+1)
		if j == 1 && modelName == "banana" {
			of = "θ2 + a·θ1², the banana's Gaussian coordinate"
		}
		sds[j], ratios[j] = fmt.Sprintf("%.3g", pv.SamplingSD[j]), fmt.Sprintf("%.3g× (%s)", pv.SDRatio[j], of)
	}
	f.Text += fmt.Sprintf(", against the means' own sampling sd %s under the model's known variances: with a flat prior the posterior sds are %s the non-private ones", strings.Join(sds, ", "), strings.Join(ratios, ", "))
	return f
}

func noiseAwareForecast(pv *noiseaware.Preview, epsInformative float64, predictors *int, modelName string, d int) *Forecast {
	f := &Forecast{Kind: "exact", WillMix: true, Preview: pv,
		Text:        "private releases of the noisy statistics, made once before any draw, then draws that spend no privacy: the chains mix whatever ε; the intervals widen as ε shrinks to account for the release noise",
		Calibration: report.CalibrationNote(modelName)}
	if pv == nil || len(pv.SDRatio) != len(pv.Spread) || len(pv.Spread) == 0 {
		switch {
		case d > noiseaware.MaxPreviewDim:
			f.Text += ". " + WideNoPreview
		case modelName == "poisson":
			f.Text += ". " + PoissonNoPreview
		}
		return f
	}
	ratios, spreads, perSD := make([]string, len(pv.Spread)), make([]string, len(pv.Spread)), make([]string, len(pv.Spread))
	for i, r := range pv.SDRatio {
		ratios[i], spreads[i] = fmt.Sprintf("%.2g", r), fmt.Sprintf("%g", pv.Spread[i])
		perSD[i] = fmt.Sprintf("%.2g", pv.EffectSD(i))
	}
	assumed := "no effects"
	switch modelName {
	case "logistic":
		assumed = "no effects, an outcome rate of ½ and independent predictors centred in their ranges, the most informative case"
	case "poisson":
		assumed = "no effects, counts centred at the outcome's public bound K and independent predictors centred in their ranges, near the most informative case"
	case "linear":
		assumed = "no effects and independent predictors centred in their ranges, the most informative case"
	}
	// The warning and its remedies come first, the preview's numbers after
	// them: a review (2026-11-27) found the remedy ("raise ε to at least
	// about 15") buried at the end of 1,100 characters.
	intro := f.Text
	f.Text = ""
	f.Text += fmt.Sprintf(". Preview from public inputs only (%s): for predictors whose sd is %s of their public half-range, a slope's posterior sd would be %s of its prior sd (1: the release says nothing about it)",
		assumed, strings.Join(spreads, ", "), strings.Join(ratios, ", "))
	unit, strong, offCentre := "in log odds", "an odds ratio of 2.7 per predictor sd", "more when the outcome rate is far from ½ or the predictors sit off the centre of their ranges or are correlated"
	switch modelName {
	case "logistic":
	case "linear":
		unit, strong, offCentre = "in noise sds of the outcome (the model's noise-sd)", "a change of one noise sd of the outcome per predictor sd", "more when the predictors sit off the centre of their ranges or are correlated"
	case "poisson":
		unit, strong, offCentre = "in log rate", "a rate ratio of 2.7 per predictor sd", "more when the mean count is well below K or the predictors sit off the centre of their ranges or are correlated"
	default:
		f.Text = intro + f.Text
		return f
	}
	f.Text += fmt.Sprintf(", that is %s %s per predictor sd", strings.Join(perSD, ", "), unit)
	// The preview is the best case; real designs differ from it in ways
	// that each cost information (TestPreviewIsOptimistic: 1.8–5.9× the
	// preview's sd at the clinical case; five correlated breast-cancer
	// measurements at n = 5,000, ε = 8: 0.2–0.57 of the prior sd where the
	// preview says 0.007, docs/SAMPLERS.md "Preview").
	f.Text += ". Real designs tell less: " + lessInformative[modelName] + " can make these sds several times larger, on strongly correlated predictors tens of times"
	warning := ""
	lowWeak := false
	if len(pv.LowMeanSDRatio) == len(pv.Spread) {
		// Poisson: K is the largest count the design allows, often far
		// above the typical one; rows of a small mean tell far less.
		lr, ls := make([]string, len(pv.Spread)), make([]string, len(pv.Spread))
		for i, r := range pv.LowMeanSDRatio {
			lr[i], ls[i] = fmt.Sprintf("%.2g", r), fmt.Sprintf("%.2g", pv.LowMeanEffectSD(i))
		}
		f.Text += fmt.Sprintf(". If the typical count is about %g, far below K, they would be %s of the prior sd (%s in log rate per predictor sd)",
			pv.LowMeanCount, strings.Join(lr, ", "), strings.Join(ls, ", "))
		q := *pv
		q.SDRatio = pv.LowMeanSDRatio
		lowWeak = weakAtQuarter(q)
	}
	if !weakAtQuarter(*pv) && lowWeak {
		f.WeakIfLowMean = true
		warning = fmt.Sprintf(". With small counts (see the preview below), at this budget the 95%% intervals will not tell the direction even of a strong effect (%s) unless the predictors spread over much of their public range (%s): raise ε, add rows, use fewer predictors, or type bounds closer to where the values can be (K as the largest count the study's design allows)", strong, binarySpread)
	}
	if weakAtQuarter(*pv) {
		f.WeakRelease = true
		raise := "raise ε"
		if epsInformative > 0 {
			f.EpsilonInformative = epsInformative
			// Rounded up: at an ε between the value and its nearest
			// rounding, "raise ε to about 14" read at ε = 14 (a review).
			raise = fmt.Sprintf("raise ε (to at least about %s at this n and number of predictors; %s)", report.Up(epsInformative, 2), offCentre)
		}
		fewer := "use fewer predictors"
		if predictors != nil {
			f.PredictorsInformative = predictors
			if *predictors == 0 {
				fewer = "use fewer predictors (at this ε even one would not be enough)"
			} else if *predictors == 1 {
				fewer = "use fewer predictors (only one would be enough at this ε, in the same most favourable case)"
			} else {
				fewer = fmt.Sprintf("use fewer predictors (about %d or fewer would be enough at this ε, in the same most favourable case)", *predictors)
			}
		}
		warning = ". At this budget the 95% intervals will not tell the direction even of a strong effect (" + strong + ") unless the predictors spread over much of their public range (" + binarySpread + "): " + raise + ", add rows, " + fewer + ", or type bounds closer to where the values can be"
	}
	f.Text = intro + warning + f.Text
	return f
}

// lessInformative names, per model, how real designs differ from the
// preview's in ways that widen the posterior.
var lessInformative = map[string]string{
	"logistic": "correlated predictors, predictors off the centre of their ranges and an outcome rate far from ½",
	"linear":   "correlated predictors and predictors off the centre of their ranges",
	"poisson":  "correlated predictors, predictors off the centre of their ranges and counts well below K",
}

// binarySpread tells where the preview's warning, judged at a spread of a
// quarter, is pessimistic: a 0/1 predictor with prevalence p has sd
// √(p(1 − p)) and half-range ½, so spread 2√(p(1 − p)). A forecast review
// (2026-11-27) saw directions determined in most runs of designs with a
// 0/1 smoker (p = 0.25) and continuous predictors of spread 0.3–0.45
// where the preview warned.
const binarySpread = "a 0/1 predictor does: its sd is 2√(p(1 − p)) of its half-range, 0.6 at a prevalence p of 10%, 0.87 at 25%; so do predictors whose values fill their bounds evenly, 0.58"

// StrongEffectSD is the largest posterior sd, per predictor sd in the
// preview's effect unit (log odds; the linear model's noise sd), at which a
// 95% interval excludes 0 for a strong effect (one unit per predictor sd):
// 1/1.96.
const StrongEffectSD = 0.51

// penaltyType lists the kernels the random-walk bound applies to.
var penaltyType = map[string]bool{"dp-penalty": true, "dp-hmc": true, "dp-mala": true}

// posteriorSDLower is s_min = (n·H + 1/s₀²)^−½ (0 when H is unknown).
func posteriorSDLower(n int, rowHessian, priorSD float64) float64 {
	return widestSDLower(n, 1, rowHessian, priorSD)
}

// widestSDLower is s_wide = (n·H/d + 1/s₀²)^−½ (0 when H is unknown).
func widestSDLower(n, d int, rowHessian, priorSD float64) float64 {
	if !(rowHessian > 0) || n < 1 || d < 1 || math.IsInf(rowHessian, 0) {
		return 0
	}
	prec := float64(n) * rowHessian / float64(d)
	if priorSD > 0 {
		prec += 1 / (priorSD * priorSD)
	}
	return 1 / math.Sqrt(prec)
}

// ratioMu is μ_l, the nominal μ of one iteration's log-likelihood-ratio
// release of a penalty-type kernel with settings s (0 if it has none).
func ratioMu(alg string, s Settings, n, d int) float64 {
	cost, err := stepCost(alg, s, "replace", n, d)
	if err != nil {
		return 0
	}
	for _, g := range cost.Gaussian {
		if strings.Contains(g.What, "ratio") {
			return g.NominalMu
		}
	}
	return 0
}

// ForecastInputs are the public facts about the model and the start the
// forecast needs.
type ForecastInputs struct {
	// Model is the model's name.
	Model string
	// PriorSD is s₀ of the N(0, s₀²) prior on every coefficient (0:
	// unknown or not that prior).
	PriorSD float64
	// RowHessian is H, a public bound on every row's log-likelihood
	// Hessian in every direction (0: unknown). For logistic, whose row
	// Hessians have rank one, it also bounds their trace.
	RowHessian float64
	// RowHessianTrace is a public bound on the trace of every row's
	// log-likelihood Hessian, for models where it is known but RowHessian
	// is not set (the Gaussian mean model: F·tr(Σ⁻¹); linear regression:
	// F·X̄²/σ²), or on the posterior expectation of the average row's trace
	// (Poisson regression: F·X̄²·y⁺, model.Poisson.ExpectedRowHessianTrace).
	// It bounds the largest eigenvalue too, and the forecast's posterior-sd
	// bounds hold with either (Cramér–Rao: Cov_π ≥ E_π[−∇² log π]⁻¹, and
	// tr E_π[−∇² log π] ≤ n·t + d/s₀²); defaultStep does not use it.
	RowHessianTrace float64
	// MeanBounded: the gaussian or banana model with a public bound on
	// every data column, which noise-aware can run (MeanStatisticBounded).
	MeanBounded bool
	// Scaled: a regression on predictors scaled to [−1, 1] by their public
	// bounds (X̄² = d), where the typical-data check applies.
	Scaled bool
	// WidestSD is a public lower bound on the posterior sd in its widest
	// direction from the model's closed-form posterior (the banana's θ2:
	// model.Banana.WidestPosteriorSDLower); 0: unknown.
	WidestSD float64
}

// hessianBound is the bound on a row Hessian's trace the forecast uses.
func (in ForecastInputs) hessianBound() float64 {
	if in.RowHessian > 0 {
		return in.RowHessian
	}
	return in.RowHessianTrace
}

// modelForecastInputs derives the forecast's inputs. With a model: for
// logistic, H = F·X̄²/4 from the model's per-row gradient bound over all θ
// (RowBounds(nil).Lipschitz = F·X̄). Without one (MakePlan): a regression
// on scaled predictors from the model the config builds on a table of two
// rows of zeros with d coefficients on predictors bounded by [−1, 1]
// (regressionOptionsModel: the bounds read only the options, the outcome's
// bound and d), as in a private run; otherwise the model named in the
// config, and for logistic the clip r taken to be the default clip F·X̄
// (the bound for rows inside the public column bounds, with no box).
func modelForecastInputs(c *Config, m model.Model, d int) ForecastInputs {
	if m == nil {
		m = regressionOptionsModel(c, d)
	}
	if m != nil {
		in := ForecastInputs{Model: m.Name(), MeanBounded: MeanStatisticBounded(c), Scaled: model.ScalingOf(m) != nil}
		if ps, ok := m.(interface{ PriorSD() float64 }); ok && isRegression(in.Model) {
			in.PriorSD = ps.PriorSD()
		}
		if g, ok := m.(interface {
			RowHessianTrace() float64
			PriorSD() float64
		}); ok {
			in.RowHessianTrace, in.PriorSD = g.RowHessianTrace(), g.PriorSD()
		}
		if g, ok := m.(interface{ ExpectedRowHessianTrace() float64 }); ok {
			in.RowHessianTrace = g.ExpectedRowHessianTrace()
		}
		if in.Model == "logistic" {
			f := 1.0
			if tp, ok := m.(interface{ Temper() float64 }); ok && tp.Temper() > 0 {
				f = tp.Temper()
			}
			if l0 := m.RowBounds(nil).Lipschitz; l0 > 0 && !math.IsInf(l0, 0) {
				in.RowHessian = l0 * l0 / (4 * f)
			}
		}
		return in
	}
	in := ForecastInputs{Model: strings.ToLower(strings.TrimSpace(c.Model.Model)), MeanBounded: MeanStatisticBounded(c)}
	if isRegression(in.Model) {
		in.PriorSD, _ = ModelPrior(c)
	}
	f := c.Model.Temper
	if f <= 0 {
		f = 1
	}
	if in.Model == "logistic" && c.Settings.Clip > 0 {
		in.RowHessian = c.Settings.Clip * c.Settings.Clip / (4 * f)
	}
	return in
}

// regressionOptionsModel is, for a plan without data of a regression
// (logistic, linear, Poisson) whose predictors a run scales by their
// bounds (a private run's default), the model the config builds on two
// rows of zeros with d coefficients: the intercept (unless NoIntercept) and
// predictors bounded by [−1, 1] (the named ones when their number fits,
// else x1, x2, …), so that X̄² = d as on a run's scaled space; the outcome
// keeps its bound from the config (Poisson's y⁺; the 0/1 outcome of
// logistic needs none). nil for another model, another
// scale (in the user's units X̄ is unknown without the predictors' bounds)
// or options that do not build (linear without its noise sd).
func regressionOptionsModel(c *Config, d int) model.Model {
	name := strings.ToLower(strings.TrimSpace(c.Model.Model))
	if !isRegression(name) || d < 1 ||
		!strings.EqualFold(strings.TrimSpace(withDefaultScale(c).Model.Scale), model.ScaleBounds) {
		return nil
	}
	k := d
	if !c.Model.NoIntercept {
		k = d - 1
	}
	if k < 1 {
		return nil
	}
	outcome := c.Model.Outcome
	if outcome == "" {
		outcome = "y"
	}
	preds := c.Model.Predictors
	if len(preds) != k || slices.Contains(preds, outcome) {
		preds = make([]string, k)
		for j := range preds {
			preds[j] = fmt.Sprintf("x%d", j+1)
		}
		if slices.Contains(preds, outcome) {
			outcome = "outcome"
		}
	}
	cols := make([][]float64, k+1)
	for j := range cols {
		cols[j] = []float64{0, 0}
	}
	bounds := map[string]dataset.Bound{}
	for _, p := range preds {
		bounds[p] = dataset.Bound{Lo: -1, Hi: 1}
	}
	if b, ok := c.Data.Bounds[c.Model.Outcome]; ok && name != "logistic" {
		bounds[outcome] = dataset.Bound{Lo: b[0], Hi: b[1]}
	} else if name == "poisson" {
		return nil // no y⁺: no bound
	}
	spec := c.Model
	spec.Outcome, spec.Predictors, spec.Scale = outcome, preds, model.ScaleBounds
	return publicRowsModel(spec, append(slices.Clone(preds), outcome), cols, bounds)
}

// defaultStep is the proposal step of dp-penalty and dp-hmc when the user
// fixes none: the move ℓ = min(μ_l/r, 2.38·s_min) (ratio noise sd 2 where
// the budget limits the move, the optimal-scaling random-walk move where the
// posterior does), as dp-penalty's per-coordinate sd ℓ/√d (ℓ with OCU) or
// dp-hmc's leapfrog step 2ℓ/(L√d) (the mean jittered step is η/2, the
// momentum's norm about √d). 0 when the forecast's inputs are unknown.
func defaultStep(alg string, s Settings, n, d int, in ForecastInputs) float64 {
	sMin := posteriorSDLower(n, in.RowHessian, in.PriorSD)
	muL := ratioMu(alg, s, n, d)
	if sMin == 0 || muL == 0 || !(s.Clip > 0) {
		return 0
	}
	move := min(stepNoiseX*muL/s.Clip, 2.38*sMin)
	sd := math.Sqrt(float64(d))
	switch alg {
	case "dp-penalty":
		if s.OCU || s.GRW {
			return move
		}
		return move / sd
	case "dp-hmc":
		return 2 * move / (float64(orInt(s.Leapfrog, 10)) * sd)
	}
	return 0
}

// MakeForecast forecasts the mixing of a resolved plan from the public
// facts in in (see the top of this file).
func MakeForecast(p *Plan, in ForecastInputs) *Forecast {
	switch {
	case !p.Private:
		return &Forecast{Kind: "none", WillMix: true, Text: "not private: no privacy limit on mixing"}
	case p.Algorithm == "noise-aware" && p.Draws < diag.ESSPerChainMin:
		// Its draws are free after the release, but the verdict still
		// needs 100 per chain; the release spends the budget whatever
		// follows it.
		return &Forecast{Kind: "too-few-draws", WillMix: false, Text: fmt.Sprintf("only %d draws per chain are planned, fewer than the %d per chain that R-hat and ESS need to show convergence: the run cannot be shown to converge; give at least %d draws per chain (noise-aware's draws after its release cost no privacy)", p.Draws, diag.ESSPerChainMin, diag.ESSPerChainMin)}
	case p.Algorithm == "noise-aware" && isMeanStatisticModel(in.Model):
		return meanNoiseAwareForecast(p.meanPreview, in.Model)
	case p.Algorithm == "noise-aware":
		return noiseAwareForecast(p.preview, p.previewEpsilon, p.previewPredictors, in.Model, p.Dim)
	case p.Algorithm != "ops" && p.Draws < diag.ESSPerChainMin:
		// The verdict asks for a bulk and tail ESS of 100 per chain, which
		// fewer draws per chain cannot give: the budget would be spent on
		// draws that cannot be shown to have converged (a review found
		// dp-barker planning 2 + 2 iterations at ε = 3 on 569 rows).
		if p.drawsGiven {
			// The user set them: a larger ε would not add any.
			return &Forecast{Kind: "too-few-draws", WillMix: false, Text: fmt.Sprintf("only %d draws per chain are set, fewer than the %d draws per chain that R-hat and ESS need to show convergence: the run cannot be shown to converge; give at least %d draws per chain", p.Draws, diag.ESSPerChainMin, diag.ESSPerChainMin)}
		}
		return &Forecast{Kind: "too-few-draws", WillMix: false, Text: fmt.Sprintf("the budget pays for only %d warmup + %d draws per chain, fewer than the %d draws per chain that R-hat and ESS need to show convergence: the run cannot be shown to converge; %s", p.Warmup, p.Draws, diag.ESSPerChainMin, tooFewDrawsRemedy(in, p.Dim))}
	case !penaltyType[p.Algorithm]:
		return &Forecast{Kind: "none", WillMix: true, Text: fmt.Sprintf("no mixing forecast for %s: check R-hat and ESS after the run", p.Algorithm)}
	case p.Algorithm == "dp-penalty" && p.Settings.GRW:
		return &Forecast{Kind: "none", WillMix: true, Text: "no mixing forecast for the guided random walk (its moves are correlated): check R-hat and ESS after the run"}
	}
	f := &Forecast{Kind: "random-walk-bound", WillMix: true}
	r := p.Settings.Clip
	f.RatioMu = ratioMu(p.Algorithm, p.Settings, p.N, p.Dim)
	if !(r > 0) || !(f.RatioMu > 0) {
		how := "a run derives it from the public bounds; a plan without data needs --clip, or --dim for logistic"
		if in.Model == "linear" || in.Model == "poisson" {
			switch {
			case !in.Scaled:
				how = "a run derives it from the column bounds and a parameter --box; a plan without data in the user's units (--scale none) knows neither: give it --clip"
			case p.Settings.Box > 0:
				how = "a run derives it from the column bounds, the outcome's among them, and the --box: give the plan --outcome-bound, or --clip"
			default:
				how = fmt.Sprintf("the %s model's log-likelihood ratio has no public bound over unbounded coefficients: a run needs a parameter --box, from which it derives the clip, or --clip; give the plan the same", in.Model)
			}
		}
		f.Text = fmt.Sprintf("no mixing forecast: the clip of %s is not known (%s)", p.Algorithm, how)
		return f
	}
	kappa := math.Sqrt(moveKappa2)
	travel := func(iters int) float64 { return kappa * math.Sqrt(float64(iters)) * f.RatioMu / r }
	f.MovePerChain = travel(p.Warmup + p.Draws)
	f.PosteriorSDLower = posteriorSDLower(p.N, in.hessianBound(), in.PriorSD)
	f.WidestSDLower = max(widestSDLower(p.N, p.Dim, in.hessianBound(), in.PriorSD), in.WidestSD)
	if f.WidestSDLower == 0 {
		f.Text = fmt.Sprintf("each chain can move at most %.3g in parameter units in total; no public bound on the posterior sd for the %s model to compare it with: check R-hat and ESS after the run", f.MovePerChain, in.Model)
		return f
	}
	f.SDsPerChain = f.MovePerChain / f.WidestSDLower
	f.SDsInDraws = travel(p.Draws) / f.WidestSDLower
	f.EffectiveDraws = float64(p.Chains) * min(float64(p.Draws), f.SDsInDraws*f.SDsInDraws/4)
	// scale is how many times larger every μ would have to be for the
	// threshold to hold (≤ 1: it holds).
	scale := MinSDsToMix / f.SDsInDraws
	f.WillMix = scale <= 1
	if !f.WillMix {
		f.EpsilonToMix = epsilonToMix(p, scale)
		if f.EpsilonToMix == 0 {
			f.EpsilonToMix = epsilonToMixBy(p, "mix", func(g *Forecast) bool { return g.WillMix })
		}
	}
	// need is the factor every μ needs for the check that decides the
	// verdict: the typical-data one where there is one (its sd is at least
	// s_wide, so it needs at least as much).
	need := scale
	typical := ""
	if sTyp := typicalWidestSD(p.N, p.Dim, in); sTyp > 0 {
		f.TypicalSpread, f.TypicalWidestSD = weakSpread, max(sTyp, f.WidestSDLower)
		inDraws := travel(p.Draws) / f.TypicalWidestSD
		f.TypicalEffectiveDraws = float64(p.Chains) * min(float64(p.Draws), inDraws*inDraws/4)
		need = MinSDsToMix / inDraws
		ok := need <= 1
		f.WillMixTypical = &ok
		if !ok {
			f.EpsilonToMixTypical = epsilonToMix(p, need)
			if f.EpsilonToMixTypical == 0 {
				f.EpsilonToMixTypical = epsilonToMixBy(p, "typical", func(g *Forecast) bool { return g.WillMixTypical != nil && *g.WillMixTypical })
			}
		}
		typical = fmt.Sprintf("for predictors whose sd is %s of their public half-range (common in real data with honest bounds), even at the most informative outcome%s, the widest posterior sd is about %.3g, and the chains could give %s", spreadWord(weakSpread), outcomeCase(in.Model), f.TypicalWidestSD, effectiveDrawsPhrase(f.TypicalEffectiveDraws))
	}
	head := fmt.Sprintf("with these settings each chain can move at most about %s posterior sds in total (%s while drawing), in the posterior's widest direction, whose sd is at least %.3g; that gives %s over %s",
		fmtSDs(f.SDsPerChain), fmtSDs(f.SDsInDraws), f.WidestSDLower, effectiveDrawsPhrase(f.EffectiveDraws), ChainsWord(p.Chains))
	if need <= 1 {
		f.Text = head
		if typical != "" {
			f.Text += "; " + typical
		}
		f.Text += ": the budget does not forbid convergence if the chains reach the posterior during warmup; check R-hat and ESS after the run"
		return f
	}
	var alts []string
	switch {
	case isRegression(in.Model) && p.Dim > MaxNoiseAwareDim:
		// noise-aware refuses this model (NoiseAwareFits): naming it would
		// send the user to a refusal.
		alts = append(alts, fmt.Sprintf("fewer predictors (noise-aware handles at most %d coefficients; this model has %d)", MaxNoiseAwareDim, p.Dim))
	case isRegression(in.Model) || in.MeanBounded:
		alts = append(alts, "noise-aware")
	}
	// A chain's share of the budget is μ/√chains: fewer chains travel
	// farther (the effective draws of all chains together do not change).
	if p.Chains > 2 && need*math.Sqrt(2/float64(p.Chains)) <= 1 {
		alts = append(alts, fmt.Sprintf("2 chains instead of %d (each then travels %.2g times farther)", p.Chains, math.Sqrt(float64(p.Chains)/2)))
	}
	switch {
	case f.WillMix && f.EpsilonToMixTypical > 0:
		alts = append(alts, fmt.Sprintf("a larger ε (about %.3g)", f.EpsilonToMixTypical))
	case f.EpsilonToMix > 0 && f.EpsilonToMixTypical > 0:
		alts = append(alts, fmt.Sprintf("a larger ε (at least about %.3g for predictors spread over their whole public ranges; about %.3g for the typical spread)", f.EpsilonToMix, f.EpsilonToMixTypical))
	case f.EpsilonToMix > 0:
		alts = append(alts, fmt.Sprintf("a larger ε (about %.3g)", f.EpsilonToMix))
	default:
		alts = append(alts, "a larger ε")
	}
	if !f.WillMix {
		f.Text = head + ": they will not converge; use " + strings.Join(alts, " or ")
		return f
	}
	f.Text = head + " only if the predictors spread over most of their public ranges; " + typical + ": they will probably not converge; use " + strings.Join(alts, " or ")
	return f
}

// ProbablyNotMixing reports whether the forecast says the chains cannot
// converge (WillMix false) or, for typical data, will probably not
// (WillMixTypical false): the cases a run is warned of before it spends
// the budget.
func (f *Forecast) ProbablyNotMixing() bool {
	return f != nil && (!f.WillMix || (f.WillMixTypical != nil && !*f.WillMixTypical))
}

// tooFewDrawsRemedy is the advice of a plan whose budget pays for too few
// draws: noise-aware where it runs (its draws are free), a larger ε
// otherwise.
func tooFewDrawsRemedy(in ForecastInputs, d int) string {
	if (isRegression(in.Model) && d <= MaxNoiseAwareDim) || in.MeanBounded {
		return "use noise-aware (its draws after one release are free) or a larger ε"
	}
	return "use a larger ε or another algorithm"
}

// typicalWidestSD is, for a regression model, the posterior sd of a slope
// whose predictor's sd is weakSpread of its public half-range:
// (n·H/d·f² + 1/s₀²)^−½, where H/d is the bound on a row's Hessian per
// unit of ‖x̃‖² (X̄² = d on the scaled space: the intercept's 1 and a 1 per
// predictor), so that n·H/d·f² is the Fisher information of such a slope
// at the most informative outcome (logistic: p = ½; linear: 1/σ²;
// Poisson: a mean at its cap). 0 for other models, unscaled predictors
// (--scale none) or without a bound.
func typicalWidestSD(n, d int, in ForecastInputs) float64 {
	h := in.hessianBound()
	if !isRegression(in.Model) || !in.Scaled || !(h > 0) {
		return 0 // in the user's units X̄² is not d: no spread to speak of
	}
	return widestSDLower(n, d, h*weakSpread*weakSpread, in.PriorSD)
}

// outcomeCase says what the most informative outcome is for the model.
func outcomeCase(modelName string) string {
	switch modelName {
	case "logistic":
		return " (a rate of ½)"
	case "poisson":
		return " (counts at their public bound K; smaller counts make it wider)"
	}
	return ""
}

// spreadWord spells a spread: "a quarter" for ¼, else the number.
func spreadWord(f float64) string {
	if f == 0.25 {
		return "a quarter"
	}
	return fmt.Sprintf("%g", f)
}

// epsilonToMix is the ε at the plan's δ whose per-iteration noise is scale
// times smaller (every μ of the iteration times scale, the dp-map
// initialisation left out; 0 for dp-mala, whose proposal's μ does not scale
// with its noise: epsilonToMixBy searches its ε).
func epsilonToMix(p *Plan, scale float64) float64 {
	if p.Algorithm == "dp-mala" || !(p.StepMu > 0) {
		return 0
	}
	T := p.Chains * (p.Warmup + p.Draws)
	mu := scale * p.StepMu * math.Sqrt(float64(T))
	e, err := privacy.TightGaussian{Mu: mu}.Epsilon(p.Delta)
	if err != nil || math.IsInf(e, 0) {
		return 0
	}
	return e
}

// maxEpsilonSearched is the largest ε epsilonToMixBy tries: beyond it the
// forecast names no ε ("a larger ε").
const maxEpsilonSearched = 1e6

// epsilonToMixBy is, for a plan whose ε to mix has no closed form
// (dp-mala: its proposal's μ does not scale with the accept test's noise),
// the smallest ε, to about 0.1%, at which the same run planned again
// (Plan.replan: same δ, chains and settings as given) has a forecast that
// passes pass: doubling from the plan's ε, then bisection on log ε. The
// forecast's travel grows with ε, so pass is monotone. 0 without replan,
// or when no ε up to maxEpsilonSearched passes.
func epsilonToMixBy(p *Plan, which string, pass func(*Forecast) bool) float64 {
	if p.replan == nil || !(p.Epsilon > 0) {
		return 0
	}
	if p.replanKey == "" {
		return searchEpsilon(p, pass)
	}
	key := p.replanKey + "|" + which
	epsilonSearches.Lock()
	e, ok := epsilonSearches.m[key]
	epsilonSearches.Unlock()
	if ok {
		return e
	}
	e = searchEpsilon(p, pass)
	epsilonSearches.Lock()
	if len(epsilonSearches.m) >= 256 {
		clear(epsilonSearches.m)
	}
	epsilonSearches.m[key] = e
	epsilonSearches.Unlock()
	return e
}

// epsilonSearches memoizes epsilonToMixBy by the run's public inputs other
// than ε (Plan.replanKey) and the check: the ε it finds does not depend on
// the ε it starts from (to its 0.1%), and the page plans again on every
// input (a dp-mala search costs 30–60 plans, 25–40 ms in WebAssembly).
var epsilonSearches = struct {
	sync.Mutex
	m map[string]float64
}{m: map[string]float64{}}

// searchEpsilon is epsilonToMixBy's search.
func searchEpsilon(p *Plan, pass func(*Forecast) bool) float64 {
	ok := func(eps float64) bool {
		q := p.replan(eps)
		return q != nil && q.Forecast != nil && pass(q.Forecast)
	}
	lo, hi := p.Epsilon, 2*p.Epsilon
	for !ok(hi) {
		if lo, hi = hi, 2*hi; hi > maxEpsilonSearched {
			return 0
		}
	}
	for hi/lo > 1.001 {
		if mid := math.Sqrt(lo * hi); ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func fmtSDs(v float64) string {
	switch {
	case v < 0.1:
		return fmt.Sprintf("%.2g", v) // 0.0036, not 0.0
	case v < 10:
		return fmt.Sprintf("%.1f", v)
	case v < 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func fmtCount(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// modelWidestSD is the model's public lower bound on its posterior's
// widest sd with n rows (model.Banana.WidestPosteriorSDLower,
// model.GMM.WidestPosteriorSDLower), from the built model m, or, for a plan
// without data, from the model the config's options build on two rows of
// zeros (the bounds read only the options); 0 for another model.
func modelWidestSD(c *Config, m model.Model, n int) float64 {
	type widest interface{ WidestPosteriorSDLower(n int) float64 }
	name := strings.ToLower(strings.TrimSpace(c.Model.Model))
	if name != "banana" && name != "gmm" {
		return 0
	}
	if m == nil {
		if name == "banana" {
			m = constantMeanModel(c, make([]float64, len(meanColumns(c))))
		} else {
			m = gmmOptionsModel(c)
		}
		if m == nil {
			return 0
		}
	}
	if b, ok := m.(widest); ok {
		return b.WidestPosteriorSDLower(n)
	}
	return 0
}

// gmmOptionsModel is the gmm model of the config's options built on two
// rows of zeros (its column: the one predictor named, or x), or nil when
// the options do not build.
func gmmOptionsModel(c *Config) model.Model {
	col := "x"
	if len(c.Model.Predictors) == 1 {
		col = c.Model.Predictors[0]
	}
	spec := c.Model
	spec.Predictors = []string{col}
	return publicRowsModel(spec, spec.Predictors, [][]float64{{0, 0}}, nil)
}

// ChainsWord is "1 chain" or "k chains".
func ChainsWord(k int) string {
	if k == 1 {
		return "1 chain"
	}
	return fmt.Sprintf("%d chains", k)
}

// effectiveDrawsPhrase says the forecast's bound on the effective draws:
// "at most about 12 effective draws", or "less than one effective draw"
// (rather than "0.0").
func effectiveDrawsPhrase(v float64) string {
	if v < 1 {
		return "less than one effective draw"
	}
	return "at most about " + fmtCount(v) + " effective draws"
}
