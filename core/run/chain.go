package run

import (
	"context"
	"fmt"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
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
	// Accepted counts accept decisions since the start of the chain. It is a
	// function of the draws (a rejected proposal repeats the position) for
	// MH-type kernels, shown locally only.
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
	Accepted  int
	Clipped   int64
	Rows      int64
	Divergent int
}

// runChain drives kernel k from theta0 for warmup+draws iterations, checking
// ctx between iterations. It returns the partial result and ctx.Err() when
// cancelled.
func runChain(ctx context.Context, k mcmc.Kernel, r rng.Streams, theta0 []float64, c, warmup, draws, every int, progress func(Progress)) (*ChainResult, error) {
	if err := k.Init(theta0); err != nil {
		return nil, fmt.Errorf("chain %d: %w", c+1, err)
	}
	dim := len(theta0)
	total := warmup + draws
	res := &ChainResult{
		Dim:    dim,
		Warmup: make([]float64, 0, warmup*dim),
		Draws:  make([]float64, 0, draws*dim),
	}
	ad, adaptive := k.(mcmc.Adaptive)
	if p, ok := k.(mcmc.WarmupPlanner); ok && adaptive {
		p.PlanWarmup(warmup)
	}
	if adaptive && warmup == 0 {
		ad.EndWarmup()
	}
	if every <= 0 {
		every = 100
	}
	buf := make([]float64, 0, every*dim)
	flush := func(it int) {
		if progress != nil {
			progress(Progress{Chain: c, Iteration: it, Total: total, Warmup: warmup, Draws: buf, Accepted: res.Accepted})
		}
		buf = buf[:0]
	}
	for it := 0; it < total; it++ {
		if it%16 == 0 {
			if err := ctx.Err(); err != nil {
				flush(it)
				return res, err
			}
		}
		info := k.Step(r)
		res.Iterations++
		if info.Accepted {
			res.Accepted++
		}
		res.Clipped += int64(info.Clipped)
		res.Rows += int64(info.Rows)
		if info.Divergent {
			res.Divergent++
		}
		pos := k.Position()
		if it < warmup {
			res.Warmup = append(res.Warmup, pos...)
			if adaptive {
				ad.Adapt(it, info)
				if it == warmup-1 {
					ad.EndWarmup()
				}
			}
		} else {
			res.Draws = append(res.Draws, pos...)
		}
		buf = append(buf, pos...)
		if (it+1)%every == 0 || it+1 == total {
			flush(it + 1)
		}
	}
	return res, nil
}
