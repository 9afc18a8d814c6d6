package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// TestDPFastMHMoG runs the truncated Gaussian mixture of DP-Fast MH §6.1 /
// App. E.1 (testdata README anchors): N = 50,000 rows x ~ ½N(0, 2) +
// ½N(1, 2) truncated to [−3, 3] (public bound), temperature 500
// (F = 1/500), flat prior on the box |θ_j| ≤ 3 (prior variances 1e12: flat
// to 1e-11 on the box), step 0.06, λ = 10, K = 60, (ε, δ) = (0.05, 1e-5)
// per iteration, 20,000 samples per chain. The anchors are mean ≈
// (0.50, 0), variance ≈ (0.31, 1.15) for untruncated data (checked by grid
// integration below); the bound c needs |x| ≤ 3, so the chain runs on
// truncated data and is compared with the exact posterior of those data
// by grid integration (4 MCSE; the kernel is exact,
// so no approximation allowance beyond 5% on variances for the bimodal
// mixing). Four chains from public draws of the exact posterior (a single
// chain of steps 0.06 switches modes too rarely). Skipped under -short.
func TestDPFastMHMoG(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	const N = 50000
	x := gmmData(N, 7, 3)
	m := gmmModel(t, x, 1.0/500, 1e12, 1e12, 3)
	box := []model.Interval{{Lo: -3, Hi: 3}, {Lo: -3, Hi: 3}}
	g := gmmGridPosterior(x, 1.0/500, func(a, b float64) float64 { return 0 }, -3, 3, -3, 3, 121, 121)
	t.Logf("exact posterior (grid): mean (%.4f, %.4f), variance (%.4f, %.4f); anchors (0.50, 0), (0.31, 1.15)",
		g.mean[0], g.mean[1], g.variance[0], g.variance[1])
	// The anchors come from the reference code, which does not truncate the
	// data (so its per-row bound c_i, which assumes |x| ≤ 3, is violated by
	// ~6% of the rows). The same grid on untruncated data reproduces them:
	xu := gmmData(N, 1111, 0)
	gu := gmmGridPosterior(xu, 1.0/500, func(a, b float64) float64 { return 0 }, -3, 3, -3, 3, 121, 121)
	t.Logf("untruncated data (as the reference code): mean (%.3f, %.3f), variance (%.3f, %.3f)", gu.mean[0], gu.mean[1], gu.variance[0], gu.variance[1])
	if math.Abs(gu.mean[0]-0.50) > 0.02 || math.Abs(gu.variance[0]-0.31) > 0.02 || math.Abs(gu.variance[1]-1.15) > 0.05 {
		t.Errorf("untruncated grid posterior does not reproduce the anchors")
	}
	cfg := DPFastMHConfig{Step: 0.06, Lambda: 10, BatchCap: 60, StepEpsilon: 0.05, StepDelta: 1e-5, Box: box}
	draws := mogChains(t, m, cfg, g, N, 5, 31)
	chainMoments(t, draws, 4, 2, 1000, g.mean[:], g.variance[:], 0.05)
	rep, err := cfg.Account(20000, 1e-5*20000*2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one chain of 20,000 iterations at (0.05, 1e-5) each: ε = %.2f at δ = %.2g (%s)", rep.Epsilon, rep.Delta, rep.Method)
}

// TestDPFastMHMoGAnchors reproduces the anchors themselves: the reference
// code's untruncated data (N = 50,000 draws of ½N(0, 2) + ½N(1, 2), all
// within |x| ≤ 7.5 for this seed) with a public bound wide enough to hold
// every row, |x| ≤ 9, so the per-row Lipschitz bound c is honest for all
// rows. c is then 1.7× the |x| ≤ 3 value and C·M (≈ 90 at step 0.06) is
// above the paper's K = 60, so about three quarters of the iterations take
// the full-batch branch, whose sensitivity 2·c·M is below ε and which runs
// Barker's test without noise ("privacy for free"); the other quarter is
// the minibatch branch. (K = ⌈εN/6⌉ = 417 keeps every iteration in the
// minibatch branch, touching 0.18% of the rows, but its noise for the
// sensitivity 2·log(1 + CM/λ) ≈ 4.6 leaves 2% acceptance at step 0.06:
// measured, and why the paper tunes the step per method.) Everything else
// as TestDPFastMHMoG. The chain is compared with the exact posterior of
// these data (grid, 4 MCSE, 5% on variances), and that posterior with the
// anchors mean (0.50, 0), variance (0.31, 1.15) to their printed precision.
// Measured: chain mean (0.37, 0.27) ± (0.056, 0.11), variance (0.33, 1.23);
// exact (0.499, 0), (0.304, 1.123); acceptance 0.47; 73% of the rows per
// iteration.
func TestDPFastMHMoGAnchors(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	const N = 50000
	x := gmmData(N, 1111, 0)
	for i, v := range x {
		if math.Abs(v) > 9 {
			t.Fatalf("row %d = %v outside the public bound 9", i, v)
		}
	}
	m := gmmModel(t, x, 1.0/500, 1e12, 1e12, 9)
	box := []model.Interval{{Lo: -3, Hi: 3}, {Lo: -3, Hi: 3}}
	g := gmmGridPosterior(x, 1.0/500, func(a, b float64) float64 { return 0 }, -3, 3, -3, 3, 121, 121)
	t.Logf("exact posterior (grid): mean (%.4f, %.4f), variance (%.4f, %.4f); anchors (0.50, 0), (0.31, 1.15)",
		g.mean[0], g.mean[1], g.variance[0], g.variance[1])
	if math.Abs(g.mean[0]-0.50) > 0.02 || math.Abs(g.mean[1]) > 0.05 || math.Abs(g.variance[0]-0.31) > 0.02 || math.Abs(g.variance[1]-1.15) > 0.05 {
		t.Errorf("exact posterior does not reproduce the anchors")
	}
	K := 60
	cfg := DPFastMHConfig{Step: 0.06, Lambda: 10, BatchCap: K, StepEpsilon: 0.05, StepDelta: 1e-5, Box: box}
	draws := mogChains(t, m, cfg, g, N, 6, 41)
	chainMoments(t, draws, 4, 2, 1000, g.mean[:], g.variance[:], 0.05)
}

// mogChains runs 4 dp-fastmh chains of 1000 warmup + 20,000 draws on the
// MoG, started at public draws (seed startSeed) from the exact posterior g,
// logs the branch statistics and returns the draws.
func mogChains(t *testing.T, m model.Model, cfg DPFastMHConfig, g gridPost, N int, startSeed, chainSeed uint64) []float64 {
	t.Helper()
	var kernels []*DPFastMH
	mk := func() (Kernel, error) {
		k, err := NewDPFastMH(m, cfg)
		if err == nil {
			kernels = append(kernels, k)
		}
		return k, err
	}
	r := rand.New(rand.NewPCG(startSeed, startSeed))
	starts := make([][]float64, 4)
	for c := range starts {
		starts[c] = g.draw(r)
	}
	draws, acc := runChains(t, mk, starts, chainSeed, 1000, 20000)
	var st FastMHStats
	for _, k := range kernels {
		s := k.Stats()
		st.Iters += s.Iters
		st.Minibatch += s.Minibatch
		st.Full += s.Full
		st.Free += s.Free
		st.RowsTouched += s.RowsTouched
	}
	k0 := kernels[0]
	c, C := k0.Bound()
	_, _, e2, d2 := k0.StepBudget()
	t.Logf("c = %.5f, C = %.2f, K = %d, ε₂ = %.3f, δ₂ = %.3g; acceptance %.3f; minibatch %.1f%%, full %.1f%%, free %.1f%% of iterations; rows touched %.2f%% per iteration",
		c, C, k0.BatchCap(), e2, d2, acc, 100*float64(st.Minibatch)/float64(st.Iters), 100*float64(st.Full)/float64(st.Iters),
		100*float64(st.Free)/float64(st.Iters), 100*st.RowFraction(N))
	return draws
}

// logisticData draws a logistic-regression table: n rows, d predictors
// uniform in [−w, w] (public bounds), true coefficients N(0, 1), intercept
// −0.3.
func logisticData(t testing.TB, n, d int, w float64, seed uint64) model.Model {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	names := []string{"y"}
	cols := [][]float64{make([]float64, n)}
	beta := make([]float64, d)
	for j := range beta {
		beta[j] = r.NormFloat64()
		names = append(names, "x"+string(rune('a'+j%26))+string(rune('a'+j/26)))
		cols = append(cols, make([]float64, n))
	}
	for i := 0; i < n; i++ {
		eta := -0.3
		for j := 0; j < d; j++ {
			v := w * (2*r.Float64() - 1)
			cols[j+1][i] = v
			eta += beta[j] * v
		}
		if r.Float64() < 1/(1+math.Exp(-eta)) {
			cols[0][i] = 1
		}
	}
	tab, err := dataset.FromColumns(names, cols)
	if err != nil {
		t.Fatal(err)
	}
	tab.Bounds = make([]*dataset.Bound, d+1)
	tab.Bounds[0] = &dataset.Bound{Lo: 0, Hi: 1}
	for j := 1; j <= d; j++ {
		tab.Bounds[j] = &dataset.Bound{Lo: -w, Hi: w}
	}
	m, err := model.Build(model.Spec{Model: "logistic", Outcome: "y"}, tab)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDPFastMHLogisticRows measures the fraction of rows DP-Fast MH touches
// per iteration on a logistic regression shaped like the paper's MNIST
// task (§6.1, App. E.2: N = 12,214 rows, 50 features, per-iteration
// (ε, δ) = (0.05, 1e-5), K = ⌈εC/(6 max c_i)⌉ = ⌈εN/6⌉ = 102, λ = 10).
// With public bounds (c from model.RowBounds over the box, features in
// [−0.2, 0.2]) the minibatch branch needs λ + CM < K, so the step is small
// (step 1e-4: CM ≈ 15). The paper reports < 20% of the data; the test requires ≤ 20%
// and logs the fraction and the acceptance.
func TestDPFastMHLogisticRows(t *testing.T) {
	const N, d = 12214, 50
	m := logisticData(t, N, d, 0.2, 17)
	box := make([]model.Interval, d+1)
	for j := range box {
		box[j] = model.Interval{Lo: -4, Hi: 4}
	}
	k, err := NewDPFastMH(m, DPFastMHConfig{Step: 1e-4, Lambda: 10, StepEpsilon: 0.05, StepDelta: 1e-5, Box: box})
	if err != nil {
		t.Fatal(err)
	}
	c, C := k.Bound()
	theta0 := make([]float64, d+1)
	iters := 3000
	if testing.Short() {
		iters = 1000
	}
	_, acc, _ := dpRun(t, k, theta0, 7, 0, iters)
	s := k.Stats()
	frac := s.RowFraction(N)
	t.Logf("c = %.3f, C = %.0f, K = %d; acceptance %.3f; minibatch %d, full %d, free %d of %d; rows touched per iteration %.2f%%",
		c, C, k.BatchCap(), acc, s.Minibatch, s.Full, s.Free, s.Iters, 100*frac)
	if frac > 0.2 {
		t.Errorf("touched %.1f%% of the rows per iteration, want ≤ 20%%", 100*frac)
	}
	if acc < 0.05 {
		t.Errorf("acceptance %.3f: the chain does not move", acc)
	}
}

// TestFastMHStepBudget checks the exact amplification against a direct
// evaluation and the paper's bound 6Kpε₂ where that bound is valid (small
// ε₂), and shows where it is not (the MoG settings).
func TestFastMHStepBudget(t *testing.T) {
	for _, c := range []struct {
		eps, delta, p float64
		K             int
	}{{0.05, 1e-5, 1.0 / 50000, 60}, {0.05, 1e-5, 1.0 / 12214, 102}, {1, 1e-6, 0.25, 2}} {
		e2, d2 := stepBudget(c.eps, c.delta, c.p, c.K-1)
		bm := float64(c.K - 1)
		a := 1 - c.p + c.p*math.Exp(e2)
		b := 1 - c.p + c.p*math.Exp(-e2)
		eps := bm * math.Log(a/b)
		del := d2 * ((math.Pow(a, bm) - 1) + math.Pow(a/b, bm)*(1-math.Pow(b, bm))) / math.Expm1(e2)
		if math.Abs(eps-c.eps) > 1e-9*c.eps || del > c.delta {
			t.Errorf("%+v: ε' = %v, δ' = %v", c, eps, del)
		}
		paperE2 := c.eps / (6 * float64(c.K) * c.p) // ε₂ with 6Kpε₂ = ε
		ap := 1 - c.p + c.p*math.Exp(paperE2)
		bp := 1 - c.p + c.p*math.Exp(-paperE2)
		t.Logf("%+v: ε₂ = %.4f, δ₂ = %.3g; the paper's ε₂ = %.3f would give ε' = %.3f", c, e2, d2, paperE2, bm*math.Log(ap/bp))
	}
}

// TestFastMHAccount: the total privacy of the MoG settings by
// privacy.FastMHAccount (optimal homogeneous composition or better).
func TestFastMHAccount(t *testing.T) {
	cfg := DPFastMHConfig{StepEpsilon: 0.05, StepDelta: 1e-5}
	rep, err := cfg.Account(1000, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	basic := 1000 * 0.05
	t.Logf("1000 × (0.05, 1e-5) at δ = 0.02: ε = %.3f (%s); basic %.1f", rep.Epsilon, rep.Method, basic)
	if !(rep.Epsilon < basic) {
		t.Errorf("composition %v not better than basic %v", rep.Epsilon, basic)
	}
	it, err := cfg.PlanIterations(rep.Epsilon*1.0001, 0.02)
	if err != nil || it != 1000 {
		t.Errorf("PlanIterations = %d, %v; want 1000", it, err)
	}
	se, sd, err := PlanStepBudget(2, 1e-5, 500)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := privacy.FastMHAccount(se, sd, 500, 1e-5)
	t.Logf("PlanStepBudget(ε=2, δ=1e-5, 500): step (%.4f, %.2g), total ε %.4f", se, sd, r2.Epsilon)
	if r2.Epsilon > 2 {
		t.Errorf("planned step budget exceeds the total: %v", r2.Epsilon)
	}
}
