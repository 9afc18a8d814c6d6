package diag

import (
	"math"
	"slices"
)

// neumaier adds v to the compensated sum (s, c) (Neumaier 1974). The result
// is s + c; it stands in for R's long-double accumulators.
func neumaier(s, c, v float64) (float64, float64) {
	t := s + v
	if math.Abs(s) >= math.Abs(v) {
		c += (s - t) + v
	} else {
		c += (v - t) + s
	}
	return t, c
}

// mean is the arithmetic mean with a compensated sum and R's second
// refinement pass, x̄ = s/n + Σ(x_i − s/n)/n.
func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s, c float64
	for _, v := range x {
		s, c = neumaier(s, c, v)
	}
	n := float64(len(x))
	mu := (s + c) / n
	if math.IsInf(mu, 0) || math.IsNaN(mu) {
		return mu
	}
	s, c = 0, 0
	for _, v := range x {
		s, c = neumaier(s, c, v-mu)
	}
	return mu + (s+c)/n
}

// variance is the unbiased sample variance Σ(x_i − mu)²/(n − 1) about the
// given mean (NaN for fewer than two values).
func variance(x []float64, mu float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	var s, c float64
	for _, v := range x {
		d := v - mu
		s, c = neumaier(s, c, d*d)
	}
	return (s + c) / float64(len(x)-1)
}

// median of sorted values: the middle value, or the mean of the two middle
// values for an even count (R's median).
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := n / 2
	if n%2 == 1 {
		return sorted[h]
	}
	return (sorted[h-1] + sorted[h]) / 2
}

// QuantileSorted returns the type-7 quantile (Hyndman and Fan 1996; R's
// default) of ascending values: with h = 1 + (n − 1)p, lo = ⌊h⌋, hi = ⌈h⌉,
//
//	Q(p) = (1 − (h − lo))·x_(lo) + (h − lo)·x_(hi)   (1-based order statistics),
//
// evaluated in the same floating-point order as R's quantile.default.
func QuantileSorted(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	index := 1 + float64(n-1)*p
	lo := math.Floor(index)
	hi := math.Ceil(index)
	qs := sorted[int(lo)-1]
	xh := sorted[int(hi)-1]
	if index > lo && xh != qs {
		h := index - lo
		qs = (1-h)*qs + h*xh
	}
	return qs
}

// Quantiles returns the type-7 quantiles of x at probabilities ps
// (x is not modified).
func Quantiles(x []float64, ps ...float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = QuantileSorted(s, p)
	}
	return out
}

// Mean returns the arithmetic mean of x (compensated summation).
func Mean(x []float64) float64 { return mean(x) }

// SD returns the sample standard deviation of x with divisor n − 1.
func SD(x []float64) float64 { return math.Sqrt(variance(x, mean(x))) }

// Median returns the median of x (x is not modified).
func Median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return median(s)
}

// CentralInterval returns the equal-tailed interval holding mass level
// (e.g. 0.95 gives the type-7 quantiles at 2.5% and 97.5%).
func CentralInterval(x []float64, level float64) (lo, hi float64) {
	a := (1 - level) / 2
	q := Quantiles(x, a, 1-a)
	return q[0], q[1]
}

// AcceptanceRate returns the fraction of true values in accepted, the
// empirical acceptance rate of a Metropolis-type chain (NaN when empty).
func AcceptanceRate(accepted []bool) float64 {
	if len(accepted) == 0 {
		return math.NaN()
	}
	k := 0
	for _, a := range accepted {
		if a {
			k++
		}
	}
	return float64(k) / float64(len(accepted))
}

// MoveRate estimates the acceptance rate of a Metropolis-type chain from its
// draws alone, chain[iteration][param]: the fraction of transitions
// t−1 → t in which the state changed. It equals the acceptance rate when a
// proposal never coincides with the current state (continuous proposals);
// it needs no accept bits, so it can be computed from an export.
func MoveRate(chain [][]float64) float64 {
	if len(chain) < 2 {
		return math.NaN()
	}
	k := 0
	for t := 1; t < len(chain); t++ {
		if !slices.Equal(chain[t], chain[t-1]) {
			k++
		}
	}
	return float64(k) / float64(len(chain)-1)
}
