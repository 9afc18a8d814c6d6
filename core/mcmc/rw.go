package mcmc

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// rwChain is the state shared by the full-data random-walk kernels (MH,
// Barker): the current position, its log prior, and the per-row
// log-likelihoods ℓ_i(θ) with their sum, cached so that an iteration evaluates
// the data once, at the proposal. On acceptance the proposal's buffers are
// swapped in, so nothing is copied or allocated.
type rwChain struct {
	m     model.Model
	d, n  int
	step  float64
	scale []float64

	theta, prop   []float64
	llCur, llProp []float64 // ℓ_i at θ and at θ' (len N)
	sumCur, lpCur float64
	ready         bool
}

func newRWChain(m model.Model, name string, step float64, scale []float64) (rwChain, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return rwChain{}, err
	}
	if err := checkStep(name, step); err != nil {
		return rwChain{}, err
	}
	sc, err := checkScale(scale, d)
	if err != nil {
		return rwChain{}, err
	}
	return rwChain{
		m: m, d: d, n: n, step: step, scale: sc,
		theta: make([]float64, d), prop: make([]float64, d),
		llCur: make([]float64, n), llProp: make([]float64, n),
	}, nil
}

func (c *rwChain) init(theta0 []float64) error {
	lp, err := initPosition(c.m, theta0, c.theta, nil)
	if err != nil {
		return err
	}
	c.lpCur = lp
	c.sumCur = logLikAll(c.m, c.theta, c.llCur)
	if !finite(c.sumCur) {
		return errBadLogLik
	}
	c.ready = true
	return nil
}

// evalProposal evaluates log p(θ') and Σ ℓ_i(θ') into llProp. ok is false
// when θ' is outside the prior's support (no data touched).
func (c *rwChain) evalProposal() (lp, sum float64, rows int, ok bool) {
	lp = c.m.LogPrior(c.prop)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return lp, 0, 0, false
	}
	return lp, logLikAll(c.m, c.prop, c.llProp), c.n, true
}

func (c *rwChain) accept(lp, sum float64) {
	c.theta, c.prop = c.prop, c.theta
	c.llCur, c.llProp = c.llProp, c.llCur
	c.lpCur, c.sumCur = lp, sum
}
