package run

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"

	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// PriorShifts estimates, for each parameter of a regression run, how far
// its N(c, s²) prior moves the posterior mean (m̂ − m, in the user's units:
// where the data alone would put it, minus where it is), jointly over the
// coefficients (report.PriorPull's marginal estimate misses the
// slopes that move with a pulled intercept: a review saw a bmi slope of
// 1.99 against least squares' 0.73 on 60 rows, with only the intercept
// named). With a Gaussian likelihood of mean m̂ and precision Λ and the
// prior precision P = I/s² and mean c (on the prior's own
// parameterization: the scaled coefficients for scale bounds and
// noise-aware, the user's units otherwise; c = 0 but for noise-aware
// linear's intercept, PriorCentres), the posterior has covariance
// Σ = (Λ + P)⁻¹ and mean m = Σ(Λm̂ + Pc), so Λ = Σ⁻¹ − P and
// m̂ − m = Λ⁻¹P(m − c): exact for the linear model with known σ, a normal
// approximation otherwise. Σ and m are the draws'
// (after warmup, mapped to the prior's parameterization); the shift is
// mapped back to the user's units (the map is linear, without offset).
// report.PriorPull turns it into posterior sds and a direction. nil when it cannot be estimated: too
// few draws for the dimension (fewer than 20 per parameter), or a Λ that
// is not positive definite (a direction the data barely inform, where
// the posterior is the prior's). Computed from the released draws and the
// public config: post-processing.
func PriorShifts(cfg *Config, d *export.Draws) []float64 {
	if d == nil || !isRegression(cfg.Model.Model) {
		return nil
	}
	s, scaled := ModelPrior(cfg)
	var cy float64 // the intercept's prior centre on the prior's parameterization
	if h, ok := NoiseAwareOutcomeHalf(cfg); ok {
		s *= h
		cy = PriorCentres(cfg, d.Names)["intercept"]
	}
	k := len(d.Names)
	var sc interface {
		FromUser([]float64)
		ToUser([]float64)
	}
	if scaled {
		c := sampledScaling(cfg, d.Names)
		if c == nil {
			return nil
		}
		sc = c
	}
	draws := d.Sampling()
	n := 0
	for _, ch := range draws {
		n += len(ch)
	}
	if !(s > 0) || k == 0 || n < 20*k {
		return nil
	}
	// Means and covariances, in the user's units (u) and the prior's (p).
	mu, mp := make([]float64, k), make([]float64, k)
	x := make([]float64, k)
	for _, ch := range draws {
		for _, row := range ch {
			copy(x, row)
			if sc != nil {
				sc.FromUser(x)
			}
			for j := range k {
				mu[j] += row[j] / float64(n)
				mp[j] += x[j] / float64(n)
			}
		}
	}
	cov := make([]float64, k*k)
	varU := make([]float64, k)
	for _, ch := range draws {
		for _, row := range ch {
			copy(x, row)
			if sc != nil {
				sc.FromUser(x)
			}
			for j := range k {
				du := row[j] - mu[j]
				varU[j] += du * du / float64(n-1)
				for l := range j + 1 {
					cov[j*k+l] += (x[j] - mp[j]) * (x[l] - mp[l]) / float64(n-1)
				}
			}
		}
	}
	// Σ⁻¹ column by column from its Cholesky factor, then Λ = Σ⁻¹ − I/s².
	if !mathx.Cholesky(cov, k) {
		return nil
	}
	lambda := make([]float64, k*k)
	e := make([]float64, k)
	for j := range k {
		clear(e)
		e[j] = 1
		mathx.SolveLower(cov, k, e)
		mathx.SolveLowerT(cov, k, e)
		for l := range k {
			lambda[l*k+j] = e[l]
		}
	}
	for j := range k {
		lambda[j*k+j] -= 1 / (s * s)
		for l := j + 1; l < k; l++ { // symmetrize: the lower triangle is read
			lambda[l*k+j] = (lambda[l*k+j] + lambda[j*k+l]) / 2
		}
	}
	if !mathx.Cholesky(lambda, k) {
		return nil
	}
	shift := make([]float64, k)
	for j := range k {
		shift[j] = mp[j] / (s * s)
	}
	if k > 0 && d.Names[0] == "intercept" {
		shift[0] = (mp[0] - cy) / (s * s)
	}
	mathx.SolveLower(lambda, k, shift)
	mathx.SolveLowerT(lambda, k, shift)
	if sc != nil {
		sc.ToUser(shift)
	}
	for j := range k {
		if !(varU[j] > 0) || math.IsNaN(shift[j]) {
			return nil
		}
	}
	return shift
}

// PriorCentres returns the prior means in the user's units that are not 0:
// noise-aware's linear regression scales the outcome as (y − c_y)/h_y, so
// its intercept's N(0, s²) prior on that scale is centred at c_y in the
// outcome's units (at the predictors' bounds' centres). Empty otherwise.
func PriorCentres(cfg *Config, names []string) map[string]float64 {
	out := map[string]float64{}
	if _, ok := NoiseAwareOutcomeHalf(cfg); !ok || len(names) == 0 || names[0] != "intercept" {
		return out
	}
	b := cfg.Data.Bounds[cfg.Model.Outcome]
	c, _ := noiseaware.OutcomeScaling(model.Interval{Lo: b[0], Hi: b[1]}, true)
	if c != 0 {
		out["intercept"] = c
	}
	return out
}
