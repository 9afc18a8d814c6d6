package noiseaware

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// DefaultPriorSD is the prior standard deviation of every coefficient on
// the scaled space (predictors mapped to [−1, 1] by their public bounds)
// when the user gives none. rstanarm's weakly informative N(0, 2.5²) is per
// standard deviation of a predictor; a public range is typically several
// data standard deviations wide (4 to 8 on the breast-cancer features), so
// the same weak information is about 10–20 per half-range. We take 20: at
// 10 the prior alone pulls the large breast-cancer effects (18.7 per
// half-range for mean_radius) into its tail (simulation coverage of the
// 90% intervals about 0.65); see docs/SAMPLERS.md.
const DefaultPriorSD = 20

// GridBits is k of the release grid 2^(⌊log₂σ⌋ − k) (as the DP kernels').
const GridBits = 24

// firstShare caps the share of μ² each release before the last one spends:
// each spends min(firstShare, 0.5/(R − 1)) (so 1/6 for Poisson's and
// logistic's R = 4, 10% for logistic's R = 6), the last the rest (the expansion points only
// need to be near the mode; the last release carries the likelihood). scoreShare is the share of a release's μ² given
// to the score S (the rest to M).
const (
	firstShare = 0.2
	scoreShare = 0.6
)

// Spec holds the public inputs of the mechanism: nothing in it depends on
// the data.
type Spec struct {
	Family    string // logistic, linear or poisson
	N, D      int
	Intercept bool
	// XRanges are the public ranges of the design columns (intercept
	// [1, 1]); YRange the outcome's (linear, poisson).
	XRanges []model.Interval
	YRange  model.Interval
	// NoiseSD is the linear model's known σ in the outcome's units.
	NoiseSD float64
	// PriorSD is s of the N(0, s²) prior on every scaled coefficient (0:
	// DefaultPriorSD).
	PriorSD float64
	// Mu is the Gaussian-DP μ all releases spend together.
	Mu float64
	// Releases is the number of expansion points R (0: 1 for linear, 4 for
	// logistic, PoissonReleases = 4 for Poisson). Logistic uses 4 (LDA start, then damped
	// Newton steps from the releases) because with 2 the last expansion
	// point stays far from the mode when the release noise is small, and the
	// quadratic expansion there is confidently wrong: on the breast-cancer
	// design resampled to n = 50,000, 90% intervals covered the truth 0.55
	// (ε = 3) and 0.23 (ε = 8) of the time with 2 releases, 0.88 and 0.82
	// with 4 (10 replicates; n = 5,000, ε = 3: 0.82 → 0.92, 20 replicates;
	// n = 569 unchanged at 1.00; 6 releases were worse: 0.73 at n = 5,000,
	// ε = 8). Re-measured with the damped Newton path (fixed truth, 100
	// replicates): 6 releases give 1–50% wider posterior sds than 4 at
	// n = 5,000 (ε = 3, 8) and 50,000 (ε = 1, 8), with coverage
	// 0.95–1.00 for both; with truths from an N(0, 10²) prior 8 releases
	// covered 0.848–0.883 against 4's 0.833–0.853 (200 replicates, within
	// 1–2 MC errors at n ≤ 5,000). docs/RESULTS.md "Utility".
	Releases int
	// Whiten makes every release after the first compute its statistics
	// in design-adapted coordinates derived from the first (whiten.go):
	// logistic and Poisson regression with an intercept, at least one
	// predictor and R ≥ 2; ignored otherwise.
	Whiten bool
	// AdaptCoords chooses, after the first release and from it alone
	// (post-processing), between the box and the design-adapted
	// coordinates for the later releases (Plan.preferDesign); the same
	// models as Whiten, which forces the design-adapted ones.
	AdaptCoords bool
}

// Block is one Gaussian release: its L2 sensitivity (replace one row, with
// the exact-sum quantization included), noise std and accounted μ (grid
// inflation included).
type Block struct {
	What        string  `json:"what"`
	Entries     int     `json:"entries"`
	Sensitivity float64 `json:"sensitivity"`
	Std         float64 `json:"noise_std"`
	Mu          float64 `json:"mu"`
}

// Plan is the release schedule: public, computed from Spec only.
type Plan struct {
	Releases int     `json:"releases"`
	Blocks   []Block `json:"blocks"`
	// Mu is √(Σ μ_b²) over the blocks (≤ Spec.Mu).
	Mu float64 `json:"mu"`
	// Coords is the number of discrete-Gaussian coordinates released (for
	// the accountant's discrete-Gaussian charge).
	Coords  int     `json:"coords"`
	PriorSD float64 `json:"prior_sd_scaled"`
	// Scaling of the design columns and the outcome (public).
	Centre, Half   []float64
	YCentre, YHalf float64
	// Cap is the Poisson mean cap K (the outcome's public upper bound).
	Cap float64
	// censor is the Poisson model of the count released as min(Y, K)
	// (censored.go).
	censor censoredCount
	// Phi is the dispersion φ of the score on the scaled space.
	Phi float64
	// ClipRadius is C of the design-adapted coordinates of the releases
	// after the first (Spec.Whiten, whiten.go); 0 when they are not used.
	ClipRadius float64 `json:"clip_radius,omitempty"`
	// ShrinkPath makes the logistic path's steps noise-aware: the LDA start
	// gets a ridge against the release noise in the within-class
	// covariance, every Newton step is shrunk, direction by direction,
	// by how much of its gradient the release noise can explain
	// (newtonStep), and it is taken from the last point whose step raised
	// the log posterior as the released scores estimate it, halved each
	// time the path returns there (logPostGain). Set from public inputs
	// only, when the releases before
	// the last can move the path (PathNoise ≤ ShrinkPathMaxNoise).
	ShrinkPath bool `json:"shrink_path,omitempty"`
	// PathNoise is the plan's ρ (PathNoise; 0 when no path is planned).
	PathNoise float64 `json:"path_noise,omitempty"`
	// design is the plan of the same spec in the design-adapted
	// coordinates when Spec.AdaptCoords leaves the choice to the first
	// release (nil otherwise). Its blocks spend the same μ as these; only
	// the sensitivities, and so the noise, of the releases after the first
	// differ.
	design *Plan
}

// whitened reports whether release r (0-based) is made in the
// design-adapted coordinates.
func (p *Plan) whitened(r int) bool { return p.ClipRadius > 0 && r > 0 }

// rowNorm2 bounds ‖x‖² of a design row as release r sees it, the
// intercept's 1 included: d in the box [−1, 1]^d, 1 + C² in the
// design-adapted coordinates.
func (p *Plan) rowNorm2(r, d int) float64 {
	if p.whitened(r) {
		return 1 + p.ClipRadius*p.ClipRadius
	}
	return float64(d)
}

// weightRange returns the range [t⁻, t⁺] of the per-row score factor and the
// upper bound w⁺ of the weight at release r (r = 0 is the first, at θ = 0).
func (p *Plan) weightRange(family string, r int) (tlo, thi, wmax float64) {
	switch family {
	case "logistic":
		if r == 0 {
			return -0.5, 0.5, 0.25
		}
		return -1, 1, 0.25
	case "poisson":
		// The count censored at K (censored.go): t = y − λ below K and
		// h(λ) ≤ K at K, w ≤ WMax (≤ λ ≤ K; weights clamps to it). At
		// θ = 0 (λ = 1) t ∈ [−1, h(1)], K − 1 ≤ h(1) ≤ K, and every row's
		// weight is w(1) (firstWeight).
		if r == 0 {
			h1, w1 := p.censor.weights(p.Cap, 1)
			return -1, h1, w1
		}
		return -p.Cap, p.Cap, p.censor.WMax
	default: // linear: t = y (scaled) at θ = 0, w = 1
		return -1, 1, 1
	}
}

// InfoCap is the largest trace the information M released at expansion
// point r (0-based) can have on any n rows: M = Σ w_i x̃_i x̃_iᵀ with
// 0 ≤ w_i ≤ w⁺ (weightRange) and every scaled x̃_i in [−1, 1]^d, so
// tr M = Σ w_i‖x̃_i‖² ≤ n·w⁺·d (and so is every eigenvalue). Public. The
// release's noise alone can exceed it (σ_M is thousands at ε = 0.001), and
// a pivot draw of M above it would claim more information than n rows
// hold.
func (p *Plan) InfoCap(family string, r, n, d int) float64 {
	_, _, wmax := p.weightRange(family, r)
	return float64(n) * wmax * p.rowNorm2(r, d)
}

// OutcomeScaling is the centre and half-range by which the linear model's
// outcome is mapped to [−1, 1] from its public range: (lo + hi)/2 and
// (hi − lo)/2 with an intercept; without one 0 and max(|lo|, |hi|), so that
// no centring has to be absorbed by a missing intercept (as the
// predictors, model.NewScaling).
func OutcomeScaling(y model.Interval, intercept bool) (centre, half float64) {
	if intercept {
		return (y.Lo + y.Hi) / 2, (y.Hi - y.Lo) / 2
	}
	return 0, math.Max(math.Abs(y.Lo), math.Abs(y.Hi))
}

// scoreSensitivity is Δ_S (see the package doc) for rows with ‖x‖² ≤ norm2
// (the intercept's 1 included): d in the box, 1 + C² in the design-adapted
// coordinates.
func scoreSensitivity(tlo, thi, norm2 float64, intercept bool) float64 {
	tmax := math.Max(math.Abs(tlo), math.Abs(thi))
	if !intercept {
		return 2 * tmax * math.Sqrt(norm2)
	}
	return math.Sqrt((thi-tlo)*(thi-tlo) + (norm2-1)*4*tmax*tmax)
}

// infoSensitivity is Δ_M = √2·w⁺·norm2 in the Frobenius norm, for rows with
// ‖x‖² ≤ norm2 (d in the box).
func infoSensitivity(wmax, norm2 float64) float64 { return math.Sqrt2 * wmax * norm2 }

// DefaultReleases is the number of releases R of a family's plan when
// Spec.Releases is 0: 4 for logistic (expansion points along a damped
// Newton path), PoissonReleases for Poisson, 1 for linear (its
// log-likelihood is exactly quadratic); 0 for a family noise-aware does not
// support. The caller that calibrates μ to the discrete-Gaussian charge of
// R·(d + d(d+1)/2) coordinates must use the same R.
func DefaultReleases(family string) int {
	return ReleasesFor(Spec{Family: family})
}

// PoissonReleases is R of a Poisson plan when Spec.Releases is 0: the
// public start θ = 0, the log-linear start from the first release, then
// two damped Newton steps. With two releases (the default before
// 2026-11-30) the last expansion point was the log-linear start, whose
// quadratic is far from the log-likelihood wherever the data inform the
// coefficients, and nothing measured that error (the expansion-error term
// needs R ≥ 3): at n = 20,000, ε = 8 the 90% intervals covered a fixed
// truth 0.12 of the time, and truths drawn from the prior 0.60 (intercept
// 0.41). With four, 0.92 and 0.88 there (0.91 with the counts censored at
// K, censored.go), and 0.86–0.92 with truths from the prior over every
// setting of TestCalibrationPriorPredictiveLinearPoisson
// (TestCalibrationLinearPoisson has the fixed truths; docs/SAMPLERS.md
// "Poisson: four releases").
const PoissonReleases = 4

// AdaptiveLogisticReleases is R of a logistic plan with Spec.AdaptCoords
// when Spec.Releases is 0: in the design-adapted coordinates the intervals
// are narrow enough for the path's end to matter, and with 4 releases the
// last expansion point stayed short of large coefficients (breast-cancer
// truth, n = 5,000, ε = 8: the radius's 90% intervals covered 0.77 with 4,
// 0.88 with 6; docs/SAMPLERS.md "Design-adapted coordinates").
const AdaptiveLogisticReleases = 6

// ReleasesFor is the number of releases R of the plan of s: s.Releases, or
// when that is 0 the family's default (DefaultReleases;
// AdaptiveLogisticReleases for logistic with s.AdaptCoords). The caller
// that calibrates μ to the discrete-Gaussian charge of R·(d + d(d+1)/2)
// coordinates must use the same R.
func ReleasesFor(s Spec) int {
	if s.Releases != 0 {
		return s.Releases
	}
	if s.Family == "logistic" && s.AdaptCoords && s.Intercept {
		return AdaptiveLogisticReleases
	}
	switch s.Family {
	case "logistic":
		return 4
	case "poisson":
		return PoissonReleases
	case "linear":
		return 1
	}
	return 0
}

// Design is the plan of the releases after the first in the design-adapted
// coordinates, which the first release may choose (Spec.AdaptCoords), or
// nil when there is no such choice.
func (p *Plan) Design() *Plan { return p.design }

// NewPlan validates the spec and computes the scaling and the release
// schedule.
func NewPlan(s Spec) (*Plan, error) {
	if s.N < 2 || s.D < 1 {
		return nil, fmt.Errorf("noise-aware: need n ≥ 2 rows and d ≥ 1 coefficients (got n = %d, d = %d)", s.N, s.D)
	}
	if len(s.XRanges) != s.D {
		return nil, fmt.Errorf("noise-aware: %d column ranges for %d coefficients", len(s.XRanges), s.D)
	}
	if !(s.Mu > 0) || math.IsInf(s.Mu, 0) {
		return nil, fmt.Errorf("noise-aware: μ must be a finite number > 0 (got %v)", s.Mu)
	}
	p := &Plan{PriorSD: s.PriorSD, Phi: 1, YHalf: 1}
	if p.PriorSD == 0 {
		p.PriorSD = DefaultPriorSD
	}
	if !(p.PriorSD > 0) || math.IsInf(p.PriorSD, 0) {
		return nil, fmt.Errorf("noise-aware: prior sd must be a finite number > 0 (got %v)", s.PriorSD)
	}
	p.Centre, p.Half = make([]float64, s.D), make([]float64, s.D)
	for j, iv := range s.XRanges {
		if j == 0 && s.Intercept {
			p.Centre[j], p.Half[j] = 0, 1
			continue
		}
		if !(iv.Lo < iv.Hi) || math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) {
			return nil, fmt.Errorf("noise-aware: design column %d needs a finite public bound lo < hi (got [%v, %v])", j, iv.Lo, iv.Hi)
		}
		if s.Intercept {
			p.Centre[j], p.Half[j] = (iv.Lo+iv.Hi)/2, (iv.Hi-iv.Lo)/2
		} else {
			p.Centre[j], p.Half[j] = 0, math.Max(math.Abs(iv.Lo), math.Abs(iv.Hi))
		}
	}
	finite := func(iv model.Interval) bool {
		return iv.Lo < iv.Hi && !math.IsInf(iv.Lo, 0) && !math.IsInf(iv.Hi, 0)
	}
	R := ReleasesFor(s)
	switch s.Family {
	case "logistic":
	case "linear":
		if !finite(s.YRange) {
			return nil, errors.New("noise-aware: the linear model's outcome needs a finite public bound lo < hi")
		}
		if !(s.NoiseSD > 0) {
			return nil, fmt.Errorf("noise-aware: the linear model needs a noise sd > 0 (got %v)", s.NoiseSD)
		}
		p.YCentre, p.YHalf = OutcomeScaling(s.YRange, s.Intercept)
		p.Phi = (s.NoiseSD / p.YHalf) * (s.NoiseSD / p.YHalf)
		if !(p.Phi > 0) || math.IsInf(p.Phi, 0) {
			// φ = (noise sd / outcome half-range)² must be a positive
			// double: it scales the score and the information.
			return nil, fmt.Errorf("noise-aware: the linear model's noise sd %g against the outcome's half-range %g gives φ = %g, outside the range of a double: give a noise sd within about 1e-150 to 1e150 of the half-range", s.NoiseSD, p.YHalf, p.Phi)
		}
		R = 1 // the linear log-likelihood is exactly quadratic
	case "poisson":
		if !finite(s.YRange) || s.YRange.Hi < 1 {
			return nil, errors.New("noise-aware: the Poisson model's outcome needs a finite public bound with an upper end ≥ 1 (the cap on the mean)")
		}
		p.Cap = math.Floor(s.YRange.Hi)
		p.censor = newCensoredCount(p.Cap)
	default:
		return nil, fmt.Errorf("noise-aware: model %q is not supported (logistic, linear or poisson)", s.Family)
	}
	if R < 1 || R > 10 {
		return nil, fmt.Errorf("noise-aware: releases must be in 1..10 (got %d)", R)
	}
	p.Releases = R
	d := s.D
	if s.Whiten && s.Intercept && d >= 2 && R >= 2 && (s.Family == "logistic" || s.Family == "poisson") {
		p.ClipRadius = clipRadius(d - 1)
	}
	mS, mM := d, d*(d+1)/2
	// The per-row rounding to q (two rows differ), and the rounding of the
	// exact int64 sums to float64 (statistics): a sum of magnitude at most
	// A = n·B rounds by at most A·2⁻⁵³, which depends on the other rows, so
	// two neighbours' sums can differ by up to 2·A·2⁻⁵³ more than their
	// exact difference; M's off-diagonal entries are multiplied by √2
	// (releaseInfo), once before and once in that rounding: 4√2·A·2⁻⁵³.
	gridS, gridM := math.Sqrt(float64(mS))*math.Exp2(-GridBits), math.Sqrt(float64(mM))*math.Exp2(-GridBits)
	total2 := 0.0
	boxScoreStd1 := 0.0
	for r := range R {
		first := math.Min(firstShare, 0.5/float64(max(R-1, 1)))
		share := first
		if r == R-1 {
			share = 1 - first*float64(R-1)
		}
		mu2 := share * s.Mu * s.Mu
		muS, muM := math.Sqrt(scoreShare*mu2), math.Sqrt((1-scoreShare)*mu2)
		tlo, thi, wmax := p.weightRange(s.Family, r)
		B := p.termBound(s.Family, r)
		q := quantum(s.N, B)
		conv := float64(s.N) * B * math.Exp2(-53)
		inflS := q*math.Sqrt(float64(2*mS)) + 2*conv*math.Sqrt(float64(mS))
		inflM := q*math.Sqrt(float64(2*mM)) + 4*math.Sqrt2*conv*math.Sqrt(float64(mM))
		dS := scoreSensitivity(tlo, thi, p.rowNorm2(r, d), s.Intercept) + inflS
		dM := infoSensitivity(wmax, p.rowNorm2(r, d)) + inflM
		if muS <= 2*gridS || muM <= 2*gridM {
			return nil, fmt.Errorf("noise-aware: budget too small (μ = %v)", s.Mu)
		}
		stdS, stdM := dS/(muS-gridS), dM/(muM-gridM)
		if r == 1 {
			boxScoreStd1 = scoreSensitivity(tlo, thi, float64(d), s.Intercept) / muS
		}
		bS := Block{What: fmt.Sprintf("score S at expansion point %d", r+1), Entries: mS, Sensitivity: dS, Std: stdS, Mu: dS/stdS + gridS}
		bM := Block{What: fmt.Sprintf("Fisher information M at expansion point %d (Frobenius)", r+1), Entries: mM, Sensitivity: dM, Std: stdM, Mu: dM/stdM + gridM}
		p.Blocks = append(p.Blocks, bS, bM)
		total2 += bS.Mu*bS.Mu + bM.Mu*bM.Mu
		p.Coords += mS + mM
	}
	p.Mu = math.Sqrt(total2)
	if p.Mu > s.Mu*(1+1e-9) {
		return nil, fmt.Errorf("noise-aware: internal error: planned μ %v exceeds the budget %v", p.Mu, s.Mu)
	}
	if s.Family == "logistic" && s.Intercept && d >= 2 && R >= 2 {
		p.PathNoise = PathNoise(boxScoreStd1, s.N)
		p.ShrinkPath = p.PathNoise <= ShrinkPathMaxNoise
	}
	if s.AdaptCoords && !s.Whiten && s.Intercept && d >= 2 && R >= 2 && (s.Family == "logistic" || s.Family == "poisson") {
		ds := s
		ds.Whiten, ds.AdaptCoords, ds.Releases = true, false, R
		design, err := NewPlan(ds)
		if err != nil {
			return nil, err
		}
		p.design = design
	}
	return p, nil
}

// PathNoise is ρ = 2σ/√n: the release noise σ of the score released at the
// second expansion point (in the box, whatever the coordinates the run
// chooses) against √(n/4), the square root of the information a logistic
// release can hold per unit-variance direction. A Newton step from such a
// release moves the path by about ρ posterior sds of pure noise per
// direction. Public.
func PathNoise(boxScoreStd1 float64, n int) float64 {
	return 2 * boxScoreStd1 / math.Sqrt(float64(n))
}

// ShrinkPathMaxNoise is the largest PathNoise at which a logistic plan
// shrinks its path (Plan.ShrinkPath). Below it the releases before the
// last carry information: shrinking their noise-driven moves keeps the
// last expansion point near the mode, and on a clinical design (800 rows
// shaped like a diabetes table, ε = 8, ρ = 0.85; 100 replicates at the
// data generator's coefficients, TestShrunkPathClinicalScale) the median
// slope interval fell from 3.2 to 1.75 times the non-private one and the
// 90th percentile from 28 to 3.8, with the coverage of the 90% intervals
// at 0.96 (0.97 before) and 0.86 with truths from an N(0, 2.5²) prior.
// Above it (the breast-cancer
// design at n = 569, ε = 3, ρ = 2.3; n = 5,000, ε = 1, ρ = 2.1) the
// shrunk steps stall the path near its start, where the expansion's error
// is not measured (modelErrorVar needs a step), and the coverage of
// clinical-size truths fell from 0.855–0.875 to 0.83–0.85
// (docs/SAMPLERS.md "Shrunk path").
const ShrinkPathMaxNoise = 1.5

// DesignCoordsGain is κ of the choice between the box and the
// design-adapted coordinates (Spec.AdaptCoords): the later releases use the
// design-adapted ones when the smallest eigenvalue of the design covariance
// Ĉ estimated from the first release is below κ·d/(1 + C²). In the box, a
// direction of the predictors with variance λ carries information n·w̄·λ
// against noise that scales with the rows' norm bound d; in the
// design-adapted coordinates every direction carries n·w̄ against noise
// scaled by 1 + C². The expected break-even is κ = 1; κ < 1 keeps the box
// for designs that fill it (docs/SAMPLERS.md "Design-adapted coordinates").
const DesignCoordsGain = 0.5

// preferDesign reports whether the releases after the first use the
// design-adapted coordinates: the first release's Ĉ (designCovariance,
// post-processing) has an eigenvalue below DesignCoordsGain·d/(1 + C²)
// (DesignEvidence).
func (p *Plan) preferDesign(rel *Release) bool {
	least, limit, ok := p.DesignEvidence(rel)
	return ok && least < limit
}

// DesignEvidence returns what the choice of coordinates (Spec.AdaptCoords)
// reads from the first release: the smallest eigenvalue of Ĉ, the design
// covariance of the predictors it estimates (designCovariance, floored),
// and the limit DesignCoordsGain·d/(1 + C²) below which the later releases
// are made in the design-adapted coordinates. ok is false when the plan
// has no such choice or rel no first release. Post-processing of rel.
func (p *Plan) DesignEvidence(rel *Release) (least, limit float64, ok bool) {
	if p.design == nil || len(rel.M) == 0 || rel.D < 2 || len(rel.M[0]) != rel.D*rel.D {
		return 0, 0, false
	}
	_, _, vals := designCovariance(rel.N, rel.M[0], rel.D, p.Blocks[1].Std, p.firstWeight(rel.Family))
	c2 := p.design.ClipRadius * p.design.ClipRadius
	return slices.Min(vals), DesignCoordsGain * float64(rel.D) / (1 + c2), true
}

// termBound bounds |t·x_j| and |w·x_j x_k| at release r (a power of two is
// not needed: the quantum is chosen below it): |t| and w are at most 1
// (logistic) or max(K, 1) (Poisson; linear: 1), and every |x_j| at most 1
// in the box, C (≥ 1) in the design-adapted coordinates.
func (p *Plan) termBound(family string, r int) float64 {
	b := 1.0
	if family == "poisson" {
		b = math.Max(p.Cap, 1)
	}
	if p.whitened(r) {
		b *= p.ClipRadius * p.ClipRadius
	}
	return b
}

// quantum is q = 2^(e − b) with B ≤ 2^e and b = min(50, 61 − bitlen(n)), so
// that n terms of at most 2^b quanta sum exactly in int64.
func quantum(n int, B float64) float64 {
	e := math.Ceil(math.Log2(B))
	b := 61
	for m := n; m > 0; m >>= 1 {
		b--
	}
	b = min(b, 50)
	return math.Exp2(e - float64(b))
}
