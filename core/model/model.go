// Package model defines the Bayesian models the samplers target. A model
// answers per-row questions over a contiguous row-major table: per-row
// log-likelihoods (tempered), per-row gradients, the log prior and its
// gradient, and the public per-row bounds differential privacy needs.
//
// Notation: ℓ_i(θ) = F · log p(x_i | θ) is the tempered log-likelihood of row
// i (F = Spec.Temper, 1 by default), and the target is
// π(θ) ∝ p(θ) · Π_i exp(ℓ_i(θ)).
//
// Models (built from a JSON-serializable Spec and a dataset.Table by Build;
// Models lists them with their options): Logistic, Linear and Poisson
// regression with N(0, s²) priors; the DP-HMC paper's GaussianMean (known
// covariance) and Banana; the Welling–Teh GMM. Per-row log-likelihoods are
// normalized log densities (times F); log priors are normalized too. Built
// models are immutable and safe for concurrent use.
package model

// Model is one posterior. Implementations must not allocate in LogLik,
// GradLogLikRow, GradLogLik, LogPrior or GradLogPrior.
type Model interface {
	Name() string
	Dim() int
	ParamNames() []string
	// N is the number of rows (public, as the papers assume).
	N() int

	// LogLik writes ℓ_i(θ) into out[k] for i = rows[k]; when rows is nil it
	// writes every row, out[i] = ℓ_i(θ), and len(out) must be N().
	LogLik(theta []float64, rows []int, out []float64)
	// GradLogLikRow writes ∇θ ℓ_i(θ) into grad (len Dim()).
	GradLogLikRow(theta []float64, i int, grad []float64)
	// GradLogLik writes Σ_{i∈rows} ∇θ ℓ_i(θ) into grad (all rows when rows is nil).
	GradLogLik(theta []float64, rows []int, grad []float64)

	// LogPrior is log p(θ) up to a constant; -Inf outside the support.
	LogPrior(theta []float64) float64
	// GradLogPrior writes ∇θ log p(θ) into grad.
	GradLogPrior(theta []float64, grad []float64)

	// RowBounds returns public bounds on the per-row log-likelihood for θ in
	// the box (nil: all of R^d). They are derived only from the public column
	// bounds of the data and from the box, never from data values. Fields that
	// do not exist for this model and box are +Inf.
	RowBounds(box []Interval) RowBounds
}

// LogLikGrader is implemented by models that compute the full-data
// log-likelihood and its gradient in one pass over the rows (HMC needs both
// at the end of a trajectory). LogLikGrad returns Σ_i ℓ_i(θ), bit for bit
// the sum of LogLik's values in row order, and writes Σ_i ∇ℓ_i(θ) into grad,
// bit for bit GradLogLik's. It must not allocate.
type LogLikGrader interface {
	LogLikGrad(theta, grad []float64) float64
}

var _ LogLikGrader = (*Logistic)(nil)

// Interval is a closed interval [Lo, Hi] for one parameter.
type Interval struct{ Lo, Hi float64 }

// RowBounds are public, data-independent bounds that hold for every row that
// lies within the public column bounds, and every θ, θ' in the box.
type RowBounds struct {
	// Lipschitz: |ℓ_i(θ) − ℓ_i(θ')| ≤ Lipschitz · ‖θ − θ'‖₂.
	Lipschitz float64
	// GradNorm: ‖∇θ ℓ_i(θ)‖₂ ≤ GradNorm.
	GradNorm float64
	// AbsLogLik: |ℓ_i(θ)| ≤ AbsLogLik (the B of one-posterior-sample).
	AbsLogLik float64
}

// LogLikSum returns Σ_{i∈rows} ℓ_i(θ) using buf (len ≥ len(rows), or N() when
// rows is nil) as scratch space.
func LogLikSum(m Model, theta []float64, rows []int, buf []float64) float64 {
	n := len(rows)
	if rows == nil {
		n = m.N()
	}
	buf = buf[:n]
	if fm, ok := m.(fusedPasser); ok {
		return fm.logLikFused(theta, rows, nil, buf, true)
	}
	m.LogLik(theta, rows, buf)
	s := 0.0
	for _, v := range buf {
		s += v
	}
	return s
}

// Compile-time checks that every model implements Model.
var (
	_ Model = (*Logistic)(nil)
	_ Model = (*Linear)(nil)
	_ Model = (*Poisson)(nil)
	_ Model = (*GaussianMean)(nil)
	_ Model = (*GMM)(nil)
	_ Model = (*Banana)(nil)

	_ MeanStatistic = (*Banana)(nil)
	_ MeanStatistic = (*GaussianMean)(nil)
)

// MeanStatistic is a model whose likelihood reads the data only through the
// means of its data columns, x̄ ~ N(μ(θ), Σ/(n·F)) with known Σ (the banana,
// whose Σ is diagonal, and the Gaussian mean model), and in which prior and
// likelihood are Gaussian in coordinates y = g⁻¹(θ) with μ(θ) = y and
// Jacobian 1. One release of the clipped column sums, with Gaussian noise,
// then gives the exact posterior given the release in closed form: a
// private start at its mode (mcmc.DPInit) or iid draws from it
// (core/noiseaware's MeanKernel); no gradient steps are needed.
type MeanStatistic interface {
	// MeanBounds returns the public bound of each data column the
	// likelihood reads (±Inf where none was given).
	MeanBounds() []Interval
	// AppendColumn appends the n values of data column j to dst.
	AppendColumn(j int, dst []float64) []float64
	// PosteriorGivenNoisyMeans returns the posterior of y given released
	// means m̃ = x̄ + e, e ~ N(0, diag(noiseVar)) independent of x̄: the
	// likelihood of m̃ is N(y, Σ/(n·F) + diag(noiseVar)), the prior of y is
	// the model's, and the posterior is y ~ N(mean, cov) (cov d × d,
	// row-major). θ = FromGaussian(y); its mode is FromGaussian(mean).
	PosteriorGivenNoisyMeans(means, noiseVar []float64) (mean, cov []float64, err error)
	// FromGaussian maps y to θ = g(y).
	FromGaussian(y, theta []float64)
	// MeanVariances returns σ_j²/F for each data column: the (tempered)
	// variance of one row's value under the model, so that the column
	// mean's sampling variance is it over n. Public: the model's known
	// variances and the temper.
	MeanVariances() []float64
}
