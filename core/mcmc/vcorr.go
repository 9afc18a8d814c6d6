package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// The correction distribution of the DP Barker test (dp-barker-mcmc.txt
// §3.2, eq. (8), and §3.3, eq. (16)):
//
//	V_log ≈ N(0, C) + V_corr^(C),   V_log ~ Logistic(0, 1),
//
// so that testing Δ + N(0, C) + V_corr > 0 approximates Barker's exact test
// Δ + V_log > 0 (eq. (5)). No distribution satisfies this exactly for C > 0
// (the logistic is a Gaussian scale mixture whose mixing law puts mass on
// variances below C); Heikkilä et al. fit V_corr as a Gaussian mixture. The
// mixtures shipped here (vcorr_data.go) are symmetric: each row (μ, s, w)
// stands for ½w·N(μ, s²) + ½w·N(−μ, s²). They are produced by
// `go run ./tools/vcorr` (Levenberg–Marquardt on the L2 distance between the
// log-densities of V + N(0, C) and of the logistic on a grid over [−10, 10],
// as the reference fits in testdata/vcorr) and never fitted in the browser.
//
// The correction is approximate: the accept probability of the test differs
// from Barker's 1/(1 + e^{−Δ}) by at most the sup-norm CDF error of
// V + N(0, C) against the logistic, which the generator measures and records
// (VCorrError). Measured values are in vcorr_data.go; the reference fits
// reach 1.2e-6 at C = 1 and 2.4e-3 at C = 2 (testdata/vcorr/README).

// vcorrTable is one fitted mixture as the generator writes it.
type vcorrTable struct {
	C      float64
	SupErr float64      // sup_x |P(V + N(0,C) ≤ x) − 1/(1 + e^{−x})|
	Comp   [][3]float64 // (μ, s, w); used mirrored
}

// vcorrMix is a ready-to-sample mixture: cumulative weights for the
// component choice.
type vcorrMix struct {
	c      float64
	supErr float64
	mu, sd []float64
	w      []float64
	cum    []float64 // cum[k] = Σ_{j≤k} w_j, cum[K−1] = 1
}

// VCorrCs lists the C values with a shipped correction mixture.
func VCorrCs() []float64 {
	cs := make([]float64, len(vcorrTables))
	for i, t := range vcorrTables {
		cs[i] = t.C
	}
	return cs
}

// VCorrError returns the sup-norm CDF error of the shipped mixture for C:
// the largest possible difference between the DP Barker test's accept
// probability and Barker's, for any Δ.
func VCorrError(C float64) (float64, error) {
	m, err := vcorrFor(C)
	if err != nil {
		return 0, err
	}
	return m.supErr, nil
}

// vcorrFor returns the shipped mixture for C (exact match required).
func vcorrFor(C float64) (*vcorrMix, error) {
	for _, t := range vcorrTables {
		if t.C != C {
			continue
		}
		return newVCorrMix(t), nil
	}
	return nil, fmt.Errorf("mcmc: no correction distribution for C = %v (available: %v)", C, VCorrCs())
}

func newVCorrMix(t vcorrTable) *vcorrMix {
	k := len(t.Comp)
	m := &vcorrMix{c: t.C, supErr: t.SupErr, mu: make([]float64, k), sd: make([]float64, k), w: make([]float64, k), cum: make([]float64, k)}
	tot := 0.0
	for _, c := range t.Comp {
		tot += c[2]
	}
	s := 0.0
	for i, c := range t.Comp {
		m.mu[i], m.sd[i], m.w[i] = c[0], c[1], c[2]/tot
		s += m.w[i]
		m.cum[i] = s
	}
	m.cum[k-1] = 1
	return m
}

// draw returns one V_corr draw from r (the private stream): a component by
// its weight, a random sign, then μ + s·Z.
func (m *vcorrMix) draw(r *rand.Rand) float64 {
	u := r.Float64()
	k := sort.SearchFloat64s(m.cum, u) // first cum[k] ≥ u
	if k >= len(m.cum) {
		k = len(m.cum) - 1
	}
	mu := m.mu[k]
	if r.Uint64()&1 == 1 {
		mu = -mu
	}
	return mu + m.sd[k]*r.NormFloat64()
}

// cdfSum is P(V + N(0, C) ≤ x).
func (m *vcorrMix) cdfSum(x float64) float64 {
	s := 0.0
	for k, w := range m.w {
		sd := math.Sqrt(m.sd[k]*m.sd[k] + m.c)
		s += w / 2 * (normCDF((x-m.mu[k])/sd) + normCDF((x+m.mu[k])/sd))
	}
	return s
}

// supCDFError is sup_x |cdfSum(x) − logistic(x)| on a grid of step h over
// [−L, L] (the tails beyond are smaller than the grid's maximum for the
// shipped fits).
func (m *vcorrMix) supCDFError(L, h float64) float64 {
	e := 0.0
	for x := -L; x <= L; x += h {
		e = math.Max(e, math.Abs(m.cdfSum(x)-logistic(x)))
	}
	return e
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
