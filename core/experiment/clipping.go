package experiment

import (
	"context"
	"fmt"
	"slices"

	"github.com/dpmcmc/dpmcmc/core/mcmc"
)

// The DP-HMC paper's clipping study (§4.2, Figure 3): random-walk MH and
// HMC with clipped log-likelihood ratios and no noise (the kernels'
// NoiseOff: the penalty kernel is then MH on the clipped ratios, DP-HMC is
// HMC with clipped gradients and ratios), a large gradient clip for HMC,
// 4 chains, first half discarded, MMD against 1000 exact draws, vs the clip
// bound and vs the fraction of clipped ratios. Settings from the reference
// code's run_clipping.py and Snakefile (bounds, iterations).

func init() {
	register(Experiment{Name: "clipping", Reads: []string{"models", "n", "repeats", "algorithms"}, Summary: "DP-HMC paper §4.2: MMD vs log-likelihood-ratio clip bound and vs fraction clipped (banana, gauss; no noise)", Run: clippingExperiment})
}

func clippingExperiment(ctx context.Context, o Options) (*Output, error) {
	type setting struct {
		model  string
		bounds []float64
		penIt  int
		penCfg mcmc.DPPenaltyConfig
		hmcIt  int
		hmcCfg mcmc.DPHMCConfig
	}
	sets := []setting{
		{"banana", []float64{0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.5, 1, 10}, 12000,
			mcmc.DPPenaltyConfig{Step: 0.3, Tau: 1, NoiseOff: true}, 1000,
			mcmc.DPHMCConfig{Step: 0.01, Leapfrog: 100, GradClip: 10, Tau: 1, TauGrad: 1, NoiseOff: true}},
		{"gauss", []float64{0.1, 0.2, 1, 5, 10, 15, 20, 50, 100}, 25000,
			mcmc.DPPenaltyConfig{Step: 0.0007, Tau: 1, NoiseOff: true}, 1000,
			mcmc.DPHMCConfig{Step: 0.0005, Leapfrog: 12, GradClip: 100, Tau: 1, TauGrad: 1, NoiseOff: true}},
	}
	if o.Quick {
		sets[0].bounds = []float64{0.05, 1}
		sets[1].bounds = []float64{1, 100}
		for i := range sets {
			sets[i].penIt /= 20
			sets[i].hmcIt /= 10
			sets[i].hmcCfg.Leapfrog = min(sets[i].hmcCfg.Leapfrog, 20)
		}
	}
	reps := o.repeats(10)
	const chains = 4
	tab := &Table{Name: "clipping_runs", Header: []string{"model", "algorithm", "clip_bound", "repeat", "iters_per_chain", "mmd", "clip_fraction", "acceptance", "divergent"}}
	var figs []*Figure
	var lines []string
	for si, s := range sets {
		if len(o.Models) > 0 && !slices.Contains(o.Models, s.model) {
			continue
		}
		p, err := makeProblem(s.model, o.Quick, o.Seed, o.N)
		if err != nil {
			return nil, err
		}
		starts := normalStarts(p.truth, p.startSD, chains*reps, o.Seed+1000)
		fb := &Figure{Name: "clipping_" + s.model + "_bound", Title: s.model + ": MMD vs clip bound (no noise)", XLabel: "clip bound", YLabel: "MMD", LogX: true, LogY: true}
		ff := &Figure{Name: "clipping_" + s.model + "_fraction", Title: s.model + ": MMD vs fraction of clipped ratios", XLabel: "fraction of log-likelihood ratios clipped", YLabel: "MMD", LogY: true}
		for ai, alg := range []string{"dp-penalty", "dp-hmc"} {
			if !o.wants(alg) {
				continue
			}
			label := map[string]string{"dp-penalty": "RWMH (clipped)", "dp-hmc": "HMC (clipped)"}[alg]
			sb := Series{Label: label, Points: true}
			sf := Series{Label: label, Points: true}
			for bi, b := range s.bounds {
				var factory func() (mcmc.Kernel, error)
				iters := s.penIt
				if alg == "dp-penalty" {
					c := s.penCfg
					c.Clip = b
					factory = func() (mcmc.Kernel, error) { return mcmc.NewDPPenalty(p.m, c) }
				} else {
					c := s.hmcCfg
					c.Clip = b
					iters = s.hmcIt
					factory = func() (mcmc.Kernel, error) { return mcmc.NewDPHMC(p.m, c) }
				}
				var jobs []job
				for r := 0; r < reps; r++ {
					for ch := 0; ch < chains; ch++ {
						jobs = append(jobs, job{newKernel: factory, init: starts[r*chains+ch], iters: iters, id: ((si*2+ai)*20+bi)*1000 + r*chains + ch})
					}
				}
				out, err := runJobs(ctx, o, o.Seed+uint64(si*1000+ai*100+bi), jobs)
				if err != nil {
					return nil, err
				}
				var mm []float64
				for r := 0; r < reps; r++ {
					ch := out[r*chains : (r+1)*chains]
					mmd, _ := MMD(secondHalf(ch), p.ref, newRand(o.Seed, uint64(9000+r)))
					var clipped int64
					acc, div := 0, 0
					for _, c := range ch {
						clipped += c.Clipped
						acc += c.Accepted
						div += c.Divergent
					}
					// Ratios evaluated: one per row per iteration (the HMC count
					// also includes the rare clipped gradients: clip 10 or 100).
					frac := float64(clipped) / float64(chains*iters) / float64(p.n)
					tab.Add(s.model, alg, b, r, iters, mmd, frac, float64(acc)/float64(chains*iters), div)
					sb.X, sb.Y = append(sb.X, b), append(sb.Y, mmd)
					sf.X, sf.Y = append(sf.X, frac), append(sf.Y, mmd)
					mm = append(mm, mmd)
				}
				line := fmt.Sprintf("%s %-10s clip %-6g MMD median %.4g", s.model, alg, b, median(mm))
				o.logf("clipping: %s", line)
				lines = append(lines, line)
			}
			fb.Series = append(fb.Series, sb)
			ff.Series = append(ff.Series, sf)
		}
		figs = append(figs, fb, ff)
	}
	return &Output{Tables: []*Table{tab}, Figures: figs, Summary: lines}, nil
}
