package privacy

import (
	"math"
)

// Conversion selects the RDP → (ε, δ) conversion.
type Conversion int

const (
	// Improved is Balle et al. (2020, Thm 21) / Canonne, Kamath & Steinke
	// (2020, Prop. 12): ε = R(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), with
	// ε = 0 when δ² + expm1(−R(α)) > 0 (Bretagnolle–Huber: TV ≤ √(1 − e^{−KL})).
	Improved Conversion = iota
	// Classic is Mironov (2017, Prop. 3): ε = R(α) + ln(1/δ)/(α − 1). Use it
	// only to match papers that report it (e.g. Heikkilä et al. 2019).
	Classic
)

func (c Conversion) String() string {
	if c == Classic {
		return "classic"
	}
	return "improved"
}

// RDPCurve is a Rényi-DP guarantee: the mechanism is (Orders[i], Eps[i])-RDP
// for every i. Eps may be +Inf at orders where no bound is known.
type RDPCurve struct {
	Orders []float64
	Eps    []float64
}

// DefaultOrders returns the order grid used when none is given: 1.1…10.9 in
// steps of 0.1, 11…64, and 80, 96, 128, 160, 192, 256, 384, 512, 1024 (162
// orders). A denser grid can only lower ε.
func DefaultOrders() []float64 {
	o := make([]float64, 0, 170)
	for i := 11; i < 110; i++ {
		o = append(o, float64(i)/10)
	}
	for a := 11; a <= 64; a++ {
		o = append(o, float64(a))
	}
	return append(o, 80, 96, 128, 160, 192, 256, 384, 512, 1024)
}

// IntegerOrders returns the integer orders lo, lo+1, …, hi.
func IntegerOrders(lo, hi int) []float64 {
	var o []float64
	for a := lo; a <= hi; a++ {
		o = append(o, float64(a))
	}
	return o
}

// NewRDPCurve evaluates f at each order.
func NewRDPCurve(orders []float64, f func(alpha float64) (float64, error)) (RDPCurve, error) {
	c := RDPCurve{Orders: append([]float64(nil), orders...), Eps: make([]float64, len(orders))}
	for i, a := range orders {
		if !(a > 1) {
			return RDPCurve{}, fmtErr("RDP orders must exceed 1, got %v", a)
		}
		v, err := f(a)
		if err != nil {
			return RDPCurve{}, err
		}
		c.Eps[i] = v
	}
	return c, nil
}

// Scale returns the k-fold composition k·ε(α) (Mironov 2017, Prop. 1).
func (c RDPCurve) Scale(k float64) RDPCurve {
	out := RDPCurve{Orders: c.Orders, Eps: make([]float64, len(c.Eps))}
	for i, e := range c.Eps {
		out.Eps[i] = e * k
	}
	return out
}

// Compose returns the composition ε₁(α) + ε₂(α); the orders must agree.
func (c RDPCurve) Compose(o RDPCurve) (RDPCurve, error) {
	if len(c.Orders) == 0 {
		return o, nil
	}
	if len(o.Orders) != len(c.Orders) {
		return RDPCurve{}, fmtErr("composing RDP curves with different order grids")
	}
	out := RDPCurve{Orders: c.Orders, Eps: make([]float64, len(c.Eps))}
	for i := range c.Eps {
		if c.Orders[i] != o.Orders[i] {
			return RDPCurve{}, fmtErr("composing RDP curves with different order grids")
		}
		out.Eps[i] = c.Eps[i] + o.Eps[i]
	}
	return out, nil
}

// rdpEpsAt converts one (α, R) pair to ε for δ.
func rdpEpsAt(alpha, r, delta float64, conv Conversion) float64 {
	if math.IsNaN(r) || math.IsInf(r, 1) {
		return math.Inf(1)
	}
	if r < 0 {
		r = 0
	}
	ld := math.Log(delta)
	var e float64
	if conv == Classic {
		e = r - ld/(alpha-1)
	} else {
		if delta*delta+math.Expm1(-r) > 0 {
			return 0
		}
		e = r + math.Log1p(-1/alpha) - (ld+math.Log(alpha))/(alpha-1)
	}
	return math.Max(e, 0)
}

// RDPToEpsilon converts an RDP curve to (ε, δ)-DP, minimising over the
// curve's orders. It returns ε (rounded up) and the optimal order.
func RDPToEpsilon(c RDPCurve, delta float64, conv Conversion) (eps, order float64, err error) {
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	eps, order = math.Inf(1), math.NaN()
	for i, a := range c.Orders {
		if !(a > 1) {
			continue
		}
		if e := rdpEpsAt(a, c.Eps[i], delta, conv); e < eps {
			eps, order = e, a
		}
	}
	return roundUpRel(eps), order, nil
}

// RDPToDelta returns the smallest δ the curve certifies at ε, minimising over
// orders the improved bound ln δ = (α−1)(R − ε + ln(1 − 1/α)) − ln α (which is
// never above the classic exp((α−1)(R − ε))), and also √(−expm1(−R)).
func RDPToDelta(c RDPCurve, eps float64) (delta, order float64, err error) {
	if !(eps >= 0) {
		return 0, 0, fmtErr("ε must be ≥ 0, got %v", eps)
	}
	best, order := 1.0, math.NaN()
	for i, a := range c.Orders {
		r := c.Eps[i]
		if !(a > 1) || math.IsNaN(r) || math.IsInf(r, 1) {
			continue
		}
		r = math.Max(r, 0)
		ld := (a-1)*(r-eps+math.Log1p(-1/a)) - math.Log(a)
		d := math.Min(math.Exp(ld), math.Sqrt(-math.Expm1(-r)))
		if d < best {
			best, order = d, a
		}
	}
	return math.Min(1, roundUpRel(best)), order, nil
}

// GaussianRDP returns the RDP of the Gaussian mechanism, α/(2σ²), where σ is
// noise std ÷ L2 sensitivity (Mironov 2017, Prop. 7).
func GaussianRDP(alpha, sigma float64) float64 { return alpha / (2 * sigma * sigma) }

// GaussianRDPEpsilon converts ρ-zCDP-shaped RDP ε(α) = ρα (a composition of
// Gaussians with ρ = Σ 1/(2σᵢ²)) to ε, optimising over continuous α > 1.
// For Classic the optimum is closed-form, α* = 1 + √(ln(1/δ)/ρ), and equals
// the Bun–Steinke bound ρ + 2√(ρ ln(1/δ)); for Improved a golden-section
// search is used (any α gives a valid bound, so search error only adds slack).
func GaussianRDPEpsilon(rho, delta float64, conv Conversion) (eps, order float64, err error) {
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	if err := checkPos("ρ", rho); err != nil {
		return 0, 0, err
	}
	L := -math.Log(delta)
	a0 := 1 + math.Sqrt(L/rho)
	f := func(a float64) float64 { return rdpEpsAt(a, rho*a, delta, conv) }
	if conv == Classic {
		return roundUpRel(f(a0)), a0, nil
	}
	// golden-section search in ln(α − 1) around the classic optimum
	lo, hi := math.Log(a0-1)-4, math.Log(a0-1)+2
	g := func(x float64) float64 { return f(1 + math.Exp(x)) }
	const phi = 0.6180339887498949
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	f1, f2 := g(x1), g(x2)
	for i := 0; i < 200 && hi-lo > 1e-12; i++ {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - phi*(hi-lo)
			f1 = g(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + phi*(hi-lo)
			f2 = g(x2)
		}
	}
	x := x1
	if f2 < f1 {
		x = x2
	}
	return roundUpRel(g(x)), 1 + math.Exp(x), nil
}

// PoissonSubsampledGaussianRDP returns the RDP at order α > 1 of the
// Poisson-subsampled Gaussian mechanism under add/remove-one: each record
// is included independently with probability q, the clipped sum (per-record
// L2 bound 1) gets N(0, σ²) noise. The value is exact (Mironov, Talwar &
// Zhang 2019, "Rényi DP of the sampled Gaussian mechanism", §3.3):
//
//	integer α:  A_α = Σ_{k=0}^{α} C(α,k) (1−q)^{α−k} q^k exp((k²−k)/(2σ²))
//	fractional: A_α = A₀ + A₁, two convergent series with erfc terms,
//	            summed as signed log-sum-exp,
//
// and ε(α) = ln A_α / (α − 1).
func PoissonSubsampledGaussianRDP(q, sigma, alpha float64) (float64, error) {
	if err := checkRate(q); err != nil {
		return 0, err
	}
	if err := checkPos("noise multiplier σ", sigma); err != nil {
		return 0, err
	}
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return 0, fmtErr("RDP order must be finite and > 1, got %v", alpha)
	}
	if q == 1 {
		return GaussianRDP(alpha, sigma), nil
	}
	if math.IsInf(1/(sigma*sigma), 1) {
		// σ² underflows: the series below would divide by zero (0/0 at
		// its first terms). The loss is unbounded for any purpose.
		return math.Inf(1), nil
	}
	var la float64
	if alpha == math.Trunc(alpha) && alpha <= 1e6 {
		la = logAInt(q, sigma, int(alpha))
	} else {
		la = logAFrac(q, sigma, alpha)
	}
	// A_α ≥ 1, so ln A_α ≥ 0 up to rounding. NaN, or a clearly negative
	// value, is a numerical breakdown: never report it as a small ε.
	if math.IsNaN(la) || la < -1e-9 {
		return math.Inf(1), nil
	}
	return math.Max(0, la/(alpha-1)), nil
}

func logAInt(q, sigma float64, alpha int) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	s2 := 2 * sigma * sigma
	acc := math.Inf(-1)
	lb := 0.0 // ln C(α, k), updated incrementally
	for k := 0; k <= alpha; k++ {
		if k > 0 {
			lb += math.Log(float64(alpha-k+1)) - math.Log(float64(k))
		}
		kf := float64(k)
		t := lb + float64(alpha-k)*l1q + kf*lq + (kf*kf-kf)/s2
		acc = logAddExp(acc, t)
	}
	return acc
}

// logErfc returns ln erfc(x) accurately for large x.
func logErfc(x float64) float64 { return ln2 + logPhi(-x*math.Sqrt2) }

func logAFrac(q, sigma, alpha float64) float64 {
	lq, l1q := math.Log(q), math.Log1p(-q)
	s2 := sigma * sigma
	z0 := s2*math.Log(1/q-1) + 0.5
	// Signed sum in linear scale relative to ref (rescaled when a term
	// exceeds it), which costs one exp per term instead of a log-sum-exp.
	ref := math.Inf(-1)
	sum := 0.0
	addTerm := func(neg bool, l float64) {
		if l > ref {
			if !math.IsInf(ref, -1) {
				sum *= math.Exp(ref - l)
			}
			ref = l
		}
		v := math.Exp(l - ref)
		if neg {
			v = -v
		}
		sum += v
	}
	lc, neg := 0.0, false // ln|C(α, i)| and its sign, updated incrementally
	inv := 1 / (math.Sqrt2 * sigma)
	for i := 0; i < 100000; i++ {
		fi := float64(i)
		if i > 0 {
			f := alpha - fi + 1
			lc += math.Log(math.Abs(f)) - math.Log(fi)
			if f < 0 {
				neg = !neg
			}
		}
		j := alpha - fi
		ls0 := lc + fi*lq + j*l1q + (fi*fi-fi)/(2*s2) - ln2 + logErfc((fi-z0)*inv)
		ls1 := lc + j*lq + fi*l1q + (j*j-j)/(2*s2) - ln2 + logErfc((z0-j)*inv)
		addTerm(neg, ls0)
		addTerm(neg, ls1)
		// Past i > α the terms alternate in sign with decreasing magnitude,
		// so the omitted tail is below the last term; it is added (upward).
		if i > int(alpha)+1 && math.Max(ls0, ls1) < ref-30 {
			sum += 2 * math.Exp(math.Max(ls0, ls1)-ref)
			break
		}
	}
	if !(sum > 0) {
		return 0
	}
	return ref + math.Log(sum)
}
