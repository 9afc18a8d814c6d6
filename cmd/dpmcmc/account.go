package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/privacy"
)

func init() {
	register("account", "privacy accounting without data", runAccount)
}

const acctUsage = `Usage: dpmcmc account <kind> [flags]

Kinds:
  gaussian             composition of Gaussian mechanisms (tight, rdp or zcdp)
  subsampled-gaussian  subsampled Gaussian, Poisson or fixed-size without replacement (pld or rdp)
  barker               DP Barker chain (Heikkilä et al. 2019: Thm 2 + WBK subsampling)
  composition          k-fold composition of an (ε, δ)-DP step (basic, advanced, optimal)

Prints one JSON object with at least epsilon, delta, method and relation.
Run 'dpmcmc account <kind> -h' for the flags of a kind.
`

func runAccount(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, acctUsage)
		if len(args) == 0 {
			return errUsage
		}
		return flag.ErrHelp
	}
	var out map[string]any
	var err error
	switch args[0] {
	case "gaussian":
		out, err = accountGaussian(args[1:], stderr)
	case "subsampled-gaussian":
		out, err = accountSubsampled(args[1:], stderr)
	case "barker":
		out, err = accountBarker(args[1:], stderr)
	case "composition":
		out, err = accountComposition(args[1:], stderr)
	default:
		fmt.Fprintf(stderr, "dpmcmc account: unknown kind %q\n\n%s", args[0], acctUsage)
		return errUsage
	}
	if err != nil {
		return err
	}
	// JSON has no Inf or NaN: name the value instead of failing in the
	// encoder ("json: unsupported value: +Inf").
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if v, ok := out[k].(float64); ok && (math.IsInf(v, 0) || math.IsNaN(v)) {
			return fmt.Errorf("%s = %v: these inputs give no finite bound (e.g. a per-step ε so large that its composition overflows)", k, v)
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// acctTarget holds the mutually exclusive --delta / --epsilon flags.
type acctTarget struct {
	delta, epsilon float64
	// hasD, hasE: the flag was given (a NaN value included, which is then
	// refused as a value rather than taken for a missing flag).
	hasD, hasE bool
}

func (t *acctTarget) register(fs *flag.FlagSet) {
	t.delta, t.epsilon = math.NaN(), math.NaN()
	fs.Func("delta", "target δ in (0, 1): report ε (give --delta or --epsilon)", func(v string) error {
		t.hasD = true
		return floatInto(&t.delta)(v)
	})
	fs.Func("epsilon", "target ε ≥ 0: report δ (give --delta or --epsilon)", func(v string) error {
		t.hasE = true
		return floatInto(&t.epsilon)(v)
	})
}

func (t *acctTarget) check() error {
	hasD, hasE := t.hasD, t.hasE
	switch {
	case hasD == hasE:
		return errors.New("give exactly one of --delta and --epsilon")
	case hasD && !(t.delta > 0 && t.delta < 1):
		return fmt.Errorf("--delta must lie in (0, 1), got %v", t.delta)
	case hasE && !(t.epsilon >= 0) || math.IsInf(t.epsilon, 0):
		return fmt.Errorf("--epsilon must be ≥ 0 and finite, got %v", t.epsilon)
	}
	return nil
}

func acctRelation(s string) (privacy.Relation, error) {
	switch s {
	case "add-remove":
		return privacy.AddRemove, nil
	case "replace":
		return privacy.Replace, nil
	}
	return 0, fmt.Errorf("--relation must be add-remove or replace, got %q", s)
}

// floatInto parses a flag's value into *p (flag.Func), so that a flag
// without a usable default (NaN: "not given") does not print one in -h.
func floatInto(p *float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("not a number: %q", v)
		}
		*p = f
		return nil
	}
}

// acctReport runs the ledger query and shapes the JSON.
func acctReport(l *privacy.Ledger, t acctTarget, method string) (map[string]any, error) {
	var r privacy.Report
	var err error
	if !math.IsNaN(t.delta) {
		r, err = l.EpsilonWith(t.delta, method)
	} else {
		r, err = l.DeltaWith(t.epsilon, method)
	}
	if err != nil {
		return nil, err
	}
	if math.IsInf(r.Epsilon, 1) || math.IsNaN(r.Epsilon) {
		return nil, fmt.Errorf("no finite ε at δ = %g: this noise is too small to give any guarantee", t.delta)
	}
	if r.Delta == 0 && math.IsNaN(t.delta) && t.epsilon > 0 {
		r.Note = strings.TrimPrefix(r.Note+"; δ underflowed to 0: it is below the smallest double (about 5e-324), not exactly 0 (a Gaussian mechanism is never pure ε-DP)", "; ")
	}
	out := map[string]any{
		"epsilon":  r.Epsilon,
		"delta":    r.Delta,
		"method":   r.Method,
		"relation": r.Relation.String(),
	}
	if r.Mu > 0 {
		out["mu"] = r.Mu
	}
	if r.Order > 0 && !math.IsNaN(r.Order) {
		out["order"] = r.Order
	}
	if r.Note != "" {
		out["note"] = r.Note
	}
	return out, nil
}

func accountGaussian(args []string, stderr io.Writer) (map[string]any, error) {
	fs := newFlagSet("account gaussian", "--noise-multiplier Z [--count K] [--relation add-remove|replace] (--delta D | --epsilon E) [--method tight|rdp|zcdp]", stderr)
	z := fs.Float64("noise-multiplier", 0, "noise std ÷ per-record L2 bound (required)")
	k := fs.Int("count", 1, "number of releases K ≥ 1")
	rel := fs.String("relation", "add-remove", "neighbouring relation: add-remove (sensitivity = bound) or replace (2× bound). A sensitivity that already covers replacing a row, as privacy.json's noise-aware blocks state it, is --relation add-remove with --noise-multiplier noise_std/sensitivity")
	method := fs.String("method", "", "tight (default), rdp or zcdp")
	var t acctTarget
	t.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if !(*z > 0) || math.IsInf(*z, 0) {
		return nil, fmt.Errorf("--noise-multiplier must be positive, got %v", *z)
	}
	if *k < 1 {
		return nil, fmt.Errorf("--count must be ≥ 1, got %d", *k)
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	r, err := acctRelation(*rel)
	if err != nil {
		return nil, err
	}
	switch *method {
	case "", "tight", "rdp", "zcdp":
	default:
		return nil, fmt.Errorf("--method must be tight, rdp or zcdp, got %q", *method)
	}
	sens := r.SensitivityFactor()
	l := &privacy.Ledger{Relation: r}
	if err := l.Add(privacy.Event{Kind: privacy.GaussianEvent, Sensitivity: sens, Std: *z, Count: *k}); err != nil {
		return nil, err
	}
	var out map[string]any
	if *method == "rdp" && !math.IsNaN(t.delta) {
		// Gaussians compose to ε(α) = ρα: optimise over continuous α.
		rho := float64(*k) * sens * sens / (2 * *z * *z)
		e, a, err := privacy.GaussianRDPEpsilon(rho, t.delta, privacy.Improved)
		if err != nil {
			return nil, err
		}
		out = map[string]any{"epsilon": e, "delta": t.delta, "method": "rdp", "relation": r.String(), "order": a}
	} else {
		out, err = acctReport(l, t, *method)
		if err != nil {
			return nil, err
		}
	}
	out["mu"] = sens * math.Sqrt(float64(*k)) / *z
	out["count"] = *k
	out["noise_multiplier"] = *z
	out["sensitivity"] = sens
	if r == privacy.AddRemove {
		addRemoveNote(out)
	}
	return out, nil
}

func accountSubsampled(args []string, stderr io.Writer) (map[string]any, error) {
	fs := newFlagSet("account subsampled-gaussian", "--noise-multiplier Z --rate Q --count K --sampling poisson|without-replacement [--relation add-remove|replace] (--delta D | --epsilon E) [--method rdp|pld]", stderr)
	z := fs.Float64("noise-multiplier", 0, "noise std ÷ per-record L2 bound (required)")
	q := fs.Float64("rate", 0, "sampling rate q in (0, 1] (batch/n for fixed-size batches)")
	k := fs.Int("count", 0, "number of steps K ≥ 1")
	samp := fs.String("sampling", "", "poisson or without-replacement (required)")
	rel := fs.String("relation", "", "add-remove (default for poisson) or replace (default and required for without-replacement; every sampling run, Poisson batches included, is accounted under replace: give it to size a run's budget)")
	method := fs.String("method", "", "pld or rdp (default: the smaller of the two; rdp alone if pld fails)")
	var t acctTarget
	t.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if !(*z > 0) || math.IsInf(*z, 0) {
		return nil, fmt.Errorf("--noise-multiplier must be positive, got %v", *z)
	}
	if !(*q > 0 && *q <= 1) {
		return nil, fmt.Errorf("--rate must lie in (0, 1], got %v", *q)
	}
	if *k < 1 {
		return nil, fmt.Errorf("--count must be ≥ 1, got %d", *k)
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	var s privacy.Sampling
	switch *samp {
	case "poisson":
		s = privacy.Poisson
		if *rel == "" {
			*rel = "add-remove"
		}
	case "without-replacement":
		s = privacy.WithoutReplacement
		if *rel == "" {
			*rel = "replace"
		}
	default:
		return nil, fmt.Errorf("--sampling must be poisson or without-replacement, got %q", *samp)
	}
	r, err := acctRelation(*rel)
	if err != nil {
		return nil, err
	}
	if s == privacy.WithoutReplacement && r != privacy.Replace {
		return nil, errors.New("fixed-size batches without replacement need --relation replace (the batch size is public; add/remove would change it)")
	}
	switch *method {
	case "", "pld", "rdp":
	default:
		return nil, fmt.Errorf("--method must be pld or rdp, got %q", *method)
	}
	l := &privacy.Ledger{Relation: r}
	if s == privacy.WithoutReplacement {
		l.Orders = privacy.IntegerOrders(2, 256)
	}
	if err := l.Add(privacy.Event{Kind: privacy.SubsampledGaussianEvent, NoiseMultiplier: *z, Rate: *q, Sampling: s, Count: *k}); err != nil {
		return nil, err
	}
	out, err := acctReport(l, t, *method)
	if err != nil {
		return nil, err
	}
	out["count"] = *k
	out["noise_multiplier"] = *z
	out["rate"] = *q
	out["sampling"] = s.String()
	out["sensitivity"] = r.SensitivityFactor()
	if r == privacy.AddRemove {
		addRemoveNote(out)
	}
	return out, nil
}

// addRemoveNote says in the JSON that an add/remove figure is not what a
// run spends: dpmcmc sample accounts every run under replace-one (a review
// found the Poisson default's ε 1.75× below a run's at z = 1, q = 0.01).
func addRemoveNote(out map[string]any) {
	const n = "add/remove bound; a dpmcmc sample run is accounted under replace-one (n public), which this command gives with --relation replace"
	if prev, ok := out["note"].(string); ok && prev != "" {
		out["note"] = prev + "; " + n
		return
	}
	out["note"] = n
}

func accountBarker(args []string, stderr io.Writer) (map[string]any, error) {
	fs := newFlagSet("account barker", "--n N --batch B --count T --delta D", stderr)
	n := fs.Int("n", 0, "number of rows N")
	b := fs.Int("batch", 0, "batch size b (without replacement; Thm 2 needs orders < b/5)")
	T := fs.Int("count", 0, "number of iterations T (all chains)")
	delta := new(float64)
	*delta = math.NaN()
	fs.Func("delta", "target δ in (0, 1) (required)", floatInto(delta))
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if *n < 1 || *b < 1 || *b > *n {
		return nil, fmt.Errorf("need 1 ≤ --batch ≤ --n, got batch %d, n %d", *b, *n)
	}
	if *T < 1 {
		return nil, fmt.Errorf("--count must be ≥ 1, got %d", *T)
	}
	if !(*delta > 0 && *delta < 1) {
		return nil, fmt.Errorf("--delta must lie in (0, 1), got %v", *delta)
	}
	best, classic, err := privacy.BarkerAccount(*n, *b, *T, *delta)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"epsilon": best.Epsilon, "delta": *delta, "method": best.Method, "relation": "replace",
		"order": best.Order, "epsilon_classic": classic.Epsilon, "order_classic": classic.Order,
		"count": *T, "n": *n, "batch": *b, "rate": float64(*b) / float64(*n),
	}, nil
}

func accountComposition(args []string, stderr io.Writer) (map[string]any, error) {
	fs := newFlagSet("account composition", "--step-epsilon E --step-delta D --count K --delta D [--method basic|advanced|optimal]", stderr)
	se := new(float64)
	*se = math.NaN()
	fs.Func("step-epsilon", "per-step ε ≥ 0 (required)", floatInto(se))
	sd := fs.Float64("step-delta", 0, "per-step δ in [0, 1)")
	k := fs.Int("count", 0, "number of steps K ≥ 1")
	delta := new(float64)
	*delta = math.NaN()
	fs.Func("delta", "total δ in (0, 1) (required)", floatInto(delta))
	method := fs.String("method", "", "basic, advanced or optimal (default: the smallest valid)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if !(*se >= 0) || math.IsInf(*se, 0) {
		return nil, fmt.Errorf("--step-epsilon must be ≥ 0 and finite, got %v", *se)
	}
	if !(*sd >= 0 && *sd < 1) {
		return nil, fmt.Errorf("--step-delta must lie in [0, 1), got %v", *sd)
	}
	if *k < 1 {
		return nil, fmt.Errorf("--count must be ≥ 1, got %d", *k)
	}
	if !(*delta > 0 && *delta < 1) {
		return nil, fmt.Errorf("--delta must lie in (0, 1), got %v", *delta)
	}
	var eps float64
	var err error
	m := *method
	switch m {
	case "":
		eps, m, err = privacy.BestComposition(*se, *sd, *k, *delta)
	case "basic":
		var a privacy.ApproxDP
		a, err = privacy.BasicComposition(*se, *sd, *k)
		if err == nil && a.Delta > *delta {
			err = fmt.Errorf("basic composition needs δ ≥ Kδ_step = %v", a.Delta)
		}
		eps = a.Epsilon
	case "advanced":
		eps, err = privacy.AdvancedEpsilon(*se, *sd, *k, *delta)
	case "optimal":
		eps, err = privacy.OptimalComposition(*se, *sd, *k, *delta)
	default:
		return nil, fmt.Errorf("--method must be basic, advanced or optimal, got %q", m)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"epsilon": eps, "delta": *delta, "method": m, "relation": "replace",
		"count": *k, "step_epsilon": *se, "step_delta": *sd,
	}, nil
}
