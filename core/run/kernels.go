package run

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
)

// algorithm describes one sampler the run package can build.
type algorithm struct {
	private bool
	doc     string
	build   func(m model.Model, s Settings) (mcmc.Kernel, error)
	// buildPrivate builds a DP kernel; it also sees the budget.
	buildPrivate func(m model.Model, s Settings, cfg *Config) (mcmc.Kernel, error)
}

// DenseJitterWidth is the relative half-width of the step jitter of
// non-private HMC with its dense metric: ε·U(0.5, 1.5).
const DenseJitterWidth = 0.5

// algorithms maps the command-line name to its builder. Non-private kernels
// adapt their step during warmup unless Settings.NoAdapt is set.
var algorithms = map[string]algorithm{
	"mh": {doc: "random-walk Metropolis–Hastings", build: func(m model.Model, s Settings) (mcmc.Kernel, error) {
		return mcmc.NewMH(m, mcmc.MHConfig{Step: or(s.Step, 0.1), Adapt: !s.NoAdapt, TargetAccept: s.TargetAccept})
	}},
	"barker": {doc: "random walk with Barker's acceptance test", build: func(m model.Model, s Settings) (mcmc.Kernel, error) {
		return mcmc.NewBarker(m, mcmc.BarkerConfig{Step: or(s.Step, 0.1)})
	}},
	"hmc": {doc: "Hamiltonian Monte Carlo (leapfrog, jittered step, warmup adaptation of step and a dense metric; the metric setting diag gives a diagonal one)", build: func(m model.Model, s Settings) (mcmc.Kernel, error) {
		dense := !s.NoAdapt && s.Metric != "diag"
		jitter := mcmc.JitterConfig{Kind: orStr(s.Jitter, "uniform")}
		if dense {
			// A dense metric makes the posterior round, so every direction
			// turns at the same rate, and the adapted step put L·ε near a
			// full orbit (ε ≈ 0.6–0.8 at L = 10): a ±20% jitter left the
			// bulk-ESS 4× below a ±50% one (docs/SAMPLERS.md).
			jitter.Width = DenseJitterWidth
		}
		return mcmc.NewHMC(m, mcmc.HMCConfig{
			Step: or(s.Step, 0.1), Steps: orInt(s.Leapfrog, 10), Jitter: jitter,
			Adapt: !s.NoAdapt, AdaptMetric: !s.NoAdapt, DenseMetric: dense,
			TargetAccept: s.TargetAccept,
		})
	}},
	"mala": {doc: "Metropolis-adjusted Langevin algorithm", build: func(m model.Model, s Settings) (mcmc.Kernel, error) {
		return mcmc.NewMALA(m, mcmc.MALAConfig{Step: or(s.Step, 0.1), Adapt: !s.NoAdapt, TargetAccept: s.TargetAccept})
	}},
	Exact: {doc: "exact independent draws from the closed-form posterior (gaussian and banana models only: their posterior given the column means is Gaussian, or a banana of a Gaussian); no warmup, nothing to tune", build: func(m model.Model, s Settings) (mcmc.Kernel, error) {
		return noiseaware.NewExactMeanKernel(m)
	}},
	"tunamh": {doc: "TunaMH, exact minibatch MH (needs public per-row bounds)", build: func(m model.Model, s Settings) (mcmc.Kernel, error) {
		return mcmc.NewTunaMH(m, mcmc.TunaMHConfig{Step: or(s.Step, 0.1), Lambda: s.Lambda, Chi: orIfZero(s.Chi, s.Lambda, 1e-5), Box: box(m, s.Box)})
	}},
	"dp-penalty": {private: true, doc: "DP penalty MH (Yıldırım & Ermiş 2019): clipped log-likelihood ratio + Gaussian noise, penalty-corrected test", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return mcmc.NewDPPenalty(m, withBox(penaltyConfig(s, c.Privacy.Relation, m.N()), m, s))
	}},
	"dp-hmc": {private: true, doc: "DP-HMC (Räisä et al. 2021): noisy clipped gradients in the leapfrog, penalty-corrected test", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		cfg := hmcConfig(s, c.Privacy.Relation, m.N())
		cfg.Box = box(m, s.Box)
		return mcmc.NewDPHMC(m, cfg)
	}},
	"dp-mala": {private: true, doc: "DP-MALA (thesis §4.2): noisy clipped-gradient proposal, penalty test", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		cfg := malaConfig(s, c.Privacy.Relation, m.N())
		cfg.Box = box(m, s.Box)
		return mcmc.NewDPMALA(m, cfg)
	}},
	"ops": {private: true, doc: "one posterior sample (Wang et al. 2015): each draw is the final state of a finite MH run on the tempered posterior inside a public box; ε-DP only if that run has converged", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		total := c.Chains * c.Draws
		if total < 1 || c.Privacy == nil {
			return nil, fmt.Errorf("ops: the run must be planned first")
		}
		eps := c.Privacy.Epsilon / float64(total)
		if eps*float64(total) > c.Privacy.Epsilon {
			eps = math.Nextafter(eps, 0)
		}
		return mcmc.NewOPS(m, mcmc.OPSConfig{Epsilon: eps, Box: box(m, s.Box), InnerIterations: s.InnerIterations})
	}},
	"dp-barker": {private: true, doc: "DP Barker test (Heikkilä et al. 2019): minibatch without replacement, tempering (--temper), normal noise + correction", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		cfg := barkerConfig(c, m.N(), false)
		cfg.Box = box(m, s.Box)
		return mcmc.NewDPBarker(m, cfg)
	}},
	"dp-barker-full": {private: true, doc: "DP Barker test on the full data (Heikkilä et al. 2019, Thm 1): clipped ratio + normal noise + correction", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		cfg := barkerConfig(c, m.N(), true)
		cfg.Box = box(m, s.Box)
		return mcmc.NewDPBarker(m, cfg)
	}},
	"dp-fastmh": {private: true, doc: "DP-Fast MH (Zhang et al.): exact minibatch MH (TunaMH) with Gaussian noise; touches a fraction of the rows", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return mcmc.NewDPFastMH(m, fastMHConfig(c, m.N(), false, m))
	}},
	"dp-fastmh-full": {private: true, doc: "DP-Fast MH, full-batch variant", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return mcmc.NewDPFastMH(m, fastMHConfig(c, m.N(), true, m))
	}},
	"dp-penalty-sub": {private: true, doc: "subsampled DP penalty (thesis §4.1): minibatch penalty test with CLT variance correction", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		cfg := penaltySubConfig(c, m.N())
		cfg.Box = box(m, s.Box)
		return mcmc.NewDPPenaltySub(m, cfg)
	}},
	"dp-sgld": {private: true, doc: "DP stochastic-gradient Langevin dynamics (Wang et al. 2015): drift (h/2)∇, noise N(0, h), clipped gradients", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return mcmc.NewDPSGLD(m, sgldConfig(c, m.N(), "sgld"))
	}},
	"dp-sgnht": {private: true, doc: "DP stochastic-gradient Nosé–Hoover thermostat", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return mcmc.NewDPSGLD(m, sgldConfig(c, m.N(), "sgnht"))
	}},
	"dp-sghmc": {private: true, doc: "DP stochastic-gradient HMC", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return mcmc.NewDPSGLD(m, sgldConfig(c, m.N(), "sghmc"))
	}},
	NoiseAware: {private: true, doc: "private releases of noisy sufficient statistics (regression models: the score and Fisher information along a few expansion points; gaussian and banana with every data column bounded: one release of the clipped column sums; Gaussian mechanism), then independent draws from the posterior that accounts for the release noise", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return newNoiseAwareKernel(m, c)
	}},
	"hybrid": {private: true, doc: "Wang et al. 2015 Alg. 3: a one-posterior-sample start with a budget share, then DP-SGLD", buildPrivate: func(m model.Model, s Settings, c *Config) (mcmc.Kernel, error) {
		return mcmc.NewHybrid(m, hybridConfig(c, m.N(), m))
	}},
}

func withBox(c mcmc.DPPenaltyConfig, m model.Model, s Settings) mcmc.DPPenaltyConfig {
	c.Box = box(m, s.Box)
	return c
}

// AlgorithmDoc returns a one-line description of the algorithm.
func AlgorithmDoc(name string) string { return algorithms[name].doc }

// Exact is the name of the non-private exact sampler of the gaussian and
// banana models (noiseaware.ExactMeanKernel).
const Exact = "exact"

// IndependentDraws reports whether the algorithm's every iteration is an
// independent draw with no accept step (noise-aware, exact): acceptance
// says nothing about it (report.Chain.IndependentDraws).
func IndependentDraws(name string) bool { return name == NoiseAware || name == Exact }

// AlgorithmModels returns the models the algorithm can run, or nil when it
// runs every model (the page lists only the samplers of its models).
func AlgorithmModels(name string) []string {
	switch name {
	case Exact:
		return []string{"gaussian", "banana"}
	case NoiseAware:
		return []string{"logistic", "linear", "poisson", "gaussian", "banana"}
	}
	return nil
}

// IsPrivate reports whether the algorithm is a DP sampler.
func IsPrivate(name string) bool { return algorithms[name].private }

func box(m model.Model, r float64) []model.Interval {
	if r <= 0 {
		return nil
	}
	b := make([]model.Interval, m.Dim())
	for i := range b {
		b[i] = model.Interval{Lo: -r, Hi: r}
	}
	return b
}

func or(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// orIfZero returns v, or def when both v and other are zero.
func orIfZero(v, other, def float64) float64 {
	if v == 0 && other == 0 {
		return def
	}
	return v
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func orStr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func newKernel(name string, m model.Model, s Settings, cfg *Config) (mcmc.Kernel, error) {
	a, ok := algorithms[name]
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q", name)
	}
	if a.buildPrivate != nil {
		return a.buildPrivate(m, s, cfg)
	}
	return a.build(m, s)
}
