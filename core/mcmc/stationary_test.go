package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// Stationary-distribution tests: each kernel runs one long chain with fixed
// seeds on the conjugate Gaussian-mean model (d = 3, correlated posterior)
// and its posterior means, variances and covariances must match the analytic
// values within 4 Monte Carlo standard errors (batch means). A power guard
// requires the MCSE to be small relative to the posterior scale, so a chain
// that barely moves cannot pass.

func testStreams(seed uint64) rng.Streams {
	var key [32]byte
	for i := range key {
		key[i] = byte(seed) + byte(i)
	}
	return rng.Streams{
		Public: rand.New(rand.NewPCG(seed, 0xda7a)),
		Noise:  rand.New(rand.NewChaCha8(key)),
	}
}

// testSigma is the likelihood covariance; the posterior inherits its
// correlations (0.6, 0.3, 0.5).
var testSigma = []float64{
	1, 0.6, 0.3,
	0.6, 1, 0.5,
	0.3, 0.5, 1,
}

func testModel() *gaussMean {
	return newGaussMean(testSigma, 3, 100, []float64{0.5, -1, 2}, 0.5, 10, 42)
}

// batchMCSE returns the mean of y and its Monte Carlo standard error by
// non-overlapping batch means with √n batches of √n draws.
func batchMCSE(y []float64) (mean, mcse float64) {
	n := len(y)
	b := int(math.Sqrt(float64(n)))
	a := n / b
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	var ss float64
	for k := 0; k < a; k++ {
		s := 0.0
		for _, v := range y[k*b : (k+1)*b] {
			s += v
		}
		s /= float64(b)
		ss += (s - mean) * (s - mean)
	}
	return mean, math.Sqrt(ss / float64(a-1) / float64(a))
}

// checkMoments compares draws (n×d) with the analytic mean and covariance.
func checkMoments(t *testing.T, draws []float64, d int, mean, cov []float64) {
	t.Helper()
	n := len(draws) / d
	y := make([]float64, n)
	est := make([]float64, d)
	for j := 0; j < d; j++ {
		for i := 0; i < n; i++ {
			y[i] = draws[i*d+j]
		}
		m, se := batchMCSE(y)
		est[j] = m
		sd := math.Sqrt(cov[j*d+j])
		ess := sd * sd / (se * se)
		t.Logf("mean[%d]: %.5f vs %.5f  |z| = %.2f  (MCSE %.2g, ESS ≈ %.0f)", j, m, mean[j], math.Abs(m-mean[j])/se, se, ess)
		if math.Abs(m-mean[j]) > 4*se {
			t.Errorf("mean[%d] = %.5f, want %.5f ± 4×%.3g", j, m, mean[j], se)
		}
		if se > 0.05*sd {
			t.Errorf("mean[%d]: MCSE %.3g > 0.05 sd: chain too short or stuck", j, se)
		}
	}
	for j := 0; j < d; j++ {
		for k := j; k < d; k++ {
			for i := 0; i < n; i++ {
				y[i] = (draws[i*d+j] - est[j]) * (draws[i*d+k] - est[k])
			}
			c, se := batchMCSE(y)
			want := cov[j*d+k]
			scale := math.Sqrt(cov[j*d+j] * cov[k*d+k])
			t.Logf("cov[%d,%d]: %.6f vs %.6f  |z| = %.2f  (MCSE %.2g)", j, k, c, want, math.Abs(c-want)/se, se)
			if math.Abs(c-want) > 4*se {
				t.Errorf("cov[%d,%d] = %.6f, want %.6f ± 4×%.3g", j, k, c, want, se)
			}
			if se > 0.1*scale {
				t.Errorf("cov[%d,%d]: MCSE %.3g > 0.1 scale: chain too short or stuck", j, k, se)
			}
		}
	}
}

type stationaryCase struct {
	name          string
	kernel        func(m *gaussMean) (Kernel, error)
	warmup, draws int
}

func runStationary(t *testing.T, c stationaryCase) {
	m := testModel()
	mean, cov := m.posterior()
	k, err := c.kernel(m)
	if err != nil {
		t.Fatal(err)
	}
	// Start 2–3 posterior sd away from the mean, so warmup has work to do.
	theta0 := []float64{mean[0] + 0.3, mean[1] - 0.3, mean[2] + 0.2}
	if err := k.Init(theta0); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, c.draws*m.d)
	acc := 0
	div := 0
	rows := 0
	Sample(k, testStreams(1), c.warmup, c.draws, out, func(it int, info Info) {
		if it >= c.warmup {
			if info.Accepted {
				acc++
			}
			if info.Divergent {
				div++
			}
			rows += info.Rows
		}
	})
	t.Logf("%s: acceptance %.3f, divergent %d, rows/iteration %.1f", c.name, float64(acc)/float64(c.draws), div, float64(rows)/float64(c.draws))
	if s, ok := k.(interface{ StepSize() float64 }); ok {
		t.Logf("%s: step after warmup %.4g", c.name, s.StepSize())
	}
	checkMoments(t, out, m.d, mean, cov)
}

func tunaBox(m *gaussMean, halfWidth float64) []model.Interval {
	mean, _ := m.posterior()
	box := make([]model.Interval, m.d)
	for j := range box {
		box[j] = model.Interval{Lo: mean[j] - halfWidth, Hi: mean[j] + halfWidth}
	}
	return box
}

var stationaryCases = []stationaryCase{
	{"mh", func(m *gaussMean) (Kernel, error) {
		return NewMH(m, MHConfig{Step: 0.02, Adapt: true})
	}, 5000, 200000},
	{"barker", func(m *gaussMean) (Kernel, error) {
		return NewBarker(m, BarkerConfig{Step: 0.06})
	}, 2000, 200000},
	{"mala", func(m *gaussMean) (Kernel, error) {
		return NewMALA(m, MALAConfig{Step: 0.01, Adapt: true})
	}, 3000, 100000},
	{"hmc", func(m *gaussMean) (Kernel, error) {
		return NewHMC(m, HMCConfig{Step: 0.05, Steps: 8, Jitter: JitterConfig{Kind: "uniform"}, Adapt: true, AdaptMetric: true})
	}, 1000, 40000},
	{"hmc-dense", func(m *gaussMean) (Kernel, error) {
		return NewHMC(m, HMCConfig{Step: 0.05, Steps: 8, Jitter: JitterConfig{Kind: "uniform"}, Adapt: true, AdaptMetric: true, DenseMetric: true})
	}, 1000, 40000},
	{"hmc-halton-fixed", func(m *gaussMean) (Kernel, error) {
		return NewHMC(m, HMCConfig{Step: 0.06, Steps: 5, Jitter: JitterConfig{Kind: "halton", Width: 0.3}})
	}, 500, 40000},
	{"tunamh-chi", func(m *gaussMean) (Kernel, error) {
		return NewTunaMH(m, TunaMHConfig{Step: 0.05, Chi: 0.01, Box: tunaBox(m, 0.6)})
	}, 1000, 60000},
	{"tunamh-lambda", func(m *gaussMean) (Kernel, error) {
		return NewTunaMH(m, TunaMHConfig{Step: 0.05, Lambda: 30, Box: tunaBox(m, 0.6)})
	}, 1000, 60000},
}

func TestStationary(t *testing.T) {
	for _, c := range stationaryCases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.draws > 50000 {
				t.Skip("long chain; run without -short")
			}
			runStationary(t, c)
		})
	}
}

func TestPosteriorSanity(t *testing.T) {
	m := testModel()
	mean, cov := m.posterior()
	// The mode is where the gradient of the log posterior vanishes.
	g, tmp := make([]float64, 3), make([]float64, 3)
	gradLogPost(m, mean, g, tmp)
	for j, v := range g {
		if math.Abs(v) > 1e-8 {
			t.Errorf("grad at analytic mean [%d] = %g", j, v)
		}
	}
	for j := 0; j < 3; j++ {
		t.Logf("sd[%d] = %.4f", j, math.Sqrt(cov[j*3+j]))
	}
	c, C := func() (float64, float64) {
		k, err := NewTunaMH(m, TunaMHConfig{Step: 0.05, Chi: 1, Box: tunaBox(m, 1)})
		if err != nil {
			t.Fatal(err)
		}
		return k.Bound()
	}()
	t.Logf("tunamh bound c = %.3f, C = %.1f", c, C)
}

// TestHMCMetricAdaptation: after Stan-style warmup the diagonal inverse
// metric estimates the posterior variances.
func TestHMCMetricAdaptation(t *testing.T) {
	m := testModel()
	mean, cov := m.posterior()
	k, err := NewHMC(m, HMCConfig{Step: 0.05, Steps: 8, Adapt: true, AdaptMetric: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Init(mean); err != nil {
		t.Fatal(err)
	}
	Sample(k, testStreams(3), 1000, 0, nil, nil)
	for j, v := range k.InvMetric() {
		if r := v / cov[j*3+j]; r < 0.7 || r > 1.4 {
			t.Errorf("inv metric[%d] = %.4g, posterior variance %.4g", j, v, cov[j*3+j])
		}
	}
	t.Logf("inv metric %v, step %.3g", k.InvMetric(), k.StepSize())
}
