package experiment

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dpmcmc/dpmcmc/core/diag"
)

// PairedMedianBandwidth is the DP-HMC paper's kernel width (§4
// "Evaluation"; metrics.py of its reference code): draw 500 points with
// replacement from each sample, pair them up, and take the median of the
// 500 paired distances ‖x_{i_k} − y_{j_k}‖.
func PairedMedianBandwidth(x, y [][]float64, r *rand.Rand) float64 {
	const m = 500
	if len(x) == 0 || len(y) == 0 {
		return math.NaN()
	}
	d := make([]float64, m)
	for k := range d {
		a, b := x[r.IntN(len(x))], y[r.IntN(len(y))]
		s := 0.0
		for j := range a {
			t := a[j] - b[j]
			s += t * t
		}
		d[k] = math.Sqrt(s)
	}
	slices.Sort(d)
	return (d[m/2-1] + d[m/2]) / 2
}

// MMD is the DP-HMC paper's metric: √|MMD²_u| with the unbiased estimator
// (diag.MMD2) and the paired-median bandwidth. It returns MMD and σ.
func MMD(x, y [][]float64, r *rand.Rand) (mmd, sigma float64) {
	sigma = PairedMedianBandwidth(x, y, r)
	return math.Sqrt(math.Abs(diag.MMD2(x, y, sigma))), sigma
}

// Moments returns the componentwise mean and (population) variance.
func Moments(x [][]float64) (mean, variance []float64) {
	if len(x) == 0 {
		return nil, nil
	}
	d := len(x[0])
	mean = make([]float64, d)
	variance = make([]float64, d)
	col := make([]float64, len(x))
	for j := 0; j < d; j++ {
		for i, p := range x {
			col[i] = p[j]
		}
		mean[j] = diag.Mean(col)
		s := 0.0
		for _, v := range col {
			t := v - mean[j]
			s += t * t
		}
		variance[j] = s / float64(len(col))
	}
	return mean, variance
}

// MeanError is ‖mean(x) − mean(y)‖₂, the DP-HMC paper's "mean error"
// (total_mean_error of its reference code).
func MeanError(x [][]float64, ref []float64) float64 {
	m, _ := Moments(x)
	return dist(m, ref)
}

func dist(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		t := a[j] - b[j]
		s += t * t
	}
	return math.Sqrt(s)
}

// SymKL is the DP-Fast MH paper's symmetric KL between 2-D histograms
// (util/SymKL.jl of its reference code: 100 edges per axis, i.e. 99 × 99
// bins spanning the reference sample's range, (KL(P‖Q) + KL(Q‖P))/2). It
// uses diag.SymmetricKL2D with additive smoothing eps per bin (the
// reference clamps probabilities at 1e-13 instead, which makes every empty
// bin cost ~30 nats; smoothing keeps the metric comparable across sample
// sizes).
func SymKL(x, ref [][]float64, g diag.Grid2D, eps float64) float64 {
	return diag.SymmetricKL2D(x, ref, g, eps) / 2
}

// GridFor returns the grid over the range of the reference sample's first
// two coordinates with nb bins per axis.
func GridFor(ref [][]float64, nb int) diag.Grid2D {
	g := diag.Grid2D{XMin: math.Inf(1), XMax: math.Inf(-1), YMin: math.Inf(1), YMax: math.Inf(-1), NX: nb, NY: nb}
	for _, p := range ref {
		g.XMin, g.XMax = min(g.XMin, p[0]), max(g.XMax, p[0])
		g.YMin, g.YMax = min(g.YMin, p[1]), max(g.YMax, p[1])
	}
	return g
}

// meanSE returns the mean and the standard error of the mean of v,
// ignoring NaNs.
func meanSE(v []float64) (m, se float64) {
	var w []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			w = append(w, x)
		}
	}
	if len(w) == 0 {
		return math.NaN(), math.NaN()
	}
	m = diag.Mean(w)
	if len(w) < 2 {
		return m, 0
	}
	return m, diag.SD(w) / math.Sqrt(float64(len(w)))
}

func median(v []float64) float64 {
	var w []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			w = append(w, x)
		}
	}
	if len(w) == 0 {
		return math.NaN()
	}
	return diag.Median(w)
}

func diagQuantile(w []float64, p float64) float64 {
	return diag.Quantiles(w, p)[0]
}
