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
	plan  *MeanPlan
	m     model.Model
	ms    model.MeanStatistic
	rel   *Release
	mean  []float64 // posterior mean of y
	chol  []float64 // lower Cholesky factor of y's posterior covariance
	y     []float64
	ready bool
	iidPosition
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
	d := m.Dim()
	return &MeanKernel{plan: p, m: m, ms: ms, y: make([]float64, d), iidPosition: iidPosition{make([]float64, d)}}, nil
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
	return k.use(&Release{Family: k.m.Name(), D: k.m.Dim(), S: [][]float64{means}})
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
	mean, cov, err := k.ms.PosteriorGivenNoisyMeans(rel.S[0], nv)
	if err != nil {
		return fmt.Errorf("noise-aware: %w", err)
	}
	if err := cholesky(cov, len(mean)); err != nil {
		return err
	}
	k.rel, k.mean, k.chol, k.ready = rel, mean, cov, true
	return nil
}

// Step implements mcmc.Kernel: y = mean + L·z with z ~ N(0, I) from the
// chain's noise stream, then θ = g(y). It allocates nothing.
func (k *MeanKernel) Step(r rng.Streams) mcmc.Info {
	if !k.ready { // Release not called: nothing to draw from
		return mcmc.Info{Divergent: true}
	}
	d := len(k.y)
	for i := range d {
		k.y[i] = r.Noise.NormFloat64()
	}
	for i := d - 1; i >= 0; i-- { // y ← L·z in place, from the last row up
		s := 0.0
		for j := 0; j <= i; j++ {
			s += k.chol[i*d+j] * k.y[j]
		}
		k.y[i] = s
	}
	for i := range d {
		k.y[i] += k.mean[i]
	}
	k.ms.FromGaussian(k.y, k.pos)
	return mcmc.Info{Accepted: true}
}

// Released returns the release the kernel samples from (nil before
// Release): the differentially private output, not the data; callers must
// not modify it.
func (k *MeanKernel) Released() *Release { return k.rel }
