package mcmc

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// Shared machinery of the DP kernels (dp_penalty.go, dp_hmc.go, dp_mala.go,
// ops.go): the neighbouring relation, Gaussian noise from the private stream,
// grid snapping of released floats, clipped sums that cannot exceed their
// bound through rounding, and the per-iteration privacy cost each kernel
// reports to the accountant.
//
// # Grid releases (DESIGN.md privacy rule 4)
//
// A noisy float y = f(X) + Z that is released, or that drives a released
// value, lives on the grid h·ℤ with h = 2^(⌊log₂ σ⌋ − k) (σ the noise std,
// k = GridBits, default 24), so h ≤ σ·2^−k: the kernels release
// h·(round(f(X)/h) + Z) with Z an exact discrete Gaussian N_ℤ(0, ⌈σ/h⌉²)
// (dgauss.go, which states the contract of every noise function); the
// kernels' algorithm boxes write this release as snap(x + N(0, σ²)). Its
// low-order bits carry nothing beyond the grid point (the
// least-significant-bit attack on floating-point noise, Mironov 2012, does
// not apply), and every grid point has exactly its intended mass. The
// accounting treats the release as a Gaussian mechanism whose L2
// sensitivity is inflated by the rounding, ½ grid step per coordinate in
// each world: Δ' = Δ + h·√m for an m-vector, so that
//
//	μ' = Δ'/(⌈σ/h⌉·h) ≤ Δ/σ + √m·2^−k,
//
// and charges the (negligible) difference between the discrete and the
// continuous Gaussian separately (core/privacy.DiscreteGaussianCharge).
// Every kernel's PrivacyParams reports μ' (and the nominal Δ/σ alongside),
// so an accountant that uses PrivacyParams is never optimistic by the grid.
// The price in accuracy is negligible: the noise std grows by less than h
// and the rounding moves the value by at most h/2 ≤ σ·2^−(k+1).
//
// # Clipped sums (rule 4, "sums of clipped terms must not exceed their bound")
//
// The sensitivity of a clipped sum Σᵢ clip_C(tᵢ) is 2C (replace-one) or C
// (add/remove) in exact arithmetic. In floating point the sum's rounding
// error depends on all rows, so fl(S(X)) − fl(S(X')) could exceed 2C. The
// kernels therefore sum exactly: every clipped term is rounded to an integer
// multiple of a power-of-two quantum q = 2^(e−b) with C < 2^e and
// b = min(50, 61 − bitlen(n)), clamped so that |kᵢq| ≤ C', and the integers
// kᵢ are added in int64 (no overflow: n·2^b < 2^61). The only rounding left
// is the final conversion float64(Σkᵢ)·q, whose error is at most
// u·|S| ≤ u·n·C (u = 2^−53). Terms are clipped to C' = C·(1 − κ) with
// κ = 2(n+1)u (scalars) so that |S(X) − S(X')| ≤ 2C' + 2u·n·C ≤ 2C holds for
// the computed values. For vectors (per-row gradients clipped in L2 to G),
// κ = 2(d+4)u + √d·2^−b + 2√d(n+1)u also covers the rounding of the norm and
// of the rescaling and the per-coordinate quantization (L2 ≤ √d·q/2), see
// clipVec. The quantization error of the sum (≤ n·q/2 ≤ n·C·2^−(b+1)) only
// changes the statistic being released, not its sensitivity.

// DefaultGridBits is the default k of the release grid 2^(⌊log₂ σ⌋ − k).
const DefaultGridBits = 24

// The range of GridBits: above 28 the discrete Gaussian's scale ⌈σ/h⌉ could
// reach 2^31 (dgauss.go works in 64-bit integers up to 2^31 − 1); below 16
// the accounting charge of the discrete Gaussian (∝ 4^−k per coordinate,
// core/privacy/discrete_gaussian.go) stops being negligible.
const (
	minGridBits = 16
	maxGridBits = 28
)

const unitRoundoff = 0x1p-53

// parseRelation maps the config string to the relation ("" = replace).
func parseRelation(s string) (privacy.Relation, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "replace", "replace-one", "substitute":
		return privacy.Replace, nil
	case "add-remove", "add/remove", "addremove":
		return privacy.AddRemove, nil
	}
	return 0, fmt.Errorf("mcmc: unknown neighbouring relation %q (want replace or add-remove)", s)
}

// gridFor returns the grid step 2^(⌊log₂ std⌋ − bits) ≤ std·2^−bits for a
// release with noise std std (0 when std is 0 or not finite).
func gridFor(std float64, bits int) float64 {
	if !(std > 0) || math.IsInf(std, 1) {
		return 0
	}
	_, e := math.Frexp(std) // std = f·2^e, f ∈ [0.5, 1): ⌊log₂ std⌋ = e − 1
	return math.Ldexp(1, e-1-bits)
}

// gridBits validates GridBits (0 = default).
func gridBits(b int) (int, error) {
	if b == 0 {
		return DefaultGridBits, nil
	}
	if b < minGridBits || b > maxGridBits {
		return 0, fmt.Errorf("mcmc: grid_bits = %d must be in [%d, %d]", b, minGridBits, maxGridBits)
	}
	return b, nil
}

// quantBits is b of the exact clipped sums for n rows: n·2^b < 2^61, and
// b ≤ 50 so that every scaled term is below 2^51 (roundInt).
func quantBits(n int) int {
	b := 61 - bits.Len(uint(n))
	return min(b, 50)
}

// clipper computes exact clipped sums for a fixed number of rows.
type clipper struct {
	n     int
	qbits int
	kapS  float64 // κ for scalar terms
	kapV  float64 // κ for L2-clipped d-vectors
}

func newClipper(n, d int) clipper {
	b := quantBits(n)
	u := unitRoundoff
	nf := float64(n)
	sd := math.Sqrt(float64(d))
	return clipper{
		n: n, qbits: b,
		kapS: 2 * (nf + 1) * u,
		kapV: 2*(float64(d)+4)*u + sd*math.Ldexp(1, -b) + 2*sd*(nf+1)*u,
	}
}

// quantum returns the quantum q = 2^(e−b) for terms bounded by c < 2^e and
// the integer bound K = ⌊c/q⌋.
func (cl *clipper) quantum(c float64) (q float64, kmax int64) {
	_, e := math.Frexp(c) // c < 2^e
	q = math.Ldexp(1, e-cl.qbits)
	return q, int64(c / q) // c/q < 2^b is exact; truncation is ⌊·⌋
}

// sumDiff returns Σᵢ clip_{c'}(a[i] − b[i]) computed exactly (see the notes
// above) with c' = c·(1 − κ), and the number of clipped terms. NaN terms
// count as clipped and contribute −c' (a deterministic per-row value, so the
// sensitivity bound still holds).
func (cl *clipper) sumDiff(a, b []float64, c float64) (sum float64, clipped int) {
	cp := c * (1 - cl.kapS)
	q, kmax := cl.quantum(cp)
	inv := 1 / q // exact: q is a power of two
	var acc int64
	b = b[:len(a)]
	for i, ai := range a {
		t := ai - b[i]
		var k int64
		switch {
		case t > cp:
			k, clipped = kmax, clipped+1
		case t >= -cp:
			k = roundInt(t * inv)
			if k > kmax {
				k = kmax
			} else if k < -kmax {
				k = -kmax
			}
		default: // t < −c' or NaN
			k, clipped = -kmax, clipped+1
		}
		acc += k
	}
	return float64(acc) * q, clipped
}

// gradSum accumulates per-row gradients clipped in L2 norm to G' = G(1 − κ)
// exactly (int64 per coordinate). Per-row gradients are evaluated in
// blocks (model.GradLogLikRows: the model's θ-dependent work once per
// block) and clipped while the block is in cache. Scratch is allocated
// once.
type gradSum struct {
	cl    clipper
	acc   []int64
	block []float64 // per-row gradients of one block, blockRows × d
	g     float64   // G
	q     float64
	kmax  int64
	gp    float64 // G'
}

// gradBlockFloats bounds a block's scratch (256 rows at d ≤ 32).
const gradBlockFloats = 8192

func newGradSum(n, d int, g float64) gradSum {
	cl := newClipper(n, d)
	rows := max(1, min(256, gradBlockFloats/max(d, 1)))
	gs := gradSum{cl: cl, acc: make([]int64, d), block: make([]float64, rows*d), g: g}
	gs.gp = g * (1 - cl.kapV)
	gs.q, gs.kmax = cl.quantum(gs.gp)
	return gs
}

// eval writes Σᵢ clip_G(∇ℓᵢ(θ)) over all rows into out and returns the
// number of clipped rows.
func (gs *gradSum) eval(m model.Model, theta, out []float64) (clipped int) {
	return gs.evalRows(m, theta, nil, out)
}

// evalRows writes Σ_{i∈rows} clip_G(∇ℓᵢ(θ)) into out exactly (all of the
// gradSum's n rows when rows is nil) and returns the number of clipped
// rows. A row whose gradient is not finite contributes 0 and counts as
// clipped. The integer sums do not depend on the block length.
func (gs *gradSum) evalRows(m model.Model, theta []float64, rows []int, out []float64) (clipped int) {
	clear(gs.acc)
	inv := 1 / gs.q
	gpInv := gs.gp * inv
	gp2 := gs.gp * gs.gp
	kmax := gs.kmax
	d := len(gs.acc)
	acc := gs.acc
	n := gs.cl.n
	if rows != nil {
		n = len(rows)
	}
	per := len(gs.block) / d
	for lo := 0; lo < n; lo += per {
		blk := gs.block[:min(per, n-lo)*d]
		model.GradLogLikRows(m, theta, rows, lo, blk)
		for b := 0; b+d <= len(blk); b += d {
			row := blk[b : b+d]
			s2 := 0.0
			for _, v := range row {
				s2 += v * v
			}
			scale := inv
			if !(s2 <= gp2) { // also NaN
				clipped++
				if !(s2 <= math.MaxFloat64) { // NaN or Inf: the row contributes 0
					continue
				}
				scale = gpInv / math.Sqrt(s2)
			}
			for j, v := range row[:len(acc)] {
				k := roundInt(v * scale)
				if k > kmax {
					k = kmax
				} else if k < -kmax {
					k = -kmax
				}
				acc[j] += k
			}
		}
	}
	for j, a := range acc {
		out[j] = float64(a) * gs.q
	}
	return clipped
}

// roundMagic rounds |x| < 2^51 to the nearest integer (ties to even) by
// adding and subtracting 1.5·2^52; it is faster than math.Round.
const roundMagic = 0x1.8p52

// roundInt returns x rounded to the nearest integer for |x| < 2^51.
func roundInt(x float64) int64 { return int64((x + roundMagic) - roundMagic) }

// addNoise replaces every coordinate v[j] by its discrete-Gaussian release
// h·(round(v[j]/h) + Z_j), Z_j ~ N_ℤ(0, ⌈std/h⌉²), h = gridFor(std, bits),
// from the private stream (noisyOnGrid, dgauss.go). std = 0 (noise switched
// off) leaves v unchanged.
func addNoise(noise *rand.Rand, v []float64, std float64, bits int) {
	if std == 0 {
		return
	}
	h := gridFor(std, bits)
	for j := range v {
		v[j] = noisyOnGrid(noise, v[j], std, h)
	}
}

// noisyScalar returns the discrete-Gaussian release of x on the grid of
// std (noisyOnGrid): x itself when std = 0.
func noisyScalar(noise *rand.Rand, x, std float64, bits int) float64 {
	if std == 0 {
		return x
	}
	return noisyOnGrid(noise, x, std, gridFor(std, bits))
}

// inBox reports whether θ lies in the box (nil box: always).
func inBox(theta []float64, box []model.Interval) bool {
	for j, iv := range box {
		if !(theta[j] >= iv.Lo && theta[j] <= iv.Hi) {
			return false
		}
	}
	return true
}

func checkBoxCfg(box []model.Interval, d int) ([]model.Interval, error) {
	if box == nil {
		return nil, nil
	}
	if len(box) != d {
		return nil, fmt.Errorf("mcmc: box has %d intervals, want %d", len(box), d)
	}
	for j, iv := range box {
		if !(iv.Lo < iv.Hi) || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
			return nil, fmt.Errorf("mcmc: box[%d] = [%v, %v] is empty or invalid", j, iv.Lo, iv.Hi)
		}
	}
	return append([]model.Interval(nil), box...), nil
}

func checkPositive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("mcmc: %s = %v must be positive and finite", name, v)
	}
	return nil
}

// publicN returns the public n: cfg value or the model's rows.
func publicN(cfgN, rows int) (int, error) {
	if cfgN == 0 {
		cfgN = rows
	}
	if cfgN < 1 {
		return 0, fmt.Errorf("mcmc: public n = %d must be at least 1", cfgN)
	}
	return cfgN, nil
}

// GaussianRelease is one kind of Gaussian mechanism a DP kernel runs every
// iteration.
type GaussianRelease struct {
	// What is released ("log-likelihood ratio", "gradient", "proposal").
	What string `json:"what"`
	// Count is the number of such releases per iteration.
	Count int `json:"count"`
	// Coords is the number of noise coordinates in one release (the
	// dimension of the released vector): each is one discrete-Gaussian
	// draw, which the accounting charges (core/privacy/discrete_gaussian.go).
	Coords int `json:"coords"`
	// Mu is the Gaussian-DP μ = sensitivity/std of one release for the
	// kernel's relation, with the sensitivity inflated by the release grid
	// (see dpnoise.go). Use this one.
	Mu float64 `json:"mu"`
	// NominalMu is μ without the grid inflation: the value the formulas of
	// core/privacy (PenaltyStepMu, HMCStepMu, MALAStepMu) give.
	NominalMu float64 `json:"nominal_mu"`
}

// PrivacyCost is what one iteration of a DP kernel spends. Every iteration
// spends it, warmup included, whatever the outcome (a proposal rejected
// without touching the data spends less; the accounting does not use that).
type PrivacyCost struct {
	Relation privacy.Relation `json:"-"`
	// Gaussian lists the Gaussian mechanisms of one iteration.
	Gaussian []GaussianRelease `json:"gaussian,omitempty"`
	// PureEpsilon is the pure ε of one iteration (OPS), 0 otherwise.
	PureEpsilon float64 `json:"pure_epsilon,omitempty"`
}

// StepMu is the GDP μ of one iteration: √(Σ count·μ²) (tight composition,
// dp-hmc.txt Thm 2.4). It is 0 for a kernel without Gaussian releases.
func (c PrivacyCost) StepMu() float64 {
	s := 0.0
	for _, g := range c.Gaussian {
		s += float64(g.Count) * g.Mu * g.Mu
	}
	return math.Sqrt(s)
}

// NoiseCoords is the number of discrete-Gaussian coordinates one iteration
// draws: Σ Count·Coords (a release without Coords counts as 1).
func (c PrivacyCost) NoiseCoords() int {
	s := 0
	for _, g := range c.Gaussian {
		s += g.Count * max(g.Coords, 1)
	}
	return s
}

// Events returns the privacy events of iters iterations (all chains), ready
// for privacy.Ledger.Add: each Gaussian release as a GaussianEvent with
// Sensitivity = μ and Std = 1, and OPS draws as PureDPEvents.
func (c PrivacyCost) Events(iters int) []privacy.Event {
	var ev []privacy.Event
	for _, g := range c.Gaussian {
		ev = append(ev, privacy.Event{Kind: privacy.GaussianEvent, Sensitivity: g.Mu, Std: 1, Count: g.Count * iters})
	}
	if c.PureEpsilon > 0 {
		ev = append(ev, privacy.Event{Kind: privacy.PureDPEvent, Epsilon: c.PureEpsilon, Count: iters})
	}
	return ev
}

// GridInflation is the μ a Gaussian release of m coordinates gains from
// rounding its values to the grid 2^(⌊log₂σ⌋ − bits) (step ≤ σ·2^-bits, so
// the L2 sensitivity grows by at most √m times the step): √m·2^-bits.
func GridInflation(m, bits int) float64 {
	return math.Sqrt(float64(m)) * math.Ldexp(1, -bits)
}

// dpAdapt is dual averaging on the released accept bit (Info.Accepted),
// the only adaptation a DP kernel may do (kernel.go, Adaptive). maxStep > 0
// caps the step (DP-MALA, whose per-iteration cost grows with the step).
type dpAdapt struct {
	da       *DualAveraging
	adapting bool
	maxStep  float64
}

func newDPAdapt(on bool, step, target, maxStep float64) (dpAdapt, error) {
	if err := checkTarget(target); err != nil {
		return dpAdapt{}, err
	}
	a := dpAdapt{adapting: on, maxStep: maxStep}
	if on {
		a.da = NewDualAveraging(step, target)
	}
	return a, nil
}

// update returns the next step after an iteration with the given accept bit.
func (a *dpAdapt) update(step float64, accepted bool) float64 {
	if !a.adapting {
		return step
	}
	x := 0.0
	if accepted {
		x = 1
	}
	return a.cap(a.da.Update(x))
}

// updateWithMetric is update followed, during warmup, by the metric's
// window check (dpMetric.observe on the chain's state theta): when a window
// ends it rewrites metric in place, restarts dual averaging from the new
// step (only the metric's shape changed) and reports true. The DP kernels
// share it so that their adaptation follows one rule.
func (a *dpAdapt) updateWithMetric(step float64, accepted bool, m *dpMetric, theta, metric []float64) (float64, bool) {
	step = a.update(step, accepted)
	if !a.adapting || !m.observe(theta, metric) {
		return step, false
	}
	a.da.Restart(step)
	return step, true
}

// sqrtInto writes √src[j] into dst[j].
func sqrtInto(dst, src []float64) {
	for j, v := range src {
		dst[j] = math.Sqrt(v)
	}
}

// final ends warmup and returns the frozen step.
func (a *dpAdapt) final(step float64) float64 {
	if !a.adapting {
		return step
	}
	a.adapting = false
	return a.cap(a.da.Final())
}

func (a *dpAdapt) cap(s float64) float64 {
	if a.maxStep > 0 && s > a.maxStep {
		return a.maxStep
	}
	return s
}

// Compile-time checks of the DP kernels.
var (
	_ Kernel   = (*DPPenalty)(nil)
	_ Kernel   = (*DPHMC)(nil)
	_ Kernel   = (*DPMALA)(nil)
	_ Kernel   = (*OPS)(nil)
	_ Adaptive = (*DPPenalty)(nil)
	_ Adaptive = (*DPHMC)(nil)
	_ Adaptive = (*DPMALA)(nil)
)
