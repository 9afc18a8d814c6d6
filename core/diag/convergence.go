package diag

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/mathext"
)

// Workspace holds the scratch buffers of the diagnostics so that repeated
// calls do not allocate once the buffers have grown to the problem size.
// A Workspace is not safe for concurrent use; its zero value is ready.
//
// Every method works on the draws loaded by Load (or LoadParam): m chains of
// n iterations each, stored chain-major in one contiguous slice.
type Workspace struct {
	x      []float64 // loaded draws, chain-major: x[c*n+i]
	m, n   int       // chains, iterations per chain
	ok     bool      // draws loaded and rectangular
	sorted []float64 // sorted copy of x (valid when haveSorted)
	haveS  bool

	a, b []float64 // transformed / split copies
	idx  []int     // rank permutation
	acov []float64 // mean autocovariance over chains
	rho  []float64 // autocorrelation sequence
	cmu  []float64 // per-column means

	fft    *fourier.FFT
	pad    []float64
	coef   []complex128
	padOut []float64
}

// Load copies the draws x[chain][iteration] of one parameter into the
// workspace. It reports false when there are no draws or the chains have
// different lengths; every diagnostic then returns NaN.
func (w *Workspace) Load(x [][]float64) bool {
	w.haveS = false
	w.ok = false
	w.m = len(x)
	if w.m == 0 {
		return false
	}
	w.n = len(x[0])
	for _, c := range x {
		if len(c) != w.n {
			return false
		}
	}
	if w.n == 0 {
		return false
	}
	w.x = grow(w.x, w.m*w.n)
	for c, ch := range x {
		copy(w.x[c*w.n:], ch)
	}
	w.ok = true
	return true
}

// LoadParam loads parameter j of draws indexed [chain][iteration][param].
// It reports false when the chains are ragged, empty, or lack parameter j.
func (w *Workspace) LoadParam(chains [][][]float64, j int) bool {
	w.haveS = false
	w.ok = false
	w.m = len(chains)
	if w.m == 0 {
		return false
	}
	w.n = len(chains[0])
	if w.n == 0 {
		return false
	}
	w.x = grow(w.x, w.m*w.n)
	for c, ch := range chains {
		if len(ch) != w.n {
			return false
		}
		row := w.x[c*w.n : (c+1)*w.n]
		for i, d := range ch {
			if j >= len(d) {
				return false
			}
			row[i] = d[j]
		}
	}
	w.ok = true
	return true
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// sortedDraws returns the pooled draws sorted ascending (cached).
func (w *Workspace) sortedDraws() []float64 {
	if !w.haveS {
		w.sorted = grow(w.sorted, len(w.x))
		copy(w.sorted, w.x)
		slices.Sort(w.sorted)
		w.haveS = true
	}
	return w.sorted
}

// madScale makes the median absolute deviation the sd of normal draws:
// about 1/Φ⁻¹(¾), as R's mad() and posterior::mad round it.
const madScale = 1.4826

// mad is the median absolute deviation of the loaded draws from med, times
// madScale. It uses w.a as scratch.
func (w *Workspace) mad(med float64) float64 {
	w.a = grow(w.a, len(w.x))
	for i, v := range w.x {
		w.a[i] = math.Abs(v - med)
	}
	slices.Sort(w.a)
	return madScale * median(w.a)
}

// splitInto writes the split chains of src (m columns of n, column-major)
// into dst: each chain is cut into its first ⌊n/2⌋ and last ⌊n/2⌋ draws,
// the middle draw being dropped when n is odd (posterior's .split_chains).
// With n == 1 the chains are returned unsplit.
func splitInto(dst, src []float64, m, n int) ([]float64, int, int) {
	if n == 1 {
		dst = grow(dst, m)
		copy(dst, src[:m])
		return dst, m, 1
	}
	h := n / 2
	dst = grow(dst, 2*m*h)
	for c := 0; c < m; c++ {
		col := src[c*n : (c+1)*n]
		copy(dst[2*c*h:], col[:h])
		copy(dst[(2*c+1)*h:], col[n-h:])
	}
	return dst, 2 * m, h
}

// zScale replaces v by its rank-normalised values (posterior's z_scale):
//
//	z_i = Φ⁻¹((r_i − 3/8) / (S + 1/4)),
//
// where r_i is the rank of v_i among all S values, ties receiving their
// average rank (Blom 1958 offset; Vehtari et al. 2021, eq. 14).
func (w *Workspace) zScale(v []float64) {
	S := len(v)
	w.idx = slices.Grow(w.idx[:0], S)[:S]
	for i := range w.idx {
		w.idx[i] = i
	}
	slices.SortFunc(w.idx, func(i, j int) int {
		switch {
		case v[i] < v[j]:
			return -1
		case v[i] > v[j]:
			return 1
		}
		return 0
	})
	den := float64(S) + 0.25
	for i := 0; i < S; {
		j := i + 1
		for j < S && v[w.idx[j]] == v[w.idx[i]] {
			j++
		}
		// ranks i+1..j share the average rank (i+1+j)/2.
		r := float64(i+1+j) / 2
		z := mathext.NormalQuantile((r - 0.375) / den)
		for k := i; k < j; k++ {
			v[w.idx[k]] = z
		}
		i = j
	}
}

// usable reports whether every value is finite and not all values are
// equal (posterior's should_return_NA with tolerance machine epsilon).
func usable(v []float64) bool {
	if len(v) == 0 {
		return false
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
		lo = min(lo, x)
		hi = max(hi, x)
	}
	return math.Abs(hi-lo) >= 0x1p-52
}

// rhatCols is the classic potential scale reduction of m columns of n draws
// (Gelman et al. 2013; posterior's .rhat):
//
//	B/n = var(chain means),  W = mean(chain variances),
//	R̂ = √((B/W + n − 1)/n)  =  √((n−1)/n + B/(nW)).
func (w *Workspace) rhatCols(v []float64, m, n int) float64 {
	if !usable(v) || m < 2 || n < 2 {
		return math.NaN()
	}
	w.cmu = grow(w.cmu, m)
	var W float64
	for c := 0; c < m; c++ {
		col := v[c*n : (c+1)*n]
		mu := mean(col)
		w.cmu[c] = mu
		W += variance(col, mu)
	}
	W /= float64(m)
	B := float64(n) * variance(w.cmu, mean(w.cmu))
	return math.Sqrt((B/W + float64(n) - 1) / float64(n))
}

// essCols is the effective sample size of m columns of n draws
// (Vehtari et al. 2021, eqs. 10–13; posterior's .ess). With the biased
// per-chain autocovariances γ̂_{c,t} and
//
//	W = n/(n−1) · mean_c γ̂_{c,0},   var⁺ = (n−1)/n · W + var(chain means),
//	ρ̂_t = 1 − (W − mean_c γ̂_{c,t}) / var⁺,
//
// the sum of ρ̂ is truncated by Geyer's initial positive sequence (pairs
// ρ̂_{2k} + ρ̂_{2k+1} > 0), made monotone by Geyer's initial monotone sequence,
// and
//
//	τ̂ = −1 + 2 Σ_{t<T} ρ̂_t + ρ̂_T (the last even lag when positive),
//	ESS = m n / max(τ̂, 1/log10(m n)).
func (w *Workspace) essCols(v []float64, m, n int) float64 {
	if n < 3 || !usable(v) {
		return math.NaN()
	}
	w.acov = grow(w.acov, n)
	clear(w.acov)
	w.cmu = grow(w.cmu, m)
	for c := 0; c < m; c++ {
		col := v[c*n : (c+1)*n]
		w.cmu[c] = mean(col)
		w.autocovAdd(col, w.cmu[c])
	}
	for t := range w.acov {
		w.acov[t] /= float64(m)
	}
	acov := w.acov
	N := float64(n)
	meanVar := acov[0] * N / (N - 1)
	varPlus := meanVar * (N - 1) / N
	if m > 1 {
		varPlus += variance(w.cmu, mean(w.cmu))
	}
	w.rho = grow(w.rho, n)
	rho := w.rho
	clear(rho)
	t := 0
	rhoEven := 1.0
	rho[0] = rhoEven
	rhoOdd := 1 - (meanVar-acov[1])/varPlus
	rho[1] = rhoOdd
	for t < n-5 && !math.IsNaN(rhoEven+rhoOdd) && rhoEven+rhoOdd > 0 {
		t += 2
		rhoEven = 1 - (meanVar-acov[t])/varPlus
		rhoOdd = 1 - (meanVar-acov[t+1])/varPlus
		if rhoEven+rhoOdd >= 0 {
			rho[t] = rhoEven
			rho[t+1] = rhoOdd
		}
	}
	maxT := t
	if rhoEven > 0 {
		rho[maxT] = rhoEven
	}
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	// R's sum(rho_hat_t[1:max_t]) includes ρ̂_0 even when max_t = 0.
	var s float64
	for k := 0; k < max(maxT, 1); k++ {
		s += rho[k]
	}
	tau := -1 + 2*s + rho[maxT]
	total := float64(m * n)
	tau = max(tau, 1/math.Log10(total))
	return total / tau
}

// autocovAdd adds to w.acov the biased autocovariance of x (mean mu):
//
//	γ̂_t = (1/n) Σ_{i<n−t} (x_i − x̄)(x_{i+t} − x̄),
//
// computed as posterior's autocovariance does: an FFT of the centred series
// zero-padded to 2·nextn(n), |F|², the inverse FFT, rescaled so that
// γ̂_0 = var(x)·(n−1)/n.
func (w *Workspace) autocovAdd(x []float64, mu float64) {
	n := len(x)
	varx := variance(x, mu)
	if varx == 0 {
		return
	}
	L := 2 * nextn(n)
	if w.fft == nil || w.fft.Len() != L {
		w.fft = fourier.NewFFT(L)
		w.pad = make([]float64, L)
		w.padOut = make([]float64, L)
		w.coef = make([]complex128, L/2+1)
	}
	for i, v := range x {
		w.pad[i] = v - mu
	}
	clear(w.pad[n:])
	w.fft.Coefficients(w.coef, w.pad)
	for k, c := range w.coef {
		re, im := real(c), imag(c)
		w.coef[k] = complex(re*re+im*im, 0)
	}
	w.fft.Sequence(w.padOut, w.coef)
	scale := varx * float64(n-1) / float64(n) / w.padOut[0]
	for t := 0; t < n; t++ {
		w.acov[t] += w.padOut[t] * scale
	}
}

// nextn returns the smallest integer ≥ n whose only prime factors are 2, 3
// and 5 (R's nextn).
func nextn(n int) int {
	if n <= 1 {
		return 1
	}
	for ; ; n++ {
		m := n
		for m%2 == 0 {
			m /= 2
		}
		for m%3 == 0 {
			m /= 3
		}
		for m%5 == 0 {
			m /= 5
		}
		if m == 1 {
			return n
		}
	}
}

// Rhat returns the loaded draws' R-hat: the maximum of the rank-normalised
// split-R̂ of the draws and of the folded draws |θ − median(θ)|
// (Vehtari et al. 2021, §4.2; posterior::rhat).
func (w *Workspace) Rhat() float64 {
	if !w.ok {
		return math.NaN()
	}
	var m, n int
	w.a, m, n = splitInto(w.a, w.x, w.m, w.n)
	if !allFinite(w.a) {
		return math.NaN()
	}
	w.zScale(w.a)
	bulk := w.rhatCols(w.a, m, n)
	med := median(w.sortedDraws())
	w.b = grow(w.b, len(w.x))
	for i, v := range w.x {
		w.b[i] = math.Abs(v - med)
	}
	w.a, m, n = splitInto(w.a, w.b, w.m, w.n)
	w.zScale(w.a)
	tail := w.rhatCols(w.a, m, n)
	if math.IsNaN(bulk) || math.IsNaN(tail) {
		return math.NaN()
	}
	return max(bulk, tail)
}

// RhatBasic returns the classic R̂ of the raw draws (posterior::rhat_basic),
// on split chains when split is true and on whole chains otherwise.
func (w *Workspace) RhatBasic(split bool) float64 {
	if !w.ok {
		return math.NaN()
	}
	if !split {
		return w.rhatCols(w.x, w.m, w.n)
	}
	var m, n int
	w.a, m, n = splitInto(w.a, w.x, w.m, w.n)
	return w.rhatCols(w.a, m, n)
}

// ESSBasic returns the ESS of the raw draws (posterior::ess_basic), on split
// chains when split is true. With split it equals ESSMean.
func (w *Workspace) ESSBasic(split bool) float64 {
	if !w.ok {
		return math.NaN()
	}
	if !split {
		return w.essCols(w.x, w.m, w.n)
	}
	var m, n int
	w.a, m, n = splitInto(w.a, w.x, w.m, w.n)
	return w.essCols(w.a, m, n)
}

// ESSMean returns the split-chain ESS of the draws, the ESS of the mean
// (posterior::ess_mean).
func (w *Workspace) ESSMean() float64 { return w.ESSBasic(true) }

// ESSBulk returns the bulk-ESS: the split-chain ESS of the rank-normalised
// draws (Vehtari et al. 2021, §4.3; posterior::ess_bulk).
func (w *Workspace) ESSBulk() float64 {
	if !w.ok {
		return math.NaN()
	}
	var m, n int
	w.a, m, n = splitInto(w.a, w.x, w.m, w.n)
	if !allFinite(w.a) {
		return math.NaN()
	}
	w.zScale(w.a)
	return w.essCols(w.a, m, n)
}

// ESSQuantile returns the ESS of the p-quantile estimate: the split-chain ESS
// of the indicator I(θ ≤ Q̂_p), Q̂_p the type-7 quantile of the pooled draws
// (Vehtari et al. 2021, §4.3; posterior::ess_quantile). p = 1 is replaced by
// (S − 1/2)/S as in posterior.
func (w *Workspace) ESSQuantile(p float64) float64 {
	if !w.ok || !(p >= 0 && p <= 1) || !allFinite(w.x) {
		return math.NaN()
	}
	S := len(w.x)
	if p == 1 {
		p = (float64(S) - 0.5) / float64(S)
	}
	q := QuantileSorted(w.sortedDraws(), p)
	w.b = grow(w.b, S)
	for i, v := range w.x {
		if v <= q {
			w.b[i] = 1
		} else {
			w.b[i] = 0
		}
	}
	var m, n int
	w.a, m, n = splitInto(w.a, w.b, w.m, w.n)
	return w.essCols(w.a, m, n)
}

// ESSMedian returns ESSQuantile(0.5) (posterior::ess_median).
func (w *Workspace) ESSMedian() float64 { return w.ESSQuantile(0.5) }

// ESSTail returns the tail-ESS, min(ESSQuantile(0.05), ESSQuantile(0.95))
// (Vehtari et al. 2021, §4.3; posterior::ess_tail).
func (w *Workspace) ESSTail() float64 {
	lo, hi := w.ESSQuantile(0.05), w.ESSQuantile(0.95)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return math.NaN()
	}
	return min(lo, hi)
}

// ESSSD returns the ESS of the standard-deviation estimate: the split-chain
// ESS of (θ − θ̄)², the quantity whose mean is the variance (posterior ≥ 1.6
// ess_sd; the same ESS enters MCSESD).
func (w *Workspace) ESSSD() float64 {
	if !w.ok {
		return math.NaN()
	}
	mu := mean(w.x)
	w.b = grow(w.b, len(w.x))
	for i, v := range w.x {
		d := v - mu
		w.b[i] = d * d
	}
	var m, n int
	w.a, m, n = splitInto(w.a, w.b, w.m, w.n)
	return w.essCols(w.a, m, n)
}

// MCSEMean returns the Monte Carlo standard error of the mean,
// sd(θ)/√ESS_mean (posterior::mcse_mean).
func (w *Workspace) MCSEMean() float64 {
	if !w.ok {
		return math.NaN()
	}
	sd := math.Sqrt(variance(w.x, mean(w.x)))
	return sd / math.Sqrt(w.ESSMean())
}

// MCSESD returns the Monte Carlo standard error of the standard deviation
// without assuming normality (posterior ≥ 1.5 mcse_sd; Kenney and Keeping
// 1951, p. 141): with c = θ − θ̄, E₂ = mean(c²), E₄ = mean(c⁴) and
// ESS = ess_mean(c²),
//
//	Var(var̂) ≈ (E₄ − E₂²)/ESS,   MCSE(sd) = √(Var(var̂) / (4 E₂)).
func (w *Workspace) MCSESD() float64 {
	if !w.ok {
		return math.NaN()
	}
	mu := mean(w.x)
	w.b = grow(w.b, len(w.x))
	for i, v := range w.x {
		d := v - mu
		w.b[i] = d * d
	}
	e2 := mean(w.b)
	var s4, comp float64 // Neumaier sum of c⁴
	for _, v := range w.b {
		s4, comp = neumaier(s4, comp, v*v)
	}
	e4 := (s4 + comp) / float64(len(w.b))
	var m, n int
	w.a, m, n = splitInto(w.a, w.b, w.m, w.n)
	ess := w.essCols(w.a, m, n)
	varvar := (e4 - e2*e2) / ess
	return math.Sqrt(varvar / e2 / 4)
}

// MCSEQuantile returns the Monte Carlo standard error of the p-quantile
// (posterior::mcse_quantile; Vehtari et al. 2021, §4.4). With E = ESSQuantile(p)
// the ±1 sd interval of the quantile's rank is taken from
// Beta(E·p + 1, E·(1−p) + 1):
//
//	a₁ = qbeta(0.1586553, …), a₂ = qbeta(0.8413447, …),
//	MCSE = (θ_(⌈a₂ S⌉) − θ_(⌊a₁ S⌋)) / 2,
//
// θ_(k) the k-th smallest of the S pooled draws, indices clamped to [1, S].
func (w *Workspace) MCSEQuantile(p float64) float64 {
	ess := w.ESSQuantile(p)
	if math.IsNaN(ess) {
		return math.NaN()
	}
	a, b := ess*p+1, ess*(1-p)+1
	a1 := mathext.InvRegIncBeta(a, b, 0.1586553)
	a2 := mathext.InvRegIncBeta(a, b, 0.8413447)
	s := w.sortedDraws()
	S := float64(len(s))
	i1 := int(max(math.Floor(a1*S), 1))
	i2 := int(min(math.Ceil(a2*S), S))
	return (s[i2-1] - s[i1-1]) / 2
}

// MCSEMedian returns MCSEQuantile(0.5) (posterior::mcse_median).
func (w *Workspace) MCSEMedian() float64 { return w.MCSEQuantile(0.5) }

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Rhat returns the rank-normalised split R̂ of x[chain][iteration]
// (maximum of bulk and folded; Vehtari et al. 2021). See Workspace.Rhat.
func Rhat(x [][]float64) float64 { return with(x, (*Workspace).Rhat) }

// RhatBasic returns the classic R̂ of the raw draws, split or not.
func RhatBasic(x [][]float64, split bool) float64 {
	var w Workspace
	w.Load(x)
	return w.RhatBasic(split)
}

// ESSBasic returns the ESS of the raw draws, split or not.
func ESSBasic(x [][]float64, split bool) float64 {
	var w Workspace
	w.Load(x)
	return w.ESSBasic(split)
}

// ESSBulk returns the bulk-ESS of x[chain][iteration].
func ESSBulk(x [][]float64) float64 { return with(x, (*Workspace).ESSBulk) }

// ESSTail returns the tail-ESS of x[chain][iteration].
func ESSTail(x [][]float64) float64 { return with(x, (*Workspace).ESSTail) }

// ESSMean returns the ESS of the mean of x[chain][iteration].
func ESSMean(x [][]float64) float64 { return with(x, (*Workspace).ESSMean) }

// ESSSD returns the ESS of the standard deviation of x[chain][iteration].
func ESSSD(x [][]float64) float64 { return with(x, (*Workspace).ESSSD) }

// ESSMedian returns the ESS of the median of x[chain][iteration].
func ESSMedian(x [][]float64) float64 { return with(x, (*Workspace).ESSMedian) }

// ESSQuantile returns the ESS of the p-quantile of x[chain][iteration].
func ESSQuantile(x [][]float64, p float64) float64 {
	var w Workspace
	w.Load(x)
	return w.ESSQuantile(p)
}

// MCSEMean returns the Monte Carlo standard error of the mean.
func MCSEMean(x [][]float64) float64 { return with(x, (*Workspace).MCSEMean) }

// MCSESD returns the Monte Carlo standard error of the standard deviation.
func MCSESD(x [][]float64) float64 { return with(x, (*Workspace).MCSESD) }

// MCSEMedian returns the Monte Carlo standard error of the median.
func MCSEMedian(x [][]float64) float64 { return with(x, (*Workspace).MCSEMedian) }

// MCSEQuantile returns the Monte Carlo standard error of the p-quantile.
func MCSEQuantile(x [][]float64, p float64) float64 {
	var w Workspace
	w.Load(x)
	return w.MCSEQuantile(p)
}

func with(x [][]float64, f func(*Workspace) float64) float64 {
	var w Workspace
	w.Load(x)
	return f(&w)
}
