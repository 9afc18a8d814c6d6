package experiment

import (
	"context"
	"sync"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// job is one chain: a fresh kernel, its start and its length.
type job struct {
	newKernel func() (mcmc.Kernel, error)
	init      []float64
	iters     int
	id        int // chain index for the streams (unique within a run)
	thin      int // keep every thin-th draw (0, 1: all)
	// adaptUntil calls Adapt on adaptive kernels for the first adaptUntil
	// iterations (0: never).
	adaptUntil int
	// touched, when set, maps an iteration's Info.Rows to the number of
	// distinct data rows it read; chainOut.TouchedAt then holds the
	// cumulative count at every kept draw.
	touched func(rows int) float64
}

// chainOut is what a chain produced. Draws[t] is the position after
// iteration (t+1)·thin.
type chainOut struct {
	Draws     [][]float64
	Iters     int
	Accepted  int
	Clipped   int64
	Rows      int64
	Divergent int
	Kernel    mcmc.Kernel
	// TouchedAt[t] is the cumulative number of rows read up to Draws[t]
	// (only when the job's touched is set).
	TouchedAt []float64
}

// runJobs runs the jobs on o.workers() goroutines with public seed seed
// and one noise key for the whole run.
func runJobs(ctx context.Context, o Options, seed uint64, jobs []job) ([]chainOut, error) {
	key := rng.NewKey()
	out := make([]chainOut, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, o.workers())
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = runOne(ctx, jobs[i], rng.ForChain(seed, key, jobs[i].id))
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, ctx.Err()
}

func runOne(ctx context.Context, j job, r rng.Streams) (chainOut, error) {
	k, err := j.newKernel()
	if err != nil {
		return chainOut{}, err
	}
	if err := k.Init(j.init); err != nil {
		return chainOut{}, err
	}
	thin := max(j.thin, 1)
	res := chainOut{Kernel: k, Draws: make([][]float64, 0, j.iters/thin)}
	ad, _ := k.(mcmc.Adaptive)
	if ad != nil && j.adaptUntil > 0 {
		if p, ok := k.(mcmc.WarmupPlanner); ok {
			p.PlanWarmup(j.adaptUntil)
		}
	}
	touched := 0.0
	for t := 0; t < j.iters; t++ {
		if t%256 == 0 && ctx.Err() != nil {
			return res, ctx.Err()
		}
		info := k.Step(r)
		if ad != nil && t < j.adaptUntil {
			ad.Adapt(t, info)
			if t == j.adaptUntil-1 {
				ad.EndWarmup()
			}
		}
		res.Iters++
		if info.Accepted {
			res.Accepted++
		}
		res.Clipped += int64(info.Clipped)
		res.Rows += int64(info.Rows)
		if info.Divergent {
			res.Divergent++
		}
		if j.touched != nil {
			touched += j.touched(info.Rows)
		}
		if (t+1)%thin == 0 {
			res.Draws = append(res.Draws, append([]float64(nil), k.Position()...))
			if j.touched != nil {
				res.TouchedAt = append(res.TouchedAt, touched)
			}
		}
	}
	return res, nil
}

// secondHalf pools the second half of every chain (the DP-HMC paper's
// burn-in rule: the first half of each chain is discarded).
func secondHalf(chains []chainOut) [][]float64 {
	var s [][]float64
	for _, c := range chains {
		s = append(s, c.Draws[len(c.Draws)/2:]...)
	}
	return s
}
