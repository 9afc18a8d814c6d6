package diag

import (
	"math"
	"slices"
)

// sqDist is the squared Euclidean distance of two points of equal dimension.
func sqDist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

// MedianBandwidth returns the median heuristic bandwidth for the Gaussian
// kernel (Gretton et al. 2012, JMLR 13, §8): the median of the Euclidean
// distances ‖z_i − z_j‖, i < j, over the pooled points z = x ∪ y.
// It costs O(N²) time and memory in the pooled size N; subsample large
// samples first.
func MedianBandwidth(x, y [][]float64) float64 {
	z := make([][]float64, 0, len(x)+len(y))
	z = append(append(z, x...), y...)
	N := len(z)
	if N < 2 {
		return math.NaN()
	}
	d := make([]float64, 0, N*(N-1)/2)
	for i := 0; i < N; i++ {
		for j := i + 1; j < N; j++ {
			d = append(d, math.Sqrt(sqDist(z[i], z[j])))
		}
	}
	slices.Sort(d)
	return median(d)
}

// MMD2 returns the unbiased estimate of the squared maximum mean discrepancy
// between the samples x (m points) and y (n points) with the Gaussian kernel
// k(a, b) = exp(−‖a − b‖² / (2σ²)) (Gretton et al. 2012, eq. 3):
//
//	MMD²_u = Σ_{i≠j} k(x_i,x_j)/(m(m−1)) + Σ_{i≠j} k(y_i,y_j)/(n(n−1))
//	         − 2 Σ_{i,j} k(x_i,y_j)/(m n).
//
// The estimate is unbiased and may be slightly negative when p = q. It
// returns NaN when either sample has fewer than two points or σ ≤ 0.
// Points are rows of equal dimension; nothing is allocated.
func MMD2(x, y [][]float64, sigma float64) float64 {
	m, n := len(x), len(y)
	if m < 2 || n < 2 || !(sigma > 0) {
		return math.NaN()
	}
	g := -1 / (2 * sigma * sigma)
	var kxx, kyy, kxy float64
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			kxx += math.Exp(g * sqDist(x[i], x[j]))
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			kyy += math.Exp(g * sqDist(y[i], y[j]))
		}
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			kxy += math.Exp(g * sqDist(x[i], y[j]))
		}
	}
	fm, fn := float64(m), float64(n)
	return 2*kxx/(fm*(fm-1)) + 2*kyy/(fn*(fn-1)) - 2*kxy/(fm*fn)
}

// MMD2Median returns MMD2 with the median heuristic bandwidth of the pooled
// sample, and that bandwidth.
func MMD2Median(x, y [][]float64) (mmd2, sigma float64) {
	sigma = MedianBandwidth(x, y)
	return MMD2(x, y, sigma), sigma
}

// Grid2D is a regular histogram grid on [XMin, XMax] × [YMin, YMax] with
// NX × NY bins. Points outside the box are counted in the nearest edge bin.
type Grid2D struct {
	XMin, XMax, YMin, YMax float64
	NX, NY                 int
}

func (g Grid2D) bin(p []float64) int {
	ix := int(math.Floor((p[0] - g.XMin) / (g.XMax - g.XMin) * float64(g.NX)))
	iy := int(math.Floor((p[1] - g.YMin) / (g.YMax - g.YMin) * float64(g.NY)))
	ix = min(max(ix, 0), g.NX-1)
	iy = min(max(iy, 0), g.NY-1)
	return ix*g.NY + iy
}

// SymmetricKL2D returns KL(P‖Q) + KL(Q‖P) between the 2-D histograms of the
// first two coordinates of the samples x and y on grid g — the metric of
// the DP-Fast MH paper's Gaussian-mixture experiment (Zhang et al. 2023,
// Fig. 1). Each bin probability is smoothed as (count + eps)/(N + B·eps),
// B = NX·NY bins, so empty bins keep the divergence finite; eps = 0 gives
// the raw divergence (+Inf when one histogram has mass where the other has
// none). Returns NaN for an empty sample or an invalid grid.
func SymmetricKL2D(x, y [][]float64, g Grid2D, eps float64) float64 {
	if len(x) == 0 || len(y) == 0 || g.NX < 1 || g.NY < 1 ||
		!(g.XMax > g.XMin) || !(g.YMax > g.YMin) || eps < 0 {
		return math.NaN()
	}
	B := g.NX * g.NY
	cp := make([]float64, B)
	cq := make([]float64, B)
	for _, p := range x {
		cp[g.bin(p)]++
	}
	for _, p := range y {
		cq[g.bin(p)]++
	}
	np := float64(len(x)) + float64(B)*eps
	nq := float64(len(y)) + float64(B)*eps
	var kl float64
	for b := range cp {
		P := (cp[b] + eps) / np
		Q := (cq[b] + eps) / nq
		if P == Q {
			continue
		}
		if P > 0 {
			kl += P * math.Log(P/Q)
		}
		if Q > 0 {
			kl += Q * math.Log(Q/P)
		}
	}
	return kl
}
