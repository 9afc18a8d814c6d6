package run

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// PriorShifts estimates, for each parameter of a regression run, how far
// its N(0, s²) prior moves the posterior mean, in posterior sds, jointly
// over the coefficients (report.PriorPull's marginal estimate misses the
// slopes that move with a pulled intercept: a review saw a bmi slope of
// 1.99 against least squares' 0.73 on 60 rows, with only the intercept
// named). With a Gaussian likelihood of mean m̂ and precision Λ and the
// prior precision P = I/s² (on the prior's own parameterization: the
// scaled coefficients for scale bounds and noise-aware, the user's units
// otherwise), the posterior has covariance Σ = (Λ + P)⁻¹ and mean
// m = ΣΛm̂, so Λ = Σ⁻¹ − P and m̂ − m = Λ⁻¹Pm: exact for the linear model
// with known σ, a normal approximation otherwise. Σ and m are the draws'
// (after warmup, mapped to the prior's parameterization); the shift is
// mapped back to the user's units (the map is linear) and divided by each
// parameter's posterior sd there, signed: positive where the prior pulls
// the mean toward 0, negative where, through its correlation with pulled
// coefficients, it moves the mean away from 0 (the review's bmi slope). nil when it cannot be estimated: too
// few draws for the dimension (fewer than 20 per parameter), or a Λ that
// is not positive definite (a direction the data barely inform, where
// the posterior is the prior's). Computed from the released draws and the
// public config: post-processing.
func PriorShifts(cfg *Config, d *export.Draws) []float64 {
	if d == nil || !isRegression(cfg.Model.Model) {
		return nil
	}
	s, scaled := ModelPrior(cfg)
	if h, ok := NoiseAwareOutcomeHalf(cfg); ok {
		s *= h
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
	mathx.SolveLower(lambda, k, shift)
	mathx.SolveLowerT(lambda, k, shift)
	if sc != nil {
		sc.ToUser(shift)
	}
	for j := range k {
		sd := math.Sqrt(varU[j])
		if !(sd > 0) {
			return nil
		}
		// Positive: the data alone would put the mean farther from 0 on
		// its side (a pull toward 0); negative: nearer, or across it.
		shift[j] = shift[j] / sd
		if mu[j] < 0 {
			shift[j] = -shift[j]
		}
	}
	return shift
}
