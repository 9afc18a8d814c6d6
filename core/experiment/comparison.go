package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/run"
)

// The DP-HMC paper's comparison (§4.1, Figure 1): dp-penalty, dp-hmc,
// dp-sgld and dp-sgnht on the banana and the 10-d Gaussian posteriors, MMD
// and mean error against 1000 exact posterior draws, ε ∈ {2, 4, …, 15},
// δ = 0.1/n, 4 chains sharing one budget, 10 repeats, first half of each
// chain discarded. Settings are the reference code's params/*.py.

func init() {
	register(Experiment{Name: "banana", Reads: []string{"eps", "n", "repeats", "resume", "algorithms"}, Summary: "DP-HMC paper §4.1 banana: MMD and mean error vs ε (dp-penalty, dp-hmc, dp-sgld, dp-sgnht)",
		Run: func(ctx context.Context, o Options) (*Output, error) { return comparison(ctx, o, "banana") }})
	register(Experiment{Name: "gauss", Reads: []string{"eps", "n", "repeats", "resume", "algorithms"}, Summary: "DP-HMC paper §4.1 10-d Gaussian: MMD and mean error vs ε (dp-penalty, dp-hmc, dp-sgld, dp-sgnht)",
		Run: func(ctx context.Context, o Options) (*Output, error) { return comparison(ctx, o, "gauss") }})
}

// algPlan is one algorithm at one budget: per-chain iterations, the ε the
// whole run (all chains) spends, and a kernel factory.
type algPlan struct {
	iters     int
	spent     float64
	thin      int
	newKernel func() (mcmc.Kernel, error)
	note      string
}

type dpAlg struct {
	name string
	plan func(p *problem, eps, delta float64, chains int, quick bool) (*algPlan, error)
}

// penaltyAlg plans with run.MakePlan (the CLI's planner) and checks that the
// kernel built here costs what the plan assumed.
func penaltyAlg(step, clip, tau float64) dpAlg {
	return dpAlg{name: "dp-penalty", plan: func(p *problem, eps, delta float64, chains int, _ bool) (*algPlan, error) {
		cfg := &run.Config{Model: model.Spec{Model: p.m.Name()}, Algorithm: "dp-penalty", Chains: chains, Seed: 1,
			Settings: run.Settings{Step: step, Clip: clip, Tau: tau, NoAdapt: true},
			Privacy:  &run.Budget{Epsilon: eps, Delta: delta}}
		pl, err := run.MakePlan(cfg, p.n, p.d)
		if err != nil {
			return nil, err
		}
		kc := mcmc.DPPenaltyConfig{Step: step, Clip: clip, Tau: tau}
		if err := checkMu(pl.StepMu, func() (mcmc.PrivacyCost, error) { return kc.Cost(p.n, p.d) }); err != nil {
			return nil, err
		}
		return &algPlan{iters: pl.IterationsPerChain(), spent: pl.Epsilon,
			newKernel: func() (mcmc.Kernel, error) { return mcmc.NewDPPenalty(p.m, kc) }}, nil
	}}
}

func hmcAlg(step float64, L int, clip, gradClip, tau, tauG float64) dpAlg {
	return dpAlg{name: "dp-hmc", plan: func(p *problem, eps, delta float64, chains int, _ bool) (*algPlan, error) {
		cfg := &run.Config{Model: model.Spec{Model: p.m.Name()}, Algorithm: "dp-hmc", Chains: chains, Seed: 1,
			Settings: run.Settings{Step: step, Leapfrog: L, Clip: clip, GradClip: gradClip, Tau: tau, TauGrad: tauG, NoAdapt: true},
			Privacy:  &run.Budget{Epsilon: eps, Delta: delta}}
		pl, err := run.MakePlan(cfg, p.n, p.d)
		if err != nil {
			return nil, err
		}
		kc := mcmc.DPHMCConfig{Step: step, Leapfrog: L, Clip: clip, GradClip: gradClip, Tau: tau, TauGrad: tauG}
		if err := checkMu(pl.StepMu, func() (mcmc.PrivacyCost, error) { return kc.Cost(p.n, p.d) }); err != nil {
			return nil, err
		}
		return &algPlan{iters: pl.IterationsPerChain(), spent: pl.Epsilon,
			newKernel: func() (mcmc.Kernel, error) { return mcmc.NewDPHMC(p.m, kc) }}, nil
	}}
}

func checkMu(planMu float64, cost func() (mcmc.PrivacyCost, error)) error {
	c, err := cost()
	if err != nil {
		return err
	}
	if mu := c.StepMu(); math.Abs(mu-planMu) > 1e-12*planMu {
		return fmt.Errorf("experiment: kernel μ %v differs from the plan's %v", mu, planMu)
	}
	return nil
}

// sgAlg is DP-SGLD (method "sgld") or DP-SGNHT ("sgnht") with the reference
// code's step η_ref (its update uses η = η_ref/n). Our kernels use the
// Langevin scheme that targets π (see dp_sgld.go): SGLD h = 2η_ref/n (the
// same drift as the reference, noise variance h instead of its h/2, which
// targets π²); SGNHT learning rate (η_ref/n)² and friction A·η_ref/n (the
// reference's p-parametrisation rewritten in v = ηp). Iterations: the most
// the budget allows for the fixed step (all chains share it), capped at
// maxPerChain (the cap only lowers the ε spent, which is reported).
func sgAlg(method string, etaRef, A float64, batch int, clip float64) dpAlg {
	return dpAlg{name: "dp-" + method, plan: func(p *problem, eps, delta float64, chains int, quick bool) (*algPlan, error) {
		n := float64(p.n)
		b := min(batch, p.n/10)
		kc := mcmc.DPSGLDConfig{Method: method, Batch: b, GradClip: clip}
		if method == "sgld" {
			kc.Step = 2 * etaRef / n
		} else {
			kc.Step = (etaRef / n) * (etaRef / n)
			kc.Friction = A * etaRef / n
		}
		maxPerChain := 50000
		if quick {
			maxPerChain = 2000
		}
		account := func(total int) (float64, error) {
			r, err := kc.Account(p.n, p.d, total, delta)
			return r.Epsilon, err
		}
		per := maxPerChain
		e, err := account(chains * per)
		if err != nil {
			return nil, err
		}
		note := ""
		if e > eps {
			total, err := kc.PlanIterations(p.n, p.d, eps, delta)
			if err != nil {
				return nil, err
			}
			per = total / chains
			if per < 2 {
				return nil, fmt.Errorf("%s: budget ε = %g allows %d iterations", method, eps, total)
			}
			if e, err = account(chains * per); err != nil {
				return nil, err
			}
		} else {
			note = fmt.Sprintf("capped at %d iterations per chain", maxPerChain)
		}
		thin := max(1, per/5000) // the reference code thins to ~5000 draws per chain
		return &algPlan{iters: per, spent: e, thin: thin, note: note,
			newKernel: func() (mcmc.Kernel, error) { return mcmc.NewDPSGLD(p.m, kc) }}, nil
	}}
}

func comparisonAlgs(name string) []dpAlg {
	if name == "banana" {
		return []dpAlg{
			penaltyAlg(0.06, 0.15, 0.17),
			hmcAlg(0.006, 25, 0.1, 0.05, 0.1, 0.55),
			sgAlg("sgld", 1, 0, 1000, 0.2),
			sgAlg("sgnht", 100, 50, 1000, 0.2),
		}
	}
	return []dpAlg{
		penaltyAlg(0.0007, 10, 0.05),
		hmcAlg(0.00015, 12, 6, 10, 0.1, 0.25),
		sgAlg("sgld", 0.008, 0, 1000, 15),
		sgAlg("sgnht", 0.2, 30, 1000, 12),
	}
}

func makeProblem(name string, quick bool, seed uint64, nOverride int) (*problem, error) {
	n := 100000
	if quick {
		n = 10000
	}
	if nOverride > 0 {
		n = nOverride
	}
	if name == "banana" {
		return bananaProblem(n, seed)
	}
	return gaussProblem(n, 10, seed)
}

func comparison(ctx context.Context, o Options, name string) (*Output, error) {
	p, err := makeProblem(name, o.Quick, o.Seed, o.N)
	if err != nil {
		return nil, err
	}
	eps := []float64{2, 4, 6, 8, 10, 12, 15}
	if o.Quick {
		eps = []float64{4, 10}
	}
	eps = o.eps(eps)
	const chains = 4
	reps := o.repeats(10)
	delta := 0.1 / float64(p.n)
	algs := comparisonAlgs(name)
	o.logf("%s: n = %d, d = %d, δ = %g, %d repeats, start sd %.4g", name, p.n, p.d, delta, reps, p.startSD)

	runs := &Table{Name: name + "_runs", Header: []string{"model", "algorithm", "epsilon", "repeat", "iters_per_chain", "iters_total", "epsilon_spent", "delta", "mmd", "mean_error", "acceptance", "clip_fraction", "divergent", "note"}}
	sum := &Table{Name: name + "_summary", Header: []string{"model", "algorithm", "epsilon", "iters_total", "epsilon_spent", "mmd_median", "mmd_q25", "mmd_q75", "mmd_mean", "mmd_se", "mean_error_median", "mean_error_q25", "mean_error_q75", "acceptance_mean", "clip_fraction_mean", "repeats"}}
	figMMD := &Figure{Name: name + "_mmd", Title: fmt.Sprintf("%s: MMD vs ε (median, IQR over repeats)", name), XLabel: "ε", YLabel: "MMD", LogY: true}
	figME := &Figure{Name: name + "_mean_error", Title: fmt.Sprintf("%s: mean error vs ε (median, IQR)", name), XLabel: "ε", YLabel: "‖mean − true mean‖", LogY: true}
	figMMD.XTicks, figME.XTicks = eps, eps
	// The same starting points for every algorithm and ε (§4.1).
	starts := normalStarts(p.truth, p.startSD, chains*reps, o.Seed+1000)
	var lines []string
	prev, err := readRuns(o.Resume, name, p.n)
	if err != nil {
		return nil, err
	}
	for ai, a := range algs {
		sm := Series{Label: a.name}
		se := Series{Label: a.name}
		for ei, e := range eps {
			var mmds, mes, accs, clips []float64
			// Repeats 0..len(old)−1 of an earlier run are reused as they
			// were (same seed: the same starting points); only the missing
			// repeats run.
			old := prev[runKey{a.name, e}]
			for _, r := range old {
				runs.Rows = append(runs.Rows, r.row)
				mmds, mes, accs, clips = append(mmds, r.mmd), append(mes, r.me), append(accs, r.acc), append(clips, r.clip)
			}
			if len(old) > 0 && (len(old) >= reps || !o.wants(a.name)) {
				o.logf("%s %s ε=%g: %d repeats reused from %s", name, a.name, e, len(old), o.Resume)
				line := summarise(sum, &sm, &se, name, a.name, e, old[0].itersTotal, old[0].spent, mmds, mes, accs, clips)
				lines = append(lines, line+" (reused)")
				if err := o.checkpoint(runs, prev, algs, eps, ai, ei); err != nil {
					return nil, err
				}
				continue
			}
			if !o.wants(a.name) {
				continue
			}
			first := len(old)
			pl, err := a.plan(p, e, delta, chains, o.Quick)
			if err != nil {
				return nil, fmt.Errorf("%s %s ε=%g: %w", name, a.name, e, err)
			}
			if first > 0 && (old[0].itersTotal != chains*pl.iters || math.Abs(old[0].spent-pl.spent) > 1e-5*pl.spent) {
				return nil, fmt.Errorf("%s %s ε=%g: the resumed run had %d iterations (ε %g), this plan %d (ε %g)", name, a.name, e, old[0].itersTotal, old[0].spent, chains*pl.iters, pl.spent)
			}
			var jobs []job
			for r := first; r < reps; r++ {
				for c := 0; c < chains; c++ {
					jobs = append(jobs, job{newKernel: pl.newKernel, init: starts[r*chains+c], iters: pl.iters,
						id: ((ai*len(eps)+ei)*reps+r)*chains + c, thin: pl.thin})
				}
			}
			out, err := runJobs(ctx, o, o.Seed+uint64(ai*1000+ei)+uint64(first)<<20, jobs)
			if err != nil {
				return nil, err
			}
			for r := first; r < reps; r++ {
				ch := out[(r-first)*chains : (r-first+1)*chains]
				s := secondHalf(ch)
				mmd, _ := MMD(s, p.ref, newRand(o.Seed, uint64(7000+r)))
				refMean, _ := Moments(p.ref)
				me := MeanError(s, refMean)
				acc, clipped, div := 0, int64(0), 0
				for _, c := range ch {
					acc += c.Accepted
					clipped += c.Clipped
					div += c.Divergent
				}
				accR := float64(acc) / float64(chains*pl.iters)
				clipR := math.NaN()
				if a.name == "dp-penalty" {
					clipR = float64(clipped) / float64(chains*pl.iters) / float64(p.n)
				}
				runs.Add(name, a.name, e, r, pl.iters, chains*pl.iters, pl.spent, delta, mmd, me, accR, clipR, div, pl.note)
				mmds, mes, accs, clips = append(mmds, mmd), append(mes, me), append(accs, accR), append(clips, clipR)
			}
			line := summarise(sum, &sm, &se, name, a.name, e, chains*pl.iters, pl.spent, mmds, mes, accs, clips)
			o.logf("%s", line)
			lines = append(lines, line)
			if err := o.checkpoint(runs, prev, algs, eps, ai, ei); err != nil {
				return nil, err
			}
		}
		if len(sm.X) == 0 {
			continue
		}
		figMMD.Series = append(figMMD.Series, sm)
		figME.Series = append(figME.Series, se)
	}
	return &Output{Tables: []*Table{runs, sum}, Figures: []*Figure{figMMD, figME}, Summary: lines}, nil
}

// checkpoint hands Options.Checkpoint the runs table after cell (ai, ei):
// the rows done so far, then the resumed rows of the cells still ahead, in
// the order the run visits them (so it is a valid Resume table).
func (o Options) checkpoint(runs *Table, prev map[runKey][]prevRun, algs []dpAlg, eps []float64, ai, ei int) error {
	if o.Checkpoint == nil {
		return nil
	}
	t := &Table{Name: runs.Name, Header: runs.Header, Rows: append([][]any(nil), runs.Rows...)}
	for a := ai; a < len(algs); a++ {
		for e := range eps {
			if a == ai && e <= ei {
				continue
			}
			for _, r := range prev[runKey{algs[a].name, eps[e]}] {
				t.Rows = append(t.Rows, r.row)
			}
		}
	}
	return o.Checkpoint(t)
}

// quantile is the type-7 quantile of v (NaNs dropped).
func quantile(v []float64, p float64) float64 {
	var w []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			w = append(w, x)
		}
	}
	if len(w) == 0 {
		return math.NaN()
	}
	return diagQuantile(w, p)
}

// spentGaussian is ε at δ of iters releases of μ-GDP steps.
func spentGaussian(mu float64, iters int, delta float64) (float64, error) {
	return privacy.TightGaussian{Mu: mu}.Repeat(float64(iters)).Epsilon(delta)
}

// summarise adds the summary row of one (algorithm, ε) cell and its points.
func summarise(sum *Table, sm, se *Series, name, alg string, e float64, itersTotal int, spent float64, mmds, mes, accs, clips []float64) string {
	mm, mse := meanSE(mmds)
	am, _ := meanSE(accs)
	cm, _ := meanSE(clips)
	q := quantile
	sum.Add(name, alg, e, itersTotal, spent, q(mmds, 0.5), q(mmds, 0.25), q(mmds, 0.75), mm, mse,
		q(mes, 0.5), q(mes, 0.25), q(mes, 0.75), am, cm, len(mmds))
	sm.X, sm.Y = append(sm.X, e), append(sm.Y, q(mmds, 0.5))
	sm.Lo, sm.Hi = append(sm.Lo, q(mmds, 0.25)), append(sm.Hi, q(mmds, 0.75))
	se.X, se.Y = append(se.X, e), append(se.Y, q(mes, 0.5))
	se.Lo, se.Hi = append(se.Lo, q(mes, 0.25)), append(se.Hi, q(mes, 0.75))
	return fmt.Sprintf("%s %-10s ε=%-4g iters=%-6d spent ε=%.4g  MMD median %.4g [%.4g, %.4g]  mean err median %.4g  accept %.3f  (%d repeats)",
		name, alg, e, itersTotal, spent, q(mmds, 0.5), q(mmds, 0.25), q(mmds, 0.75), q(mes, 0.5), am, len(mmds))
}

type runKey struct {
	alg string
	eps float64
}

type prevRun struct {
	row                 []any
	itersTotal          int
	spent, mmd, me, acc float64
	clip                float64
}

// readRuns reads an earlier runs table of experiment name (rows of other
// models, or of another n — told apart by δ = 0.1/n — are refused).
func readRuns(path, name string, n int) (map[runKey][]prevRun, error) {
	out := map[runKey][]prevRun{}
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("resume %s: %w", path, err)
	}
	want := []string{"model", "algorithm", "epsilon", "repeat", "iters_per_chain", "iters_total", "epsilon_spent", "delta", "mmd", "mean_error", "acceptance", "clip_fraction", "divergent", "note"}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(want, ",") {
		return nil, fmt.Errorf("resume %s: not a runs table of the comparison experiments", path)
	}
	for _, r := range recs[1:] {
		if r[0] != name {
			return nil, fmt.Errorf("resume %s: rows of %s, not %s", path, r[0], name)
		}
		fl := func(j int) float64 { v, _ := strconv.ParseFloat(r[j], 64); return v }
		if d := fl(7); math.Abs(d-0.1/float64(n)) > 1e-12 {
			return nil, fmt.Errorf("resume %s: δ = %g, not 0.1/n for n = %d", path, d, n)
		}
		it, _ := strconv.Atoi(r[5])
		row := make([]any, len(r))
		for j, v := range r {
			row[j] = v
		}
		k := runKey{r[1], fl(2)}
		if rep, err := strconv.Atoi(r[3]); err != nil || rep != len(out[k]) {
			return nil, fmt.Errorf("resume %s: %s ε=%s: repeat %s out of order", path, r[1], r[2], r[3])
		}
		out[k] = append(out[k], prevRun{row: row, itersTotal: it, spent: fl(6), mmd: fl(8), me: fl(9), acc: fl(10), clip: fl(11)})
	}
	return out, nil
}
