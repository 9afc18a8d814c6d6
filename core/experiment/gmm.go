package experiment

import (
	"context"
	"fmt"
	"math"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// Heikkilä et al. (2019) §4, Figures 2–3: the DP Barker test on the
// Welling–Teh GMM with tempering N0 = 100, batch 1000 without replacement,
// proposal variance 0.01, clip 0.99·√b/N0, C = 2, 20,000 iterations with
// 1,000 burn-in, δ = 1e-6 (anchor A17: ε = 1.0004 by the paper's classic
// conversion; the paper's (1.22, 2e-6) adds a DP-VI initialisation we do
// not use: our chains start from a draw from the prior). The non-private
// baseline is the same subsampled Barker chain with exact logistic noise and
// no clipping (Seita et al.'s test), 40,000 iterations, as in the paper's
// Figure 2(a). The ground truth is the exact tempered posterior on a grid.

func init() {
	register(Experiment{Name: "gmm", Reads: []string{"repeats"}, Summary: "Heikkilä et al. GMM: DP Barker vs non-private chain, mean/variance error vs ε over iterations", Run: gmmExperiment})
}

// gridPosterior returns the mean and variance of the tempered GMM
// posterior, computed on a grid (the data binned into 4000 bins; the
// binning error is far below the Monte Carlo error of any chain here), and
// a sampler drawing from the gridded density.
type gridPost struct {
	mean, variance []float64
	x0, y0, h, hy  float64
	nx, ny         int
	cdf            []float64
}

func gmmGridPosterior(m model.Model, xs []float64, box [4]float64, nGrid, nb int) *gridPost {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range xs {
		lo, hi = min(lo, v), max(hi, v)
	}
	w := (hi - lo) / float64(nb)
	cnt := make([]float64, nb)
	for _, v := range xs {
		cnt[min(int((v-lo)/w), nb-1)]++
	}
	// A one-row model evaluates ℓ at each bin centre: the GMM model's
	// per-row log-likelihood times the count.
	g := &gridPost{x0: box[0], y0: box[2], nx: nGrid, ny: nGrid}
	hx := (box[1] - box[0]) / float64(nGrid)
	hy := (box[3] - box[2]) / float64(nGrid)
	g.h = hx
	centres := make([]float64, nb)
	for b := range centres {
		centres[b] = lo + (float64(b)+0.5)*w
	}
	tab, _ := tableOf("x", centres)
	spec := model.Spec{Model: "gmm", Temper: m.(interface{ Temper() float64 }).Temper()}
	mc, err := model.Build(spec, tab)
	if err != nil {
		panic(err)
	}
	ll := make([]float64, nb)
	logp := make([]float64, nGrid*nGrid)
	th := make([]float64, 2)
	mx := math.Inf(-1)
	for i := 0; i < nGrid; i++ {
		for j := 0; j < nGrid; j++ {
			th[0], th[1] = box[0]+(float64(i)+0.5)*hx, box[2]+(float64(j)+0.5)*hy
			mc.LogLik(th, nil, ll)
			s := m.LogPrior(th)
			for b, c := range cnt {
				if c > 0 {
					s += c * ll[b]
				}
			}
			logp[i*nGrid+j] = s
			mx = max(mx, s)
		}
	}
	g.cdf = make([]float64, len(logp))
	tot := 0.0
	g.mean, g.variance = make([]float64, 2), make([]float64, 2)
	var m2 [2]float64
	for i := 0; i < nGrid; i++ {
		for j := 0; j < nGrid; j++ {
			p := math.Exp(logp[i*nGrid+j] - mx)
			tot += p
			g.cdf[i*nGrid+j] = tot
			a, b := box[0]+(float64(i)+0.5)*hx, box[2]+(float64(j)+0.5)*hy
			g.mean[0] += p * a
			g.mean[1] += p * b
			m2[0] += p * a * a
			m2[1] += p * b * b
		}
	}
	for k := range 2 {
		g.mean[k] /= tot
		// + h²/12: the variance of the uniform position within a cell
		g.variance[k] = m2[k]/tot - g.mean[k]*g.mean[k]
	}
	g.variance[0] += hx * hx / 12
	g.variance[1] += hy * hy / 12
	for i := range g.cdf {
		g.cdf[i] /= tot
	}
	g.h, g.hy = hx, hy
	g.y0 = box[2]
	return g
}

func gmmExperiment(ctx context.Context, o Options) (*Output, error) {
	N, T, Tnp, burn, b := 1000000, 20000, 40000, 1000, 1000
	if o.Quick {
		N, T, Tnp, burn = 100000, 12000, 12000, 1000
	}
	reps := o.repeats(20)
	if o.Quick && o.Repeats == 0 {
		reps = 4 // pooled over 4 chains: the smoke test checks the means
	}
	const delta = 1e-6
	F := 100 / float64(N)
	t := GMMData(N, o.Seed)
	m, err := model.Build(model.Spec{Model: "gmm", Temper: F}, t)
	if err != nil {
		return nil, err
	}
	nGrid, nBins := 240, 4000
	if o.Quick {
		nGrid, nBins = 80, 500
	}
	gp := gmmGridPosterior(m, t.Column(0), [4]float64{-3, 4, -5, 5}, nGrid, nBins)
	o.logf("gmm: N = %d, F = %g; exact tempered posterior mean (%.4f, %.4f), variance (%.4f, %.4f)", N, F, gp.mean[0], gp.mean[1], gp.variance[0], gp.variance[1])
	best, classic, err := privacy.BarkerAccount(N, b, T, delta)
	if err != nil {
		return nil, err
	}
	// Starting points: draws from the prior (public).
	r := newRand(o.Seed, 21)
	starts := make([][]float64, reps)
	for i := range starts {
		starts[i] = []float64{math.Sqrt(10) * r.NormFloat64(), r.NormFloat64()}
	}
	dpCfg := mcmc.DPBarkerConfig{Step: 0.1, Batch: b}
	npCfg := mcmc.DPBarkerConfig{Step: 0.1, Batch: b, NoiseOff: true}
	var jobs []job
	for i := 0; i < reps; i++ {
		jobs = append(jobs, job{newKernel: func() (mcmc.Kernel, error) { return mcmc.NewDPBarker(m, dpCfg) }, init: starts[i], iters: T, id: i})
	}
	for i := 0; i < reps; i++ {
		jobs = append(jobs, job{newKernel: func() (mcmc.Kernel, error) { return mcmc.NewDPBarker(m, npCfg) }, init: starts[i], iters: Tnp, id: reps + i})
	}
	out, err := runJobs(ctx, o, o.Seed, jobs)
	if err != nil {
		return nil, err
	}
	dp, np := out[:reps], out[reps:]
	// Error of the running posterior mean and variance (after burn-in) at
	// checkpoints, against the exact tempered posterior; ε(t) of the first
	// t iterations.
	curve := &Table{Name: "gmm_curve", Header: []string{"chain", "iterations", "epsilon", "epsilon_classic", "mean_error", "mean_error_se", "var_error", "var_error_se", "repeats"}}
	fm := &Figure{Name: "gmm_mean_error", Title: "GMM: posterior mean error vs ε (DP Barker, mean ± s.e.)", XLabel: "ε (first t iterations)", YLabel: "‖mean_t − exact‖", LogY: true}
	fv := &Figure{Name: "gmm_var_error", Title: "GMM: posterior variance error vs ε (DP Barker, mean ± s.e.)", XLabel: "ε (first t iterations)", YLabel: "‖var_t − exact‖", LogY: true}
	step := T / 20
	errAt := func(c chainOut, t int) (float64, float64) {
		mu, v := Moments(c.Draws[burn:t])
		return dist(mu, gp.mean), dist(v, gp.variance)
	}
	var sDPm, sDPv, sNPm, sNPv Series
	sDPm.Label, sDPv.Label = "DP Barker", "DP Barker"
	sNPm.Label, sNPv.Label = "non-private (same iterations)", "non-private (same iterations)"
	for t := burn + step; t <= T; t += step {
		be, ce, err := privacy.BarkerAccount(N, b, t, delta)
		if err != nil {
			return nil, err
		}
		for k, set := range [][]chainOut{dp, np} {
			var me, ve []float64
			for _, c := range set {
				a, bb := errAt(c, t)
				me, ve = append(me, a), append(ve, bb)
			}
			mm, ms := meanSE(me)
			vm, vs := meanSE(ve)
			name := [...]string{"dp-barker", "non-private"}[k]
			curve.Add(name, t, be.Epsilon, ce.Epsilon, mm, ms, vm, vs, reps)
			sm, sv := &sDPm, &sDPv
			if k == 1 {
				sm, sv = &sNPm, &sNPv
			}
			sm.X, sm.Y, sm.Lo, sm.Hi = append(sm.X, be.Epsilon), append(sm.Y, mm), append(sm.Lo, mm-ms), append(sm.Hi, mm+ms)
			sv.X, sv.Y, sv.Lo, sv.Hi = append(sv.X, be.Epsilon), append(sv.Y, vm), append(sv.Lo, vm-vs), append(sv.Hi, vm+vs)
		}
	}
	fm.Series = []Series{sDPm, sNPm}
	fv.Series = []Series{sDPv, sNPv}
	// Final moments, acceptance.
	fin := &Table{Name: "gmm_final", Header: []string{"chain", "iterations", "burn_in", "epsilon", "epsilon_classic", "delta", "mean1", "mean2", "var1", "var2", "mean_error", "var_error", "acceptance", "repeats"}}
	fin.Add("exact (grid)", 0, 0, math.NaN(), math.NaN(), math.NaN(), gp.mean[0], gp.mean[1], gp.variance[0], gp.variance[1], 0.0, 0.0, math.NaN(), 0)
	var lines []string
	lines = append(lines, fmt.Sprintf("exact tempered posterior: mean (%.4f, %.4f), variance (%.4f, %.4f)", gp.mean[0], gp.mean[1], gp.variance[0], gp.variance[1]))
	for k, set := range [][]chainOut{dp, np} {
		var m1, m2, v1, v2, me, ve, acc []float64
		for _, c := range set {
			mu, v := Moments(c.Draws[burn:])
			m1, m2, v1, v2 = append(m1, mu[0]), append(m2, mu[1]), append(v1, v[0]), append(v2, v[1])
			me, ve = append(me, dist(mu, gp.mean)), append(ve, dist(v, gp.variance))
			acc = append(acc, float64(c.Accepted)/float64(c.Iters))
		}
		a1, _ := meanSE(m1)
		a2, _ := meanSE(m2)
		b1, _ := meanSE(v1)
		b2, _ := meanSE(v2)
		e1, _ := meanSE(me)
		e2, _ := meanSE(ve)
		ac, _ := meanSE(acc)
		name, its, eps, epc := "dp-barker", T, best.Epsilon, classic.Epsilon
		if k == 1 {
			name, its, eps, epc = "non-private", Tnp, math.Inf(1), math.Inf(1)
		}
		fin.Add(name, its, burn, eps, epc, delta, a1, a2, b1, b2, e1, e2, ac, reps)
		lines = append(lines, fmt.Sprintf("%-11s T=%d: mean (%.4f, %.4f), variance (%.4f, %.4f), |mean err| %.4f, |var err| %.4f, acceptance %.3f, ε = %.4g (classic %.4g) at δ = %g",
			name, its, a1, a2, b1, b2, e1, e2, ac, eps, epc, delta))
	}
	// Figure 2: samples of one DP chain and one non-private chain.
	fs := &Figure{Name: "gmm_samples", Title: fmt.Sprintf("GMM: non-private vs DP Barker ((%.2f, %g)-DP), 2000 draws each", best.Epsilon, delta),
		XLabel: "θ1", YLabel: "θ2", Width: 14, Height: 12, Dense: true}
	for k, c := range []chainOut{np[0], dp[0]} {
		s := Series{Label: [...]string{"non-private", "DP Barker"}[k], Points: true}
		// 2000 points per chain (every k-th draw after burn-in; the
		// chains have T−burn and Tnp−burn draws): the SVG stays small.
		d := c.Draws[burn:]
		for i := 0; i < len(d); i += max(1, len(d)/2000) {
			s.X, s.Y = append(s.X, d[i][0]), append(s.Y, d[i][1])
		}
		fs.Series = append(fs.Series, s)
	}
	for _, l := range lines {
		o.logf("gmm: %s", l)
	}
	return &Output{Tables: []*Table{fin, curve}, Figures: []*Figure{fs, fm, fv}, Summary: lines}, nil
}
