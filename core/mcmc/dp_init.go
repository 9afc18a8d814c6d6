package mcmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// DPInit finds a private starting point near the posterior mode by noisy
// gradient ascent (DP-GD, as in DP-SGD without subsampling): each of Steps
// iterations releases the sum of per-row gradients clipped in L2 norm to G,
// with Gaussian noise of std σ = f·G·√Steps/Mu (f = 2 replace-one, 1
// add/remove), so each release is a Gaussian mechanism with μ = Mu/√Steps
// and the Steps releases compose to exactly Mu (tight Gaussian composition).
// The update is Adam (Kingma & Ba 2015) on the released log-posterior
// gradient per row, (g̃ + ∇log p(θ))/n, which is post-processing; the result
// is the average of the last half of the iterates. Everything else — θ₀,
// the step, the number of steps — is public. Like the DP kernels, the noisy
// sum is put on the release grid and Cost charges μ + √d·2^−k per step.
//
// The DP-HMC paper (§4.1) starts its chains near the posterior, citing a
// cheap private estimate of the mode (Heikkilä et al. used DP variational
// inference); this is such an estimate, accounted with the chain.
type DPInitConfig struct {
	// Steps is the number of noisy gradient steps (default 100).
	Steps int `json:"steps,omitempty"`
	// GradClip is G, the per-row L2 clip of the gradient.
	GradClip float64 `json:"grad_clip"`
	// Mu is the Gaussian-DP μ the whole initialisation spends (nominal).
	Mu float64 `json:"mu"`
	// LearningRate is Adam's step (default 0.1).
	LearningRate float64 `json:"learning_rate,omitempty"`
	// N is the public number of rows (0: the model's N()).
	N        int    `json:"n,omitempty"`
	Relation string `json:"relation,omitempty"`
	GridBits int    `json:"grid_bits,omitempty"`
	// Box optionally keeps the iterates inside a public box.
	Box []model.Interval `json:"box,omitempty"`
	// MeanColumns > 0 chooses the mean-statistic start for a model whose
	// likelihood reads the data only through its column means
	// (model.MeanStatistic, every column publicly bounded): one release of
	// the MeanColumns clipped column sums with the whole Mu, then the mode
	// of the posterior given them (see DPInit). The planner sets it from
	// public inputs (the model and its bounds); Steps, GradClip and
	// LearningRate are then unused.
	MeanColumns int `json:"mean_columns,omitempty"`
}

func (c DPInitConfig) withDefaults() DPInitConfig {
	if c.Steps == 0 {
		c.Steps = 100
	}
	if c.LearningRate == 0 {
		c.LearningRate = 0.1
	}
	return c
}

// Cost is the privacy cost of one initialisation in dimension d: Steps
// Gaussian releases with μ = Mu/√Steps + √d·2^−k.
func (c DPInitConfig) Cost(d int) (PrivacyCost, error) {
	c = c.withDefaults()
	rel, err := parseRelation(c.Relation)
	if err != nil {
		return PrivacyCost{}, err
	}
	bits, err := gridBits(c.GridBits)
	if err != nil {
		return PrivacyCost{}, err
	}
	if c.Steps < 1 {
		return PrivacyCost{}, fmt.Errorf("mcmc: dp init steps = %d must be ≥ 1", c.Steps)
	}
	if err := checkPositive("dp init mu", c.Mu); err != nil {
		return PrivacyCost{}, err
	}
	if k := c.MeanColumns; k > 0 {
		return PrivacyCost{Relation: rel, Gaussian: []GaussianRelease{{
			What: "initialisation column sums", Count: 1, Coords: k, NominalMu: c.Mu, Mu: c.Mu + GridInflation(k, bits),
		}}}, nil
	}
	mu := c.Mu / math.Sqrt(float64(c.Steps))
	return PrivacyCost{Relation: rel, Gaussian: []GaussianRelease{{
		What: "initialisation gradient", Count: c.Steps, Coords: d, NominalMu: mu, Mu: mu + GridInflation(d, bits),
	}}}, nil
}

// DPInit runs the initialisation from the public point theta0 and returns
// the private starting point. Noise comes from r.Noise only. With
// MeanColumns > 0 it is the mean-statistic start instead (theta0 unused):
// on the banana the gradient ascent stalls in the curved valley (about 6
// posterior sds from the mode at ε = 4, docs/SAMPLERS.md), while one
// release of the column sums lands within about one.
func DPInit(m model.Model, c DPInitConfig, theta0 []float64, r rng.Streams) ([]float64, error) {
	c = c.withDefaults()
	d, n, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if len(theta0) != d {
		return nil, fmt.Errorf("mcmc: dp init: θ₀ has %d coordinates, the model %d", len(theta0), d)
	}
	if _, err := c.Cost(d); err != nil {
		return nil, err
	}
	rel, _ := parseRelation(c.Relation)
	bits, _ := gridBits(c.GridBits)
	nPub, err := publicN(c.N, n)
	if err != nil {
		return nil, err
	}
	box, err := checkBoxCfg(c.Box, d)
	if err != nil {
		return nil, err
	}
	if c.MeanColumns > 0 {
		return meanStatisticStart(m, c, n, nPub, rel, bits, box, r)
	}
	if err := checkPositive("dp init grad_clip", c.GradClip); err != nil {
		return nil, err
	}
	if err := checkPositive("dp init learning_rate", c.LearningRate); err != nil {
		return nil, err
	}
	std := rel.SensitivityFactor() * c.GradClip * math.Sqrt(float64(c.Steps)) / c.Mu
	gs := newGradSum(n, d, c.GradClip)
	theta := append([]float64(nil), theta0...)
	g, gp := make([]float64, d), make([]float64, d)
	mom, vel, avg := make([]float64, d), make([]float64, d), make([]float64, d)
	const b1, b2, eps = 0.9, 0.999, 1e-8
	half := c.Steps / 2
	b1t, b2t := 1.0, 1.0
	for t := 1; t <= c.Steps; t++ {
		b1t *= b1
		b2t *= b2
		gs.eval(m, theta, g)
		addNoise(r.Noise, g, std, bits)
		m.GradLogPrior(theta, gp)
		for j := range theta {
			gj := (g[j] + gp[j]) / float64(nPub)
			mom[j] = b1*mom[j] + (1-b1)*gj
			vel[j] = b2*vel[j] + (1-b2)*gj*gj
			mh := mom[j] / (1 - b1t)
			vh := vel[j] / (1 - b2t)
			theta[j] += c.LearningRate * mh / (math.Sqrt(vh) + eps)
			if box != nil {
				theta[j] = min(max(theta[j], box[j].Lo), box[j].Hi)
			}
		}
		if t > half {
			for j := range avg {
				avg[j] += theta[j]
			}
		}
	}
	for j := range avg {
		avg[j] /= float64(c.Steps - half)
	}
	if lp := m.LogPrior(avg); math.IsInf(lp, -1) || math.IsNaN(lp) {
		return nil, fmt.Errorf("mcmc: dp init ended outside the prior's support")
	}
	return avg, nil
}

// meanStatisticStart is DPInit's start for a model.MeanStatistic: the mode
// of the posterior given one release of the clipped column sums
// (ReleaseNoisyMeans with μ = Mu), FromGaussian of the Gaussian posterior's
// mean (model.MeanStatistic: Jacobian 1, so modes correspond). The rest is
// post-processing.
func meanStatisticStart(m model.Model, c DPInitConfig, n, nPub int, rel privacy.Relation, bits int, box []model.Interval, r rng.Streams) ([]float64, error) {
	ms, ok := m.(model.MeanStatistic)
	if !ok {
		return nil, fmt.Errorf("mcmc: dp init: model %s has no mean statistic", m.Name())
	}
	if k := len(ms.MeanBounds()); k != c.MeanColumns {
		return nil, fmt.Errorf("mcmc: dp init: the plan counts %d mean columns, model %s has %d", c.MeanColumns, m.Name(), k)
	}
	sens, err := MeanSumsSensitivity(ms.MeanBounds(), rel)
	if err != nil {
		return nil, fmt.Errorf("mcmc: dp init: model %s: %w", m.Name(), err)
	}
	means, noiseVar, err := ReleaseNoisyMeans(ms, n, nPub, sens/c.Mu, bits, r.Noise)
	if err != nil {
		return nil, fmt.Errorf("mcmc: dp init: model %s: %w", m.Name(), err)
	}
	y, _, err := ms.PosteriorGivenNoisyMeans(means, noiseVar)
	if err != nil {
		return nil, fmt.Errorf("mcmc: dp init: %w", err)
	}
	theta := make([]float64, m.Dim())
	ms.FromGaussian(y, theta)
	for j := range theta {
		if box != nil {
			theta[j] = min(max(theta[j], box[j].Lo), box[j].Hi)
		}
	}
	if lp := m.LogPrior(theta); math.IsInf(lp, -1) || math.IsNaN(lp) {
		return nil, fmt.Errorf("mcmc: dp init ended outside the prior's support")
	}
	return theta, nil
}

// MeanSumsSensitivity is the L2 sensitivity of the release that
// ReleaseNoisyMeans makes, on the scaled sums Σᵢ clip(x_ij − mid_j, ±h_j)/h_j
// (h_j the half-width of column j's public bound): f·√k for k columns
// (f = rel.SensitivityFactor(): 2 replace-one, 1 add/remove; one row moves
// each scaled sum by at most 2, or 1). An error names a column without a
// finite bound.
func MeanSumsSensitivity(ivs []model.Interval, rel privacy.Relation) (float64, error) {
	for j, iv := range ivs {
		if h := iv.Hi/2 - iv.Lo/2; !(h > 0) || math.IsInf(h, 1) {
			return 0, fmt.Errorf("data column %d needs a finite public bound", j+1)
		}
	}
	if len(ivs) == 0 {
		return 0, errors.New("no data column to release")
	}
	return rel.SensitivityFactor() * math.Sqrt(float64(len(ivs))), nil
}

// ReleaseNoisyMeans is the one private release of a model.MeanStatistic:
// the column sums S_j = Σᵢ clip(x_ij − mid_j, ±h_j), each column clipped to
// its public bound [lo_j, hi_j] and summed exactly around its midpoint
// (clipper.sumDiff), released on the scale of each column's half-width:
// S_j + N(0, (h_j·std)²) on the grid of h_j·std's 2^-bits (drawn from
// noise, column by column). That is S_j/h_j + N(0, std²), whose scaled sums
// have L2 sensitivity MeanSumsSensitivity, on a grid of step ≤ std·2^-bits
// in the scaled units, so with std = Δ/μ it is a Gaussian mechanism with μ
// (plus the grid's inflation, GridInflation). Scaling by h_j gives each
// column noise in proportion to its range, which minimises the summed
// relative noise variance Σ_j (σ_j/h_j)² over the mechanisms of the same μ
// (the isotropic release, σ_j = 2‖h‖/μ, is worse whenever the ranges
// differ). It returns the released means m̃_j = mid_j + S̃_j/nPub and
// their noise variances (h_j·std/nPub)². Everything after it is
// post-processing. Runs use replace-one (n public); under add/remove the
// quantum of the exact sums (quantBits(n)) and nPub would depend on the
// private n, as in every kernel here, so do not enable add/remove for it
// without revisiting both.
func ReleaseNoisyMeans(ms model.MeanStatistic, n, nPub int, std float64, bits int, noise *rand.Rand) (means, noiseVar []float64, err error) {
	ivs := ms.MeanBounds()
	if !(std > 0) || math.IsInf(std, 1) {
		return nil, nil, fmt.Errorf("the noise std of the scaled column sums is %v: the budget is too small for a release", std)
	}
	cl := newClipper(n, 1)
	col, mid := make([]float64, 0, n), make([]float64, n)
	means, noiseVar = make([]float64, len(ivs)), make([]float64, len(ivs))
	for j, iv := range ivs {
		h := iv.Hi/2 - iv.Lo/2
		if !(h > 0) || math.IsInf(h, 1) {
			return nil, nil, fmt.Errorf("data column %d needs a finite public bound", j+1)
		}
		sj := h * std
		v := (sj / float64(nPub)) * (sj / float64(nPub))
		if math.IsInf(sj, 1) || math.IsInf(v, 1) {
			return nil, nil, fmt.Errorf("data column %d's bound is too wide for a release: the noise variance on its mean overflows", j+1)
		}
		ctr := iv.Lo + h
		for i := range mid {
			mid[i] = ctr
		}
		col = ms.AppendColumn(j, col[:0])
		sum, _ := cl.sumDiff(col, mid, h)
		out := []float64{sum}
		addNoise(noise, out, sj, bits)
		means[j] = ctr + out[0]/float64(nPub)
		noiseVar[j] = v
	}
	return means, noiseVar, nil
}
