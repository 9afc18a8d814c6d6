package experiment

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/run"
)

// Utility at the user's scale (issue #16 part C): what a clinician who types
// only public bounds and a budget gets from each private algorithm on
// logistic regression, measured two ways.
//
//  1. Against the non-private posterior on real data: the Wisconsin
//     breast-cancer rows (n = 569, the five bc5 features scaled to [−1, 1]
//     by the public ranges WDBCRanges, outcome malignant) and bootstrap
//     resamples of its rows to n = 5,000 and 50,000 (public seed). Reported:
//     the largest R-hat, the smallest bulk-ESS, the mean over coefficients of
//     |private mean − non-private mean| in non-private posterior sds, the
//     smallest and median ratio of private to non-private posterior sd, and
//     the share of coefficients whose private 90% interval contains the
//     non-private mean. noise-aware (and auto, running as it) is run
//     UtilityRealRuns times on the same rows, each with fresh release
//     noise, and the share of runs meeting the criterion (at least
//     UtilityNPContainShare of the intervals containing the non-private
//     mean) is reported with the worst R-hat, bulk-ESS and sd ratio of any
//     run: one run is one draw of a random event.
//  2. Frequentist coverage in simulation: the same designs (the rows'
//     predictors), true coefficients fixed at the non-private posterior mean
//     of the real 569 rows (rounded; printed in the table), the outcome
//     simulated from the logistic model with those coefficients, the
//     algorithm run on each replicate, and the share of 90% central
//     credible intervals (5% and 95% quantiles of the pooled draws) that
//     contain the true coefficient, over replicates and coefficients. A
//     calibrated method gives 0.90; the binomial standard error is
//     reported beside it (replicates are independent; coefficients within a
//     replicate are not, so the SE is a lower bound).
//  3. Prior-predictive coverage (calibration): the same simulation, but each
//     replicate's true coefficients are drawn from N(0, s²) on the scaled
//     space (s = UtilityPriorPredictiveSD) and the algorithm is run with that
//     same prior (--prior-sd s). For an exact posterior the share of 90%
//     intervals that contain the truth is 0.90 whatever n, ε and the design
//     (Cook, Gelman & Rubin 2006; Talts et al. 2018). At a fixed truth it is
//     not: a coefficient the data barely inform has a posterior close to its
//     prior, which covers a fixed value inside the prior's bulk every time
//     and one outside it never, so measure 2 over-covers (1.00 for such
//     coefficients) for any correct posterior. Measure 3 is the one the CI
//     band (UtilityCoverageRange) is checked against. It is also reported
//     at the clinical effect sizes UtilityClinicalPriorSDs (s = 2.5 and 5,
//     each with that prior), where fewer replicates are close to
//     separation.
//
// Measures 2 and 3 are also reported for the 95% central intervals (2.5%
// and 97.5% quantiles: the columns coverage_95…), the ones the summary
// table shows; report.CalibrationNote states both from this table.
//
// Every run is what a user gets by typing only the public bounds and the
// budget: logistic regression on the scaled predictors, 4 chains, and the
// algorithm's defaults for everything else — the default prior of a private
// regression run, N(0, 20²) on every scaled coefficient, for every algorithm
// and the non-private reference (until the scaled parameters of issue #16
// part A, the per-iteration samplers and the reference had N(0, 10²)),
// iterations and noise planned from the
// budget (the planner's defaults for the per-iteration samplers). The
// non-private reference is HMC with 4 × (1000 + 2000) iterations. δ = 1e-5
// throughout.
// Runs that fail to start (a setting a sampler refuses) are reported with
// their error, not dropped.

// UtilityDelta is δ of every utility run.
const UtilityDelta = 1e-5

// UtilityPriorPredictiveSD is s of the N(0, s²) prior (scaled space) the
// prior-predictive coverage draws its true coefficients from and gives the
// algorithm: a per-half-range effect of 10 is a log-odds change of 20
// across a predictor's public range, large but not extreme.
const UtilityPriorPredictiveSD = 10.0

// UtilityClinicalPriorSDs are the prior sds (scaled space) of the
// prior-predictive coverage at the effect sizes a clinical analysis
// expects, reported beside the one at UtilityPriorPredictiveSD: s = 2.5 is
// an odds ratio of e^±4 across half a predictor's public range at 1.6 sd,
// s = 5 twice that. At s = 10 many replicates are close to separation,
// where even the non-private Laplace approximation covers only 0.88–0.89
// (docs/RESULTS.md "Utility").
var UtilityClinicalPriorSDs = []float64{2.5, 5}

// RecommendedAlgorithm is the name the experiment runs as "the recommended
// algorithm": the private default of `dpmcmc sample --algorithm auto`
// (run.Recommend).
const RecommendedAlgorithm = "auto"

func init() {
	register(Experiment{Name: "utility", Reads: []string{"eps", "n", "repeats", "algorithms"}, Summary: "utility at the user's scale: error in posterior sds, sd ratio and simulation coverage of every private algorithm on logistic regression (breast-cancer design, n = 569, 5,000, 50,000) at ε = 0.5, 1, 3, 8", Run: utilityExperiment})
}

// utilityDesign is a design matrix (scaled predictors, row-major) with the
// real outcome of its rows.
type utilityDesign struct {
	n     int
	x     []float64 // n × p, each in [−1, 1]
	y     []float64 // the real outcome of each row
	names []string  // predictor names
}

func (d *utilityDesign) p() int { return len(d.names) }

// wdbcDesign is the 569 real rows, features scaled by the public ranges.
func wdbcDesign() (*utilityDesign, error) {
	t, _, err := dataset.Load(bytes.NewReader(wdbcCSV), dataset.Options{})
	if err != nil {
		return nil, err
	}
	yj, err := t.Col("malignant")
	if err != nil {
		return nil, err
	}
	d := &utilityDesign{n: t.Rows, y: t.Column(yj)}
	cols := make([][]float64, len(WDBCRanges))
	for k, f := range WDBCRanges {
		j, err := t.Col(f.Name)
		if err != nil {
			return nil, err
		}
		cols[k] = t.Column(j)
		d.names = append(d.names, f.Name)
	}
	d.x = make([]float64, d.n*len(cols))
	for i := range d.n {
		for k, f := range WDBCRanges {
			mid, hw := (f.Lo+f.Hi)/2, (f.Hi-f.Lo)/2
			d.x[i*len(cols)+k] = max(-1, min(1, (cols[k][i]-mid)/hw))
		}
	}
	return d, nil
}

// resample draws n rows of d with replacement (public seed).
func (d *utilityDesign) resample(n int, seed uint64) *utilityDesign {
	r := newRand(seed, 71)
	p := d.p()
	out := &utilityDesign{n: n, x: make([]float64, n*p), y: make([]float64, n), names: d.names}
	for i := range n {
		k := r.IntN(d.n)
		copy(out.x[i*p:(i+1)*p], d.x[k*p:(k+1)*p])
		out.y[i] = d.y[k]
	}
	return out
}

// simulate returns y ~ Bernoulli(logistic(β₀ + xβ)) for every row.
func (d *utilityDesign) simulate(beta []float64, seed, rep uint64) []float64 {
	r := newRand(seed^(rep*0x9e3779b97f4a7c15), 73)
	p := d.p()
	y := make([]float64, d.n)
	for i := range d.n {
		z := beta[0]
		for k := range p {
			z += beta[k+1] * d.x[i*p+k]
		}
		if r.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	return y
}

// table builds the dataset of the design's predictors and outcome y.
func (d *utilityDesign) table(y []float64) (*dataset.Table, error) {
	p := d.p()
	names := append([]string{"malignant"}, d.names...)
	cols := make([][]float64, p+1)
	cols[0] = y
	for k := range p {
		c := make([]float64, d.n)
		for i := range d.n {
			c[i] = d.x[i*p+k]
		}
		cols[k+1] = c
	}
	return dataset.FromColumns(names, cols)
}

// utilityConfig is the config a user would type: the model, public bounds
// [−1, 1] of the scaled predictors (the 0/1 outcome needs none), the budget
// (nil: non-private) and the algorithm; everything else default.
func utilityConfig(d *utilityDesign, alg string, eps, priorSD float64, seed uint64) *run.Config {
	bounds := map[string][2]float64{}
	for _, nm := range d.names {
		bounds[nm] = [2]float64{-1, 1}
	}
	cfg := &run.Config{
		// Scale bounds for every run, the private ones' default: the
		// non-private reference then has the private runs' prior, N(0, 20²)
		// per scaled coefficient (the bounds are [−1, 1], so the map is the
		// identity).
		Model:     model.Spec{Model: "logistic", Outcome: "malignant", Predictors: append([]string(nil), d.names...), PriorSD: priorSD, Scale: model.ScaleBounds},
		Data:      run.DataSpec{Bounds: bounds},
		Algorithm: alg,
		Chains:    4,
		Warmup:    500,
		Draws:     500,
		Seed:      seed,
	}
	if eps > 0 {
		// The iterations are left to the planner, as a user who types only
		// the budget gets them.
		cfg.Privacy = &run.Budget{Epsilon: eps, Delta: UtilityDelta}
		cfg.Warmup, cfg.Draws = 0, 0
	} else {
		cfg.Warmup, cfg.Draws = 1000, 2000
	}
	return cfg
}

// posterior is what a run gives: per-parameter draws pooled and by chain,
// the run's algorithm as resolved (auto → its choice).
type posterior struct {
	alg    string
	chains [][][]float64 // [param][chain][draw]
	pooled [][]float64   // [param][draw], sorted
}

func (p *posterior) mean(j int) float64 {
	s := 0.0
	for _, v := range p.pooled[j] {
		s += v
	}
	return s / float64(len(p.pooled[j]))
}

func (p *posterior) sd(j int) float64 {
	m := p.mean(j)
	s := 0.0
	for _, v := range p.pooled[j] {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(p.pooled[j])-1))
}

// interval is the 90% central credible interval of parameter j.
func (p *posterior) interval(j int) (lo, hi float64) {
	return diagQuantile(p.pooled[j], 0.05), diagQuantile(p.pooled[j], 0.95)
}

// interval95 is the 95% central credible interval of parameter j, the
// one the summary table shows (2.5%–97.5%).
func (p *posterior) interval95(j int) (lo, hi float64) {
	return diagQuantile(p.pooled[j], 0.025), diagQuantile(p.pooled[j], 0.975)
}

// runPosterior runs alg on the design with outcome y; priorSD 0 is the
// algorithm's default prior.
func runPosterior(ctx context.Context, d *utilityDesign, y []float64, alg string, eps, priorSD float64, seed uint64) (*posterior, error) {
	tab, err := d.table(y)
	if err != nil {
		return nil, err
	}
	if alg == RecommendedAlgorithm {
		alg, _ = run.Recommend("logistic", d.n, d.p()+1, eps > 0, false)
	}
	prep, err := run.Prepare(utilityConfig(d, alg, eps, priorSD, seed), tab)
	if err != nil {
		return nil, err
	}
	res, err := prep.Run(ctx, nil)
	if err != nil {
		return nil, err
	}
	if res.Cancelled {
		return nil, ctx.Err()
	}
	dr := res.Draws(false)
	np := len(dr.Names)
	post := &posterior{alg: prep.Config.Algorithm, chains: make([][][]float64, np), pooled: make([][]float64, np)}
	for j := range np {
		post.chains[j] = make([][]float64, len(dr.Values))
		for c, rows := range dr.Values {
			col := make([]float64, len(rows))
			for i, r := range rows {
				col[i] = r[j]
			}
			post.chains[j][c] = col
			post.pooled[j] = append(post.pooled[j], col...)
		}
		sort.Float64s(post.pooled[j])
	}
	return post, nil
}

// utilityCell is one (algorithm, n, ε) row of the real-data table.
type utilityCell struct {
	rhat, ess                  float64 // max R-hat, min bulk-ESS
	meanErr, sdRatioMin, sdMed float64
	containsNP                 float64
}

// UtilityNPContainShare is the real-data criterion for one run: at
// least this share of the 90% intervals contain the non-private posterior
// mean.
const UtilityNPContainShare = 0.8

// UtilityRealRuns is how many runs on the real rows the experiment makes of
// an algorithm whose run takes a fraction of a second (noise-aware, and auto
// when it runs as noise-aware), so that the criterion is reported as a rate
// over fresh releases and not from one run; 5 with --quick. Per-iteration
// samplers run once.
const UtilityRealRuns = 20

func realRuns(o Options, runsAs string) int {
	if runsAs != run.NoiseAware {
		return 1
	}
	if o.Quick {
		return 5
	}
	return UtilityRealRuns
}

// realRepeats summarises the real-data runs of one cell.
type realRepeats struct {
	runs                        int
	meetShare, meanShare        float64
	maxRhat, minESS, minSDRatio float64
}

// repeatReal summarises k runs of alg on the real rows of d against the
// non-private reference ref: first, already made, and k − 1 more.
func repeatReal(ctx context.Context, d *utilityDesign, ref *posterior, alg string, eps float64, seed uint64, first utilityCell, k int) (realRepeats, error) {
	out := realRepeats{maxRhat: 0, minESS: math.Inf(1), minSDRatio: math.Inf(1)}
	meet, sum := 0, 0.0
	add := func(c utilityCell) {
		out.runs++
		if c.containsNP >= UtilityNPContainShare-1e-12 {
			meet++
		}
		sum += c.containsNP
		out.maxRhat, out.minESS, out.minSDRatio = max(out.maxRhat, c.rhat), min(out.minESS, c.ess), min(out.minSDRatio, c.sdRatioMin)
	}
	add(first)
	for i := 1; i < k; i++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		priv, err := runPosterior(ctx, d, d.y, alg, eps, 0, seed+3+1000*uint64(i))
		if err != nil {
			continue // counted by runs: fewer than k ran
		}
		add(compareToReference(priv, ref))
	}
	out.meetShare, out.meanShare = float64(meet)/float64(out.runs), sum/float64(out.runs)
	return out, nil
}

func compareToReference(priv, ref *posterior) utilityCell {
	np := len(ref.pooled)
	c := utilityCell{rhat: 0, ess: math.Inf(1)}
	var ratios []float64
	in := 0
	for j := range np {
		c.rhat = max(c.rhat, diag.Rhat(priv.chains[j]))
		c.ess = min(c.ess, diag.ESSBulk(priv.chains[j]))
		mr, sr := ref.mean(j), ref.sd(j)
		c.meanErr += math.Abs(priv.mean(j)-mr) / sr / float64(np)
		ratios = append(ratios, priv.sd(j)/sr)
		if lo, hi := priv.interval(j); lo <= mr && mr <= hi {
			in++
		}
	}
	slices.Sort(ratios)
	c.sdRatioMin = ratios[0]
	c.sdMed = ratios[len(ratios)/2]
	c.containsNP = float64(in) / float64(np)
	return c
}

// utilityAlgorithms are the private algorithms the experiment compares: the
// recommended one first, then every private algorithm of core/run.
func utilityAlgorithms(o Options) []string {
	algs := []string{RecommendedAlgorithm}
	for _, a := range run.Algorithms() {
		if run.IsPrivate(a) {
			algs = append(algs, a)
		}
	}
	if o.Quick && len(o.Algorithms) == 0 {
		return algs[:1]
	}
	var out []string
	for _, a := range algs {
		if o.wants(a) {
			out = append(out, a)
		}
	}
	return out
}

// UtilityCoverageRange is the band the quick CI form demands of the
// recommended algorithm's simulation coverage of 90% intervals.
var UtilityCoverageRange = [2]float64{0.8, 0.97}

func utilityExperiment(ctx context.Context, o Options) (*Output, error) {
	sizes := []int{569, 5000, 50000}
	epsList := []float64{0.5, 1, 3, 8}
	reps := map[int]int{569: 100, 5000: 100, 50000: 20}
	if o.Quick {
		sizes = []int{569}
		epsList = []float64{1, 3}
		reps = map[int]int{569: 200}
	}
	if o.N > 0 {
		sizes = []int{o.N}
		if _, ok := reps[o.N]; !ok {
			reps[o.N] = 20
		}
	}
	epsList = o.eps(epsList)
	algs := utilityAlgorithms(o)
	base, err := wdbcDesign()
	if err != nil {
		return nil, err
	}
	// True coefficients for the simulation: the non-private posterior mean
	// on the real 569 rows, rounded to two decimals.
	ref569, err := runPosterior(ctx, base, base.y, "hmc", 0, 0, o.Seed+1)
	if err != nil {
		return nil, err
	}
	truth := make([]float64, len(ref569.pooled))
	for j := range truth {
		truth[j] = math.Round(ref569.mean(j)*100) / 100
	}
	o.logf("utility: true coefficients (scaled predictors) %v", truth)

	real := &Table{Name: "utility_real", Header: []string{"algorithm", "runs_as", "n", "epsilon", "max_rhat", "min_bulk_ess", "mean_abs_err_sd", "min_sd_ratio", "median_sd_ratio", "share_90ci_contains_np_mean", "error",
		// Over repeated runs on the same rows (realRuns; fresh release
		// noise each time): how many ran, the share whose 90% intervals
		// contain the non-private mean for at least
		// UtilityNPContainShare of the coefficients (the issue's
		// criterion for one run), the mean share, and the worst R-hat,
		// bulk-ESS and sd ratio of any run.
		"real_runs", "share_runs_np_criterion", "mean_share_90ci_contains_np_mean", "max_rhat_runs", "min_bulk_ess_runs", "min_sd_ratio_runs"}}
	cov := &Table{Name: "utility_coverage", Header: []string{"algorithm", "runs_as", "n", "epsilon", "replicates", "coverage_90", "coverage_se", "coverage_by_coefficient", "failed_runs", "truth", "coverage_90_prior_predictive", "prior_predictive_se", "prior_predictive_by_coefficient", "prior_predictive_failed_runs"}}
	for _, s := range UtilityClinicalPriorSDs {
		cov.Header = append(cov.Header, fmt.Sprintf("coverage_90_prior_predictive_sd%g", s), fmt.Sprintf("prior_predictive_se_sd%g", s))
	}
	// The same simulations' 95% intervals, the ones the summary shows.
	cov.Header = append(cov.Header, "coverage_95", "coverage_95_prior_predictive")
	for _, s := range UtilityClinicalPriorSDs {
		cov.Header = append(cov.Header, fmt.Sprintf("coverage_95_prior_predictive_sd%g", s))
	}
	out := &Output{Tables: []*Table{real, cov}}
	covSeries := map[string]*Series{}
	ppSeries := map[string]*Series{}
	clinicalSeries := map[string]*Series{}
	errSeries := map[string]*Series{}
	truthText := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(truth)), " "), "[]")

	for _, n := range sizes {
		d := base
		if n != base.n {
			d = base.resample(n, o.Seed+uint64(n))
		}
		ref := ref569
		if d != base {
			if ref, err = runPosterior(ctx, d, d.y, "hmc", 0, 0, o.Seed+2); err != nil {
				return nil, err
			}
		}
		for _, alg := range algs {
			for _, eps := range epsList {
				if err := ctx.Err(); err != nil {
					return out, err
				}
				// 1. Real data against the non-private posterior.
				priv, err := runPosterior(ctx, d, d.y, alg, eps, 0, o.Seed+3)
				if err != nil {
					real.Add(alg, "", n, eps, math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), err.Error(), 0, math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN())
					o.logf("utility: %s n=%d ε=%g: %v", alg, n, eps, err)
					continue
				}
				c := compareToReference(priv, ref)
				rr, err := repeatReal(ctx, d, ref, alg, eps, o.Seed, c, realRuns(o, priv.alg))
				if err != nil {
					return out, err
				}
				real.Add(alg, priv.alg, n, eps, c.rhat, c.ess, c.meanErr, c.sdRatioMin, c.sdMed, c.containsNP, "", rr.runs, rr.meetShare, rr.meanShare, rr.maxRhat, rr.minESS, rr.minSDRatio)
				label := fmt.Sprintf("%s n=%d", alg, n)
				if errSeries[label] == nil {
					errSeries[label] = &Series{Label: label}
				}
				errSeries[label].X = append(errSeries[label].X, eps)
				errSeries[label].Y = append(errSeries[label].Y, c.meanErr)

				// 2. Coverage in simulation.
				R := reps[n]
				if o.Repeats > 0 {
					R = o.Repeats
				}
				hit, hit95, total, failed := 0, 0, 0, 0
				byCoef := make([]int, len(truth))
				for r := range R {
					if err := ctx.Err(); err != nil {
						return out, err
					}
					y := d.simulate(truth, o.Seed, uint64(r)+uint64(n)*1000)
					post, err := runPosterior(ctx, d, y, alg, eps, 0, o.Seed+100+uint64(r))
					if err != nil {
						failed++
						continue
					}
					for j, b := range truth {
						if lo, hi := post.interval(j); lo <= b && b <= hi {
							hit++
							byCoef[j]++
						}
						if lo, hi := post.interval95(j); lo <= b && b <= hi {
							hit95++
						}
						total++
					}
				}
				cv, se, cv95 := math.NaN(), math.NaN(), math.NaN()
				if total > 0 {
					cv, cv95 = float64(hit)/float64(total), float64(hit95)/float64(total)
					se = math.Sqrt(cv * (1 - cv) / float64(total/len(truth)))
				}
				var bc []string
				for _, h := range byCoef {
					bc = append(bc, fmt.Sprintf("%.2f", float64(h)/float64(max(1, R-failed))))
				}
				pp, err := priorPredictiveCoverage(ctx, d, alg, eps, R, o.Seed+uint64(n)*1000, UtilityPriorPredictiveSD)
				if err != nil {
					return out, err
				}
				row := []any{alg, priv.alg, n, eps, R, cv, se, strings.Join(bc, " "), failed, truthText, pp.coverage, pp.se, pp.byCoef, pp.failed}
				var clinical []string
				cov95 := []any{cv95, pp.coverage95}
				for _, s := range UtilityClinicalPriorSDs {
					c, err := priorPredictiveCoverage(ctx, d, alg, eps, R, o.Seed+uint64(n)*1000+uint64(100*s), s)
					if err != nil {
						return out, err
					}
					row = append(row, c.coverage, c.se)
					cov95 = append(cov95, c.coverage95)
					clinical = append(clinical, fmt.Sprintf("%.3f ± %.3f at s = %g", c.coverage, c.se, s))
					cl := fmt.Sprintf("%s, s = %g", label, s)
					if clinicalSeries[cl] == nil {
						clinicalSeries[cl] = &Series{Label: cl}
					}
					clinicalSeries[cl].X = append(clinicalSeries[cl].X, eps)
					clinicalSeries[cl].Y = append(clinicalSeries[cl].Y, c.coverage)
				}
				cov.Add(append(row, cov95...)...)
				if ppSeries[label] == nil {
					ppSeries[label] = &Series{Label: label}
				}
				ppSeries[label].X = append(ppSeries[label].X, eps)
				ppSeries[label].Y = append(ppSeries[label].Y, pp.coverage)
				if covSeries[label] == nil {
					covSeries[label] = &Series{Label: label}
				}
				covSeries[label].X = append(covSeries[label].X, eps)
				covSeries[label].Y = append(covSeries[label].Y, cv)
				line := fmt.Sprintf("%s (runs as %s) n=%d ε=%g: max R-hat %.3f, min bulk-ESS %.0f, |Δmean| %.2f sd, sd ratio min %.2f, 90%% CI ∋ non-private mean %.0f%%; coverage %.3f ± %.3f (by coefficient %s; %d replicates, %d failed); prior-predictive coverage %.3f ± %.3f (by coefficient %s, %d failed; s = %g), at clinical effect sizes %s",
					alg, priv.alg, n, eps, c.rhat, c.ess, c.meanErr, c.sdRatioMin, 100*c.containsNP, cv, se, strings.Join(bc, " "), R, failed, pp.coverage, pp.se, pp.byCoef, pp.failed, UtilityPriorPredictiveSD, strings.Join(clinical, ", "))
				if rr.runs > 1 {
					line += fmt.Sprintf("; over %d runs on the real rows %.0f%% had at least %.0f%% of their 90%% intervals containing the non-private mean (mean %.0f%%), max R-hat %.3f, min bulk-ESS %.0f, min sd ratio %.2f",
						rr.runs, 100*rr.meetShare, 100*UtilityNPContainShare, 100*rr.meanShare, rr.maxRhat, rr.minESS, rr.minSDRatio)
				}
				o.logf("utility: %s", line)
				out.Summary = append(out.Summary, line)
			}
		}
	}
	// The prior-predictive figures (s = 10, and the clinical effect sizes):
	// a fixed axis with the exact posterior's 0.90 and the band
	// drawn, legend below the lines.
	ppFig := calibrationFigure(utilityFigure("utility_coverage_prior_predictive", "Coverage of 90% credible intervals (truths drawn from the prior)", "coverage", ppSeries, epsList), epsList)
	clinicalFig := calibrationFigure(utilityFigure("utility_coverage_prior_predictive_clinical", "Coverage of 90% intervals, truths from the prior at s = 2.5 and 5", "coverage", clinicalSeries, epsList), epsList)
	out.Figures = append(out.Figures,
		utilityFigure("utility_coverage", "Coverage of 90% credible intervals (simulation, fixed truth)", "coverage", covSeries, epsList),
		ppFig,
		clinicalFig,
		utilityFigure("utility_error", "|private mean − non-private mean| in posterior sds (real data)", "mean error (sds)", errSeries, epsList))
	return out, nil
}

func utilityFigure(name, title, ylabel string, series map[string]*Series, eps []float64) *Figure {
	f := &Figure{Name: name, Title: title, XLabel: "ε", YLabel: ylabel, LogX: true, XTicks: eps}
	var keys []string
	for k := range series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f.Series = append(f.Series, *series[k])
	}
	return f
}

// calibrationFigure sets f's axis to 0.5–1 with the legend below and adds
// the exact posterior's 0.90 and the band 0.85–0.95 as lines.
func calibrationFigure(f *Figure, eps []float64) *Figure {
	f.YMin, f.YMax, f.LegendBottom = 0.5, 1, true
	for _, ref := range []struct {
		label string
		y     float64
	}{{"exact posterior: 0.90", 0.9}, {"issue's band 0.85–0.95", 0.85}, {"", 0.95}} {
		sr := Series{Label: ref.label, Line: true}
		for _, e := range eps {
			sr.X, sr.Y = append(sr.X, e), append(sr.Y, ref.y)
		}
		f.Series = append(f.Series, sr)
	}
	return f
}

// ppCoverage is one cell's prior-predictive coverage.
type ppCoverage struct {
	coverage, se float64
	coverage95   float64 // of the 95% intervals
	byCoef       string
	failed       int
}

// priorPredictiveCoverage runs alg on R replicates whose true coefficients
// are drawn from N(0, s²) (public seed) with the algorithm's prior set to
// the same N(0, s²), and returns the share of 90% intervals that contain
// the truth (measure 3 in the file's doc), and of 95% intervals.
func priorPredictiveCoverage(ctx context.Context, d *utilityDesign, alg string, eps float64, R int, seed uint64, s float64) (ppCoverage, error) {
	k := d.p() + 1
	hit, hit95, total, failed := 0, 0, 0, 0
	byCoef := make([]int, k)
	beta := make([]float64, k)
	for r := range R {
		if err := ctx.Err(); err != nil {
			return ppCoverage{}, err
		}
		rr := newRand(seed^0x5bd1e995, 79+uint64(r))
		for j := range beta {
			beta[j] = s * rr.NormFloat64()
		}
		y := d.simulate(beta, seed^0x85ebca6b, uint64(r))
		post, err := runPosterior(ctx, d, y, alg, eps, s, seed+500+uint64(r))
		if err != nil {
			failed++
			continue
		}
		for j, b := range beta {
			if lo, hi := post.interval(j); lo <= b && b <= hi {
				hit++
				byCoef[j]++
			}
			if lo, hi := post.interval95(j); lo <= b && b <= hi {
				hit95++
			}
			total++
		}
	}
	out := ppCoverage{coverage: math.NaN(), se: math.NaN(), coverage95: math.NaN(), failed: failed}
	if total > 0 {
		out.coverage, out.coverage95 = float64(hit)/float64(total), float64(hit95)/float64(total)
		out.se = math.Sqrt(out.coverage * (1 - out.coverage) / float64(total/k))
	}
	var bc []string
	for _, h := range byCoef {
		bc = append(bc, fmt.Sprintf("%.2f", float64(h)/float64(max(1, R-failed))))
	}
	out.byCoef = strings.Join(bc, " ")
	return out, nil
}
