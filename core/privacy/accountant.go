package privacy

import (
	"math"
)

// Report is the answer of an accountant: an (ε, δ) pair, the method that
// produced it and the assumptions it used.
type Report struct {
	Epsilon  float64  `json:"epsilon"`
	Delta    float64  `json:"delta"`
	Method   string   `json:"method"`
	Relation Relation `json:"-"`
	Order    float64  `json:"order,omitempty"` // optimal RDP order, when RDP
	Mu       float64  `json:"mu,omitempty"`    // Gaussian-DP μ, when tight Gaussian
	Note     string   `json:"note,omitempty"`  // e.g. why a fallback happened
}

// Method names used in reports.
const (
	MethodTight      = "tight"       // tight Gaussian (μ-GDP, Sommer et al.)
	MethodRDP        = "rdp"         // RDP with the improved conversion
	MethodRDPClassic = "rdp-classic" // RDP with the classic conversion
	MethodZCDP       = "zcdp"        // zCDP with Bun–Steinke
	MethodPLD        = "pld"         // numerical PLD
	MethodBasic      = "basic"
	MethodAdvanced   = "advanced"
	MethodOptimal    = "optimal"
	MethodPure       = "pure"
)

// Event is one privacy-relevant release. Exactly one group of fields is
// used, selected by Kind. Sensitivities are already for the stated relation
// (a sum of terms bounded by C has sensitivity C under add/remove and 2C
// under replace-one; use Relation.SensitivityFactor).
type Event struct {
	Kind EventKind
	// Gaussian: noise std and L2 sensitivity (μ = Sensitivity/Std).
	Sensitivity, Std float64
	// SubsampledGaussian: noise multiplier (std ÷ per-record bound), rate, scheme.
	NoiseMultiplier, Rate float64
	Sampling              Sampling
	// ApproxDP: per-step (ε, δ). PureDP: ε.
	Epsilon, Delta float64
	// RDP: a curve on the ledger's orders.
	Curve RDPCurve
	// Count is the number of identical repetitions (≥ 1).
	Count int
}

// EventKind selects the kind of an Event.
type EventKind int

const (
	GaussianEvent EventKind = iota
	SubsampledGaussianEvent
	ApproxDPEvent
	RDPEvent
	PureDPEvent
)

// Ledger consumes privacy events and answers ε(δ) and δ(ε) with the
// tightest valid accountant it has for the mix of events it holds:
//
//   - only Gaussian events: the tight Gaussian composition (exact);
//   - one kind of subsampled Gaussian: the PLD accountant, falling back to
//     RDP if PLD fails, reporting the smaller of the two that succeed;
//   - anything else (mixtures, RDP curves, Barker): RDP composition over
//     the order grid, plus basic composition of (ε, δ) and pure events.
//
// The Relation is informational (the report repeats it); sensitivities in
// events must already be for it.
type Ledger struct {
	Relation Relation
	Orders   []float64 // RDP orders; DefaultOrders() if nil
	PLD      PLDOptions
	events   []Event
}

// Add records an event (Count 0 is taken as 1).
func (l *Ledger) Add(e Event) error {
	if e.Count == 0 {
		e.Count = 1
	}
	if e.Count < 0 {
		return fmtErr("event count must be ≥ 1, got %d", e.Count)
	}
	switch e.Kind {
	case GaussianEvent:
		if err := checkPos("sensitivity", e.Sensitivity); err != nil {
			return err
		}
		if err := checkPos("noise std", e.Std); err != nil {
			return err
		}
	case SubsampledGaussianEvent:
		if err := checkPos("noise multiplier", e.NoiseMultiplier); err != nil {
			return err
		}
		if err := checkRate(e.Rate); err != nil {
			return err
		}
		if e.Sampling == WithoutReplacement && l.Relation != Replace {
			return fmtErr("sampling without replacement needs the replace-one relation")
		}
	case ApproxDPEvent:
		if err := checkStep(e.Epsilon, e.Delta, e.Count); err != nil {
			return err
		}
	case PureDPEvent:
		if err := checkStep(e.Epsilon, 0, e.Count); err != nil {
			return err
		}
	case RDPEvent:
	default:
		return fmtErr("unknown event kind %d", e.Kind)
	}
	l.events = append(l.events, e)
	return nil
}

// Events returns the recorded events.
func (l *Ledger) Events() []Event { return l.events }

func (l *Ledger) orders() []float64 {
	if l.Orders != nil {
		return l.Orders
	}
	return DefaultOrders()
}

// GaussianMu returns μ of the Gaussian events and whether all events are Gaussian.
func (l *Ledger) gaussianOnly() (TightGaussian, bool) {
	s := 0.0
	for _, e := range l.events {
		if e.Kind != GaussianEvent {
			return TightGaussian{}, false
		}
		m := e.Sensitivity / e.Std
		s += float64(e.Count) * m * m
	}
	return TightGaussian{Mu: math.Sqrt(s)}, true
}

// RDP returns the composed RDP curve of all events that have one, plus the
// (ε, δ) and pure parts that must be composed separately.
func (l *Ledger) RDP() (RDPCurve, ApproxDP, error) {
	ord := l.orders()
	total := RDPCurve{Orders: ord, Eps: make([]float64, len(ord))}
	var side ApproxDP
	for _, e := range l.events {
		var c RDPCurve
		var err error
		k := float64(e.Count)
		switch e.Kind {
		case GaussianEvent:
			s := e.Std / e.Sensitivity
			c, err = NewRDPCurve(ord, func(a float64) (float64, error) { return GaussianRDP(a, s), nil })
		case SubsampledGaussianEvent:
			c, err = subsampledCurve(e.NoiseMultiplier, e.Rate, e.Sampling, l.Relation, ord)
		case RDPEvent:
			c = e.Curve
		case PureDPEvent:
			// pure ε is (α, min(ε, 2αε²... )) – keep it simple: RDP ≤ ε
			c, err = NewRDPCurve(ord, func(a float64) (float64, error) {
				return math.Min(e.Epsilon, 0.5*a*e.Epsilon*e.Epsilon), nil
			})
		case ApproxDPEvent:
			side.Epsilon += k * e.Epsilon
			side.Delta += k * e.Delta
			continue
		}
		if err != nil {
			return RDPCurve{}, ApproxDP{}, err
		}
		if total, err = total.Compose(c.Scale(k)); err != nil {
			return RDPCurve{}, ApproxDP{}, err
		}
	}
	return total, side, nil
}

// subsampledCurve returns the per-step RDP curve of a subsampled Gaussian.
// Non-integer orders use the exact series for Poisson/add-remove; WBK
// bounds need integer orders, so non-integer orders get +Inf there.
func subsampledCurve(z, q float64, s Sampling, rel Relation, ord []float64) (RDPCurve, error) {
	return NewRDPCurve(ord, func(a float64) (float64, error) {
		switch {
		case s == Poisson && rel == AddRemove:
			return PoissonSubsampledGaussianRDP(q, z, a)
		case s == Poisson:
			return PoissonReplaceGaussianRDP(q, z, a)
		default:
			if a != math.Trunc(a) {
				return math.Inf(1), nil
			}
			return WORSubsampledGaussianRDP(q, z, int(a))
		}
	})
}

// Epsilon returns the smallest ε the ledger can certify at delta, and names
// the method. Method may be forced with force ("" = best).
func (l *Ledger) Epsilon(delta float64) (Report, error) { return l.EpsilonWith(delta, "") }

// EpsilonWith is Epsilon with a forced method: "tight", "rdp", "rdp-classic",
// "zcdp", "pld" or "" for the best valid one.
func (l *Ledger) EpsilonWith(delta float64, method string) (Report, error) {
	if err := checkDelta(delta); err != nil {
		return Report{}, err
	}
	if len(l.events) == 0 {
		return Report{Epsilon: 0, Delta: delta, Method: "none", Relation: l.Relation}, nil
	}
	rep := Report{Delta: delta, Relation: l.Relation, Epsilon: math.Inf(1)}
	consider := func(r Report) {
		if r.Epsilon < rep.Epsilon {
			note := rep.Note
			rep = r
			if rep.Note == "" {
				rep.Note = note
			}
		}
	}
	g, gOnly := l.gaussianOnly()
	if gOnly && (method == "" || method == MethodTight) {
		e, err := g.Epsilon(delta)
		if err != nil {
			return Report{}, err
		}
		consider(Report{Epsilon: e, Delta: delta, Method: MethodTight, Relation: l.Relation, Mu: g.Mu})
		return rep, nil
	}
	if gOnly && method == MethodZCDP {
		e, err := ZCDP{Rho: g.Mu * g.Mu / 2}.EpsilonBunSteinke(delta)
		return Report{Epsilon: e, Delta: delta, Method: MethodZCDP, Relation: l.Relation, Mu: g.Mu}, err
	}
	if method == MethodTight || method == MethodZCDP {
		return Report{}, fmtErr("method %q applies only to compositions of plain Gaussian mechanisms", method)
	}
	if sub, ok := l.singleSubsampled(); ok && (method == "" || method == MethodPLD) {
		p, err := NewSubsampledGaussianPLD(sub.NoiseMultiplier, sub.Rate, sub.Count, sub.Sampling, l.Relation, l.PLD)
		if err == nil {
			var e float64
			if e, err = p.Epsilon(delta); err == nil {
				consider(Report{Epsilon: e, Delta: delta, Method: MethodPLD, Relation: l.Relation})
			}
		}
		if err != nil {
			if method == MethodPLD {
				return Report{}, err
			}
			rep.Note = "PLD failed (" + err.Error() + "); fell back to RDP"
		}
		if method == MethodPLD {
			return rep, nil
		}
	} else if method == MethodPLD {
		return Report{}, fmtErr("the PLD accountant handles one repeated subsampled Gaussian")
	}
	curve, side, err := l.RDP()
	if err != nil {
		return Report{}, err
	}
	rdpDelta := delta - side.Delta
	if !(rdpDelta > 0) {
		return Report{}, fmtErr("δ %v is not above the (ε, δ) events' total δ %v", delta, side.Delta)
	}
	for _, conv := range []Conversion{Improved, Classic} {
		name := MethodRDP
		if conv == Classic {
			name = MethodRDPClassic
		}
		if method != "" && method != name {
			continue
		}
		e, ord, err := RDPToEpsilon(curve, rdpDelta, conv)
		if err != nil {
			return Report{}, err
		}
		r := Report{Epsilon: roundUpRel(e + side.Epsilon), Delta: delta, Method: name, Relation: l.Relation, Order: ord}
		if method == name {
			return r, nil
		}
		consider(r)
	}
	if math.IsInf(rep.Epsilon, 1) {
		return rep, fmtErr("no accountant gives a finite ε at δ = %v", delta)
	}
	return rep, nil
}

// Delta returns the smallest δ the ledger can certify at eps.
func (l *Ledger) Delta(eps float64) (Report, error) { return l.DeltaWith(eps, "") }

// DeltaWith is Delta with a forced method (see EpsilonWith).
func (l *Ledger) DeltaWith(eps float64, method string) (Report, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return Report{}, fmtErr("ε must be ≥ 0 and finite, got %v", eps)
	}
	rep := Report{Epsilon: eps, Delta: math.Inf(1), Relation: l.Relation}
	g, gOnly := l.gaussianOnly()
	if len(l.events) == 0 {
		return Report{Epsilon: eps, Delta: 0, Method: "none", Relation: l.Relation}, nil
	}
	if gOnly && (method == "" || method == MethodTight) {
		return Report{Epsilon: eps, Delta: g.Delta(eps), Method: MethodTight, Relation: l.Relation, Mu: g.Mu}, nil
	}
	if gOnly && method == MethodZCDP {
		// invert Bun–Steinke: δ = exp(−(ε − ρ)²/(4ρ)) for ε ≥ ρ
		rho := g.Mu * g.Mu / 2
		d := 1.0
		if eps > rho {
			d = math.Exp(-(eps - rho) * (eps - rho) / (4 * rho))
		}
		return Report{Epsilon: eps, Delta: math.Min(1, roundUpRel(d)), Method: MethodZCDP, Relation: l.Relation, Mu: g.Mu}, nil
	}
	if method == MethodTight || method == MethodZCDP {
		return Report{}, fmtErr("method %q applies only to compositions of plain Gaussian mechanisms", method)
	}
	if sub, ok := l.singleSubsampled(); ok && (method == "" || method == MethodPLD) {
		p, err := NewSubsampledGaussianPLD(sub.NoiseMultiplier, sub.Rate, sub.Count, sub.Sampling, l.Relation, l.PLD)
		if err != nil {
			if method == MethodPLD {
				return Report{}, err
			}
			rep.Note = "PLD failed (" + err.Error() + "); fell back to RDP"
		} else {
			rep.Delta, rep.Method = p.Delta(eps), MethodPLD
			if method == MethodPLD {
				return rep, nil
			}
		}
	}
	curve, side, err := l.RDP()
	if err != nil {
		return Report{}, err
	}
	if method == "" || method == MethodRDP || method == MethodRDPClassic {
		if eps >= side.Epsilon {
			d, ord, _ := RDPToDelta(curve, eps-side.Epsilon)
			d = math.Min(1, roundUpRel(d+side.Delta))
			if d < rep.Delta {
				rep.Delta, rep.Method, rep.Order = d, MethodRDP, ord
			}
		}
	}
	if math.IsInf(rep.Delta, 1) {
		rep.Delta = 1
		rep.Method = MethodRDP
	}
	return rep, nil
}

// singleSubsampled reports whether the ledger holds exactly one kind of
// subsampled-Gaussian event (possibly repeated), returned with its total count.
func (l *Ledger) singleSubsampled() (Event, bool) {
	var ev Event
	for i, e := range l.events {
		if e.Kind != SubsampledGaussianEvent {
			return Event{}, false
		}
		if i == 0 {
			ev = e
			continue
		}
		if e.NoiseMultiplier != ev.NoiseMultiplier || e.Rate != ev.Rate || e.Sampling != ev.Sampling {
			return Event{}, false
		}
		ev.Count += e.Count
	}
	return ev, len(l.events) > 0
}
