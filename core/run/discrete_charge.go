package run

import (
	"errors"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// The kernels' privacy noise is an exact discrete Gaussian on the release
// grid (core/mcmc/dgauss.go); the accountants are proved for the
// continuous Gaussian. Every ε this package computes or plans is therefore
// charged with privacy.DiscreteGaussianEpsilon: the continuous accountant
// is asked at δ_c = δ·e^{−Na}(1 − 2^−29) and 2Na is added to its ε, N the
// number of discrete-Gaussian coordinates of the whole run (an upper
// bound: every iteration of every chain counted at its largest number of
// draws, plus the dp-map initialisations) and a ≈ 5e−14 per coordinate at
// the default grid (scale ≥ 2^24). Planners calibrate against the shrunk
// budget privacy.DiscreteGaussianBudget, so a planned run stays within its
// budget after the charge.

var errNoRoomForCharge = errors.New("the discrete-Gaussian charge alone spends the ε budget: raise ε or lower the iterations")

// errNoRoomForReleaseCharge is errNoRoomForCharge for noise-aware, whose
// draws are free: only ε, or fewer released coordinates, help.
var errNoRoomForReleaseCharge = errors.New("the discrete-Gaussian charge alone spends the ε budget: raise ε (or use fewer predictors: the charge grows with the released coordinates; the number of draws does not matter)")

// chargeGridBits is k of the run's release grids (the run uses the
// kernels' default).
const chargeGridBits = mcmc.DefaultGridBits

// noiseCoordsPerIter is the largest number of discrete-Gaussian
// coordinates one iteration of alg draws (0 for ops, which adds no
// Gaussian noise).
func noiseCoordsPerIter(alg string, s Settings, rel string, n, d int) (int, error) {
	switch alg {
	case "dp-penalty", "dp-hmc", "dp-mala":
		// The count does not depend on the noise scales or the step:
		// placeholders where they are not set yet (before calibration).
		for _, v := range []*float64{&s.Tau, &s.TauGrad, &s.Step, &s.GradClip, &s.Clip} {
			if *v == 0 {
				*v = 1
			}
		}
		c, err := stepCost(alg, s, rel, n, d)
		return c.NoiseCoords(), err
	case "dp-barker", "dp-barker-full", "dp-fastmh", "dp-fastmh-full", "dp-penalty-sub":
		return 1, nil // one noisy scalar (at most) per iteration
	case "dp-sgld", "dp-sgnht", "dp-sghmc", "hybrid":
		return d, nil // one noisy d-vector gradient per iteration
	}
	return 0, nil
}

// runNoiseCoords is N for total iterations (all chains) plus every chain's
// dp-map initialisation.
func runNoiseCoords(c *Config, n, d, total int) (float64, error) {
	rel := "replace"
	if c.Privacy != nil && c.Privacy.Relation != "" {
		rel = c.Privacy.Relation
	}
	per, err := noiseCoordsPerIter(c.Algorithm, c.Settings, rel, n, d)
	if err != nil {
		return 0, err
	}
	coords := float64(total) * float64(per)
	ic, err := initConfig(c, n)
	if err != nil {
		return 0, err
	}
	if ic != nil {
		cost, err := ic.Cost(d)
		if err != nil {
			return 0, err
		}
		coords += float64(c.Chains) * float64(cost.NoiseCoords())
	}
	return coords, nil
}

// chargedEpsilon is ε at the budget's δ of a run of total iterations whose
// continuous-noise ε at a given δ is epsAt, with the discrete-Gaussian
// charge; it returns the charge's report line ("" when nothing is charged).
func chargedEpsilon(c *Config, n, d, total int, epsAt func(deltaCont float64) (float64, error)) (float64, string, error) {
	coords, err := runNoiseCoords(c, n, d, total)
	if err != nil {
		return 0, "", err
	}
	eps, ch, err := privacy.DiscreteGaussianEpsilon(coords, chargeGridBits, c.Privacy.Epsilon, c.Privacy.Delta, epsAt)
	if err != nil || ch.Epsilon == 0 {
		return eps, "", err
	}
	return eps, ch.Describe(), nil
}

// withBudget runs f with c.Privacy set to (eps, delta) and restores it.
func withBudget(c *Config, eps, delta float64, f func() error) error {
	saved := c.Privacy
	b := *saved
	b.Epsilon, b.Delta = eps, delta
	c.Privacy = &b
	defer func() { c.Privacy = saved }()
	return f()
}

// chargeAccounted wraps every accounted algorithm's accountant with the
// discrete-Gaussian charge and its calibration with the shrunk budget.
func chargeAccounted(alg string, a accounted) accounted {
	account := a.account
	a.account = func(c *Config, n, d, total int) (privacy.Report, error) {
		var rep privacy.Report
		eps, line, err := chargedEpsilon(c, n, d, total, func(dc float64) (float64, error) {
			var r privacy.Report
			err := withBudget(c, c.Privacy.Epsilon, dc, func() error {
				var err error
				r, err = account(c, n, d, total)
				return err
			})
			rep = r
			return r.Epsilon, err
		})
		if err != nil {
			return privacy.Report{}, err
		}
		rep.Epsilon, rep.Delta = eps, c.Privacy.Delta
		if line != "" {
			if rep.Note != "" {
				rep.Note += "; "
			}
			rep.Note += line
		}
		return rep, nil
	}
	if cal := a.calibrate; cal != nil {
		a.calibrate = func(c *Config, n, d, total int) error {
			coords, err := runNoiseCoords(c, n, d, total)
			if err != nil {
				return err
			}
			ec, dc, _, err := privacy.DiscreteGaussianBudget(coords, chargeGridBits, c.Privacy.Epsilon, c.Privacy.Delta)
			if err != nil {
				return err
			}
			if !(ec > 0) {
				return errNoRoomForCharge
			}
			return withBudget(c, ec, dc, func() error { return cal(c, n, d, total) })
		}
	}
	return a
}

func init() {
	for alg, a := range accountedAlgorithms {
		accountedAlgorithms[alg] = chargeAccounted(alg, a)
	}
}

// gaussianBudget is the continuous budget (ε_c, δ_c) of a Gaussian-kernel
// run of total iterations (planGaussian's calibration target).
func gaussianBudget(c *Config, n, d, total int) (float64, float64, error) {
	coords, err := runNoiseCoords(c, n, d, total)
	if err != nil {
		return 0, 0, err
	}
	ec, dc, _, err := privacy.DiscreteGaussianBudget(coords, chargeGridBits, c.Privacy.Epsilon, c.Privacy.Delta)
	if err == nil && !(ec > 0) {
		err = errNoRoomForCharge
	}
	return ec, dc, err
}

// tightCharged is ε of a Gaussian-kernel run: the tight Gaussian with
// μ = √(T·μ₁² + μ²_init), charged.
func tightCharged(c *Config, n, d, total int, mu1, im2 float64) (float64, string, error) {
	g := privacy.TightGaussian{Mu: math.Sqrt(float64(total)*mu1*mu1 + im2)}
	return chargedEpsilon(c, n, d, total, g.Epsilon)
}
