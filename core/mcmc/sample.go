package mcmc

import (
	"fmt"

	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Sample runs one chain of an initialised kernel: warmup iterations (with
// PlanWarmup, Adapt after each step and EndWarmup at the end when the kernel
// is a WarmupPlanner / Adaptive), then draws iterations whose positions are
// written row by row into out (len ≥ draws·dim). onStep, if not nil, is
// called after every iteration with it = 0 … warmup+draws−1. It is the
// minimal loop; cancellation and parallel chains belong to core/run.
func Sample(k Kernel, r rng.Streams, warmup, draws int, out []float64, onStep func(it int, info Info)) {
	d := len(k.Position())
	if warmup < 0 || draws < 0 || len(out) < draws*d {
		panic(fmt.Sprintf("mcmc: Sample(warmup=%d, draws=%d) with len(out)=%d, dim %d", warmup, draws, len(out), d))
	}
	ad, _ := k.(Adaptive)
	if p, ok := k.(WarmupPlanner); ok && ad != nil {
		p.PlanWarmup(warmup)
	}
	for it := 0; it < warmup; it++ {
		info := k.Step(r)
		if ad != nil {
			ad.Adapt(it, info)
		}
		if onStep != nil {
			onStep(it, info)
		}
	}
	if ad != nil {
		ad.EndWarmup()
	}
	for t := 0; t < draws; t++ {
		info := k.Step(r)
		copy(out[t*d:(t+1)*d], k.Position())
		if onStep != nil {
			onStep(warmup+t, info)
		}
	}
}

// Compile-time checks.
var (
	_ Kernel        = (*MH)(nil)
	_ Kernel        = (*Barker)(nil)
	_ Kernel        = (*MALA)(nil)
	_ Kernel        = (*HMC)(nil)
	_ Kernel        = (*TunaMH)(nil)
	_ Adaptive      = (*MH)(nil)
	_ Adaptive      = (*MALA)(nil)
	_ Adaptive      = (*HMC)(nil)
	_ WarmupPlanner = (*HMC)(nil)
)
