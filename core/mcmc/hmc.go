package mcmc

import (
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// HMC is Hamiltonian Monte Carlo with a fixed number of leapfrog steps
// (Duane et al. 1987; Neal 2011), as stated in dp-hmc.txt §2.2 with a
// diagonal mass matrix M = diag(1/m_j), m = InvMetric:
//
//	p ~ N(0, M)                                           (public stream)
//	H(θ, p) = −log π(θ) + ½ pᵀM⁻¹p
//	leapfrog, L times, step η = ε·jitter:                 (jitter: public stream)
//	    p ← p + (η/2)∇log π(θ);  θ ← θ + η M⁻¹p;  p ← p + (η/2)∇log π(θ)
//	accept (θ', −p') with probability min(1, exp(H(θ, p) − H(θ', p')))  (noise stream)
//
// ∇log π is cached at the current θ, so an iteration costs L gradient passes
// and one log-likelihood pass (Info.Rows = (L+1)·N). Models that implement
// model.LogLikGrader compute the last gradient and the log-likelihood in one
// pass (same values, one pass less over the data). A trajectory that leaves
// the prior's support, or whose energy error exceeds MaxEnergyError, is
// rejected and marked Divergent.
//
// With Adapt set, ε is tuned during warmup by dual averaging towards
// TargetAccept (default 0.8, Stan's); with AdaptMetric too, the diagonal
// inverse metric is estimated in Stan's windows (adapt.go), which needs the
// warmup length (PlanWarmup; Sample calls it).
//
// With DenseMetric as well, the windows estimate the chain's covariance Σ
// (regularised as Stan's dense_e) and the inverse metric becomes M⁻¹ = Σ =
// LLᵀ: p = L⁻ᵀz with z ~ N(0, I), kinetic energy ½‖Lᵀp‖², and the position
// step θ ← θ + η·L(Lᵀp). In the coordinates u = L⁻¹θ this is HMC with the
// identity metric, so a posterior whose coefficients are strongly
// correlated (a predictor that is 0 whenever another is at one level) is
// explored as a round one: the trajectory of L steps crosses it instead of
// zig-zagging along its narrow direction. Each step costs O(d²) more, small
// against the O(n·d) gradient. Until a window of at least 2d states ends
// the metric is the diagonal one. A later window of fewer states (the last
// window at some warmup lengths) keeps the dense metric in use. A
// covariance that is not positive definite sets the window's diagonal
// metric instead: the ridge prevents this unless the states are nearly
// collinear at a scale where the ridge is below their rounding (e.g.
// coordinates near 10⁶).
type HMC struct {
	m      model.Model
	cfg    HMCConfig
	d, n   int
	step   float64
	jitter StepJitter

	invM, sqrtM   []float64 // M⁻¹ diagonal and √M (momentum sd)
	chol          []float64 // dense M⁻¹ = LLᵀ: L, d × d row-major lower triangle (DenseMetric only)
	dense         bool      // the dense metric chol is in use (else the diagonal invM)
	cov, u        []float64 // dense adaptation: the window's covariance (d × d) and scratch (len d)
	theta, thNew  []float64
	grad, gradNew []float64 // ∇log π at θ and along the trajectory
	p, tmp, buf   []float64 // momentum, scratch (len d), scratch (len N)
	logPost       float64   // log π(θ) = Σℓ_i(θ) + log p(θ)
	ready         bool
	fused         model.LogLikGrader // nil when the model has no fused pass

	adapting bool
	da       *DualAveraging
	windows  *varianceWindows
}

// HMCConfig configures HMC.
type HMCConfig struct {
	// Step is the leapfrog step size ε.
	Step float64 `json:"step"`
	// Steps is the number of leapfrog steps L per iteration.
	Steps int `json:"steps"`
	// Jitter randomises ε per iteration (default none).
	Jitter JitterConfig `json:"jitter,omitzero"`
	// InvMetric is the diagonal of M⁻¹ (public); nil means identity.
	InvMetric []float64 `json:"inv_metric,omitempty"`
	// Adapt tunes Step during warmup (non-private runs only).
	Adapt bool `json:"adapt,omitempty"`
	// AdaptMetric also estimates InvMetric during warmup (needs Adapt).
	AdaptMetric bool `json:"adapt_metric,omitempty"`
	// DenseMetric makes AdaptMetric estimate a dense inverse metric (the
	// chain's covariance) instead of a diagonal one (needs AdaptMetric).
	DenseMetric bool `json:"dense_metric,omitempty"`
	// TargetAccept is the dual-averaging target (default 0.8).
	TargetAccept float64 `json:"target_accept,omitempty"`
	// MaxEnergyError marks a trajectory divergent (default 1000).
	MaxEnergyError float64 `json:"max_energy_error,omitempty"`
}

// NewHMC returns an HMC kernel for m.
func NewHMC(m model.Model, cfg HMCConfig) (*HMC, error) {
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := checkStep("hmc", cfg.Step); err != nil {
		return nil, err
	}
	if cfg.Steps < 1 {
		return nil, fmt.Errorf("mcmc: hmc steps = %d must be at least 1", cfg.Steps)
	}
	if cfg.AdaptMetric && !cfg.Adapt {
		return nil, fmt.Errorf("mcmc: hmc adapt_metric needs adapt")
	}
	if cfg.DenseMetric && !cfg.AdaptMetric {
		return nil, fmt.Errorf("mcmc: hmc dense_metric needs adapt_metric")
	}
	invM, err := checkScale(cfg.InvMetric, d)
	if err != nil {
		return nil, err
	}
	if cfg.TargetAccept == 0 {
		cfg.TargetAccept = 0.8
	}
	if err := checkTarget(cfg.TargetAccept); err != nil {
		return nil, err
	}
	if cfg.MaxEnergyError == 0 {
		cfg.MaxEnergyError = 1000
	}
	if !(cfg.MaxEnergyError > 0) {
		return nil, fmt.Errorf("mcmc: hmc max_energy_error = %v must be positive", cfg.MaxEnergyError)
	}
	jit, err := NewJitter(cfg.Jitter)
	if err != nil {
		return nil, err
	}
	k := &HMC{
		m: m, cfg: cfg, d: d, n: n, step: cfg.Step, jitter: jit,
		invM: invM, sqrtM: make([]float64, d),
		theta: make([]float64, d), thNew: make([]float64, d),
		grad: make([]float64, d), gradNew: make([]float64, d),
		p: make([]float64, d), tmp: make([]float64, d), buf: make([]float64, n),
		adapting: cfg.Adapt,
	}
	k.fused, _ = m.(model.LogLikGrader)
	k.setMetric()
	if cfg.Adapt {
		k.da = NewDualAveraging(cfg.Step, cfg.TargetAccept)
	}
	switch {
	case cfg.DenseMetric:
		k.windows = newCovarianceWindows(d)
		k.cov, k.chol, k.u = make([]float64, d*d), make([]float64, d*d), make([]float64, d)
	case cfg.AdaptMetric:
		k.windows = newVarianceWindows(d)
	}
	return k, nil
}

func (k *HMC) setMetric() {
	for j, v := range k.invM {
		k.sqrtM[j] = 1 / math.Sqrt(v)
	}
}

// setDense factors the window's covariance into chol when the window
// wrote one (ready). A window too short for a covariance keeps the dense
// metric in use, if there is one (its diagonal goes back into invM), and
// otherwise leaves the window's diagonal metric; a covariance that is not
// positive definite sets that diagonal metric too.
func (k *HMC) setDense(ready bool) {
	if !ready {
		if k.dense {
			for j := range k.d { // invM = diag(LLᵀ)
				s := 0.0
				for c := 0; c <= j; c++ {
					s += k.chol[j*k.d+c] * k.chol[j*k.d+c]
				}
				k.invM[j] = s
			}
			k.setMetric()
		}
		return
	}
	copy(k.chol, k.cov)
	if k.dense = mathx.Cholesky(k.chol, k.d); !k.dense {
		return
	}
	for i := range k.d { // clear the upper triangle: L only
		for j := i + 1; j < k.d; j++ {
			k.chol[i*k.d+j] = 0
		}
	}
}

// SetJitter replaces the step-size jitter (e.g. a custom sequence).
func (k *HMC) SetJitter(j StepJitter) { k.jitter = j }

// Name implements Kernel.
func (k *HMC) Name() string { return "hmc" }

// Position implements Kernel.
func (k *HMC) Position() []float64 { return k.theta }

// StepSize is the current (unjittered) leapfrog step ε.
func (k *HMC) StepSize() float64 { return k.step }

// InvMetric is the diagonal of the current inverse metric (owned by the
// kernel).
func (k *HMC) InvMetric() []float64 { return k.invM }

// DenseInvMetricFactor is L of the current dense inverse metric M⁻¹ = LLᵀ
// (d × d row-major, lower triangle; owned by the kernel), or nil while the
// metric is diagonal.
func (k *HMC) DenseInvMetricFactor() []float64 {
	if !k.dense {
		return nil
	}
	return k.chol
}

// Init implements Kernel.
func (k *HMC) Init(theta0 []float64) error {
	lp, err := initPosition(k.m, theta0, k.theta, nil)
	if err != nil {
		return err
	}
	ll := k.logLikGradPost(k.theta, k.grad)
	if !finite(ll) {
		return errBadLogLik
	}
	k.logPost = ll + lp
	k.ready = true
	return nil
}

// Step implements Kernel.
func (k *HMC) Step(r rng.Streams) Info {
	if !k.ready {
		panic(errNoInit)
	}
	eta := k.step * k.jitter.Factor(r.Public)
	kin0 := 0.0
	if k.dense {
		for j := range k.p {
			z := r.Public.NormFloat64()
			k.p[j] = z
			kin0 += z * z // ½pᵀM⁻¹p = ½‖Lᵀp‖² = ½‖z‖²
		}
		mathx.SolveLowerT(k.chol, k.d, k.p) // p = L⁻ᵀz ~ N(0, M)
	} else {
		for j := range k.p {
			pj := k.sqrtM[j] * r.Public.NormFloat64()
			k.p[j] = pj
			kin0 += k.invM[j] * pj * pj
		}
	}
	h0 := -k.logPost + kin0/2

	copy(k.thNew, k.theta)
	copy(k.gradNew, k.grad)
	L := k.cfg.Steps
	var ll float64
	for l := 0; l < L; l++ {
		if k.dense {
			for j := range k.p {
				k.p[j] += eta / 2 * k.gradNew[j]
			}
			k.addDenseVelocity(eta)
		} else {
			for j := range k.p {
				k.p[j] += eta / 2 * k.gradNew[j]
				k.thNew[j] += eta * k.invM[j] * k.p[j]
			}
		}
		if lp := k.m.LogPrior(k.thNew); math.IsInf(lp, -1) || math.IsNaN(lp) {
			return Info{Rows: l * k.n, Divergent: true}
		}
		if l == L-1 {
			ll = k.logLikGradPost(k.thNew, k.gradNew)
		} else {
			gradLogPost(k.m, k.thNew, k.gradNew, k.tmp)
		}
		for j := range k.p {
			k.p[j] += eta / 2 * k.gradNew[j]
		}
	}
	lp := k.m.LogPrior(k.thNew)
	logPost := ll + lp
	kin1 := k.kinetic2()
	dH := -logPost + kin1/2 - h0 // H(θ', p') − H(θ, p)
	info := Info{Rows: (L + 1) * k.n}
	if dH != dH || dH > k.cfg.MaxEnergyError {
		info.Divergent = true
		return info
	}
	info.AcceptProb = acceptProbMH(-dH)
	if logUniform(r.Noise) < -dH {
		k.theta, k.thNew = k.thNew, k.theta
		k.grad, k.gradNew = k.gradNew, k.grad
		k.logPost = logPost
		info.Accepted = true
	}
	return info
}

// addDenseVelocity moves thNew by η·M⁻¹p = η·L(Lᵀp) (dense metric).
func (k *HMC) addDenseVelocity(eta float64) {
	mathx.MulLowerT(k.chol, k.d, k.p, k.u)
	mathx.MulLower(k.chol, k.d, k.u, k.tmp)
	for j, v := range k.tmp {
		k.thNew[j] += eta * v
	}
}

// kinetic2 is pᵀM⁻¹p, twice the kinetic energy.
func (k *HMC) kinetic2() float64 {
	s := 0.0
	if k.dense {
		mathx.MulLowerT(k.chol, k.d, k.p, k.u)
		for _, v := range k.u {
			s += v * v
		}
		return s
	}
	for j, pj := range k.p {
		s += k.invM[j] * pj * pj
	}
	return s
}

// logLikGradPost returns Σ_i ℓ_i(θ) and writes ∇log π(θ) into grad: one
// fused pass when the model has one, else a log-likelihood pass and a
// gradient pass (the same values either way).
func (k *HMC) logLikGradPost(theta, grad []float64) float64 {
	if k.fused == nil {
		ll := logLikAll(k.m, theta, k.buf)
		gradLogPost(k.m, theta, grad, k.tmp)
		return ll
	}
	ll := k.fused.LogLikGrad(theta, grad)
	k.m.GradLogPrior(theta, k.tmp)
	for j := range grad {
		grad[j] += k.tmp[j]
	}
	return ll
}

// PlanWarmup implements WarmupPlanner.
func (k *HMC) PlanWarmup(warmup int) {
	if k.windows != nil {
		k.windows.plan(warmup)
	}
}

// Adapt implements Adaptive.
func (k *HMC) Adapt(it int, info Info) {
	if !k.adapting {
		return
	}
	k.step = k.da.Update(info.AcceptProb)
	if k.windows != nil && k.windows.observe(k.theta, k.invM, k.cov) {
		k.setMetric()
		if k.cov != nil {
			k.setDense(k.windows.covReady)
		}
		k.da.Restart(k.step)
	}
}

// EndWarmup implements Adaptive.
func (k *HMC) EndWarmup() {
	if k.adapting {
		k.step = k.da.Final()
		k.adapting = false
	}
}
