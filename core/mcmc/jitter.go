package mcmc

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// StepJitter randomises the HMC leapfrog step size between iterations
// (Neal 2011, §5.4.2.2): the step of one trajectory is ε·Factor(r). Because
// the factor is drawn independently of the position and fixed for the whole
// trajectory, every iteration's kernel leaves the target invariant. Factors
// are drawn from the public stream.
type StepJitter interface {
	Factor(r *rand.Rand) float64
}

// JitterConfig selects a StepJitter in a JSON config.
type JitterConfig struct {
	// Kind is "none" (default), "uniform" or "halton".
	Kind string `json:"kind,omitempty"`
	// Width is the relative half-width w: factors lie in [1−w, 1+w]
	// (default 0.2, i.e. ε·U(0.8, 1.2)).
	Width float64 `json:"width,omitempty"`
}

// NewJitter returns the jitter the config names.
func NewJitter(cfg JitterConfig) (StepJitter, error) {
	w := cfg.Width
	if w == 0 {
		w = 0.2
	}
	if cfg.Kind != "" && cfg.Kind != "none" && !(w > 0 && w < 1) {
		return nil, fmt.Errorf("mcmc: jitter width %v must be in (0, 1)", cfg.Width)
	}
	switch cfg.Kind {
	case "", "none":
		return NoJitter{}, nil
	case "uniform":
		return UniformJitter{Width: w}, nil
	case "halton":
		return &HaltonJitter{Width: w}, nil
	}
	return nil, fmt.Errorf("mcmc: unknown jitter %q (want none, uniform or halton)", cfg.Kind)
}

// NoJitter keeps the step fixed.
type NoJitter struct{}

// Factor implements StepJitter.
func (NoJitter) Factor(*rand.Rand) float64 { return 1 }

// UniformJitter draws the factor from U(1−Width, 1+Width).
type UniformJitter struct{ Width float64 }

// Factor implements StepJitter.
func (j UniformJitter) Factor(r *rand.Rand) float64 {
	return 1 + j.Width*(2*r.Float64()-1)
}

// HaltonJitter uses a randomised one-dimensional Halton (van der Corput,
// base 2) sequence u_t, as DP-HMC does (dp-hmc.txt §3, after Hoffman et al.
// and Owen 2017): factor 1 + Width·(2u_t − 1). The sequence is randomised by
// a random start index and a random shift modulo 1 (Cranley–Patterson
// rotation), both drawn from the public stream on first use. The points fill
// [0, 1) more evenly than independent uniforms.
type HaltonJitter struct {
	Width float64

	started bool
	i       uint64
	shift   float64
}

// Factor implements StepJitter.
func (j *HaltonJitter) Factor(r *rand.Rand) float64 {
	if !j.started {
		j.i = r.Uint64() >> 32
		j.shift = r.Float64()
		j.started = true
	}
	j.i++
	u := vanDerCorput2(j.i) + j.shift
	if u >= 1 {
		u--
	}
	return 1 + j.Width*(2*u-1)
}

// vanDerCorput2 is the radical inverse of i in base 2.
func vanDerCorput2(i uint64) float64 {
	return float64(bits.Reverse64(i)>>11) * 0x1p-53
}
