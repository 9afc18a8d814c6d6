package model

import (
	"math"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

// Interval arithmetic used to derive the public per-row bounds. Every helper
// returns an enclosure: the true range of the expression over the inputs'
// intervals is contained in the result. Infinite endpoints are allowed; the
// convention 0·∞ = 0 is valid here because the quantities being enclosed
// are always finite reals (a parameter or data value of exactly 0 times any
// finite value is 0).

var whole = Interval{math.Inf(-1), math.Inf(1)}

// mulz is a·b with 0·±∞ = 0.
func mulz(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a * b
}

func ivAdd(a, b Interval) Interval { return Interval{a.Lo + b.Lo, a.Hi + b.Hi} }

func ivSub(a, b Interval) Interval { return Interval{a.Lo - b.Hi, a.Hi - b.Lo} }

func ivMul(a, b Interval) Interval {
	p1, p2, p3, p4 := mulz(a.Lo, b.Lo), mulz(a.Lo, b.Hi), mulz(a.Hi, b.Lo), mulz(a.Hi, b.Hi)
	return Interval{min(p1, p2, p3, p4), max(p1, p2, p3, p4)}
}

func ivScale(c float64, a Interval) Interval { return ivMul(Interval{c, c}, a) }

// ivSq is the range of x² for x in a.
func ivSq(a Interval) Interval {
	lo, hi := a.Lo*a.Lo, a.Hi*a.Hi
	if a.Lo <= 0 && a.Hi >= 0 {
		return Interval{0, max(lo, hi)}
	}
	return Interval{min(lo, hi), max(lo, hi)}
}

// ivMaxAbs is max |x| over a.
func ivMaxAbs(a Interval) float64 { return max(math.Abs(a.Lo), math.Abs(a.Hi)) }

// boundIv turns a public column bound into an interval; nil is all of R.
func boundIv(b *dataset.Bound) Interval {
	if b == nil {
		return whole
	}
	return Interval{b.Lo, b.Hi}
}

// boxIv is the interval of parameter k in the box (all of R for a nil box).
func boxIv(box []Interval, k int) Interval {
	if box == nil {
		return whole
	}
	return box[k]
}

// checkBox panics on a malformed box: that is a programming error, not a data
// error.
func checkBox(box []Interval, d int, name string) {
	if box == nil {
		return
	}
	if len(box) != d {
		panic("model " + name + ": RowBounds box has the wrong dimension")
	}
	for _, b := range box {
		if !(b.Lo <= b.Hi) {
			panic("model " + name + ": RowBounds box has Lo > Hi or NaN")
		}
	}
}

// boundSlack inflates every bound by a relative 1e-9 so that floating-point
// rounding, in the bound's own computation and in the evaluation of ℓ_i and
// ∇ℓ_i, cannot make a computed value exceed it. Samplers that need a hard
// guarantee must still clip to the bound (a no-op for valid rows).
const boundSlack = 1 + 1e-9

// finalize turns a NaN (from ∞−∞ in an unbounded case) into +Inf, so that a
// bound is never silently lowered, applies boundSlack, and fills Lipschitz =
// GradNorm. On a convex box (a product of intervals) the mean value theorem
// gives |ℓ(θ)−ℓ(θ')| ≤ sup‖∇ℓ‖·‖θ−θ'‖, so the gradient bound is a Lipschitz
// bound.
func finalize(grad, abs float64) RowBounds {
	if math.IsNaN(grad) {
		grad = math.Inf(1)
	}
	if math.IsNaN(abs) {
		abs = math.Inf(1)
	}
	grad *= boundSlack
	abs *= boundSlack
	return RowBounds{Lipschitz: grad, GradNorm: grad, AbsLogLik: abs}
}

// absRange is max |v| for v in [lo, hi].
func absRange(lo, hi float64) float64 { return max(math.Abs(lo), math.Abs(hi)) }
