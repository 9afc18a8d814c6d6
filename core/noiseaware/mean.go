package noiseaware

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// The noise-aware sampler of the mean-statistic models (model.MeanStatistic:
// the Gaussian mean model with known covariance and the banana). Their
// likelihood reads the data only through the column means, x̄ ~ N(μ(θ),
// Σ/(n·F)), so one release is enough and the posterior given it is exact:
//
//	release   S̃_j = Σᵢ clip_j(x_ij) + h_j·e_j,  e ~ N(0, σ²I),  σ = Δ/μ,
//	          Δ = 2√k for k columns (replace-one; each column's sum scaled
//	          by h_j, the half-width of its public bound, moves by at most
//	          2), on the release grid (mcmc.ReleaseNoisyMeans);
//	posterior m̃ = S̃/n ~ N(y, Σ/(n·F) + diag((h_j·σ/n)²)) with y = g⁻¹(θ)
//	          = μ(θ), y Gaussian a priori, so y | m̃ is Gaussian in closed
//	          form (PosteriorGivenNoisyMeans) and θ = g(y).
//
// This is Bernstein & Sheldon's noise-aware inference for exponential
// families ("Differentially private Bayesian inference for exponential
// families", NeurIPS 2018) in the case where the sufficient statistic's
// sampling distribution is exactly Gaussian: no normal approximation and no
// MCMC, every draw is an independent exact draw. The one approximation is
// clipping: a row outside its public bound enters the release at the
// bound, which the likelihood does not model (the run counts such values
// on the user's screen).

// MeanPlan is the public schedule of the mean-statistic release: one
// Gaussian mechanism on the column sums scaled by their half-widths.
// Everything in it comes from the public bounds and the budget.
type MeanPlan struct {
	// Columns is the number of data columns released, Half their bounds'
	// half-widths h_j.
	Columns int
	Half    []float64
	// Sensitivity is the L2 sensitivity Δ = 2√k of the scaled sums
	// (mcmc.MeanSumsSensitivity, replace-one), Std their noise std σ: a
	// column's sum gets noise of std h_j·σ.
	Sensitivity, Std float64
	// Mu is the release's accounted μ (GDP): Δ/Std plus the grid's
	// inflation (mcmc.GridInflation of Columns coordinates).
	Mu float64
	// auditScale multiplies the noise std actually used (AuditSeedBugMean);
	// 1 otherwise.
	auditScale float64
}

// ColumnStd is the noise std on column j's sum, h_j·σ.
func (p *MeanPlan) ColumnStd(j int) float64 { return p.Half[j] * p.Std }

// NewMeanPlan returns the plan for columns with public bounds ivs whose
// release is accounted at μ = mu, grid inflation included.
func NewMeanPlan(ivs []model.Interval, mu float64) (*MeanPlan, error) {
	nominal := mu - mcmc.GridInflation(len(ivs), GridBits)
	if !(nominal > 0) || math.IsInf(mu, 1) {
		return nil, fmt.Errorf("noise-aware: budget too small for the release (μ = %v)", mu)
	}
	sens, err := mcmc.MeanSumsSensitivity(ivs, privacy.Replace)
	if err != nil {
		return nil, fmt.Errorf("noise-aware: %w", err)
	}
	std := sens / nominal
	half := make([]float64, len(ivs))
	for j, iv := range ivs {
		half[j] = iv.Hi/2 - iv.Lo/2
		if s := half[j] * std; math.IsInf(s, 1) {
			return nil, fmt.Errorf("noise-aware: data column %d's bound is too wide for a release (its noise std overflows)", j+1)
		}
	}
	// μ as accounted, from the std that runs (not the target it came from).
	acc := sens/std + mcmc.GridInflation(len(ivs), GridBits)
	if acc > mu*(1+1e-12) {
		return nil, fmt.Errorf("noise-aware: internal error: μ %v exceeds the budget's %v", acc, mu)
	}
	return &MeanPlan{Columns: len(ivs), Half: half, Sensitivity: sens, Std: std, Mu: acc, auditScale: 1}, nil
}

// AuditSeedBugMean turns p into a known-unsound variant for the black-box
// privacy audit (core/audit) only: the noise std actually added is
// multiplied by scale while the claimed μ (and so the report's ε) stays.
// Nothing else calls it: no config field, JSON name or flag reaches it.
func AuditSeedBugMean(p *MeanPlan, scale float64) { p.auditScale = scale }

// MeanKernel serves the mean-statistic noise-aware posterior through the
// project's kernel shape (mcmc.Kernel), like Kernel for the regressions:
// Release (or Adopt) once before the first Step, then every Step is an
// independent exact posterior draw (post-processing of the release).
type MeanKernel struct {
	plan *MeanPlan
	m    model.Model
	rel  *Release
	gaussianDraws
}

var _ mcmc.Kernel = (*MeanKernel)(nil)

// NewMeanKernel returns the kernel of model m (a model.MeanStatistic whose
// data columns match the plan's).
func NewMeanKernel(m model.Model, p *MeanPlan) (*MeanKernel, error) {
	ms, ok := m.(model.MeanStatistic)
	if !ok {
		return nil, fmt.Errorf("noise-aware: model %s does not read its data through column means", m.Name())
	}
	ivs := ms.MeanBounds()
	if len(ivs) != p.Columns {
		return nil, fmt.Errorf("noise-aware: the plan releases %d columns, model %s reads %d", p.Columns, m.Name(), len(ivs))
	}
	// The release scales each column's noise by the model's bounds, its
	// posterior by the plan's: both come from the same public bounds.
	for j, iv := range ivs {
		if h := iv.Hi/2 - iv.Lo/2; h != p.Half[j] {
			return nil, fmt.Errorf("noise-aware: model %s's column %d has half-width %v, the plan %v", m.Name(), j+1, h, p.Half[j])
		}
	}
	return &MeanKernel{plan: p, m: m, gaussianDraws: newGaussianDraws(ms, m.Dim())}, nil
}

// Name implements mcmc.Kernel.
func (k *MeanKernel) Name() string { return "noise-aware" }

// Release performs the private release with the given noise stream.
func (k *MeanKernel) Release(noise *rand.Rand) error {
	n := k.m.N()
	means, _, err := mcmc.ReleaseNoisyMeans(k.ms, n, n, k.plan.Std*k.plan.auditScale, GridBits, noise)
	if err != nil {
		return fmt.Errorf("noise-aware: %w", err)
	}
	return k.use(&Release{Family: k.m.Name(), D: k.m.Dim(), S: [][]float64{means}, N: n, NoiseStd: []float64{k.plan.Std}})
}

// Adopt makes the kernel sample from rel, a release made by another kernel
// of the same run, after checking it against this kernel's model and plan
// (the model's name, d, one vector of Columns finite means). The noise
// variance comes from this kernel's plan, never from rel.
func (k *MeanKernel) Adopt(rel *Release) error {
	if rel == nil {
		return errors.New("noise-aware: no release to adopt")
	}
	if rel.Family != k.m.Name() || rel.D != k.m.Dim() {
		return fmt.Errorf("noise-aware: the release is for %s with d = %d, this run is %s with d = %d", rel.Family, rel.D, k.m.Name(), k.m.Dim())
	}
	if err := rel.checkOrigin(k.m.N(), []float64{k.plan.Std}); err != nil {
		return err
	}
	if len(rel.S) != 1 || len(rel.S[0]) != k.plan.Columns || len(rel.Theta) != 0 || len(rel.M) != 0 {
		return fmt.Errorf("noise-aware: a mean-statistic release is one vector of %d column means", k.plan.Columns)
	}
	// A released mean is a bound's midpoint plus a clipped mean (inside the
	// bound) plus noise of sd σ/n: one more than 50 noise sds outside its
	// bound is not a release of this run's plan.
	ivs := k.ms.MeanBounds()
	for j, v := range rel.S[0] {
		iv := ivs[j]
		margin := 50 * k.plan.ColumnStd(j) / float64(k.m.N())
		if math.IsNaN(v) || math.IsInf(v, 0) || v < iv.Lo-margin || v > iv.Hi+margin {
			return fmt.Errorf("noise-aware: released mean %d (%v) is not finite or lies more than 50 noise sds outside its column's bound [%v, %v]", j+1, v, iv.Lo, iv.Hi)
		}
	}
	return k.use(rel)
}

// use sets the posterior given the released means of rel.
func (k *MeanKernel) use(rel *Release) error {
	n := float64(k.m.N())
	nv := make([]float64, k.plan.Columns)
	for j := range nv {
		nv[j] = (k.plan.ColumnStd(j) / n) * (k.plan.ColumnStd(j) / n)
	}
	if err := k.set(rel.S[0], nv); err != nil {
		return fmt.Errorf("noise-aware: %w", err)
	}
	k.rel = rel
	return nil
}

// Released returns the release the kernel samples from (nil before
// Release): the differentially private output, not the data; callers must
// not modify it.
func (k *MeanKernel) Released() *Release { return k.rel }

// gaussianDraws draws θ = g(y) with y ~ N(mean, L·Lᵀ) independently at
// every Step: the posterior of a mean-statistic model given its column
// means (released with noise, or exact), shared by MeanKernel and
// ExactMeanKernel.
type gaussianDraws struct {
	ms   model.MeanStatistic
	mean []float64 // posterior mean of y
	chol []float64 // lower Cholesky factor of y's posterior covariance
	y    []float64
	// public: draw z from the seeded public stream (the exact sampler: its
	// draws are then reproducible from the seed, since it has no accept
	// step, whose draws come from the noise stream in every other kernel);
	// else from the noise stream (MeanKernel, whose release is fresh at
	// every run anyway).
	public bool
	iidPosition
}

func newGaussianDraws(ms model.MeanStatistic, d int) gaussianDraws {
	return gaussianDraws{ms: ms, y: make([]float64, d), iidPosition: iidPosition{make([]float64, d)}}
}

// set sets the posterior of y given means m̃ whose noise variances are
// noiseVar (all 0 for the exact means).
func (g *gaussianDraws) set(means, noiseVar []float64) error {
	mean, cov, err := g.ms.PosteriorGivenNoisyMeans(means, noiseVar)
	if err != nil {
		return err
	}
	if cholesky(cov, len(mean)) != nil {
		return errors.New("the posterior covariance is not positive definite")
	}
	g.mean, g.chol = mean, cov
	return nil
}

// Step implements mcmc.Kernel: y = mean + L·z with z ~ N(0, I) from the
// chain's noise stream (the public one for the exact sampler), then θ = g(y). It allocates nothing.
func (g *gaussianDraws) Step(r rng.Streams) mcmc.Info {
	if g.mean == nil { // no posterior set (Release not called)
		return mcmc.Info{Divergent: true}
	}
	d := len(g.y)
	src := r.Noise
	if g.public {
		src = r.Public
	}
	for i := range d {
		g.y[i] = src.NormFloat64()
	}
	for i := d - 1; i >= 0; i-- { // y ← L·z in place, from the last row up
		s := 0.0
		for j := 0; j <= i; j++ {
			s += g.chol[i*d+j] * g.y[j]
		}
		g.y[i] = s
	}
	for i := range d {
		g.y[i] += g.mean[i]
	}
	g.ms.FromGaussian(g.y, g.pos)
	return mcmc.Info{Accepted: true}
}

// ExactMeanKernel is the NON-PRIVATE exact sampler of the mean-statistic
// models (algorithm "exact"): their posterior given the data's exact
// column means is closed-form (PosteriorGivenNoisyMeans with zero noise:
// the Gaussian model's N(mean, cov), the banana's Ban(μ, diag(v), a),
// thesis Theorem 5), so every Step is an independent exact draw, with no
// warmup, tuning or convergence to wait for. It reads the data itself and
// releases nothing private: its draws are not differentially private.
type ExactMeanKernel struct {
	gaussianDraws
}

var _ mcmc.Kernel = (*ExactMeanKernel)(nil)

// NewExactMeanKernel returns the exact sampler of model m (a
// model.MeanStatistic), its posterior set from the column means of m's
// data.
func NewExactMeanKernel(m model.Model) (*ExactMeanKernel, error) {
	ms, ok := m.(model.MeanStatistic)
	if !ok {
		return nil, fmt.Errorf("exact: model %s has no closed-form posterior here (exact draws are for the gaussian and banana models)", m.Name())
	}
	n := m.N()
	if n < 1 {
		return nil, errors.New("exact: no rows")
	}
	k := len(ms.MeanBounds())
	means := make([]float64, k)
	var col []float64
	for j := range means {
		col = ms.AppendColumn(j, col[:0])
		s := 0.0
		for _, v := range col {
			s += v
		}
		means[j] = s / float64(n)
	}
	e := &ExactMeanKernel{gaussianDraws: newGaussianDraws(ms, m.Dim())}
	e.public = true
	if err := e.set(means, make([]float64, k)); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	return e, nil
}

// Name implements mcmc.Kernel.
func (k *ExactMeanKernel) Name() string { return "exact" }
