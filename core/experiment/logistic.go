package experiment

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// Logistic regression (DP-Fast MH §6.1, Figure 3, there on MNIST 7 vs 9; here
// on the public Wisconsin breast-cancer data, 569 rows, as a stand-in that
// ships with the project): test accuracy and rows touched per iteration vs
// the per-iteration ε, for dp-fastmh, dp-fastmh-full, dp-penalty, dp-barker
// and non-private MH.
//
// Features: the five of testdata's bc5 design, scaled with PUBLIC constants
// chosen from domain knowledge before looking at the data (not the data's
// mean/sd, which bc5_std_constants.csv holds and which would not be private):
// z = (x − mid)/half-width for the ranges below, so z ∈ [−1, 1] is the
// public bound the per-row Lipschitz bound (‖(1, z)‖ ≤ √6) needs. Every
// value of the data lies inside these ranges (no row is clipped).

//go:embed data/breast_cancer_wdbc.csv
var wdbcCSV []byte

// WDBCRanges are the public feature ranges [lo, hi].
var WDBCRanges = []struct {
	Name   string
	Lo, Hi float64
}{
	{"mean_radius", 5, 30},
	{"mean_texture", 5, 45},
	{"mean_smoothness", 0.03, 0.2},
	{"mean_compactness", 0, 0.4},
	{"mean_symmetry", 0.1, 0.35},
}

func init() {
	register(Experiment{Name: "logistic", Reads: []string{"eps", "repeats", "algorithms"}, Summary: "DP-Fast MH §6.1 logistic regression (breast-cancer data): test accuracy and rows touched vs ε", Run: logisticExperiment})
}

// wdbcSplit returns the scaled train and test tables (80/20, public seed).
func wdbcSplit(seed uint64) (train, test *dataset.Table, err error) {
	t, _, err := dataset.Load(bytes.NewReader(wdbcCSV), dataset.Options{})
	if err != nil {
		return nil, nil, err
	}
	yj, err := t.Col("malignant")
	if err != nil {
		return nil, nil, err
	}
	names := []string{"malignant"}
	cols := [][]float64{t.Column(yj)}
	for _, f := range WDBCRanges {
		j, err := t.Col(f.Name)
		if err != nil {
			return nil, nil, err
		}
		x := t.Column(j)
		mid, hw := (f.Lo+f.Hi)/2, (f.Hi-f.Lo)/2
		for i := range x {
			x[i] = max(-1, min(1, (x[i]-mid)/hw))
		}
		names = append(names, f.Name)
		cols = append(cols, x)
	}
	r := newRand(seed, 41)
	perm := r.Perm(t.Rows)
	nTest := t.Rows / 5
	split := func(idx []int) (*dataset.Table, error) {
		c := make([][]float64, len(cols))
		for j := range cols {
			for _, i := range idx {
				c[j] = append(c[j], cols[j][i])
			}
		}
		tab, err := dataset.FromColumns(names, c)
		if err != nil {
			return nil, err
		}
		b := map[string]dataset.Bound{}
		for _, f := range WDBCRanges {
			b[f.Name] = dataset.Bound{Lo: -1, Hi: 1}
		}
		_, err = tab.ApplyBounds(b)
		return tab, err
	}
	if test, err = split(perm[:nTest]); err != nil {
		return nil, nil, err
	}
	train, err = split(perm[nTest:])
	return train, test, err
}

// accuracy is the test accuracy of the posterior predictive (mean over
// draws of the predicted probability, threshold ½).
func accuracy(draws [][]float64, test *dataset.Table) float64 {
	ok := 0
	d := len(test.Names) // intercept + 5 features = columns
	for i := 0; i < test.Rows; i++ {
		p := 0.0
		for _, th := range draws {
			s := th[0]
			for j := 1; j < d; j++ {
				s += th[j] * test.At(i, j)
			}
			p += 1 / (1 + math.Exp(-s))
		}
		p /= float64(len(draws))
		if (p > 0.5) == (test.At(i, 0) == 1) {
			ok++
		}
	}
	return float64(ok) / float64(test.Rows)
}

func logisticExperiment(ctx context.Context, o Options) (*Output, error) {
	T := 10000
	epsList := []float64{0.05, 0.1, 0.2, 0.5, 1}
	if o.Quick {
		T = 1000
		epsList = []float64{0.2, 1}
	}
	epsList = o.eps(epsList)
	reps := o.repeats(5)
	const stepDelta = 1e-5
	totDelta := float64(T)*stepDelta + 1e-3
	train, test, err := wdbcSplit(o.Seed)
	if err != nil {
		return nil, err
	}
	m, err := model.Build(model.Spec{Model: "logistic", Outcome: "malignant"}, train)
	if err != nil {
		return nil, err
	}
	n, d := m.N(), m.Dim()
	box := make([]model.Interval, d)
	for j := range box {
		box[j] = model.Interval{Lo: -30, Hi: 30}
	}
	c := m.RowBounds(box).Lipschitz
	// Step sizes by a public rule (no look at the data, no tuning on runs):
	// every row's log-likelihood Hessian is bounded by c²/4 (logistic:
	// h(1−h)·‖x‖² ≤ ‖x‖²/4), so the posterior sd is at least 2/(c√n) and
	// the random walk takes the optimal-scaling step 2.38/√d times it;
	// the DP kernels, whose log-ratio noise has sd 2c‖θ'−θ‖/μ (μ the
	// per-iteration Gaussian budget, ‖θ'−θ‖ ≈ h√d), take at most the step
	// that makes that sd 1: h = min(2.38·2/(c√(nd)), μ/(2c√d)).
	step := publicStep(n, d, c)
	dpStep := func(e float64) (float64, error) {
		mu, err := privacy.MuFor(e, stepDelta)
		if err != nil {
			return 0, err
		}
		return min(step, mu/(2*c*math.Sqrt(float64(d)))), nil
	}
	o.logf("logistic: n_train = %d, n_test = %d, d = %d, per-row Lipschitz bound %.4g, random-walk step %.4g", n, test.Rows, d, c, step)
	tab := &Table{Name: "logistic_runs", Header: []string{"algorithm", "step_epsilon", "step_delta", "repeat", "iterations", "total_epsilon", "total_delta", "proposal_sd", "test_accuracy", "rows_touched_fraction", "acceptance"}}
	figA := &Figure{Name: "logistic_accuracy", Title: "Breast-cancer logistic regression: test accuracy vs ε per iteration", XLabel: "ε per iteration (non-private MH plotted at 2× the largest ε)", YLabel: "test accuracy", LogX: true, LegendBottom: true}
	figR := &Figure{Name: "logistic_rows", Title: "Breast-cancer logistic regression: rows touched per iteration vs ε", XLabel: "ε per iteration", YLabel: "rows touched / n", LogX: true, LogY: true}
	var lines []string
	type maker func(e float64) (func() (mcmc.Kernel, error), float64, float64, error) // factory, step ε, total ε
	var usedStep float64                                                              // the proposal sd of the last kernel made
	algs := []struct {
		name string
		mk   maker
	}{
		{"mh (non-private)", func(e float64) (func() (mcmc.Kernel, error), float64, float64, error) {
			usedStep = step
			return func() (mcmc.Kernel, error) { return mcmc.NewMH(m, mcmc.MHConfig{Step: step}) }, math.Inf(1), math.Inf(1), nil
		}},
		{"dp-fastmh", func(e float64) (func() (mcmc.Kernel, error), float64, float64, error) {
			h, err := dpStep(e)
			if err != nil {
				return nil, 0, 0, err
			}
			usedStep = h
			kc := mcmc.DPFastMHConfig{Step: h, Lambda: 10, StepEpsilon: e, StepDelta: stepDelta, Box: box}
			r, err := kc.Account(T, totDelta)
			return func() (mcmc.Kernel, error) { return mcmc.NewDPFastMH(m, kc) }, e, r.Epsilon, err
		}},
		{"dp-fastmh-full", func(e float64) (func() (mcmc.Kernel, error), float64, float64, error) {
			h, err := dpStep(e)
			if err != nil {
				return nil, 0, 0, err
			}
			usedStep = h
			kc := mcmc.DPFastMHConfig{Step: h, Lambda: 10, StepEpsilon: e, StepDelta: stepDelta, Box: box, Full: true}
			r, err := kc.Account(T, totDelta)
			return func() (mcmc.Kernel, error) { return mcmc.NewDPFastMH(m, kc) }, e, r.Epsilon, err
		}},
		{"dp-penalty", func(e float64) (func() (mcmc.Kernel, error), float64, float64, error) {
			mu, err := privacy.MuFor(e, stepDelta)
			if err != nil {
				return nil, 0, 0, err
			}
			h := min(step, mu/(2*c*math.Sqrt(float64(d))))
			usedStep = h
			kc := mcmc.DPPenaltyConfig{Step: h, Clip: c, Tau: 1 / ((mu - mcmcGridInflation) * math.Sqrt(float64(n))), Box: box}
			// Tight composition of T Gaussian releases.
			tot, err := spentGaussian(mu, T, totDelta)
			return func() (mcmc.Kernel, error) { return mcmc.NewDPPenalty(m, kc) }, e, tot, err
		}},
		{"dp-barker", func(e float64) (func() (mcmc.Kernel, error), float64, float64, error) {
			b := 100
			one, _, err := privacy.BarkerAccount(n, b, 1, stepDelta)
			if err != nil {
				return nil, 0, 0, err
			}
			tot, _, err := privacy.BarkerAccount(n, b, T, totDelta)
			usedStep = step
			kc := mcmc.DPBarkerConfig{Step: step, Batch: b, Box: box}
			return func() (mcmc.Kernel, error) { return mcmc.NewDPBarker(m, kc) }, one.Epsilon, tot.Epsilon, err
		}},
	}
	for ai, a := range algs {
		if !o.wants(a.name) && !o.wants(firstWord(a.name)) {
			continue
		}
		sa := Series{Label: a.name}
		sr := Series{Label: a.name}
		list := epsList
		if a.name == "mh (non-private)" || a.name == "dp-barker" {
			list = epsList[:1] // no per-iteration ε to choose
		}
		for ei, e := range list {
			factory, stepEps, totEps, err := a.mk(e)
			if err != nil {
				return nil, fmt.Errorf("logistic %s ε=%g: %w", a.name, e, err)
			}
			var jobs []job
			for r := 0; r < reps; r++ {
				jobs = append(jobs, job{newKernel: factory, init: make([]float64, d), iters: T, id: (ai*10+ei)*100 + r})
			}
			out, err := runJobs(ctx, o, o.Seed+uint64(ai*100+ei), jobs)
			if err != nil {
				return nil, err
			}
			var accs, rows, acc []float64
			for r, ch := range out {
				ta := accuracy(ch.Draws[T/2:], test)
				frac := float64(ch.Rows) / float64(ch.Iters) / float64(n)
				if fk, ok := ch.Kernel.(*mcmc.DPFastMH); ok {
					frac = fk.Stats().RowFraction(n)
				} else if a.name == "dp-penalty" || a.name == "mh (non-private)" {
					frac = 1
				}
				ar := float64(ch.Accepted) / float64(ch.Iters)
				tab.Add(a.name, stepEps, stepDelta, r, T, totEps, totDelta, usedStep, ta, frac, ar)
				accs, rows, acc = append(accs, ta), append(rows, frac), append(acc, ar)
			}
			am, as := meanSE(accs)
			rm, _ := meanSE(rows)
			arm, _ := meanSE(acc)
			x := stepEps
			if math.IsInf(x, 1) {
				x = epsList[len(epsList)-1] * 2 // plotted right of the grid
			}
			sa.X, sa.Y, sa.Lo, sa.Hi = append(sa.X, x), append(sa.Y, am), append(sa.Lo, am-as), append(sa.Hi, am+as)
			sr.X, sr.Y = append(sr.X, x), append(sr.Y, rm)
			line := fmt.Sprintf("%-16s ε/iter=%-6.3g step %.4f total ε=%-8.4g test accuracy %.4f ± %.4f  rows touched %.4f of n  accept %.3f", a.name, stepEps, usedStep, totEps, am, as, rm, arm)
			o.logf("logistic: %s", line)
			lines = append(lines, line)
		}
		if len(list) == 1 {
			sa.Points, sr.Points = true, true
		}
		figA.Series = append(figA.Series, sa)
		figR.Series = append(figR.Series, sr)
	}
	return &Output{Tables: []*Table{tab}, Figures: []*Figure{figA, figR}, Summary: lines}, nil
}

func firstWord(s string) string {
	for i, r := range s {
		if r == ' ' {
			return s[:i]
		}
	}
	return s
}

// publicStep is the random-walk step 2.38/√d times the public lower bound
// 2/(c√n) on the posterior sd of a logistic regression whose rows have
// ‖x‖ ≤ c (per-row log-likelihood Hessian ≤ c²/4).
func publicStep(n, d int, c float64) float64 {
	return 2.38 / math.Sqrt(float64(d)) * 2 / (c * math.Sqrt(float64(n)))
}
