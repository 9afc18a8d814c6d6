package main

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
	"github.com/dpmcmc/dpmcmc/core/run"
)

// summarize runs diag.Summary on row-major chains (draws × d).
func summarize(ch [][]float64, d int, names []string) []diag.ParamSummary {
	chains := make([][][]float64, len(ch))
	for c, x := range ch {
		n := len(x) / d
		chains[c] = make([][]float64, n)
		for i := range chains[c] {
			chains[c][i] = x[i*d : (i+1)*d]
		}
	}
	return diag.Summary(names, chains)
}

// hmcSettings are the HMC settings of the Stan comparison (the rest are the
// defaults: jittered step, dual averaging to 0.8 and Stan's windowed
// diagonal metric during warmup).
const hmcLeapfrog = 4

// benchHMC: non-private HMC on the synthetic logistic regression (N = 1e5,
// d = 10 + intercept), 4 chains × (1000 warmup + 1000 draws) one after the
// other on one core, as rstan's anchor; bulk-ESS (the smallest over the
// parameters) per second of CPU time, warmup included.
func benchHMC() []row {
	const n, d, stanESSs = 100_000, 10, 14.7
	tab, spec := syntheticLogistic(n, d, 1)
	cfg := &run.Config{Model: spec, Algorithm: "hmc", Chains: 4, Warmup: 1000, Draws: 1000, Seed: 11,
		Settings: run.Settings{Leapfrog: hmcLeapfrog}}
	p, err := run.Prepare(cfg, tab)
	if err != nil {
		panic(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, t0 := threadCPU(), time.Now()
	draws := make([][]float64, cfg.Chains)
	var rows int64
	for c := range draws {
		ch, err := p.NewChain(c, rng.KeyFromBytes([32]byte{}))
		if err != nil {
			panic(err)
		}
		for !ch.Finished() {
			ch.Advance(100)
		}
		draws[c] = ch.Result().Draws
		rows += ch.Result().Rows
	}
	cpu, wall := float64(threadCPU()-c0)/1e9, time.Since(t0).Seconds()
	if cpu <= 0 {
		cpu = wall
	}
	sum := summarize(draws, p.Model.Dim(), p.Model.ParamNames())
	minESS, maxRhat := sum[0].ESSBulk, 0.0
	for _, s := range sum {
		minESS = min(minESS, s.ESSBulk)
		maxRhat = max(maxRhat, s.Rhat)
	}
	rate := minESS / cpu
	return []row{{ID: "4", What: fmt.Sprintf("hmc (L=%d), logistic N=1e5 d=10, 4×(1000+1000), one core", hmcLeapfrog),
		Measured: fmt.Sprintf("%.1f bulk-ESS/s (min ESS %.0f in %.1f s CPU, %.1f s wall)", rate, minESS, cpu, wall),
		Target:   fmt.Sprintf("≥ %.1f (rstan)", stanESSs), Status: pass(rate >= stanESSs),
		Note: fmt.Sprintf("max R-hat %.3f; %.1f passes/iteration", maxRhat, float64(rows)/float64(n)/8000)}}
}

// benchGMM: dp-barker on the Welling–Teh GMM as in the DP Barker paper
// (N = 1e6, N₀ = 100 i.e. F = 1e-4, b = 1000 without replacement, proposal
// variance 0.01, C = 2, clip 0.99·√b/N₀), time per iteration; and the
// model's minibatch log-likelihood at θ and θ' (its data part).
func benchGMM() []row {
	nr, dur := rounds()
	const n, b = 1_000_000, 1000
	tab, spec := syntheticGMM(n, 123)
	spec.Temper = 100.0 / n
	spec.Options = map[string]string{"prior-var1": "10", "prior-var2": "1"}
	m, err := model.Build(spec, tab)
	if err != nil {
		panic(err)
	}
	rowsIdx := make([]int, b)
	for k := range rowsIdx {
		rowsIdx[k] = (k * 7919) % n
	}
	cur, out := make([]float64, b), make([]float64, b)
	th, th2 := []float64{0.5, 0}, []float64{0.52, 0.01}
	ll := measure(nr, dur, func() { model.LogLikRatio(m, th2, th, rowsIdx, cur, out) })
	res := []row{{ID: "3b", What: "GMM minibatch log-lik ratio (b=1000 rows at θ and θ')",
		Measured: fmt.Sprintf("%s (median %s)", us(ll.MinCPUNs), us(ll.CPUNs)), Target: "—", Status: "info", Note: "the model's part of a dp-barker iteration"}}
	k, err := mcmc.NewDPBarker(m, mcmc.DPBarkerConfig{Step: 0.1, Batch: b, Clip: 0.99, BarkerC: 2})
	if err != nil {
		return append(res, row{ID: "3", What: "dp-barker, GMM N=1e6 b=1000, per iteration", Measured: "error: " + err.Error(), Target: "≤ 80 µs", Status: "n/a"})
	}
	if err := k.Init(th); err != nil {
		panic(err)
	}
	r := rng.ForChain(1, rng.KeyFromBytes([32]byte{}), 0)
	st := measure(nr, dur, func() { k.Step(r) })
	return append([]row{{ID: "3", What: "dp-barker, GMM N=1e6 b=1000 (paper's setting), per iteration, native",
		Measured: fmt.Sprintf("%s (median %s), %s", us(st.MinCPUNs), us(st.CPUNs), allocsText(st.Allocs)), Target: "≤ 80 µs", Status: pass(st.MinCPUNs <= 80e3 && st.Allocs < 0.5),
		Note: "paper's numpy 810 µs, tight numpy 140 µs"}}, res...)
}

// benchAlloc: allocations per iteration of every algorithm the run package
// builds, after warmup, on a small bounded logistic regression.
func benchAlloc() []row {
	const n, d = 2000, 4
	var bad, ok []string
	for _, alg := range run.Algorithms() {
		tab, spec := syntheticLogistic(n, d, 2)
		cfg := &run.Config{Model: spec, Algorithm: alg, Chains: 1, Warmup: 50, Draws: 400, Seed: 3,
			Settings: run.Settings{Box: 5, Lambda: 1}}
		cfg.Data.Bounds = map[string][2]float64{"y": {0, 1}}
		for j := 1; j <= d; j++ {
			cfg.Data.Bounds[fmt.Sprintf("x%d", j)] = [2]float64{-4, 4}
		}
		if run.IsPrivate(alg) {
			cfg.Privacy = &run.Budget{Epsilon: 1e4, Delta: 1e-5}
			cfg.Draws = 0
		}
		switch alg {
		case "dp-barker-full":
			cfg.Settings.Clip = 1 // its per-row bound has no default
		case "ops":
			cfg.Draws = 300 // a fixed number of one-posterior draws
		}
		allocs, err := allocsPerIteration(cfg, tab)
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("%s (not measured: %v)", alg, firstLine(err)))
		case allocs > 0:
			bad = append(bad, fmt.Sprintf("%s %.2f", alg, allocs))
		default:
			ok = append(ok, alg)
		}
	}
	sort.Strings(ok)
	status := pass(len(bad) == 0)
	measured := fmt.Sprintf("0 in %d of %d kernels", len(ok), len(ok)+len(bad))
	note := ""
	if len(bad) > 0 {
		note = "not zero: " + strings.Join(bad, "; ")
	}
	return []row{{ID: "1d", What: "allocations per iteration, every kernel (run.Algorithms)",
		Measured: measured, Target: "0", Status: status, Note: note}}
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func allocsPerIteration(cfg *run.Config, tab *dataset.Table) (a float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	p, err := run.Prepare(cfg, tab)
	if err != nil {
		return 0, err
	}
	ch, err := p.NewChain(0, rng.KeyFromBytes([32]byte{}))
	if err != nil {
		return 0, err
	}
	total := ch.Total()
	if total < 100 {
		return 0, fmt.Errorf("only %d iterations planned", total)
	}
	warm := p.Config.Warmup + 5
	ch.Advance(warm) // past warmup (and the one allocation where a slice crosses it)
	iters := min(200, total-warm)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range iters {
		ch.Advance(1)
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / float64(iters), nil
}
