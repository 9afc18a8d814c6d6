package noiseaware

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Kernel serves the noise-aware posterior through the project's kernel
// shape (mcmc.Kernel), so that runs, exports and diagnostics treat it like
// any sampler. Release must be called once, with a noise stream that every
// chain of the run derives identically from the run's key, before the first
// Step: the chains then share ONE release, made and accounted once. Each
// Step is an independent posterior draw (post-processing of the release).
type Kernel struct {
	plan *Plan
	m    model.Model
	rd   model.RegressionData
	post *Posterior
	iidPosition
}

var _ mcmc.Kernel = (*Kernel)(nil)

// NewKernel returns the kernel of model m with the release schedule p.
func NewKernel(m model.Model, p *Plan) (*Kernel, error) {
	rd, ok := model.RegressionDataOf(m)
	if !ok {
		return nil, ErrNotRegression
	}
	if rd.D != len(p.Centre) {
		return nil, fmt.Errorf("noise-aware: the plan has %d coefficients, the model %d", len(p.Centre), rd.D)
	}
	return &Kernel{plan: p, m: m, rd: rd, iidPosition: iidPosition{make([]float64, rd.D)}}, nil
}

// Name implements mcmc.Kernel.
func (k *Kernel) Name() string { return "noise-aware" }

// Release performs the private release with the given noise stream.
func (k *Kernel) Release(noise *rand.Rand) error {
	rel, err := Run(k.plan, k.m, noise)
	if err != nil {
		return err
	}
	k.post = NewPosterior(rel)
	return nil
}

// Adopt makes the kernel sample from rel, a release made by another
// kernel of the same run (Release there), instead of releasing itself: the
// run then makes ONE release however many processes run its chains. rel is
// checked against this kernel's plan (Plan.Verify) and used with this
// kernel's plan, never one that came with it. rel is not copied: the caller
// must not modify it.
func (k *Kernel) Adopt(rel *Release) error {
	plan, err := k.plan.Verify(rel, k.rd.Family, k.rd.N, k.rd.D)
	if err != nil {
		return err
	}
	rel.Plan = plan
	k.post = NewPosterior(rel)
	return nil
}

// Verify checks that rel is a release of this plan for a run of family with
// n rows and d coefficients (its number of releases, d, the family, the rows
// and the noise stds it was made with, finite values, symmetric information
// matrices, the first expansion point at the public θ = 0) and returns the
// plan it was made under: p, or p.Design() when its first release chose the
// design-adapted coordinates (Spec.AdaptCoords; recomputed here from the
// release, never taken from the sender). Everything it reads is the
// release, so the answer is post-processing.
func (p *Plan) Verify(rel *Release, family string, n, d int) (*Plan, error) {
	if rel == nil {
		return nil, errors.New("noise-aware: no release to adopt")
	}
	R := p.Releases
	if rel.Family != family || rel.D != d {
		return nil, fmt.Errorf("noise-aware: the release is for %s with d = %d, this run is %s with d = %d", rel.Family, rel.D, family, d)
	}
	if len(rel.Theta) != R || len(rel.S) != R || len(rel.M) != R {
		return nil, fmt.Errorf("noise-aware: the release has %d/%d/%d expansion points, scores, information matrices; the plan makes %d", len(rel.Theta), len(rel.S), len(rel.M), R)
	}
	for r := range R {
		if len(rel.Theta[r]) != d || len(rel.S[r]) != d || len(rel.M[r]) != d*d {
			return nil, fmt.Errorf("noise-aware: release %d has the wrong size for d = %d", r+1, d)
		}
		for _, v := range [][]float64{rel.Theta[r], rel.S[r], rel.M[r]} {
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("noise-aware: release %d holds a value that is not finite", r+1)
				}
			}
		}
		for j := range d {
			for l := j + 1; l < d; l++ {
				if rel.M[r][j*d+l] != rel.M[r][l*d+j] {
					return nil, fmt.Errorf("noise-aware: information matrix %d is not symmetric", r+1)
				}
			}
		}
	}
	for _, v := range rel.Theta[0] {
		if v != 0 {
			return nil, errors.New("noise-aware: the first expansion point of a release is θ = 0")
		}
	}
	plan := p
	if p.preferDesign(rel) {
		plan = p.design
	}
	if err := rel.checkOrigin(n, plan.noiseStds()); err != nil {
		return nil, err
	}
	return plan, nil
}

// iidPosition is the position of a kernel whose draws are independent
// (Kernel, MeanKernel): Init only sets what is reported until the first
// Step.
type iidPosition struct{ pos []float64 }

// Init implements mcmc.Kernel: the position is only reported until the
// first Step (draws are independent of it).
func (k *iidPosition) Init(theta0 []float64) error {
	if len(theta0) != len(k.pos) {
		return fmt.Errorf("initial value has %d entries, want %d", len(theta0), len(k.pos))
	}
	copy(k.pos, theta0)
	return nil
}

// Position implements mcmc.Kernel.
func (k *iidPosition) Position() []float64 { return k.pos }

// Step implements mcmc.Kernel: one independent posterior draw in the
// user's units. Its randomness is the chain's noise stream.
func (k *Kernel) Step(r rng.Streams) mcmc.Info {
	if k.post == nil { // Release not called: nothing to draw from
		return mcmc.Info{Divergent: true}
	}
	k.post.DrawScaled(r.Noise, k.pos)
	k.plan.ToUser(k.pos, k.rd.Intercept)
	return mcmc.Info{Accepted: true}
}

// AuditSeedBug turns the plan into a known-unsound variant for the
// black-box privacy audit (core/audit) only: the noise std of every score
// block is multiplied by scoreScale and that of every information block by
// infoScale, while the blocks' claimed μ (and so the report's ε) stay as
// they were. scoreScale = 0.5 is the halved-noise bug; infoScale ≪ 1 is
// "the information block's sensitivity forgotten". Nothing else calls it:
// no config field, JSON name or flag reaches it.
func AuditSeedBug(p *Plan, scoreScale, infoScale float64) {
	for i := range p.Blocks {
		if i%2 == 0 {
			p.Blocks[i].Std *= scoreScale
		} else {
			p.Blocks[i].Std *= infoScale
		}
	}
}

// Released returns the release the kernel samples from (nil before
// Release). It is the differentially private output of the mechanism, not
// the data; callers must not modify it.
func (k *Kernel) Released() *Release {
	if k.post == nil {
		return nil
	}
	return k.post.rel
}
