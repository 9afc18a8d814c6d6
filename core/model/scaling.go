package model

import (
	"fmt"
	"math"
	"strings"
)

// Scale values of Spec.Scale.
const (
	// ScaleBounds samples the coefficients of the predictors mapped to
	// [−1, 1] by their public bounds (issue #16 part A).
	ScaleBounds = "bounds"
	// ScaleNone samples the coefficients in the user's units.
	ScaleNone = "none"
	// ScaleAuto samples the coefficients of the scaled predictors when
	// every predictor has a finite public bound, with the N(0, s²) prior
	// kept on the coefficients in the user's units (so the posterior is
	// exactly scale none's: a change of variables, not of model), and is
	// scale none otherwise. For raw measurements: in raw units the
	// intercept is strongly correlated with every slope whose predictor is
	// far from 0 and the slopes' scales differ by the predictors' ranges,
	// which a diagonal metric cannot undo (HMC on the raw breast-cancer
	// predictors: R-hat 1.16 after 1000 warmup iterations, ≤ 1.001 with
	// auto). Opt-in: on predictors already centred it is not better
	// (docs/SAMPLERS.md "Scaled parameters").
	ScaleAuto = "auto"
)

// DefaultScaledPriorSD is s of the N(0, s²) prior on every coefficient of
// a regression whose predictors are scaled to [−1, 1] by their public
// bounds, when none is given. rstanarm's weakly informative N(0, 2.5²) is
// per standard deviation of a predictor; a public range is typically
// several data standard deviations wide (4 to 8 on the breast-cancer
// features), so the same weak information is about 10–20 per half-range.
// 20 keeps the large breast-cancer effects (18.7 per half-range for
// mean_radius) out of the prior's tail. It is the noise-aware sampler's
// default too (noiseaware.DefaultPriorSD), so every algorithm of a private
// run samples the same posterior, except for linear regression: noise-aware
// also scales its outcome by the outcome's public half-range h_y (as
// rstanarm scales a Gaussian outcome's priors by its sd), so its prior is
// N(0, (s·h_y)²) per scaled predictor in the outcome's units, where the
// per-iteration kernels' is N(0, s²) (run.PriorSDs).
const DefaultScaledPriorSD = 20

// Scaling is the public affine map between a regression's coefficients in
// the user's units, θ, and the coefficients of the predictors scaled to
// [−1, 1] by their public bounds [lo_j, hi_j], β:
//
//	x̃_j = (x_j − c_j)/h_j,  c_j = (lo_j + hi_j)/2,  h_j = (hi_j − lo_j)/2
//
// (without an intercept c_j = 0 and h_j = max(|lo_j|, |hi_j|), so that no
// centring has to be absorbed by a missing intercept). Then x̃ᵀβ = xᵀθ with
//
//	θ_j = β_j/h_j,   θ_0 = β_0 − Σ_j β_j c_j/h_j   (intercept)
//
// It is computed from the public bounds only (never from the data), so
// sampling β and reporting θ is post-processing. The outcome is not scaled.
type Scaling struct {
	// Centre and Half are c_j and h_j per coefficient (intercept: 0, 1).
	Centre, Half []float64
	Intercept    bool
}

// NewScaling returns the scaling of design columns with public ranges xiv
// (the intercept's is [1, 1] and comes first when intercept is true). Every
// predictor needs a finite range lo < hi; names name the columns in errors.
func NewScaling(xiv []Interval, names []string, intercept bool) (*Scaling, error) {
	s := &Scaling{Centre: make([]float64, len(xiv)), Half: make([]float64, len(xiv)), Intercept: intercept}
	var missing []string
	for j, iv := range xiv {
		if j == 0 && intercept {
			s.Half[j] = 1
			continue
		}
		if !(iv.Lo < iv.Hi) || math.IsInf(iv.Lo, 0) || math.IsInf(iv.Hi, 0) {
			missing = append(missing, names[j])
			continue
		}
		if intercept {
			s.Centre[j], s.Half[j] = (iv.Lo+iv.Hi)/2, (iv.Hi-iv.Lo)/2
		} else {
			s.Half[j] = math.Max(math.Abs(iv.Lo), math.Abs(iv.Hi))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: scale=bounds maps every predictor to [-1, 1] by its public bound; no finite bound lo < hi for %s (give --bound COL=LO:HI, or scale=none)", ErrColumn, strings.Join(missing, ", "))
	}
	return s, nil
}

// ScaleRow maps one design row in place to the scaled predictors.
func (s *Scaling) ScaleRow(x []float64) {
	for j := range x {
		if j == 0 && s.Intercept {
			continue
		}
		x[j] = (x[j] - s.Centre[j]) / s.Half[j]
	}
}

// ScaleInterval maps column j's range to the scaled one.
func (s *Scaling) ScaleInterval(j int, iv Interval) Interval {
	if j == 0 && s.Intercept {
		return iv
	}
	return Interval{(iv.Lo - s.Centre[j]) / s.Half[j], (iv.Hi - s.Centre[j]) / s.Half[j]}
}

// ToUser maps scaled coefficients β to the user's units θ in place.
func (s *Scaling) ToUser(beta []float64) {
	shift := 0.0
	for j := range beta {
		if j == 0 && s.Intercept {
			continue
		}
		beta[j] /= s.Half[j]
		shift += beta[j] * s.Centre[j]
	}
	if s.Intercept {
		beta[0] -= shift
	}
}

// FromUser maps coefficients θ in the user's units to the scaled space in
// place (the inverse of ToUser).
func (s *Scaling) FromUser(theta []float64) {
	shift := 0.0
	for j := range theta {
		if j == 0 && s.Intercept {
			continue
		}
		shift += theta[j] * s.Centre[j]
		theta[j] *= s.Half[j]
	}
	if s.Intercept {
		theta[0] += shift
	}
}

// ScalingOf returns the scaling of a regression model built with scale =
// bounds, and nil for any other model.
func ScalingOf(m Model) *Scaling {
	switch v := m.(type) {
	case *Logistic:
		return v.scaling
	case *Linear:
		return v.scaling
	case *Poisson:
		return v.scaling
	}
	return nil
}
