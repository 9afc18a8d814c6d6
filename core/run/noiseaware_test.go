package run

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

func noiseAwareConfig() *Config {
	return &Config{
		Model:     model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"mean_radius", "mean_texture"}},
		Algorithm: NoiseAware, Chains: 3, Draws: 200, Seed: 9,
		Data:    DataSpec{Bounds: map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}}},
		Privacy: &Budget{Epsilon: 2, Delta: 1e-5},
	}
}

// All chains of a run sample from ONE release: each chain derives the
// release stream from the run's key, so their releases are identical, and
// a different key gives a different release.
func TestNoiseAwareChainsShareOneRelease(t *testing.T) {
	p := prepareBC5(t, noiseAwareConfig())
	key := rng.KeyFromBytes([32]byte{3})
	var first *noiseaware.Release
	if _, err := p.NewChain(0, key); !errors.Is(err, ErrNeedsSharedKey) {
		t.Fatalf("NewChain (a key per chain) accepted noise-aware: %v", err)
	}
	for c := range 3 {
		ch, err := p.NewChainSharedKey(c, key)
		if err != nil {
			t.Fatal(err)
		}
		rel := ch.k.(*noiseaware.Kernel).Released()
		if rel == nil {
			t.Fatal("no release")
		}
		if first == nil {
			first = rel
			continue
		}
		for r := range rel.S {
			if !slices.Equal(rel.S[r], first.S[r]) || !slices.Equal(rel.M[r], first.M[r]) {
				t.Fatalf("chain %d has another release than chain 0", c)
			}
		}
	}
	ch, _ := p.NewChainSharedKey(0, rng.KeyFromBytes([32]byte{4}))
	if slices.Equal(ch.k.(*noiseaware.Kernel).Released().S[0], first.S[0]) {
		t.Fatal("a different key gave the same release")
	}
}

// A noise-aware run plans 0 warmup and the default draws, spends the budget
// once whatever the number of chains and draws, and reports its releases,
// the accountant and its approximations.
func TestNoiseAwareRunAndReport(t *testing.T) {
	cfg := noiseAwareConfig()
	cfg.Draws = 0
	p := prepareBC5(t, cfg)
	if p.Plan.Warmup != 0 || p.Plan.Draws != defaultNoiseAwareDraws || p.Plan.Epsilon > 2 || p.Plan.Epsilon < 1.999 {
		t.Fatalf("plan %+v", p.Plan)
	}
	res, err := p.run(context.Background(), rng.KeyFromBytes([32]byte{5}), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Report(res)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Epsilon > 2 || rep.Epsilon < 1.999 || rep.Mu <= 0 {
		t.Fatalf("ε spent %v, μ %v", rep.Epsilon, rep.Mu)
	}
	// The same config with more chains and draws spends the same.
	c2 := *p.Config
	c2.Chains, c2.Draws = 8, 5000
	rep2, err := NewReport(&c2, p.Model.N(), p.Model.Dim(), []int{5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000}, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Epsilon != rep.Epsilon {
		t.Fatalf("ε depends on the draws: %v vs %v", rep2.Epsilon, rep.Epsilon)
	}
	all := strings.Join(rep.Notes, " ") + " " + rep.Mechanism
	for _, want := range []string{"once for the whole run", "score S at expansion point 1", "Fisher information M", "second-order expansion", "prior: N(0, 20²)"} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks %q:\n%s", want, all)
		}
	}
	// The statement says what spent the budget: the one release, not the
	// iterations (the draws after it are free).
	if st := rep.Statement; !strings.Contains(st, "private releases of noisy statistics, made once before any draw and shared by all chains") || strings.Contains(st, "iterations that actually ran") {
		t.Errorf("statement does not say the release spent the budget:\n%s", st)
	}
	// Six releases for logistic: the first chooses the coordinates of the
	// others (noiseaware.Spec.AdaptCoords), and the report gives both
	// schedules.
	if rep.Settings["releases"] != 6 || rep.Settings["noise_std_score_6"] <= 0 || !(rep.Settings["noise_std_info_6_design"] > rep.Settings["noise_std_info_6"]) || !strings.Contains(all, "design-adapted coordinates: when the first release shows") {
		t.Errorf("settings %v", rep.Settings)
	}
	d := res.Draws(false)
	if len(d.Values) != 3 || len(d.Values[0]) != defaultNoiseAwareDraws {
		t.Fatalf("draws %d × %d", len(d.Values), len(d.Values[0]))
	}
}

// noise-aware uses the public n after the release (expansion points), so it
// refuses the add/remove relation, under which n is private.
func TestNoiseAwareRefusesAddRemove(t *testing.T) {
	cfg := noiseAwareConfig()
	cfg.Privacy.Relation = "add-remove"
	if _, err := MakePlan(cfg, 569, 3); err == nil {
		t.Fatalf("add-remove accepted: %v", err)
	}
}

// Recommend: noise-aware for the regression models in a private run, the
// previous order otherwise; exact for a non-private gaussian or banana.
func TestRecommend(t *testing.T) {
	for _, c := range []struct {
		model            string
		n, d             int
		private, bounded bool
		want             string
	}{
		{"logistic", 569, 6, true, false, NoiseAware}, {"linear", 0, 0, true, false, NoiseAware}, {"poisson", 10, 2, true, false, NoiseAware},
		{"gaussian", 10, 2, true, false, "dp-penalty"}, {"gaussian", 5000, 2, true, false, "dp-hmc"}, {"logistic", 569, 6, false, false, "hmc"},
		{"gaussian", 10, 2, true, true, NoiseAware}, {"banana", 5000, 2, true, true, NoiseAware}, {"banana", 5000, 2, false, true, Exact},
		{"gaussian", 300, 3, false, false, Exact}, {"gmm", 300, 3, false, false, "hmc"},
		{"gmm", 5000, 2, true, true, "dp-hmc"},
	} {
		if got, _ := Recommend(c.model, c.n, c.d, c.private, c.bounded); got != c.want {
			t.Errorf("Recommend(%s, %d, %d, %v, %v) = %s, want %s", c.model, c.n, c.d, c.private, c.bounded, got, c.want)
		}
	}
}

// Chains that run apart with their own keys (the page's workers) share ONE
// release: chain 0 makes it, the others adopt its JSON. An adopting chain
// samples from exactly chain 0's release, and with the key the CLI gives
// every chain (Run: one key) it draws bit for bit what the CLI's chain
// draws; with another key only its draws differ, never the release.
func TestNoiseAwareChainFromRelease(t *testing.T) {
	p := prepareBC5(t, noiseAwareConfig())
	key := rng.KeyFromBytes([32]byte{3})
	ch0, err := p.NewChainSharedKey(0, key)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := ch0.ReleaseJSON()
	if err != nil || rel == nil {
		t.Fatalf("release JSON %q, %v", rel, err)
	}
	first := ch0.k.(*noiseaware.Kernel).Released()
	for c := 1; c < 3; c++ {
		cli, err := p.NewChainSharedKey(c, key)
		if err != nil {
			t.Fatal(err)
		}
		adopted, err := p.NewChainFromRelease(c, key, rel)
		if err != nil {
			t.Fatal(err)
		}
		own, err := p.NewChainFromRelease(c, rng.KeyFromBytes([32]byte{byte(10 + c)}), rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range []*Chain{adopted, own} {
			got := ch.k.(*noiseaware.Kernel).Released()
			for r := range got.S {
				if !slices.Equal(got.Theta[r], first.Theta[r]) || !slices.Equal(got.S[r], first.S[r]) || !slices.Equal(got.M[r], first.M[r]) {
					t.Fatalf("chain %d: the adopted release differs from chain 0's", c)
				}
			}
		}
		want := slices.Clone(cli.Advance(cli.Total()))
		if got := adopted.Advance(adopted.Total()); !slices.Equal(got, want) {
			t.Fatalf("chain %d: draws from the adopted release differ from the shared-key chain's", c)
		}
		if got := own.Advance(own.Total()); slices.Equal(got, want) {
			t.Fatalf("chain %d: another key gave the same draws", c)
		}
	}
	// A chain without a shared release has none to hand on.
	pcfg := smallConfig("dp-penalty")
	pcfg.Privacy = &Budget{Epsilon: 2, Delta: 1e-5}
	pcfg.Data.Bounds = noiseAwareConfig().Data.Bounds
	q := prepareBC5(t, pcfg)
	pc, err := q.NewChain(0, key)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := pc.ReleaseJSON(); b != nil || err != nil {
		t.Fatalf("dp-penalty release %q, %v", b, err)
	}
	if _, err := q.NewChainFromRelease(1, key, rel); err == nil {
		t.Fatal("dp-penalty accepted a release")
	}
}

// A release that does not fit the run's plan is refused with a specific
// error, never sampled from.
func TestNoiseAwareAdoptRefusesBadRelease(t *testing.T) {
	p := prepareBC5(t, noiseAwareConfig())
	ch0, err := p.NewChainSharedKey(0, rng.KeyFromBytes([32]byte{3}))
	if err != nil {
		t.Fatal(err)
	}
	good := ch0.k.(*noiseaware.Kernel).Released()
	d := good.D
	for name, c := range map[string]struct {
		edit func(r *noiseaware.Release)
		want string
	}{
		"one release missing": {func(r *noiseaware.Release) { r.S = r.S[:1] }, "expansion points"},
		"wrong family":        {func(r *noiseaware.Release) { r.Family = "linear" }, "for linear"},
		"short score":         {func(r *noiseaware.Release) { r.S[1] = r.S[1][:d-1] }, "wrong size"},
		"asymmetric M":        {func(r *noiseaware.Release) { r.M[1][1] += 1 }, "not symmetric"},
		"first point not 0":   {func(r *noiseaware.Release) { r.Theta[0][1] = 0.5 }, "θ = 0"},
		"other rows":          {func(r *noiseaware.Release) { r.N-- }, "another run"},
		"no noise stated":     {func(r *noiseaware.Release) { r.NoiseStd = nil }, "another run"},
	} {
		bad := &noiseaware.Release{Family: good.Family, D: d, N: good.N, NoiseStd: good.NoiseStd}
		for r := range good.S {
			bad.Theta = append(bad.Theta, slices.Clone(good.Theta[r]))
			bad.S = append(bad.S, slices.Clone(good.S[r]))
			bad.M = append(bad.M, slices.Clone(good.M[r]))
		}
		c.edit(bad)
		b, err := json.Marshal(bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.NewChainFromRelease(1, rng.KeyFromBytes([32]byte{3}), b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
	if _, err := p.NewChainFromRelease(1, rng.KeyFromBytes([32]byte{3}), []byte(`{"s":`)); err == nil || !strings.Contains(err.Error(), "shared release") {
		t.Errorf("truncated JSON: %v", err)
	}
	// A release made under another budget (100× less noise) is not
	// reported under this run's ε (a privacy audit found it adopted).
	weak := noiseAwareConfig()
	weak.Privacy = &Budget{Epsilon: 50, Delta: weak.Privacy.Delta}
	w0, err := prepareBC5(t, weak).NewChainSharedKey(0, rng.KeyFromBytes([32]byte{4}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := w0.ReleaseJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.NewChainFromRelease(1, rng.KeyFromBytes([32]byte{3}), b); err == nil || !strings.Contains(err.Error(), "a release of another run (another budget, bounds or data) is refused") {
		t.Errorf("a release at ε = 50 adopted by a run at ε = %v: %v", noiseAwareConfig().Privacy.Epsilon, err)
	}
}

// Issue #16 (page fixes): noise-aware's draws are iid, so its plan has no
// warmup unless one is given, and the plan and the report say why. A
// warmup given explicitly is honoured (it spends nothing) and called
// unnecessary; ops and noise-aware are the algorithms without a warmup
// (WarmupNote, which the page uses to disable its warmup input).
func TestNoiseAwarePlansNoWarmup(t *testing.T) {
	cfg := noiseAwareConfig()
	p, err := MakePlan(cfg, 569, 3)
	if err != nil {
		t.Fatal(err)
	}
	if p.Warmup != 0 || !slices.Contains(p.Notes, NoWarmupNote) || !strings.HasPrefix(NoWarmupNote, "no warmup: iid draws") {
		t.Fatalf("plan warmup %d, notes %q", p.Warmup, p.Notes)
	}
	rep, err := NewReport(cfg, 569, 3, []int{200, 200, 200}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Notes, NoWarmupNote) || rep.Warmup != 0 {
		t.Fatalf("report warmup %d, notes %q", rep.Warmup, rep.Notes)
	}

	cfg.Warmup = 500
	p, err = MakePlan(cfg, 569, 3)
	if err != nil {
		t.Fatal(err)
	}
	if p.Warmup != 500 || slices.Contains(p.Notes, NoWarmupNote) || !slices.ContainsFunc(p.Notes, func(n string) bool {
		return strings.HasPrefix(n, "warmup 500 per chain as given, though noise-aware needs none")
	}) {
		t.Fatalf("explicit warmup: plan warmup %d, notes %q", p.Warmup, p.Notes)
	}
	rep, err = NewReport(cfg, 569, 3, []int{700, 700, 700}, false)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(rep.Notes, NoWarmupNote) {
		t.Fatalf("report with a warmup says it had none: %q", rep.Notes)
	}

	for name, want := range map[string]bool{NoiseAware: true, "ops": true, "dp-hmc": false, "hmc": false, "hybrid": false} {
		if got := WarmupNote(name) != ""; got != want {
			t.Errorf("WarmupNote(%s) = %q", name, WarmupNote(name))
		}
	}
}

// Auto is resolved from the public n and d where they are known (MakePlan,
// Prepare), as the page resolves it: dp-hmc for a non-regression model
// with n ≥ 1000 and d ≤ 20, dp-penalty below, noise-aware for regression,
// hmc without a budget; the plan says which and why.
func TestAutoResolvedFromNAndD(t *testing.T) {
	for _, c := range []struct {
		model   string
		n, d    int
		private bool
		want    string
	}{
		{"banana", 5000, 2, true, "dp-hmc"},
		{"banana", 500, 2, true, "dp-penalty"},
		{"logistic", 569, 6, true, NoiseAware},
		{"banana", 5000, 2, false, Exact},
	} {
		cfg := &Config{Model: model.Spec{Model: c.model}, Algorithm: Auto, Chains: 4, Draws: 100, Seed: 1}
		if c.private {
			cfg.Privacy = &Budget{Epsilon: 2, Delta: 1e-5}
			cfg.Draws = 0
			cfg.Settings.Clip = 2.5 // dp-penalty/dp-hmc plans need no model here; the forecast reads it
		}
		want, reason := Recommend(c.model, c.n, c.d, c.private, false)
		if want != c.want {
			t.Fatalf("Recommend(%s, %d, %d) = %s, want %s", c.model, c.n, c.d, want, c.want)
		}
		p, err := MakePlan(cfg, c.n, c.d)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if p.Algorithm != c.want || p.AutoReason != reason || !slices.Contains(p.Notes, AutoNote(c.want, reason)) {
			t.Errorf("%s n=%d: plan algorithm %s, reason %q, notes %v", c.model, c.n, p.Algorithm, p.AutoReason, p.Notes)
		}
	}
}

// The releases never spend more than the budget: μ is calibrated to the
// discrete-Gaussian charge of the coordinates the plan actually releases
// (noiseaware.ReleasesFor: 6 expansion points for logistic). A review
// found the calibration counting 2 for logistic, which put the spent ε up
// to a relative 5e-7 over the budget at small ε and large d (logistic,
// d = 64, ε = 1e-3, δ = 1e-6: 0.00100000034); this grid failed then.
func TestNoiseAwareSpendsAtMostTheBudget(t *testing.T) {
	for _, fam := range []string{"logistic", "poisson", "linear"} {
		for _, d := range []int{2, 20, 64} {
			for _, eps := range []float64{1e-4, 3e-4, 1e-3, 3e-3, 1, 8} {
				cfg := &Config{Model: model.Spec{Model: fam, Outcome: "y", Options: map[string]string{}}, Algorithm: NoiseAware, Chains: 2, Seed: 1,
					Data:    DataSpec{Bounds: map[string][2]float64{"y": {0, 5}}},
					Privacy: &Budget{Epsilon: eps, Delta: 1e-6}}
				switch fam {
				case "logistic":
					cfg.Data.Bounds["y"] = [2]float64{0, 1}
				case "linear":
					cfg.Model.Options["noise-sd"] = "1"
				}
				p, err := MakePlan(cfg, 1000, d)
				if err != nil {
					if strings.Contains(err.Error(), "budget too small") {
						continue
					}
					t.Fatalf("%s d=%d ε=%g: %v", fam, d, eps, err)
				}
				if p.Epsilon > eps {
					t.Errorf("%s d=%d: spends ε = %.12g over the budget %g", fam, d, p.Epsilon, eps)
				}
			}
		}
	}
}

// Noise-aware's linear regression scales the outcome by its public bound
// too, so its prior sds in the user's units are h_y times those of the
// scaled predictors (PriorSDs). A review found the "Mostly the prior" note
// using the predictors' scaling alone: on a blood-pressure outcome (80–220
// mmHg, h_y = 70) it named age, whose interval was 0.34–1.38 mmHg per year
// and whose direction the page called determined, and the intercept's
// posterior sd was 4× its stated prior sd. No posterior sd is above its
// prior sd (a Gaussian likelihood only narrows), and the informed slopes
// are not called mostly prior.
func TestNoiseAwareLinearPriorInOutcomeUnits(t *testing.T) {
	const n = 1000
	rng := rand.New(rand.NewPCG(12, 70))
	age, bmi, sbp := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		age[i] = 25 + 55*rng.Float64()
		bmi[i] = 20 + 15*rng.Float64()
		sbp[i] = min(220, max(80, 95+0.5*age[i]+0.8*bmi[i]+12*rng.NormFloat64()))
	}
	tab, err := dataset.FromColumns([]string{"age", "bmi", "sbp"}, [][]float64{age, bmi, sbp})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Model: model.Spec{Model: "linear", Outcome: "sbp", Options: map[string]string{"noise-sd": "12"}},
		Algorithm: NoiseAware, Chains: 2, Draws: 1000, Seed: 4,
		Data:    DataSpec{Bounds: map[string][2]float64{"age": {18, 90}, "bmi": {15, 60}, "sbp": {80, 220}}},
		Privacy: &Budget{Epsilon: 3, Delta: 1e-5}}
	prep, err := Prepare(cfg, tab)
	if err != nil {
		t.Fatal(err)
	}
	res, err := prep.run(context.Background(), testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Draws(false)
	rows := diag.Summary(d.Names, d.Sampling())
	prior := PriorSDs(prep.Config, d.Names)
	if h, ok := NoiseAwareOutcomeHalf(prep.Config); !ok || h != 70 {
		t.Fatalf("outcome half-range %v %v, want 70", h, ok)
	}
	if want := 20 * 70 / 36.0; math.Abs(prior["age"]/want-1) > 1e-12 {
		t.Errorf("age's prior sd %g, want s·h_y/h_age = %g", prior["age"], want)
	}
	for _, r := range rows {
		if !(r.SD <= prior[r.Name]) {
			t.Errorf("%s: posterior sd %.4g above its prior sd %.4g", r.Name, r.SD, prior[r.Name])
		}
	}
	if mp := report.MostlyPrior(rows, prior, nil); slices.Contains(mp, "age") || slices.Contains(mp, "bmi") {
		t.Errorf("mostly prior: %v (age sd %.3g, bmi sd %.3g)", mp, rows[1].SD, rows[2].SD)
	}
	rep, err := prep.Report(res)
	if err != nil {
		t.Fatal(err)
	}
	stated := false
	for _, note := range rep.Notes {
		stated = stated || strings.HasPrefix(note, "prior: ") && strings.Contains(note, "in the outcome's units N(0, 1400²) per scaled predictor")
	}
	if !stated {
		t.Errorf("no report note states the outcome's scaling: %q", rep.Notes)
	}
	// Without an intercept the outcome is scaled by max(|lo|, |hi|), as the
	// release scales it (noiseaware.Plan.YHalf).
	noIcpt := *prep.Config
	noIcpt.Model.NoIntercept = true
	if h, ok := NoiseAwareOutcomeHalf(&noIcpt); !ok || h != 220 {
		t.Errorf("no intercept: outcome half-range %v %v, want 220", h, ok)
	}
	if p := PriorSDs(&noIcpt, []string{"age", "bmi"}); math.Abs(p["age"]/(20*220/90.0)-1) > 1e-12 {
		t.Errorf("no intercept: age's prior sd %g, want s·h_y/max(|lo|, |hi|) = %g", p["age"], 20*220/90.0)
	}
}

// The report of a run holds nothing computed from its release (DESIGN.md
// rule 5): whether the release was made in the box or in design-adapted
// coordinates (both happen below: the release's noise stds say which), the
// report equals the one built from the public inputs alone, and ε is the
// same. A release of another run is refused (PrivacyReport.NoteRelease),
// and the model name is read as the plan reads it (" Logistic" made the
// CLI fail after its release, with no report written).
func TestNoiseAwareReportHoldsNothingFromTheRelease(t *testing.T) {
	for _, c := range []struct {
		bound  [2]float64
		design bool
	}{{[2]float64{-30, 50}, true}, {[2]float64{-1, 1}, false}} {
		cfg := noiseAwareConfig()
		cfg.Model.Model = " Logistic"
		cfg.Data.Bounds = map[string][2]float64{"mean_radius": c.bound, "mean_texture": c.bound}
		p := prepareBC5(t, cfg)
		res, err := p.run(context.Background(), rng.KeyFromBytes([32]byte{6}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Release == nil {
			t.Fatal("the result holds no release")
		}
		rep, err := p.Report(res)
		if err != nil {
			t.Fatal(err)
		}
		var rel noiseaware.Release
		if err := json.Unmarshal(res.Release, &rel); err != nil {
			t.Fatal(err)
		}
		np, err := noiseAwarePlan(p.Config, nil, p.Model.N(), p.Model.Dim())
		if err != nil {
			t.Fatal(err)
		}
		design := make([]float64, len(np.Design().Blocks))
		for i, b := range np.Design().Blocks {
			design[i] = b.Std
		}
		if made := slices.Equal(rel.NoiseStd, design); made != c.design {
			t.Errorf("bounds %v: release made in design-adapted coordinates %v, want %v", c.bound, made, c.design)
		}
		public, err := p.Report(&Result{Chains: res.Chains, Cancelled: res.Cancelled, Aborted: res.Aborted})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := rep.JSON()
		b, _ := public.JSON()
		if string(a) != string(b) {
			t.Errorf("bounds %v: the report differs from the one built without the release:\n%s\n---\n%s", c.bound, a, b)
		}
		if strings.Contains(string(a), "design_min_eigenvalue") || strings.Contains(string(a), "release_coordinates") {
			t.Errorf("bounds %v: the report states a value computed from the release:\n%s", c.bound, a)
		}
		if err := rep.NoteRelease(p.Config, p.Model.N()-1, p.Model.Dim(), res.Release); err == nil || !strings.Contains(err.Error(), "another run") {
			t.Errorf("a release made on other rows was accepted: %v", err)
		}
	}
	cfg := noiseAwareConfig()
	cfg.Model.Model = "linear"
	cfg.Model.Outcome, cfg.Model.Predictors = "mean_radius", []string{"mean_texture"}
	cfg.Model.Options = map[string]string{"noise-sd": "1"}
	cfg.Data.Bounds = map[string][2]float64{"mean_radius": {-3, 5}, "mean_texture": {-3, 5}}
	p := prepareBC5(t, cfg)
	res, err := p.run(context.Background(), rng.KeyFromBytes([32]byte{6}), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Report(res)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rep.Settings["design_min_eigenvalue"]; ok {
		t.Errorf("linear: settings %v", rep.Settings)
	}
}
