// Package mcmc holds the samplers. Every sampler is a Kernel: Init sets the
// chain's position, Step advances it by one iteration using the chain's two
// random streams (rng.Streams: public proposals, private noise) and reports
// what happened in an Info. A kernel owns its scratch memory, so Step
// allocates nothing.
//
// Each kernel lives in its own file that reads like its paper's algorithm box.
package mcmc

import "github.com/dpmcmc/dpmcmc/core/rng"

// Kernel is one chain's transition kernel.
type Kernel interface {
	// Name is the algorithm's command-line name (mh, barker, hmc, ...).
	Name() string
	// Init sets the current position to theta0 (copied).
	Init(theta0 []float64) error
	// Step performs one iteration.
	Step(r rng.Streams) Info
	// Position is the current position. The slice is owned by the kernel and
	// overwritten by the next Step; copy it to keep it.
	Position() []float64
}

// Info describes one iteration. Everything in it except Accepted is a local
// diagnostic: it may depend on private data beyond what the chain releases
// and must never be exported (DESIGN.md privacy rule 5).
type Info struct {
	Accepted   bool
	AcceptProb float64 // the kernel's acceptance probability where defined (local)
	Clipped    int     // rows whose contribution was clipped (local)
	Rows       int     // rows evaluated this iteration (local); one row's log-likelihood or gradient at one θ counts once
	Divergent  bool    // numerical failure (e.g. an HMC energy error > 1000)
}

// Adaptive kernels tune themselves during warmup. Adapt is called after every
// warmup Step with the iteration's Info; EndWarmup freezes the tuning. DP
// kernels may adapt only from what the chain releases (Info.Accepted).
type Adaptive interface {
	Adapt(it int, info Info)
	EndWarmup()
}

// WarmupPlanner is implemented by adaptive kernels whose warmup schedule
// depends on the warmup length (e.g. Stan-style metric adaptation windows).
// Sample calls PlanWarmup once, before the first warmup Step.
type WarmupPlanner interface {
	PlanWarmup(warmup int)
}
