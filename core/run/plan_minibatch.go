package run

import (
	"errors"
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// Planning and accounting of the kernels whose iterations are not plain
// Gaussian mechanisms: subsampled RDP (dp-barker, dp-penalty-sub), PLD/RDP of
// subsampled Gaussians (dp-sgld, dp-sgnht, hybrid) and composition of
// per-step (ε, δ) (dp-fastmh). Each has an account function (ε of a total
// number of iterations, all chains) from which the plan is derived.

// accounted describes one such algorithm.
type accounted struct {
	// config builds the kernel config for n public rows (d parameters).
	account func(c *Config, n, d, total int) (privacy.Report, error)
	// calibrate, if not nil, sets the noise so that total iterations fit
	// the budget (used when the user fixes the iterations and not the
	// noise). noiseGiven says whether the user fixed the noise.
	calibrate  func(c *Config, n, d, total int) error
	noiseGiven func(s Settings) bool
	// settle, if not nil, fixes settings whose defaults depend on the
	// planned noise (after calibration), so that the kernel, the account
	// and the report use the same values.
	settle func(c *Config, n int)
}

var accountedAlgorithms = map[string]accounted{
	"dp-barker": {account: func(c *Config, n, d, total int) (privacy.Report, error) {
		best, _, err := barkerConfig(c, n, false).Account(n, total, c.Privacy.Delta)
		return best, err
	}},
	"dp-barker-full": {
		account: func(c *Config, n, d, total int) (privacy.Report, error) {
			best, _, err := barkerConfig(c, n, true).Account(n, total, c.Privacy.Delta)
			return best, err
		},
		// The full-data Barker test's noise is fixed by C, so its privacy
		// knob is the clip B of each row's ratio (μ = f·B/√C per step):
		// with the clip unset, the largest B for which the iterations fit
		// the budget (ε increases with B, so bisect on 1/B).
		noiseGiven: func(s Settings) bool { return s.Clip > 0 },
		calibrate: func(c *Config, n, d, total int) error {
			return bisectNoise(c, func(x float64) { c.Settings.Clip = 1 / x }, func() (privacy.Report, error) {
				best, _, err := barkerConfig(c, n, true).Account(n, total, c.Privacy.Delta)
				return best, err
			})
		},
	},
	"dp-fastmh":      fastMHAccounting(false),
	"dp-fastmh-full": fastMHAccounting(true),
	"dp-penalty-sub": {
		account:    penaltySubAccount,
		noiseGiven: func(s Settings) bool { return s.Tau > 0 },
		calibrate: func(c *Config, n, d, total int) error {
			// μ per batch = 1/√τ: ε decreases in τ.
			return bisectNoise(c, func(x float64) { c.Settings.Tau = x }, func() (privacy.Report, error) {
				return penaltySubAccount(c, n, d, total)
			})
		},
	},
	"dp-sgld":  sgldAccounting("sgld"),
	"dp-sgnht": sgldAccounting("sgnht"),
	"dp-sghmc": sgldAccounting("sghmc"),
	"hybrid": {
		account: func(c *Config, n, d, total int) (privacy.Report, error) {
			// Each chain's first step is its OPS draw. A run cancelled
			// before every chain made it is charged all of them (never
			// less than what ran).
			return hybridConfig(c, n, nil).Account(n, d, c.Chains, max(total, c.Chains), c.Privacy.Delta)
		},
		noiseGiven: func(s Settings) bool { return s.NoiseMultiplier > 0 },
		calibrate: func(c *Config, n, d, total int) error {
			acc := func() (privacy.Report, error) {
				return hybridConfig(c, n, nil).Account(n, d, c.Chains, total, c.Privacy.Delta)
			}
			if r, err := acc(); err == nil && r.Epsilon <= c.Privacy.Epsilon {
				return nil // the Langevin noise alone suffices
			}
			return bisectNoise(c, func(x float64) { c.Settings.NoiseMultiplier = x }, acc)
		},
	},
}

// penaltySubAccount is the subsampled penalty test's own accountant
// (thesis Thm 9): the Wang–Balle–Kasiviswanathan general subsampling bound
// on the per-batch Gaussian RDP, or the unamplified tight composition if
// smaller. The numerical PLD of a subsampled Gaussian is not used: it
// assumes the released statistic is a per-row sum, and λ − σ_b²/2 is not.
func penaltySubAccount(c *Config, n, d, total int) (privacy.Report, error) {
	return penaltySubConfig(c, n).Account(n, total, c.Privacy.Delta)
}

func fastMHAccounting(full bool) accounted {
	return accounted{
		account: func(c *Config, n, d, total int) (privacy.Report, error) {
			return fastMHConfig(c, n, full, nil).Account(total, c.Privacy.Delta)
		},
		noiseGiven: func(s Settings) bool { return s.StepEpsilon > 0 },
		calibrate: func(c *Config, n, d, total int) error {
			e, dl, err := mcmc.PlanStepBudget(c.Privacy.Epsilon, c.Privacy.Delta, total)
			if err != nil {
				return err
			}
			c.Settings.StepEpsilon, c.Settings.StepDelta = e, dl
			return nil
		},
	}
}

func sgldAccounting(method string) accounted {
	return accounted{
		settle: func(c *Config, n int) {
			if c.Settings.Step == 0 {
				c.Settings.Step = sgldConfig(c, n, method).Step
			}
		},
		account: func(c *Config, n, d, total int) (privacy.Report, error) {
			return sgldConfig(c, n, method).Account(n, d, total, c.Privacy.Delta)
		},
		noiseGiven: func(s Settings) bool { return s.NoiseMultiplier > 0 },
		calibrate: func(c *Config, n, d, total int) error {
			if r, err := sgldConfig(c, n, method).Account(n, d, total, c.Privacy.Delta); err == nil && r.Epsilon <= c.Privacy.Epsilon {
				return nil // privacy for free suffices
			}
			return bisectNoise(c, func(x float64) { c.Settings.NoiseMultiplier = x }, func() (privacy.Report, error) {
				return sgldConfig(c, n, method).Account(n, d, total, c.Privacy.Delta)
			})
		},
	}
}

func defaultBatch(s Settings, n int) int {
	if s.Batch > 0 {
		return s.Batch
	}
	return max(16, min(1000, n/10))
}

func barkerConfig(c *Config, n int, full bool) mcmc.DPBarkerConfig {
	s := c.Settings
	return mcmc.DPBarkerConfig{Step: or(s.Step, 0.1), Batch: defaultBatch(s, n), Full: full, BarkerC: s.BarkerC,
		Clip: s.Clip, N: n, Relation: c.Privacy.Relation, Adapt: !s.NoAdapt, TargetAccept: s.TargetAccept}
}

func fastMHConfig(c *Config, n int, full bool, m model.Model) mcmc.DPFastMHConfig {
	s := c.Settings
	cfg := mcmc.DPFastMHConfig{Step: or(s.Step, 0.05), Lambda: s.Lambda, BatchCap: s.BatchCap, Full: full,
		StepEpsilon: s.StepEpsilon, StepDelta: s.StepDelta, N: n, Adapt: !s.NoAdapt, TargetAccept: s.TargetAccept}
	if m != nil {
		cfg.Box = box(m, s.Box)
	}
	return cfg
}

func penaltySubConfig(c *Config, n int) mcmc.DPPenaltySubConfig {
	s := c.Settings
	return mcmc.DPPenaltySubConfig{Step: or(s.Step, 0.05), Clip: s.Clip, Tau: s.Tau, Batch: defaultBatch(s, n),
		Sampling: s.Sampling, N: n, Adapt: !s.NoAdapt, TargetAccept: s.TargetAccept}
}

func sgldConfig(c *Config, n int, method string) mcmc.DPSGLDConfig {
	s := c.Settings
	step := s.Step
	if step == 0 {
		step = defaultSGLDStep
		if method == "sgnht" {
			step = sgnhtDefaultStep(s, n)
		}
	}
	return mcmc.DPSGLDConfig{Method: method, Step: step, Friction: s.Friction, Batch: defaultBatch(s, n),
		Sampling: s.Sampling, GradClip: s.GradClip, NoiseMultiplier: s.NoiseMultiplier, N: n, Relation: c.Privacy.Relation}
}

// defaultSGLDStep is the default step h (dp-sgld) or learning rate η
// (dp-sghmc; dp-sgnht's upper limit).
const defaultSGLDStep = 1e-4

// sgnhtDefaultStep is dp-sgnht's default learning rate η from public
// inputs only (n, the batch b, the friction a, the clip G and the planned
// noise multiplier z): the largest η ≤ 1e-4 whose own Langevin noise is at
// least the planned privacy noise,
//
//	η = min(1e-4, 2a·(b/(n·z·G))²)   ⇔   √(2a/η)·b/n ≥ z·G = σ_g,
//
// so the injected noise η(n/b)σ_g has variance 2aη per coordinate, as in
// SGNHT (privacy-for-free-ops-sgld.txt §4.2, eq. (5)). With the fixed
// η = 1e-4 the planned noise at ε ≤ 3 on n = 569 put a variance s² ≫ η into
// v per step; the thermostat α ← α + (vᵀv/d − η) can only bring vᵀv/d down
// to η while s² < η (the stationary variance of v ← (1 − α)v + s·N(0, 1) is
// s²/(α(2 − α)), at least s²), so α grew past 2, v ← (1 − α)v amplified v,
// and the draws became NaN. With the matched η, s² = 2aη < η. The account
// is unchanged: σ_g = max(√(2a/η)·b/n, z·G) = z·G.
func sgnhtDefaultStep(s Settings, n int) float64 {
	z, g := s.NoiseMultiplier, s.GradClip
	if !(z > 0 && g > 0) || n < 1 {
		return defaultSGLDStep
	}
	a := or(s.Friction, 0.1)
	r := float64(defaultBatch(s, n)) / (float64(n) * z * g)
	return math.Min(defaultSGLDStep, 2*a*r*r)
}

// hybridConfig splits ε: OPSShare (default ½) for the chains' initial OPS
// draws, the rest for DP-SGLD.
func hybridConfig(c *Config, n int, m model.Model) mcmc.HybridConfig {
	share := or(c.Settings.OPSShare, 0.5)
	epsOPS := share * c.Privacy.Epsilon / float64(c.Chains)
	h := mcmc.HybridConfig{
		OPS:  mcmc.OPSConfig{Epsilon: epsOPS, InnerIterations: c.Settings.InnerIterations},
		SGLD: sgldConfig(c, n, "sgld"),
	}
	if m != nil {
		h.OPS.Box = box(m, c.Settings.Box)
	}
	return h
}

// bisectNoise finds (to 1e-4 relative: a slightly larger noise is always
// valid, and each evaluation may be a numerical PLD) the smallest noise x
// for which account() ≤ ε, with set(x) applied; ε must decrease in x.
func bisectNoise(c *Config, set func(float64), account func() (privacy.Report, error)) error {
	eps := c.Privacy.Epsilon
	var lastErr error
	ok := func(x float64) bool {
		set(x)
		r, err := account()
		lastErr = err
		return err == nil && r.Epsilon <= eps
	}
	lo, hi := 1e-9, 1.0
	for !ok(hi) {
		lo = hi
		hi *= 2
		if hi > 1e30 {
			if lastErr != nil { // a setting the accountant refuses at any noise
				return lastErr
			}
			return errors.New("no noise level fits the budget for these iterations: lower the iterations")
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-4*hi; i++ {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if !ok(hi) {
		return errors.New("internal: noise calibration failed")
	}
	return nil
}

// maxIterations returns the largest total T with account(T) ≤ ε (0 if even
// one iteration does not fit); ε must increase with T.
func maxIterations(eps float64, account func(T int) (privacy.Report, error)) (int, error) {
	fits := func(T int) (bool, error) {
		r, err := account(T)
		if err != nil {
			return false, err
		}
		return r.Epsilon <= eps, nil
	}
	ok, err := fits(1)
	if err != nil || !ok {
		return 0, err
	}
	lo, hi := 1, 2
	for {
		ok, err := fits(hi)
		if err != nil {
			return lo, nil // beyond what the accountant can represent
		}
		if !ok {
			break
		}
		lo = hi
		if hi > 1<<30 {
			return lo, nil
		}
		hi *= 2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := fits(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// planAccounted plans an accounted algorithm like planGaussian: fixed noise
// → the most iterations; fixed iterations → calibrated noise (where the
// algorithm has a noise knob) or a check that they fit.
func planAccounted(c *Config, p *Plan, a accounted, n, d int) error {
	b := c.Privacy
	itersGiven := c.Draws > 0
	given := a.noiseGiven != nil && a.noiseGiven(c.Settings)
	if a.calibrate != nil && !given {
		if !itersGiven {
			if c.Warmup == 0 {
				c.Warmup = defaultPrivateWarmup
			}
			c.Draws = defaultPrivateDraws
		}
		if err := a.calibrate(c, n, d, c.Chains*(c.Warmup+c.Draws)); err != nil {
			return err
		}
		itersGiven = true
	}
	if a.settle != nil {
		a.settle(c, n)
	}
	if itersGiven {
		T := c.Chains * (c.Warmup + c.Draws)
		r, err := a.account(c, n, d, T)
		if err != nil {
			return err
		}
		if r.Epsilon > b.Epsilon {
			maxT, _ := maxIterations(b.Epsilon, func(T int) (privacy.Report, error) { return a.account(c, n, d, T) })
			return fmt.Errorf("the budget (ε = %g, δ = %g) allows %d iterations per chain with these settings (%d chains), but %d were asked for: lower the iterations or leave them unset to have them planned", b.Epsilon, b.Delta, maxT/c.Chains, c.Chains, c.Warmup+c.Draws)
		}
		p.Warmup, p.Draws = c.Warmup, c.Draws
	} else {
		maxT, err := maxIterations(b.Epsilon, func(T int) (privacy.Report, error) { return a.account(c, n, d, T) })
		if err != nil {
			return err
		}
		per := maxT / c.Chains
		if per < 2 {
			return fmt.Errorf("the budget (ε = %g, δ = %g) allows only %d iterations in total for %d chains with these settings: raise the budget, or %s", b.Epsilon, b.Delta, maxT, c.Chains, cheaperStepAdvice(c.Algorithm))
		}
		p.Warmup = c.Warmup
		if p.Warmup == 0 || p.Warmup >= per {
			p.Warmup = per / 2
		}
		p.Draws = per - p.Warmup
	}
	c.Warmup, c.Draws = p.Warmup, p.Draws
	r, err := a.account(c, n, d, c.Chains*(p.Warmup+p.Draws))
	if err != nil {
		return err
	}
	if r.Epsilon > b.Epsilon {
		return fmt.Errorf("internal: planned ε %v exceeds the budget %v", r.Epsilon, b.Epsilon)
	}
	p.Epsilon, p.Accountant = r.Epsilon, r.Method
	if r.Note != "" {
		p.Notes = append(p.Notes, r.Note)
	}
	if math.IsNaN(p.Epsilon) {
		return errors.New("internal: NaN ε")
	}
	return nil
}

// cheaperStepAdvice names the settings of alg that make one iteration
// spend less of the budget.
func cheaperStepAdvice(alg string) string {
	switch alg {
	case "dp-barker":
		return "spend less per test: a smaller --batch (each test reads b rows; privacy is amplified by b/n), a smaller --temper, or fewer chains"
	case "dp-barker-full":
		return "spend less per test: a smaller --clip (the per-row clip of the log-likelihood ratio), or fewer chains"
	case "dp-fastmh", "dp-fastmh-full":
		return "spend less per step: a smaller --step-epsilon, or fewer chains"
	case "dp-sgld", "dp-sgnht", "dp-sghmc", "hybrid":
		return "spend less per step: a larger --noise-multiplier, a smaller --batch, or fewer chains"
	case "dp-penalty-sub":
		return "spend less per step: a larger --tau, a smaller --batch, or fewer chains"
	}
	return "spend less per iteration (more noise), or use fewer chains"
}
