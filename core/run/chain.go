package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Progress is reported by a chain every ProgressEvery iterations and at its end.
type Progress struct {
	Chain     int
	Iteration int // iterations done, warmup included
	Total     int // iterations planned, warmup included
	Warmup    int
	// Draws holds the positions of the iterations done since the last
	// report, row-major (iterations × dim). It is owned by the callee only
	// during the call.
	Draws []float64
	// Accepted counts accept decisions since the start of the chain (local
	// diagnostic, not exported).
	Accepted int
}

// ChainResult is what one chain produced. Warmup draws are kept apart.
type ChainResult struct {
	Dim    int
	Warmup []float64 // warmup positions, row-major (iterations × Dim)
	Draws  []float64 // post-warmup positions, row-major
	// Iterations is the number of iterations that ran (warmup included); it
	// is less than planned when the run was cancelled. Privacy accounting
	// uses this number, never the planned one.
	Iterations int
	// Local diagnostics: not private, never exported.
	Accepted int
	Clipped  int64
	Rows     int64
	// Divergent counts divergent transitions after warmup (Stan's
	// diagnostic); DivergentWarmup those during warmup, expected while the
	// step and metric adapt.
	Divergent       int
	DivergentWarmup int
}

// Chain is one chain advanced in slices, so that a caller without threads
// (a browser worker) can yield between slices and cancel exactly: the
// iterations counted are the iterations that ran.
type Chain struct {
	k        mcmc.Kernel
	r        rng.Streams
	ad       mcmc.Adaptive
	warmup   int
	total    int
	it       int
	res      *ChainResult
	ended    bool
	initDone bool
	err      error // a *NonFiniteError once the state became non-finite
	alg      string
	step     float64
	chain    int
	// scaling maps the kernel's position (coefficients of the scaled
	// predictors) to the user's units before it is stored; user is its
	// buffer. nil: the position is stored as it is.
	scaling *model.Scaling
	user    []float64
}

// NonFiniteError is returned when a chain's state becomes NaN or ±Inf: the
// chain stops there (no non-finite draw is stored or exported). The
// iterations that ran, the failing one included, are counted for privacy.
type NonFiniteError struct {
	Algorithm string
	Chain     int     // 1-based
	Iteration int     // 1-based, warmup included
	Total     int     // iterations planned for the chain
	Step      float64 // the step the kernel ran with (0: none)
}

func (e *NonFiniteError) Error() string {
	fix := "lower --step"
	if e.Algorithm == "dp-sgnht" {
		fix = "lower --step (the learning rate η), or leave it unset for the default matched to the planned noise"
	}
	step := ""
	if e.Step > 0 {
		step = fmt.Sprintf(" at step %g", e.Step)
	}
	return fmt.Sprintf("%s chain %d: the state became non-finite (NaN or Inf) at iteration %d of %d%s: the dynamics diverged; %s. The run stopped without draws; the privacy report counts the iterations that ran", e.Algorithm, e.Chain, e.Iteration, e.Total, step, fix)
}

// NewChain returns chain c (0-based) of the prepared run with noise key key,
// positioned at its data-independent initial value. It refuses an
// algorithm that makes one release for the whole run (noise-aware): use
// NewChainSharedKey when every chain of the run gets the same key.
func (p *Prepared) NewChain(c int, key rng.Key) (*Chain, error) {
	return p.newChain(c, key, false)
}

// ErrNeedsSharedKey is returned by NewChain for an algorithm whose one
// private release is shared by all chains (noise-aware): with a key per
// chain every chain would make its own release, and the report, which
// counts one, would understate ε.
var ErrNeedsSharedKey = errors.New("noise-aware makes one private release for the whole run: every chain must get the same noise key (NewChainSharedKey); a key per chain would make one release per chain")

// NewChainSharedKey is NewChain for a caller that gives every chain of the
// run the same noise key (as Run does). Algorithms with one release per run
// derive it from that key, so all chains share it.
func (p *Prepared) NewChainSharedKey(c int, key rng.Key) (*Chain, error) {
	return p.newChain(c, key, true)
}

// NewChainFromRelease is NewChain for an algorithm with one release per run
// (SharedRelease) when the release was made elsewhere: release is the JSON
// of another chain's release (Chain.ReleaseJSON), made by a chain of the
// same run with its own key. The chain samples from that release; key
// drives only its own draws. This is how chains that run apart (the page's
// workers, each with its own key) share ONE release: the first chain makes
// it (NewChainSharedKey), the others adopt it.
func (p *Prepared) NewChainFromRelease(c int, key rng.Key, release []byte) (*Chain, error) {
	if !SharedRelease(p.Config.Algorithm) {
		return nil, fmt.Errorf("%s makes no release shared by the chains", p.Config.Algorithm)
	}
	var rel noiseaware.Release
	if err := json.Unmarshal(release, &rel); err != nil {
		return nil, fmt.Errorf("the shared release: %w", err)
	}
	return p.newChainWith(c, key, func(rk releaser) error { return rk.Adopt(&rel) })
}

// ReleaseJSON returns the release the chain samples from as JSON (for
// NewChainFromRelease), or nil for an algorithm without a shared release.
// It is the mechanism's differentially private output (public once
// released), never the noise key or the data.
func (ch *Chain) ReleaseJSON() ([]byte, error) {
	rk, ok := ch.k.(releaser)
	if !ok || rk.Released() == nil {
		return nil, nil
	}
	return json.Marshal(rk.Released())
}

func (p *Prepared) newChain(c int, key rng.Key, sharedKey bool) (*Chain, error) {
	return p.newChainWith(c, key, func(rk releaser) error {
		if !sharedKey {
			return ErrNeedsSharedKey
		}
		return rk.Release(rng.ForChain(p.Config.Seed, key, releaseStream).Noise)
	})
}

// newChainWith builds chain c; release is called for an algorithm with a
// shared release (it makes or adopts the release) before anything else.
func (p *Prepared) newChainWith(c int, key rng.Key, release func(releaser) error) (*Chain, error) {
	if c < 0 || c >= p.Config.Chains {
		return nil, fmt.Errorf("chain %d out of range 1..%d", c+1, p.Config.Chains)
	}
	k, err := newKernel(p.Config.Algorithm, p.Model, p.Config.Settings, p.Config)
	if err != nil {
		return nil, err
	}
	if rk, ok := k.(releaser); ok {
		// One release for the run: every chain derives the same stream
		// from the shared key, or adopts the release another chain made
		// (noiseaware.Kernel).
		if err := release(rk); err != nil {
			if errors.Is(err, ErrNeedsSharedKey) {
				return nil, err
			}
			return nil, fmt.Errorf("chain %d: %w", c+1, err)
		}
	}
	if !IsPrivate(p.Config.Algorithm) {
		// Nothing to protect: the accept decisions follow from the public
		// seed too, so that the same seed gives the same draws.
		key = rng.PublicKey(p.Config.Seed)
	}
	r := rng.ForChain(p.Config.Seed, key, c)
	theta0 := p.initial(r)
	if ic, err := initConfig(p.Config, p.Model.N()); err != nil {
		return nil, err
	} else if ic != nil {
		ic.Box = box(p.Model, p.Config.Settings.Box)
		if theta0, err = mcmc.DPInit(p.Model, *ic, theta0, r); err != nil {
			return nil, fmt.Errorf("chain %d: %w", c+1, err)
		}
	}
	if err := k.Init(theta0); err != nil {
		var nf *mcmc.NonFiniteStartError
		if errors.As(err, &nf) && nf.Index < len(p.Model.ParamNames()) {
			where := ""
			if model.ScalingOf(p.Model) != nil {
				where = " on the scaled predictors' space (--scale bounds)"
			}
			return nil, fmt.Errorf("chain %d: the starting value of %s is %v%s: give finite --init values within the prior's range, or leave --init to its default", c+1, p.Model.ParamNames()[nf.Index], nf.Value, where)
		}
		return nil, fmt.Errorf("chain %d: %w", c+1, err)
	}
	dim := len(theta0)
	warmup, draws := p.Config.Warmup, p.Config.Draws
	ch := &Chain{k: k, r: r, warmup: warmup, total: warmup + draws, alg: p.Config.Algorithm, step: p.Config.Settings.Step, chain: c + 1, scaling: model.ScalingOf(p.Model), user: make([]float64, dim), res: &ChainResult{
		Dim:    dim,
		Warmup: make([]float64, 0, warmup*dim),
		Draws:  make([]float64, 0, draws*dim),
	}}
	if ad, ok := k.(mcmc.Adaptive); ok {
		ch.ad = ad
		if pl, ok := k.(mcmc.WarmupPlanner); ok {
			pl.PlanWarmup(warmup)
		}
		if warmup == 0 {
			ad.EndWarmup()
		}
	}
	return ch, nil
}

// Total is the number of iterations planned, warmup included.
func (ch *Chain) Total() int { return ch.total }

// Done is the number of iterations that ran.
func (ch *Chain) Done() int { return ch.it }

// Finished reports whether the chain will run no more iterations: every
// planned one ran, or it stopped on a non-finite state (Err).
func (ch *Chain) Finished() bool { return ch.it >= ch.total || ch.err != nil }

// Err is the *NonFiniteError that stopped the chain, or nil.
func (ch *Chain) Err() error { return ch.err }

// Advance runs up to k more iterations and returns the positions they
// produced (row-major), a view into the result valid until the next call.
func (ch *Chain) Advance(k int) []float64 {
	res := ch.res
	startW, startD := len(res.Warmup), len(res.Draws)
	inWarmup := ch.it < ch.warmup
	for n := 0; n < k && ch.it < ch.total && ch.err == nil; n++ {
		info := ch.k.Step(ch.r)
		res.Iterations++
		if info.Accepted {
			res.Accepted++
		}
		res.Clipped += int64(info.Clipped)
		res.Rows += int64(info.Rows)
		if info.Divergent {
			if ch.it < ch.warmup {
				res.DivergentWarmup++
			} else {
				res.Divergent++
			}
		}
		pos := ch.k.Position()
		if ch.scaling != nil {
			copy(ch.user, pos)
			ch.scaling.ToUser(ch.user)
			pos = ch.user
		}
		if !allFinite(pos) {
			ch.it++
			ch.err = &NonFiniteError{Algorithm: ch.alg, Chain: ch.chain, Iteration: ch.it, Total: ch.total, Step: ch.step}
			break
		}
		if ch.it < ch.warmup {
			res.Warmup = append(res.Warmup, pos...)
			if ch.ad != nil {
				ch.ad.Adapt(ch.it, info)
				if ch.it == ch.warmup-1 {
					ch.ad.EndWarmup()
				}
			}
		} else {
			res.Draws = append(res.Draws, pos...)
		}
		ch.it++
	}
	switch {
	case inWarmup && len(res.Draws) > startD:
		// The slice crossed the end of warmup: return both parts.
		out := make([]float64, 0, len(res.Warmup)-startW+len(res.Draws)-startD)
		out = append(out, res.Warmup[startW:]...)
		return append(out, res.Draws[startD:]...)
	case inWarmup:
		return res.Warmup[startW:]
	default:
		return res.Draws[startD:]
	}
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Result is what the chain has produced so far.
func (ch *Chain) Result() *ChainResult { return ch.res }

// runChain drives chain ch to the end in slices of every iterations,
// checking ctx between slices (and every 16 iterations within none: slices
// are short). It returns the partial result and ctx.Err() when cancelled.
func runChain(ctx context.Context, ch *Chain, c, every int, progress func(Progress)) (*ChainResult, error) {
	if every <= 0 {
		every = 100
	}
	slice := min(every, 16)
	var buf []float64
	last := 0
	for !ch.Finished() {
		if err := ctx.Err(); err != nil {
			if progress != nil && len(buf) > 0 {
				progress(Progress{Chain: c, Iteration: ch.it, Total: ch.total, Warmup: ch.warmup, Draws: buf, Accepted: ch.res.Accepted})
			}
			return ch.res, err
		}
		buf = append(buf, ch.Advance(slice)...)
		if ch.it-last >= every || ch.Finished() {
			if progress != nil {
				progress(Progress{Chain: c, Iteration: ch.it, Total: ch.total, Warmup: ch.warmup, Draws: buf, Accepted: ch.res.Accepted})
			}
			buf = buf[:0]
			last = ch.it
		}
	}
	return ch.res, ch.err
}
