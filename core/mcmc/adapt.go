package mcmc

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/mathx"
)

// Warmup adaptation for the non-private kernels.
//
// Step size: dual averaging, Hoffman & Gelman (2014), "The No-U-Turn
// Sampler", JMLR 15, Algorithm 5 (Section 3.2.1), with Stan's defaults
// γ = 0.05, t0 = 10, κ = 0.75 and μ = log(10·ε0):
//
//	H̄_m      = (1 − 1/(m + t0))·H̄_{m−1} + (δ − α_m)/(m + t0)
//	log ε_m  = μ − √m/γ · H̄_m
//	log ε̄_m  = m^{−κ}·log ε_m + (1 − m^{−κ})·log ε̄_{m−1}
//
// where δ is the target acceptance statistic and α_m the acceptance
// probability of iteration m. At the end of warmup the step is frozen at ε̄.
//
// Diagonal metric (HMC only): Stan's windowed adaptation (Stan Reference
// Manual, "HMC algorithm parameters / Automatic parameter tuning"): an initial
// fast buffer of 75 iterations, slow windows of 25, 50, 100, … iterations over
// which the variance of each coordinate is estimated (Welford), and a final
// fast buffer of 50 iterations. At the end of each slow window the inverse
// metric is set to the regularised variance (n/(n+5))·var + 1e-3·5/(n+5) and
// dual averaging restarts from the current step. Warmups shorter than 150
// iterations use 15% / 75% / 10%; shorter than 20 adapt the step only.
//
// The adaptation uses Info.AcceptProb, a function of private data: it is for
// non-private runs. DP kernels must adapt only from what they release
// (Info.Accepted), see Adaptive.

// Dual averaging defaults (Stan).
const (
	daGamma = 0.05
	daT0    = 10
	daKappa = 0.75
)

// DualAveraging tunes a step size so that the average acceptance statistic
// approaches Target (Hoffman & Gelman 2014, Algorithm 5).
type DualAveraging struct {
	Target float64 // δ
	Gamma  float64 // γ
	T0     float64 // t0
	Kappa  float64 // κ

	mu, hbar, logEps, logEpsBar float64
	m                           int
}

// NewDualAveraging starts dual averaging at step eps0 with Stan's constants.
func NewDualAveraging(eps0, target float64) *DualAveraging {
	da := &DualAveraging{Target: target, Gamma: daGamma, T0: daT0, Kappa: daKappa}
	da.Restart(eps0)
	return da
}

// Restart resets the averages and sets μ = log(10·eps0).
func (da *DualAveraging) Restart(eps0 float64) {
	da.mu = mathx.Log(10 * eps0)
	da.hbar, da.logEpsBar, da.m = 0, 0, 0
	da.logEps = mathx.Log(eps0)
}

// Update records one iteration's acceptance statistic (clamped to [0, 1],
// NaN counts as 0) and returns the step for the next iteration.
func (da *DualAveraging) Update(accept float64) float64 {
	if !(accept >= 0) { // also NaN
		accept = 0
	} else if accept > 1 {
		accept = 1
	}
	da.m++
	m := float64(da.m)
	w := 1 / (m + da.T0)
	da.hbar = (1-w)*da.hbar + w*(da.Target-accept)
	da.logEps = da.mu - math.Sqrt(m)/da.Gamma*da.hbar
	eta := mathx.Exp(-da.Kappa * mathx.Log(m))
	da.logEpsBar = eta*da.logEps + (1-eta)*da.logEpsBar
	return mathx.Exp(da.logEps)
}

// Current is the step of the latest iterate, ε_m.
func (da *DualAveraging) Current() float64 { return mathx.Exp(da.logEps) }

// Final is the averaged step ε̄ to use after warmup (the current step when no
// update happened yet).
func (da *DualAveraging) Final() float64 {
	if da.m == 0 {
		return mathx.Exp(da.logEps)
	}
	return mathx.Exp(da.logEpsBar)
}

// Stan's default window sizes.
const (
	winInitBuffer = 75
	winTermBuffer = 50
	winBase       = 25
)

// varianceWindows is Stan's windowed metric adaptation schedule with a
// Welford variance estimator (allocated once); with cross set it also
// accumulates the co-moments for a dense metric.
type varianceWindows struct {
	warmup                 int
	initBuf, termBuf, size int
	next, counter          int
	on                     bool
	n                      int
	mean, m2, dx           []float64
	cross                  []float64 // d × d co-moments Σ(x − x̄)(x − x̄)ᵀ, nil for a diagonal metric
	covReady               bool      // the last window wrote a covariance
}

func newVarianceWindows(d int) *varianceWindows {
	return &varianceWindows{mean: make([]float64, d), m2: make([]float64, d), dx: make([]float64, d)}
}

// newCovarianceWindows is newVarianceWindows that also estimates the
// covariance (observe's cov).
func newCovarianceWindows(d int) *varianceWindows {
	w := newVarianceWindows(d)
	w.cross = make([]float64, d*d)
	return w
}

// plan sets the schedule for a warmup of the given length.
func (w *varianceWindows) plan(warmup int) {
	w.warmup, w.counter, w.n = warmup, 0, 0
	w.on = warmup >= 20
	w.initBuf, w.termBuf, w.size = winInitBuffer, winTermBuffer, winBase
	if w.on && w.initBuf+w.termBuf+w.size > warmup {
		w.initBuf = int(0.15 * float64(warmup))
		w.termBuf = int(0.1 * float64(warmup))
		w.size = warmup - (w.initBuf + w.termBuf)
	}
	w.next = w.initBuf + w.size - 1
	w.reset()
}

func (w *varianceWindows) reset() {
	w.n = 0
	for j := range w.mean {
		w.mean[j], w.m2[j] = 0, 0
	}
	for j := range w.cross {
		w.cross[j] = 0
	}
}

func (w *varianceWindows) inWindow() bool {
	return w.counter >= w.initBuf && w.counter < w.warmup-w.termBuf && w.counter != w.warmup
}

func (w *varianceWindows) endOfWindow() bool {
	return w.counter == w.next && w.counter != w.warmup
}

func (w *varianceWindows) computeNext() {
	if w.next == w.warmup-w.termBuf-1 {
		return
	}
	w.size *= 2
	w.next = w.counter + w.size
	if w.next != w.warmup-w.termBuf-1 {
		if w.next+2*w.size >= w.warmup-w.termBuf {
			w.next = w.warmup - w.termBuf - 1
		}
	}
}

// observe records the position after one warmup iteration. When a slow
// window ends it writes the regularised variance into invMetric and, for
// windows made by newCovarianceWindows with cov non-nil, the regularised
// d × d covariance into cov (Stan's: (k/(k+5))·Ĉ + 10⁻³·(5/(k+5))·I over
// the window's k states), and reports true. The covariance is written only
// from k ≥ 2d states (covReady): from fewer it is nearly singular, and a
// dense metric would freeze the chain in the directions it did not see.
func (w *varianceWindows) observe(theta, invMetric, cov []float64) bool {
	if !w.on {
		return false
	}
	if w.inWindow() {
		w.n++
		k := float64(w.n)
		for j, x := range theta {
			dx := x - w.mean[j]
			w.dx[j] = dx
			w.mean[j] += dx / k
			w.m2[j] += dx * (x - w.mean[j])
		}
		if w.cross != nil {
			// Welford's co-moment: the deviation from the old mean times
			// the deviation from the new one.
			d := len(theta)
			for j := range d {
				for l := range d {
					w.cross[j*d+l] += w.dx[j] * (theta[l] - w.mean[l])
				}
			}
		}
	}
	if w.endOfWindow() {
		w.computeNext()
		w.covReady = false
		if w.n >= 2 {
			k := float64(w.n)
			shrink, ridge := k/(k+5), 1e-3*(5/(k+5))
			for j := range invMetric {
				invMetric[j] = shrink*(w.m2[j]/(k-1)) + ridge // the order of the diagonal-only code before the dense metric: the same bits
			}
			if d := len(invMetric); cov != nil && w.cross != nil && w.n >= 2*d {
				w.covReady = true
				for j := range d {
					for l := range d {
						if l == j {
							cov[j*d+l] = invMetric[j]
						} else {
							cov[j*d+l] = shrink * (w.cross[j*d+l] + w.cross[l*d+j]) / (2 * (k - 1))
						}
					}
				}
			}
		}
		w.reset()
		w.counter++
		return true
	}
	w.counter++
	return false
}

// dpMetric adapts a DP kernel's diagonal proposal metric during warmup from
// the chain's own states (issue #16 part A). The states are functions of
// the released noisy statistics and the public randomness only, so this is
// post-processing: it spends no privacy, and the DP kernels' per-iteration
// cost does not depend on the metric (dp-penalty and dp-hmc clip the
// log-likelihood ratio to Clip·‖θ' − θ‖ of the actual move, and dp-hmc's
// gradient noise depends on GradClip alone). The schedule is Stan's windows
// (varianceWindows). At the end of each slow window the metric w_j becomes
// the regularised variance estimate v_j rescaled to the geometric mean of
// the previous metric, w_j = v_j·G(w)/G(v): only the shape changes, so the
// step that dual averaging tuned on the accept bits stays about right, and
// a chain that did not move (every v_j equal) keeps its metric. With maxOne
// (dp-mala, whose privacy analysis needs w_j ≤ 1) it is rescaled to
// w_j = v_j / max_k v_k instead.
type dpMetric struct {
	w      *varianceWindows
	est    []float64 // scratch: the window's variance estimate
	maxOne bool
}

func newDPMetric(on bool, d int) *dpMetric {
	if !on {
		return nil
	}
	return &dpMetric{w: newVarianceWindows(d), est: make([]float64, d)}
}

// newDPMetricMaxOne is newDPMetric with the metric normalised to max 1.
func newDPMetricMaxOne(on bool, d int) *dpMetric {
	a := newDPMetric(on, d)
	if a != nil {
		a.maxOne = true
	}
	return a
}

// plan sets the schedule for a warmup of the given length.
func (a *dpMetric) plan(warmup int) {
	if a != nil {
		a.w.plan(warmup)
	}
}

// observe records a warmup state; when a window ends it rescales metric
// (variances per coordinate) in place and reports true.
func (a *dpMetric) observe(theta, metric []float64) bool {
	if a == nil || !a.w.observe(theta, a.est, nil) {
		return false
	}
	var lw, lv, vmax float64
	for j, v := range a.est {
		if !(v > 0) || math.IsInf(v, 0) {
			return false
		}
		lw += mathx.Log(metric[j])
		lv += mathx.Log(v)
		vmax = max(vmax, v)
	}
	f := mathx.Exp((lw - lv) / float64(len(metric)))
	if a.maxOne {
		f = 1 / vmax
	}
	for j, v := range a.est {
		metric[j] = v * f
	}
	return true
}
