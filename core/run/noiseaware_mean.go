package run

import (
	"fmt"
	"math"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// noise-aware for the mean-statistic models (gaussian, banana): one release
// of the data columns' clipped sums, then iid exact draws from the
// posterior given it (core/noiseaware, MeanKernel).

// isMeanStatisticModel reports whether the named model reads its data only
// through the column means (model.MeanStatistic).
func isMeanStatisticModel(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "gaussian", "banana":
		return true
	}
	return false
}

// meanColumns returns the data columns a mean-statistic model reads, from
// the config alone: its predictors, else the banana's x1 and x2; nil for
// another model, or for a gaussian whose columns are not named (it reads
// every loaded column: prepareModel names them once the data are loaded).
func meanColumns(c *Config) []string {
	if !isMeanStatisticModel(c.Model.Model) {
		return nil
	}
	if len(c.Model.Predictors) > 0 {
		return c.Model.Predictors
	}
	if strings.EqualFold(strings.TrimSpace(c.Model.Model), "banana") {
		return []string{"x1", "x2"}
	}
	return nil
}

// meanStatisticColumns is the number of data columns whose clipped sums a
// mean-statistic release covers (a dp-map start, mcmc.DPInitConfig.
// MeanColumns, or noise-aware), from public inputs only: the number of the
// model's data columns when every one has a public bound, else 0 (dp-map
// then uses the gradient ascent). It must agree with the built model
// (model.MeanStatistic), which DPInit and the kernel check.
func meanStatisticColumns(c *Config) int {
	cols := meanColumns(c)
	for _, col := range cols {
		if _, ok := c.Data.Bounds[col]; !ok {
			return 0
		}
	}
	return len(cols)
}

// MeanStatisticBounded reports whether cfg's model reads its data only
// through column means (gaussian, banana) and every such column is named
// and has a public bound: noise-aware can then run it (Recommend).
func MeanStatisticBounded(cfg *Config) bool { return meanStatisticColumns(cfg) > 0 }

// nameMeanColumns returns cfg with a gaussian model's data columns named
// (all loaded columns, names, which is what the model reads when none are
// named), so that plans and reports made from the config alone know them;
// cfg otherwise. cfg is not modified.
func nameMeanColumns(cfg *Config, names []string) *Config {
	if !strings.EqualFold(strings.TrimSpace(cfg.Model.Model), "gaussian") || len(cfg.Model.Predictors) > 0 || len(names) == 0 {
		return cfg
	}
	c := *cfg
	c.Model.Predictors = append([]string(nil), names...)
	return &c
}

// meanBounds returns the public bounds of the mean-statistic model's data
// columns, or an error naming the columns without one.
func meanBounds(c *Config) ([]model.Interval, error) {
	cols := meanColumns(c)
	if cols == nil {
		return nil, fmt.Errorf("noise-aware for the %s model needs its data columns named (--predictors) to plan without data", c.Model.Model)
	}
	ivs := make([]model.Interval, len(cols))
	var missing []string
	for j, col := range cols {
		b, ok := c.Data.Bounds[col]
		if !ok {
			missing = append(missing, col)
			continue
		}
		ivs[j] = model.Interval{Lo: b[0], Hi: b[1]}
	}
	if strings.EqualFold(strings.TrimSpace(c.Model.Model), "banana") && len(cols) < 2 {
		return nil, fmt.Errorf("the banana model takes at least two data columns (x1, x2), got %d", len(cols))
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("noise-aware for the %s model releases the sums of its data columns clipped to their public bounds: give a bound for %s (--bound COL=LO:HI, from domain knowledge, never from the data)", c.Model.Model, strings.Join(missing, ", "))
	}
	return ivs, nil
}

// noiseAwareMeanPlan is the release's public plan for cfg: its μ is the
// budget's, after the discrete-Gaussian charge for its coordinates, a
// relative 1e-7 below the calibration target (so that ε spent, rounded up
// for the report, never shows more than the budget).
func noiseAwareMeanPlan(c *Config) (*noiseaware.MeanPlan, error) {
	ivs, err := meanBounds(c)
	if err != nil {
		return nil, err
	}
	ec, dc, _, err := privacy.DiscreteGaussianBudget(float64(len(ivs)), noiseaware.GridBits, c.Privacy.Epsilon, c.Privacy.Delta)
	if err != nil {
		return nil, err
	}
	if !(ec > 0) {
		return nil, errNoRoomForReleaseCharge
	}
	mu, err := privacy.MuFor(ec, dc)
	if err != nil {
		return nil, err
	}
	return noiseaware.NewMeanPlan(ivs, mu*(1-1e-7))
}

// noiseAwareMeanEpsilon is ε at the budget's δ of the release of mp: the
// tight Gaussian of μ with the discrete-Gaussian charge for its
// coordinates; it returns the charge's report line.
func noiseAwareMeanEpsilon(c *Config, mp *noiseaware.MeanPlan) (float64, string, error) {
	eps, ch, err := privacy.DiscreteGaussianEpsilon(float64(mp.Columns), noiseaware.GridBits, c.Privacy.Epsilon, c.Privacy.Delta, privacy.TightGaussian{Mu: mp.Mu}.Epsilon)
	if err != nil || ch.Epsilon == 0 {
		return eps, "", err
	}
	return eps, ch.Describe(), nil
}

// meanReleaseWhat names the release in words.
func meanReleaseWhat(c *Config, mp *noiseaware.MeanPlan) string {
	cols := meanColumns(c)
	per := make([]string, len(cols))
	for j, col := range cols {
		per[j] = fmt.Sprintf("%s %s", col, fmtFloat(mp.ColumnStd(j)))
	}
	return fmt.Sprintf("the sums of the data columns %s, each clipped to its public bound and scaled by its half-width (%d entries, L2 sensitivity %s, noise std %s on the scaled sums, μ = %s; in the columns' units the noise std on each sum is %s)",
		strings.Join(cols, ", "), mp.Columns, fmtFloat(mp.Sensitivity), fmtFloat(mp.Std), fmtFloat(mp.Mu), strings.Join(per, ", "))
}

// planNoiseAwareMean fills the plan of a noise-aware run of a
// mean-statistic model.
func planNoiseAwareMean(c *Config, p *Plan, m model.Model, n int) error {
	mp, err := noiseAwareMeanPlan(c)
	if err != nil {
		return err
	}
	if m != nil {
		if ms, ok := m.(model.MeanStatistic); !ok || len(ms.MeanBounds()) != mp.Columns {
			return fmt.Errorf("noise-aware: the %s model does not read the %d columns %s through their means", m.Name(), mp.Columns, strings.Join(meanColumns(c), ", "))
		}
	}
	for j, col := range meanColumns(c) {
		if v := (mp.ColumnStd(j) / float64(n)) * (mp.ColumnStd(j) / float64(n)); math.IsInf(v, 1) {
			return fmt.Errorf("noise-aware: the bound of %s is too wide for a release: the noise variance on its mean, (%v/%d)², overflows; give a bound from what the column can take", col, mp.ColumnStd(j), n)
		}
	}
	eps, _, err := noiseAwareMeanEpsilon(c, mp)
	if err != nil {
		return err
	}
	planNoiseAwareDraws(c, p)
	p.Epsilon, p.Accountant = eps, privacy.MethodTight+" Gaussian (one release)"
	p.Notes = append(p.Notes, fmt.Sprintf("1 private release of %s, made once and shared by all chains; every draw after it is free", meanReleaseWhat(c, mp)))
	p.meanPreview = meanPreview(c, m, mp, n)
	return nil
}

// MeanNoiseAwareApproximations says in words what the mean-statistic
// noise-aware posterior assumes (the report's note).
const MeanNoiseAwareApproximations = "the noise-aware posterior is exact given the release: the column means' sampling distribution under the model is Gaussian with the model's known variance, and the release noise's variance is added to it; the one approximation is clipping: a value outside its column's public bound enters the release at the bound, which the posterior does not model"

// noiseAwareMeanReport fills the report of a noise-aware run of a
// mean-statistic model; the release is counted in full whatever ran.
func noiseAwareMeanReport(r *PrivacyReport, cfg *Config) error {
	mp, err := noiseAwareMeanPlan(cfg)
	if err != nil {
		return err
	}
	eps, charge, err := noiseAwareMeanEpsilon(cfg, mp)
	if err != nil {
		return err
	}
	if math.IsNaN(eps) {
		return fmt.Errorf("noise-aware: ε is not a number")
	}
	r.Epsilon, r.Mu = eps, mp.Mu
	if charge != "" {
		r.Notes = append(r.Notes, charge)
	}
	r.Accountant = privacy.MethodTight + " Gaussian (one release, Sommer et al. / Dong et al.)"
	r.Mechanism = "once for the whole run, shared by all chains: " + meanReleaseWhat(cfg, mp) + "; released values are rounded to a grid of step ≤ σ·2^-24 and μ includes that inflation; the posterior draws are post-processing"
	r.Settings["releases"] = 1
	r.Settings["noise_std_scaled_sums"] = mp.Std
	r.Settings["sensitivity_scaled_sums"] = mp.Sensitivity
	if cfg.Warmup == 0 {
		r.Notes = append(r.Notes, NoWarmupNote)
	}
	r.Notes = append(r.Notes, MeanNoiseAwareApproximations)
	return nil
}

// MeanPreview is noise-aware's preview for a mean-statistic model, from
// public inputs only (n, the model's known variances, the bounds and the
// budget): the release's noise sd on each column mean, h_j·σ/n, against
// the sampling sd of that mean under the model, √(σ_j²/(n·F)), and the
// ratio of the posterior sds with and without the release noise when the
// prior is flat, √(1 + (h_j·σ/n)²·n·F/σ_j²).
type MeanPreview struct {
	// NoiseSD[j] is h_j·σ/n, the release noise's sd on column j's mean.
	NoiseSD []float64 `json:"noise_sd"`
	// SamplingSD[j] is √(σ_j²/(n·F)) for column j (empty: the model could
	// not be built from public inputs).
	SamplingSD []float64 `json:"sampling_sd,omitempty"`
	// SDRatio[j] is the posterior sd's ratio to the non-private one.
	SDRatio []float64 `json:"sd_ratio,omitempty"`
}

// meanPreview computes the preview. Without data (m nil) the model's
// known variances come from a model built on two public rows at the
// bounds' midpoints: they depend only on its options, never on the rows.
func meanPreview(c *Config, m model.Model, mp *noiseaware.MeanPlan, n int) *MeanPreview {
	pv := &MeanPreview{}
	for j := range mp.Columns {
		pv.NoiseSD = append(pv.NoiseSD, mp.ColumnStd(j)/float64(n))
	}
	if m == nil {
		m = publicMeanModel(c)
	}
	mv, ok := m.(model.MeanStatistic)
	if !ok {
		return pv
	}
	for j, v := range mv.MeanVariances() {
		s := math.Sqrt(v / float64(n))
		pv.SamplingSD = append(pv.SamplingSD, s)
		pv.SDRatio = append(pv.SDRatio, math.Hypot(1, pv.NoiseSD[j]/s))
	}
	return pv
}

// publicMeanModel builds cfg's mean-statistic model on two rows at the
// midpoints of its columns' public bounds (nil when it cannot be built):
// for what the model knows without data (its variances).
func publicMeanModel(c *Config) model.Model {
	ivs, err := meanBounds(c)
	if err != nil {
		return nil
	}
	mids := make([]float64, len(ivs))
	for j, iv := range ivs {
		mids[j] = iv.Lo/2 + iv.Hi/2
	}
	return constantMeanModel(c, mids)
}

// constantMeanModel builds the config's mean-statistic model on two rows
// whose column j holds vals[j] (public values, never data), for what reads
// only the model's options and public bounds; nil when it cannot be built.
func constantMeanModel(c *Config, vals []float64) model.Model {
	cols := make([][]float64, len(vals))
	for j, v := range vals {
		cols[j] = []float64{v, v}
	}
	spec := c.Model
	spec.Predictors = meanColumns(c)
	return publicRowsModel(spec, spec.Predictors, cols, nil)
}

// publicRowsModel builds spec's model on a table of public values (never
// data) with the given column names and columns, clipped to bounds (nil:
// none), for what reads only the model's options and bounds (the
// forecast's posterior-scale bounds of a plan without data); nil when it
// cannot be built.
func publicRowsModel(spec model.Spec, names []string, cols [][]float64, bounds map[string]dataset.Bound) model.Model {
	tab, err := dataset.FromColumns(names, cols)
	if err != nil {
		return nil
	}
	if bounds != nil {
		if _, err := tab.ApplyBounds(bounds); err != nil {
			return nil
		}
	}
	m, err := model.Build(spec, tab)
	if err != nil {
		return nil
	}
	return m
}
