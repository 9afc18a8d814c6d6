package run

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/report"
)

// BoxEdgeBand is how near the parameter box's edge (a share of B) a draw's
// coordinate counts as at the edge, and BoxEdgeShare the share of such
// draws above which BoxNote names the parameter. A box wide enough for the
// posterior leaves none there; one that cuts it piles draws against it (a
// review: a linear run with --box 5 held every coefficient within 0.7% of
// its edge, while the intercept at the bounds' centre, about 148 mmHg,
// needs a box above 148).
const (
	BoxEdgeBand  = 0.99
	BoxEdgeShare = 0.1
)

// BoxNote names the parameters whose draws (after warmup) lie within
// BoxEdgeBand·B of the parameter box ±B on the sampled scale in more than
// BoxEdgeShare of the draws, "" when none does or the run has no box. The
// sampled scale is the scaled predictors' (a regression run with scale
// bounds, or auto with every predictor bounded; model.Scaling.FromUser of
// the draws) or the user's units. Computed from the released draws and the
// public config: post-processing. field names the box's setting as the
// caller shows it ("--box" in the CLI).
func BoxNote(cfg *Config, d *export.Draws, field string) string {
	b := cfg.Settings.Box
	if !(b > 0) || d == nil || len(d.Names) == 0 || !slices.Contains(settingsRead[cfg.Algorithm], "box") {
		// A sampler that does not read the box (hmc, noise-aware, …) is
		// not held by it, whatever its draws.
		return ""
	}
	sc := sampledScaling(cfg, d.Names)
	k := len(d.Names)
	near := make([]int, k)
	buf := make([]float64, k)
	total := 0
	for _, ch := range d.Values {
		for _, row := range ch[min(d.Warmup, len(ch)):] {
			copy(buf, row)
			if sc != nil {
				sc.FromUser(buf)
			}
			for j, v := range buf {
				if math.Abs(v) >= BoxEdgeBand*b {
					near[j]++
				}
			}
			total++
		}
	}
	var parts []string
	for j, c := range near {
		if total > 0 && float64(c) > BoxEdgeShare*float64(total) {
			parts = append(parts, d.Names[j]+" "+strconv.Itoa(int(math.Round(100*float64(c)/float64(total))))+"%")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	scale := "in the user's units"
	if sc != nil {
		scale = "on the sampled scale: slopes per half-range of their predictor's public bound"
		if sc.Intercept {
			scale += ", the intercept at the bounds' centre"
		}
	}
	s := "The parameter box ±" + report.Num(b, 'g', 4) + " holds these parameters against its edge (the share of draws within 1% of it): " + strings.Join(parts, ", ") + ". The box, not the data, sets them, so their draws are not the posterior's. Widen " + field + " (it is " + scale + ")."
	if strings.EqualFold(strings.TrimSpace(cfg.Model.Model), "linear") && len(d.Names) > 0 && d.Names[0] == "intercept" {
		if sc != nil {
			s += " A linear model's intercept is the outcome's level at the predictors' bounds' centres, in the outcome's units, so the box must be larger than that."
		} else {
			s += " A linear model's intercept is the outcome with every predictor at 0, in the outcome's units, so the box must be larger than that."
		}
	}
	return s
}

// sampledScaling is the scaling between the user's units and the sampled
// coefficients of cfg's regression run (nil: the same), from the public
// bounds alone, as model.Build derives it.
func sampledScaling(cfg *Config, names []string) *model.Scaling {
	c := withDefaultScale(cfg)
	if !isRegression(c.Model.Model) {
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(c.Model.Scale)) {
	case model.ScaleBounds, model.ScaleAuto:
	default:
		return nil
	}
	intercept := len(names) > 0 && names[0] == "intercept"
	xiv := make([]model.Interval, len(names))
	for j, nm := range names {
		if j == 0 && intercept {
			xiv[j] = model.Interval{Lo: 1, Hi: 1}
			continue
		}
		bd, ok := c.Data.Bounds[nm]
		if !ok {
			return nil // auto without every bound samples the user's units
		}
		xiv[j] = model.Interval{Lo: bd[0], Hi: bd[1]}
	}
	sc, err := model.NewScaling(xiv, names, intercept)
	if err != nil {
		return nil
	}
	return sc
}
