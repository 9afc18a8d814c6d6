package privacy

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// PLD is a numerical privacy-loss-distribution accountant for k-fold
// compositions of one subsampled Gaussian mechanism (Koskela, Jälkö &
// Honkela 2020; Sommer et al. 2019). δ(ε) of a composition depends only on
// the law of the summed privacy loss S = ΣYᵢ under the first distribution:
// δ(ε) = E[(1 − e^{ε−S})₊]. It is computed as follows, every step
// conservative:
//
//  1. Each step's loss Y = ω(s) (ω monotone in the noisy output s) is cut
//     into pieces whose loss range is at most h; within a piece, Y is
//     rounded to one of the two neighbouring grid points of its piece mean
//     so that the mean is preserved (Ỹ). Hence D = Y − Ỹ has conditional
//     mean 0 and range ≤ 2h, and by Hoeffding P(S − S̃ > t) ≤ η for
//     t = h√(2k ln(1/η)); so δ_S(ε) ≤ δ_S̃(ε − t) + η (Gopi et al. 2021 use
//     the same coupling argument). Mass below the lowest piece is rounded
//     up (D ≤ 0), mass above the highest is counted as infinite loss.
//  2. S̃ is computed by FFT (gonum dsp/fourier) on a window of N grid
//     points; mass outside the window is bounded by Chernoff with the
//     step's moment generating function and added to δ, as is a bound on
//     the FFT rounding error.
//
// A PLD is built by NewSubsampledGaussianPLD; it reports failure (an error)
// when the window or the grid cannot hold the distribution, and Epsilon
// fails when the bookkeeping terms exceed a tenth of the requested δ. Callers
// then fall back to RDP (Ledger does so automatically and says so).
type PLD struct {
	dirs []*pldDir
}

// PLDOptions tunes the grid; the zero value gives defaults.
type PLDOptions struct {
	// GridSize is the FFT length N (a power of two; default 2^17).
	GridSize int
	// MaxPieces caps the work per step (default 4·10^6).
	MaxPieces int
}

type pldDir struct {
	k      int
	h      float64
	start  int64     // grid index of window position 0
	p1, e1 []float64 // suffix sums Σ_{i≥j} p_i and Σ_{i≥j} p_i e^{−(s_i−sref)}
	sref   float64
	errD   float64 // η_∞ + η_window + η_round
}

// MinPLDNoiseMultiplier is the smallest σ NewSubsampledGaussianPLD accepts.
// Below it one step's privacy-loss distribution needs millions of pieces
// (σ = 0.01 took minutes), while even one full-batch step costs ε ≈ 1/(2σ²)
// ≥ 50: callers fall back to RDP.
const MinPLDNoiseMultiplier = 0.1

// NewSubsampledGaussianPLD builds the PLD of k compositions of the
// subsampled Gaussian with noise multiplier sigma (noise std ÷ per-record
// L2 bound) and rate q ∈ (0, 1] for the given sampling scheme and relation.
// Write M(v) = (1−q)N(0,σ²) + qN(v,σ²).
//
// Poisson, add/remove: both directions, M(1) vs N(0,σ²) and its reverse; δ is
// the larger of the two (Zhu, Dong & Wang 2022, Thm 11). A run's neighbours
// differ by a removal at every step or by an addition at every step, so
// each direction composes on its own.
//
// Poisson, replace-one: M(1) vs M(−1), symmetric, one direction (Koskela,
// Jälkö & Honkela 2020, §5.2). Under Poisson sampling the rest of the batch is
// drawn independently of whether the differing row is in it, so the output
// pair is a mixture over the rest of translates of (M(u), M(v)) with
// ‖u‖, ‖v‖ ≤ 1 (the differing row's clipped values) and the opposite unit
// pair is the extreme one.
//
// Fixed-size batch without replacement (rate q = b/n), replace-one: the
// pair M(1) vs M(−1) is NOT valid here. When the differing row is left out,
// another row takes its slot, so the rest of the batch differs between the
// two cases: with every other row's clipped value −e, D′'s row −e and D's
// row +e, the noisy sum is M(2) under D and N(0,σ²) under D′ (up to a shift):
// Poisson add/remove at half the noise multiplier. In general the output pair
// is a mixture, over the rest of the batch, of translates of (M(u), M(v)) with
// ‖u‖, ‖v‖, ‖u − v‖ ≤ 2 (u, v: the differing row's value minus the value of
// the row it displaces). By the advanced joint convexity of Balle, Barthe &
// Gaboardi (2018, Thm 2), for α ≥ 1 and α′ = 1 + q(α − 1),
//
//	H_α′(M(u) ‖ M(v)) = q·H_α(N(u) ‖ (1−β)N(0) + βN(v)) ≤ q·H_α(N(2) ‖ N(0))
//	                  = H_α′(M(2) ‖ N(0)),
//
// and for α < 1, H_α(X‖Y) = 1 − α + α·H_{1/α}(Y‖X) turns this into
// H_α(M(u)‖M(v)) ≤ H_α(N(0) ‖ M(2)): Zhu, Dong & Wang (2022, Prop. 30), the
// two-part bound for sampling without replacement under substitution. Every
// step of every run is therefore dominated (at every α, i.e. as a
// trade-off function) by the symmetric pair whose privacy profile is
// max(δ_{M(2)‖N(0)}, δ_{N(0)‖M(2)}) at every ε ∈ ℝ (Dong, Roth & Su 2022:
// the symmetrisation of the trade-off function of M(2) vs N(0)), and k steps
// by its k-fold product. Its privacy-loss law is the one of M(2) vs N(0) on
// losses > 0, the mirror image (loss −ℓ with mass e^{−ℓ}·that at ℓ) on
// losses < 0, and an atom at 0 holding the rest, (1−q)(1 − 2Φ(−1/σ)). This is
// at least as large as composing the two directions of M(2) vs N(0)
// separately (whose remove direction is the counterexample above, a lower
// bound); Lebeda, Regehr, Kamath & Steinke (2024, "Avoiding pitfalls for
// privacy accounting of subsampled mechanisms under composition") show the
// gap between Poisson and without-replacement accounting this fixes.
//
// q = 1 gives the plain Gaussian with sensitivity 1 (Poisson) or 2 (without
// replacement), a check against TightGaussian.
func NewSubsampledGaussianPLD(sigma, q float64, k int, s Sampling, rel Relation, opt PLDOptions) (*PLD, error) {
	if err := checkPos("noise multiplier σ", sigma); err != nil {
		return nil, err
	}
	if err := checkRate(q); err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, fmtErr("count must be ≥ 1, got %d", k)
	}
	if sigma < MinPLDNoiseMultiplier {
		return nil, fmtErr("PLD: noise multiplier σ = %g is below %g, where one step's privacy loss spans more than the grid can hold (and ε is far above any useful value); use RDP", sigma, MinPLDNoiseMultiplier)
	}
	if s == WithoutReplacement && rel != Replace {
		return nil, fmtErr("fixed-size sampling without replacement needs the replace-one relation")
	}
	if opt.GridSize == 0 {
		opt.GridSize = 1 << 17
	}
	if opt.GridSize < 1024 || opt.GridSize&(opt.GridSize-1) != 0 {
		return nil, fmtErr("PLD grid size must be a power of two ≥ 1024, got %d", opt.GridSize)
	}
	if opt.MaxPieces == 0 {
		opt.MaxPieces = 4000000
	}
	l1q, lq := math.Log1p(-q), math.Log(q)
	if q == 1 {
		l1q = math.Inf(-1)
	}
	s2 := 2 * sigma * sigma
	var kinds []lossFn
	switch {
	case s == WithoutReplacement:
		kinds = []lossFn{worSymmetric(sigma, q)}
	case rel == Replace:
		kinds = []lossFn{{
			comps: [][2]float64{{1 - q, 0}, {q, 1}},
			omega: func(x float64) float64 {
				return logAddExp(l1q, lq+(2*x-1)/s2) - logAddExp(l1q, lq+(-2*x-1)/s2)
			},
		}}
	default:
		kinds = []lossFn{{
			comps: [][2]float64{{1 - q, 0}, {q, 1}},
			omega: func(x float64) float64 { return logAddExp(l1q, lq+(2*x-1)/s2) },
		}, {
			comps: [][2]float64{{1, 0}},
			omega: func(x float64) float64 { return -logAddExp(l1q, lq+(-2*x-1)/s2) },
		}}
	}
	p := &PLD{dirs: make([]*pldDir, len(kinds))}
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, lf := range kinds {
		if q == 1 && lf.sym == nil {
			lf.comps = [][2]float64{{1, lf.comps[len(lf.comps)-1][1]}}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.dirs[i], errs[i] = buildDir(lf, sigma, k, opt)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

type lossFn struct {
	comps [][2]float64 // (weight, mean) of the normal mixture, common std σ
	omega func(s float64) float64
	sym   *symLaw // if set, the mass law is sym's, not the mixture's
}

// symLaw is the law of the symmetrised pair of M(Δ) = (1−q)N(0,σ²) +
// qN(Δ,σ²) vs N(0,σ²) (see NewSubsampledGaussianPLD), written on one line
// s ∈ ℝ with the privacy loss increasing in s: for s > c = Δ/2 the mass is
// M(Δ)'s and the loss ω(s) = ln(1 − q + q·e^{(2sΔ − Δ²)/(2σ²)}); for s < c
// it is the mirror image of N(0,σ²) on (c, ∞), i.e. N(Δ,σ²), with loss
// −ω(Δ − s); the atom (1−q)(1 − 2Φ(−c/σ)) at loss 0 is not on the line.
type symLaw struct {
	q, delta, c, atom float64
}

func worSymmetric(sigma, q float64) lossFn {
	const shift = 2 // replace-one sensitivity in units of the clip
	l1q, lq := math.Log1p(-q), math.Log(q)
	if q == 1 {
		l1q = math.Inf(-1)
	}
	s2 := 2 * sigma * sigma
	omega := func(x float64) float64 { return logAddExp(l1q, lq+(2*x*shift-shift*shift)/s2) }
	c := shift / 2.0
	return lossFn{
		// comps only set the s-range (−9.5σ … shift + 9.5σ, which holds c)
		comps: [][2]float64{{0, 0}, {1, shift}},
		omega: func(x float64) float64 {
			if x > c {
				return omega(x)
			}
			return -omega(shift - x)
		},
		sym: &symLaw{q: q, delta: shift, c: c, atom: (1 - q) * (1 - 2*phiCDF(-c/sigma))},
	}
}

// splitPoint is where discretise switches from the CDF to the survival
// function (and where pieces are cut).
func (lf lossFn) splitPoint() float64 {
	if lf.sym != nil {
		return lf.sym.c
	}
	split := 0.0
	for _, m := range lf.comps {
		split += m[0] * m[1]
	}
	return split
}

// cdf is the mass of the line below x (for a symLaw, excluding the atom).
func (lf lossFn) cdf(x, sigma float64) float64 {
	if g := lf.sym; g != nil {
		if x <= g.c {
			return phiCDF((x - g.delta) / sigma)
		}
		return phiCDF(-g.c/sigma) + (1-g.q)*(phiCDF(-g.c/sigma)-phiCDF(-x/sigma)) +
			g.q*(phiCDF((x-g.delta)/sigma)-phiCDF((g.c-g.delta)/sigma))
	}
	c := 0.0
	for _, m := range lf.comps {
		if m[0] > 0 {
			c += m[0] * phiCDF((x-m[1])/sigma)
		}
	}
	return c
}

// sf is the mass of the line above x (for a symLaw, excluding the atom).
func (lf lossFn) sf(x, sigma float64) float64 {
	if g := lf.sym; g != nil {
		if x >= g.c {
			return (1-g.q)*phiCDF(-x/sigma) + g.q*phiCDF((g.delta-x)/sigma)
		}
		return (1-g.q)*phiCDF(-g.c/sigma) + g.q*phiCDF((g.delta-g.c)/sigma) +
			(phiCDF((g.c-g.delta)/sigma) - phiCDF((x-g.delta)/sigma))
	}
	c := 0.0
	for _, m := range lf.comps {
		if m[0] > 0 {
			c += m[0] * phiCDF(-(x-m[1])/sigma)
		}
	}
	return c
}

func normPDF(z, sigma float64) float64 { return math.Exp(-0.5*z*z-logSqrt2Pi) / sigma }

func (lf lossFn) pdf(x, sigma float64) float64 {
	if g := lf.sym; g != nil {
		if x <= g.c {
			return normPDF((x-g.delta)/sigma, sigma)
		}
		return (1-g.q)*normPDF(x/sigma, sigma) + g.q*normPDF((x-g.delta)/sigma, sigma)
	}
	c := 0.0
	for _, m := range lf.comps {
		c += m[0] * normPDF((x-m[1])/sigma, sigma)
	}
	return c
}

// massBetween returns P(a < s ≤ b), using the upper tail when b is above
// the mixture centre to avoid cancellation.
func (lf lossFn) massBetween(a, b, sigma float64) float64 {
	if a > 0.5 {
		return math.Max(0, lf.sf(a, sigma)-lf.sf(b, sigma))
	}
	return math.Max(0, lf.cdf(b, sigma)-lf.cdf(a, sigma))
}

// 2-point Gauss–Legendre nodes and weights on [−1, 1].
const glNode = 0.5773502691896257

// pieceMean returns ∫ω p / ∫p over (a, b] by 2-point Gauss–Legendre,
// clamped into [ω(a), ω(b)]. Pieces are short (loss range ≤ h, width ≤ σ/16),
// so the error is far below the 1e−4·h slack added to the Hoeffding term.
func (lf lossFn) pieceMean(a, b, wa, wb, sigma float64) float64 {
	c, r := (a+b)/2, (b-a)/2
	x1, x2 := c-r*glNode, c+r*glNode
	d1, d2 := lf.pdf(x1, sigma), lf.pdf(x2, sigma)
	den := d1 + d2
	if !(den > 0) {
		return (wa + wb) / 2
	}
	return math.Min(wb, math.Max(wa, (d1*lf.omega(x1)+d2*lf.omega(x2))/den))
}

// tailMass returns P(s ≤ x) when x is left of the split point, else P(s > x):
// the representation that avoids cancellation.
func (lf lossFn) tailMass(x, split, sigma float64) float64 {
	if x <= split {
		return lf.cdf(x, sigma)
	}
	return lf.sf(x, sigma)
}

const pldTailZ = 9.5 // Φ(−9.5) ≈ 1.0e−21 per step

// discretise returns the step law of Ỹ on grid indices imin… (step h),
// the mass above the s-range (infinite loss) and the number of pieces.
func (lf lossFn) discretise(sigma, h, lo, hi float64, maxPieces int) (pm []float64, imin int64, etaInf float64, err error) {
	wlo, whi := lf.omega(lo), lf.omega(hi)
	// The width in floating point first: for a tiny σ the losses are huge
	// (or infinite) and the int64 conversions below would overflow.
	if span := math.Ceil(whi/h) + 1 - math.Floor(wlo/h); !(span <= float64(maxPieces)) {
		return nil, 0, 0, fmtErr("PLD: per-step loss range needs %.3g grid points (max %d); use RDP", span, maxPieces)
	}
	imin = int64(math.Floor(wlo / h))
	imax := int64(math.Ceil(whi/h)) + 1
	pm = make([]float64, imax-imin+1)
	// split point between the CDF and survival-function representations
	split := lf.splitPoint()
	pm[int64(math.Ceil(wlo/h))-imin] += lf.cdf(lo, sigma) // below the range: rounded up
	etaInf = lf.sf(hi, sigma)
	a, wa := lo, wlo
	ta := lf.tailMass(a, split, sigma)
	maxStep := sigma / 16
	step := maxStep
	pieces := 0
	for a < hi {
		step = math.Min(maxStep, 2*step)
		b := math.Min(hi, a+step)
		if a < split && b > split {
			b = split
		}
		wb := lf.omega(b)
		for wb-wa > h && b-a > 1e-12*sigma {
			b = a + (b-a)/2
			wb = lf.omega(b)
		}
		step = b - a
		pieces++
		if pieces > maxPieces {
			return nil, 0, 0, fmtErr("PLD: too many pieces; use RDP")
		}
		tb := lf.tailMass(b, split, sigma)
		var w float64
		switch {
		case b <= split:
			w = tb - ta
		case a >= split:
			w = ta - tb
		default:
			w = lf.cdf(b, sigma) - lf.cdf(a, sigma)
		}
		if b == split { // next piece starts on the survival side
			tb = lf.sf(b, sigma)
		}
		if w > 0 {
			y := lf.pieceMean(a, b, wa, wb, sigma)
			j := math.Floor(y / h)
			frac := y/h - j
			i := int64(j) - imin
			if i < 0 { // only by rounding at the bottom edge
				i, frac = 0, 0
			}
			if i+1 >= int64(len(pm)) {
				i, frac = int64(len(pm))-2, 1
			}
			pm[i] += w * (1 - frac)
			pm[i+1] += w * frac
		}
		a, wa, ta = b, wb, tb
	}
	if lf.sym != nil {
		pm[-imin] += lf.sym.atom // loss 0 is grid point 0
	}
	return pm, imin, etaInf, nil
}

func buildDir(lf lossFn, sigma float64, k int, opt PLDOptions) (*pldDir, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range lf.comps {
		lo = math.Min(lo, m[1]-pldTailZ*sigma)
		hi = math.Max(hi, m[1]+pldTailZ*sigma)
	}
	kf := float64(k)
	N := opt.GridSize
	// coarse pass: size the window from Chernoff quantiles of a coarse law
	h0 := (lf.omega(hi) - lf.omega(lo)) / 4096
	pm0, imin0, _, err := lf.discretise(sigma, h0, lo, hi, opt.MaxPieces)
	if err != nil {
		return nil, err
	}
	mg0 := newMGF(pm0, imin0, h0)
	bot, top := mg0.window(kf, 1e-16)
	width := (top - bot) * 1.05
	for attempt := 0; attempt < 4; attempt++ {
		h := width / float64(N)
		pm, imin, etaInf, err := lf.discretise(sigma, h, lo, hi, opt.MaxPieces)
		if err != nil {
			return nil, err
		}
		mg := newMGF(pm, imin, h)
		centre := (bot + top) / 2
		start := int64(math.Floor(centre/h)) - int64(N/2)
		wtop := float64(start+int64(N)) * h
		wbot := float64(start) * h
		etaWin := mg.tail(kf, wtop, 1) + mg.tail(kf, wbot, -1)
		if etaWin > 1e-12 {
			width *= 1.5
			continue
		}
		return composeDir(pm, imin, etaInf, etaWin, h, start, k, N)
	}
	return nil, fmtErr("PLD: distribution does not fit the grid (window too small); use RDP")
}

// mgf evaluates the exact moment generating function of a discrete step law.
type mgf struct {
	pm       []float64
	imin     int64
	h        float64
	mean, sd float64
}

func newMGF(pm []float64, imin int64, h float64) *mgf {
	m := &mgf{pm: pm, imin: imin, h: h}
	var s1, s2, t float64
	for i, v := range pm {
		x := float64(int64(i)+imin) * h
		s1 += v * x
		s2 += v * x * x
		t += v
	}
	m.mean = s1 / t
	m.sd = math.Sqrt(math.Max(s2/t-m.mean*m.mean, 0)) + h
	return m
}

// logM returns ln Σ p_i e^{λ x_i} using one exp per term block and
// multiplications inside (x_i on a grid).
func (m *mgf) logM(l float64) float64 {
	// reference at the endpoint that maximises λx to avoid overflow
	n := len(m.pm)
	ref := float64(m.imin) * m.h
	dir := 1
	if l > 0 {
		ref = float64(m.imin+int64(n-1)) * m.h
		dir = -1
	}
	r := math.Exp(-math.Abs(l) * m.h) // factor per grid step away from ref
	acc, f := 0.0, 1.0
	if dir == -1 {
		for i := n - 1; i >= 0; i-- {
			acc += m.pm[i] * f
			f *= r
			if f < 1e-300 {
				break
			}
		}
	} else {
		for i := 0; i < n; i++ {
			acc += m.pm[i] * f
			f *= r
			if f < 1e-300 {
				break
			}
		}
	}
	return l*ref + math.Log(acc)
}

// tail returns a Chernoff bound on P(S ≥ x) (side = 1) or P(S < x)
// (side = −1) for the k-fold sum S.
func (m *mgf) tail(k, x float64, side float64) float64 {
	best := 0.0
	for e := -4.0; e <= 6; e += 0.5 {
		l := side * math.Pow(2, e) / (m.sd * math.Sqrt(k))
		if v := -l*x + k*m.logM(l); v < best {
			best = v
		}
	}
	return math.Exp(best)
}

// window returns [bot, top] with Chernoff tails at most eta each.
func (m *mgf) window(k, eta float64) (float64, float64) {
	c := k * m.mean
	s := m.sd * math.Sqrt(k)
	top, bot := c+s, c-s
	for m.tail(k, top, 1) > eta {
		top += s
	}
	for m.tail(k, bot, -1) > eta {
		bot -= s
	}
	return bot, top
}

// composeDir computes the k-fold law of S̃ on the window by FFT.
func composeDir(pm []float64, imin int64, etaInf, etaWin, h float64, start int64, k, N int) (*pldDir, error) {
	kf := float64(k)
	buf := make([]float64, N)
	for i, v := range pm {
		pos := (int64(i) + imin) % int64(N)
		if pos < 0 {
			pos += int64(N)
		}
		buf[pos] += v
	}
	fft := getFFT(N)
	defer putFFT(N, fft)
	spec := fft.Coefficients(nil, buf)
	for i, c := range spec {
		spec[i] = cpowInt(c, k)
	}
	out := fft.Sequence(buf, spec)
	shift := start % int64(N)
	if shift < 0 {
		shift += int64(N)
	}
	etaRound := float64(N) * math.Log2(float64(N)) * 2.3e-16
	d := &pldDir{k: k, h: h, start: start}
	d.errD = -math.Expm1(kf*math.Log1p(-etaInf)) + etaWin + etaRound
	d.sref = (float64(start) + float64(N)/2) * h
	if float64(N)*h > 1300 {
		return nil, fmtErr("PLD: window wider than the exponent range; use RDP")
	}
	d.p1 = make([]float64, N+1)
	d.e1 = make([]float64, N+1)
	// e^{−(s_j − sref)} = e^{−(j − N/2)h} = hi[q]·lo[r] for j − N/2 =
	// q·expBlock + r − N/2 (q, r ≥ 0): two tables of one exponential each
	// instead of one per grid point; the product of two correctly rounded
	// factors is within 2 ulp of the exact value. N·h ≤ 1300 keeps every
	// factor and product in range.
	lo := make([]float64, expBlock)
	for r := range lo {
		lo[r] = math.Exp(-float64(r) * h)
	}
	hi := make([]float64, N/expBlock+1)
	for q := range hi {
		hi[q] = math.Exp(-float64(q*expBlock-N/2) * h)
	}
	for j := N - 1; j >= 0; j-- {
		v := out[(int64(j)+shift)%int64(N)] / float64(N)
		if !(v > 0) {
			// v ≤ 0 is FFT rounding noise, clipped to 0 (and skipped: about
			// half of the window, where S̃ has no mass)
			d.p1[j], d.e1[j] = d.p1[j+1], d.e1[j+1]
			continue
		}
		d.p1[j] = d.p1[j+1] + v
		d.e1[j] = d.e1[j+1] + v*(hi[j/expBlock]*lo[j%expBlock])
	}
	return d, nil
}

// expBlock is the length of the low table of composeDir's exponentials.
const expBlock = 512

// FFT plans (twiddle factors) are reused across PLDs: building one costs
// about as much as a transform, and a planner builds many PLDs of the same
// size. A plan is not safe for concurrent use, so each goroutine takes its
// own from the pool.
var fftPools sync.Map // int → *sync.Pool of *fourier.FFT

func getFFT(n int) *fourier.FFT {
	p, _ := fftPools.LoadOrStore(n, &sync.Pool{New: func() any { return fourier.NewFFT(n) }})
	return p.(*sync.Pool).Get().(*fourier.FFT)
}

func putFFT(n int, f *fourier.FFT) {
	if p, ok := fftPools.Load(n); ok {
		p.(*sync.Pool).Put(f)
	}
}

// cpowInt is c^k for k ≥ 1 by repeated squaring: at most 2·log2(k)
// complex products, each with a relative error of a few ulp, so c^k is
// within ~2^-47·|c|^k for k ≤ 2^20 (|c| ≤ 1 here: the characteristic
// function of a probability law). The polar form it replaces,
// Rect(|c|^k, k·arg c mod 2π), is less accurate: the rounding of arg c is
// multiplied by k. Either error is far below the FFT rounding bound etaRound.
func cpowInt(c complex128, k int) complex128 {
	r := complex(1, 0)
	for {
		if k&1 == 1 {
			r *= c
		}
		k >>= 1
		if k == 0 {
			return r
		}
		if re, im := real(c), imag(c); re*re+im*im < 1e-150 {
			return 0 // |c^k| < 1e-150: nothing next to the rounding bound
		}
		c *= c
	}
}

// deltaTilde returns δ_S̃(x) = Σ_{s_j > x} p_j (1 − e^{x−s_j}).
func (d *pldDir) deltaTilde(x float64) float64 {
	n := len(d.p1) - 1
	j := int64(math.Floor(x/d.h)) + 1 - d.start // first index with s_j > x
	if float64(d.start+j-1)*d.h > x {
		j--
	}
	if j < 0 {
		j = 0
	}
	if j >= int64(n) {
		return 0
	}
	v := d.p1[j] - math.Exp(x-d.sref)*d.e1[j]
	if v < 0 {
		return 0
	}
	return v
}

func (d *pldDir) hoeffT(eta float64) float64 {
	kf := float64(d.k)
	return d.h*math.Sqrt(2*kf*math.Log(1/eta)) + kf*d.h*1e-4
}

var pldEtas = []float64{1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-14, 1e-16}

func (d *pldDir) delta(eps float64) float64 {
	best := 1.0
	for _, eta := range pldEtas {
		v := d.deltaTilde(eps-d.hoeffT(eta)) + eta + d.errD
		if v < best {
			best = v
		}
	}
	return roundUpRel(best)
}

func (d *pldDir) epsilon(delta float64) (float64, bool) {
	best := math.Inf(1)
	for _, eta := range pldEtas {
		eta *= delta * 1000
		if eta > delta/2 {
			continue
		}
		target := delta - eta - d.errD
		if target <= delta/2 {
			continue
		}
		f := func(x float64) float64 { return target - d.deltaTilde(x) } // increasing
		lo := float64(d.start)*d.h - 1
		hi := float64(d.start+int64(len(d.p1)))*d.h + 1
		if f(lo) >= 0 {
			lo = -1e3
		}
		_, up, ok := bisect(f, lo, hi, 1e-12*math.Max(1, math.Abs(hi)))
		if !ok {
			continue // a numerical failure never yields a bound
		}
		if e := up + d.hoeffT(eta); e < best {
			best = e
		}
	}
	if math.IsInf(best, 1) {
		return 0, false
	}
	return roundUpRel(math.Max(0, best)), true
}

// Delta returns an upper bound on δ(ε), the maximum over directions.
func (p *PLD) Delta(eps float64) float64 {
	m := 0.0
	for _, d := range p.dirs {
		m = math.Max(m, d.delta(eps))
	}
	return math.Min(1, m)
}

// Epsilon returns an upper bound on ε(δ). It fails (error) when the
// accountant's own error terms are too large for this δ.
func (p *PLD) Epsilon(delta float64) (float64, error) {
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	m := 0.0
	for _, d := range p.dirs {
		e, ok := d.epsilon(delta)
		if !ok {
			return 0, fmtErr("PLD: numerical error terms (%.3g) too large for δ = %g; use RDP", d.errD, delta)
		}
		m = math.Max(m, e)
	}
	return m, nil
}
