package mcmc

import (
	"errors"
	"fmt"
	"github.com/dpmcmc/dpmcmc/core/mathx"
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/model"
)

// Helpers shared by the kernels: vector arithmetic, the log target and its
// gradient, and the random-walk proposal. Nothing here allocates after
// construction.

var (
	errNoInit         = errors.New("mcmc: Step before Init")
	errOutsideSupport = errors.New("mcmc: initial position outside the prior's support")
	errBadLogLik      = errors.New("mcmc: log-likelihood at the initial position is not finite (a value in the data may be too extreme for the model, e.g. beyond 1e150: give public bounds to clip to, or check the file)")
)

// checkModel validates the model's shape.
func checkModel(m model.Model) (d, n int, err error) {
	if m == nil {
		return 0, 0, errors.New("mcmc: nil model")
	}
	d, n = m.Dim(), m.N()
	if d <= 0 {
		return 0, 0, fmt.Errorf("mcmc: model %s has dimension %d", m.Name(), d)
	}
	if n < 0 {
		return 0, 0, fmt.Errorf("mcmc: model %s has %d rows", m.Name(), n)
	}
	return d, n, nil
}

// checkScale validates an optional per-coordinate scale vector and returns
// it (copied) or a vector of ones.
func checkScale(scale []float64, d int) ([]float64, error) {
	out := make([]float64, d)
	if scale == nil {
		for j := range out {
			out[j] = 1
		}
		return out, nil
	}
	if len(scale) != d {
		return nil, fmt.Errorf("mcmc: scale has length %d, want %d", len(scale), d)
	}
	for j, s := range scale {
		if !(s > 0) || math.IsInf(s, 1) {
			return nil, fmt.Errorf("mcmc: scale[%d] = %v must be positive and finite", j, s)
		}
	}
	copy(out, scale)
	return out, nil
}

func checkStep(name string, step float64) error {
	if !(step > 0) || math.IsInf(step, 1) {
		return fmt.Errorf("mcmc: %s step = %v must be positive and finite", name, step)
	}
	return nil
}

// NonFiniteStartError is the error of an initial position with a
// coordinate that is not a finite number. Index is 0-based; callers that
// know the parameters' names say which (run: by name, on the scale the
// chain samples).
type NonFiniteStartError struct {
	Index int
	Value float64
}

func (e *NonFiniteStartError) Error() string {
	return fmt.Sprintf("mcmc: initial position[%d] = %v", e.Index, e.Value)
}

// checkTheta validates an initial position.
func checkTheta(theta []float64, d int) error {
	if len(theta) != d {
		return fmt.Errorf("mcmc: initial position has length %d, want %d", len(theta), d)
	}
	for j, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteStartError{Index: j, Value: v}
		}
	}
	return nil
}

// initPosition checks an initial position θ₀ (length len(theta), inside the
// prior's support and the box, if any), copies it into theta and returns
// log p(θ₀).
func initPosition(m model.Model, theta0, theta []float64, box []model.Interval) (float64, error) {
	if err := checkTheta(theta0, len(theta)); err != nil {
		return 0, err
	}
	if !inBox(theta0, box) {
		return 0, fmt.Errorf("%w: it is outside the parameter box (--box): start the chains inside it (--init values, or a box wider than the start radius, 2 by default)", errOutsideSupport)
	}
	lp := m.LogPrior(theta0)
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return 0, fmt.Errorf("%w: the prior's log density there is %v (check the prior's scale, --prior-sd)", errOutsideSupport, lp)
	}
	copy(theta, theta0)
	return lp, nil
}

// logLikAll writes ℓ_i(θ) for every row into buf (len N) and returns the sum.
func logLikAll(m model.Model, theta, buf []float64) float64 {
	return model.LogLikSum(m, theta, nil, buf) // one pass where the model fuses it; same sum
}

// gradLogPost writes ∇ log π(θ) = Σ_i ∇ℓ_i(θ) + ∇ log p(θ) into grad, using
// tmp (len d) as scratch.
func gradLogPost(m model.Model, theta, grad, tmp []float64) {
	m.GradLogLik(theta, nil, grad)
	m.GradLogPrior(theta, tmp)
	for j := range grad {
		grad[j] += tmp[j]
	}
}

// rwPropose writes θ' = θ + step·scale⊙z, z ~ N(0, I) from the public stream.
func rwPropose(r *rand.Rand, theta, scale []float64, step float64, out []float64) {
	for j, t := range theta {
		out[j] = t + step*scale[j]*r.NormFloat64()
	}
}

// logUniform returns log U for U ~ Uniform(0, 1], from the given stream.
func logUniform(r *rand.Rand) float64 {
	return mathx.Log(1 - r.Float64()) // Float64 is in [0, 1); 1−u is in (0, 1]
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// acceptProbMH is min(1, exp(logRatio)), 0 for NaN.
func acceptProbMH(logRatio float64) float64 {
	if math.IsNaN(logRatio) {
		return 0
	}
	if logRatio >= 0 {
		return 1
	}
	return mathx.Exp(logRatio)
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		d := a[j] - b[j]
		s += d * d
	}
	return s
}

func checkTarget(t float64) error {
	if !(t > 0 && t < 1) {
		return fmt.Errorf("mcmc: target acceptance %v must be in (0, 1)", t)
	}
	return nil
}
