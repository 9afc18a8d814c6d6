package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

// mvnLogPdf is log N(x; mean, cov) up to a constant, via Gauss–Jordan.
func mvnLogPdf(x, mean []float64, cov [][]float64) float64 {
	inv, _ := gaussJordan(cov)
	q := 0.0
	for a := range x {
		for b := range x {
			q += (x[a] - mean[a]) * inv[a][b] * (x[b] - mean[b])
		}
	}
	return -0.5 * q
}

// checkConstantOffset asserts that logπ(θ) − logq(θ) does not depend on θ,
// i.e. the model's unnormalized posterior equals the analytic density.
func checkConstantOffset(t *testing.T, m Model, logq func([]float64) float64, center []float64, spread float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(21, 22))
	buf := make([]float64, m.N())
	theta := make([]float64, m.Dim())
	var ref float64
	for trial := 0; trial < 20; trial++ {
		for k := range theta {
			theta[k] = center[k] + spread*r.NormFloat64()
		}
		off := LogPosterior(m, theta, buf) - logq(theta)
		if trial == 0 {
			ref = off
			continue
		}
		if math.Abs(off-ref) > 1e-7*(1+math.Abs(ref)) {
			t.Fatalf("θ=%v: log posterior − analytic = %.12g, at first point %.12g", theta, off, ref)
		}
	}
	// And the analytic mode is a stationary point of the model's posterior.
	grad := make([]float64, m.Dim())
	GradLogPosterior(m, center, grad, make([]float64, m.Dim()))
	for k, g := range grad {
		if math.Abs(g) > 1e-6*float64(m.N()) {
			t.Fatalf("∇log π at the analytic mode: component %d = %g", k, g)
		}
	}
}

func TestGaussianMeanPosterior(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	n := 200
	tab := &dataset.Table{Names: []string{"u", "v", "w"}, Rows: n, Data: make([]float64, 3*n)}
	for i := range tab.Data {
		tab.Data[i] = 1 + r.NormFloat64()
	}
	spec := Spec{Model: "gaussian", Cov: testCov, PriorSD: 0.5, Temper: 0.7}
	mean, cov, err := GaussianMeanPosterior(spec, tab)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := Build(spec, tab)
	sd := math.Sqrt(cov[0][0])
	checkConstantOffset(t, m, func(th []float64) float64 { return mvnLogPdf(th, mean, cov) }, mean, 3*sd)
	if _, _, err := GaussianMeanPosterior(Spec{Model: "linear", Outcome: "u"}, tab); err == nil {
		t.Fatal("GaussianMeanPosterior accepted a linear spec")
	}
}

func TestLinearPosterior(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	n := 150
	tab := &dataset.Table{Names: []string{"a", "y", "b"}, Rows: n, Data: make([]float64, 3*n)}
	for i := 0; i < n; i++ {
		a, b := r.NormFloat64(), 2*r.Float64()
		tab.Data[3*i] = a
		tab.Data[3*i+2] = b
		tab.Data[3*i+1] = 0.5 - a + 2*b + 0.3*r.NormFloat64()
	}
	spec := Spec{Model: "linear", Outcome: "y", PriorSD: 3, Options: map[string]string{"noise-sd": "0.3", "temper": "0.9"}}
	mean, cov, err := LinearPosterior(spec, tab)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mean[0]-0.5) > 0.2 || math.Abs(mean[1]+1) > 0.1 || math.Abs(mean[2]-2) > 0.15 {
		t.Fatalf("posterior mean %v far from the truth (0.5, −1, 2)", mean)
	}
	m, _ := Build(spec, tab)
	checkConstantOffset(t, m, func(th []float64) float64 { return mvnLogPdf(th, mean, cov) }, mean, 0.1)
}

func TestBananaPosterior(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	n := 1000
	for _, spec := range []Spec{
		{Model: "banana", Temper: 0.5},
		{Model: "banana", Predictors: []string{"x1", "x2", "x3"}, Options: map[string]string{"a": "3", "var1": "2", "var2": "1", "var-rest": "0.5", "prior-var": "10"}},
	} {
		tab := &dataset.Table{Names: []string{"x1", "x2", "x3"}, Rows: n, Data: make([]float64, 3*n)}
		for i := 0; i < n; i++ {
			tab.Data[3*i] = 0.3 + 40*r.NormFloat64()
			tab.Data[3*i+1] = 3 + 50*r.NormFloat64()
			tab.Data[3*i+2] = -1 + r.NormFloat64()
		}
		mu, v, err := BananaPosterior(spec, tab)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := Build(spec, tab)
		b := m.(*Banana)
		d := m.Dim()
		y := make([]float64, d)
		logq := func(th []float64) float64 {
			// log N(g⁻¹(θ); μ, diag v), g⁻¹(θ) = (θ1, θ2 + aθ1², …).
			copy(y, th)
			y[1] = th[1] + b.A()*th[0]*th[0]
			s := 0.0
			for j := range y {
				s += -0.5 * (y[j] - mu[j]) * (y[j] - mu[j]) / v[j]
			}
			return s
		}
		mode := make([]float64, d)
		b.FromGaussian(mu, mode)
		checkConstantOffset(t, m, logq, mode, 2*math.Sqrt(v[0]))
	}
}

// TestPosteriorGivenNoisyMeans checks the MeanStatistic posteriors: with
// no release noise they are the exact posteriors given the data's means
// (Posterior), and with noise variance v on a mean the likelihood's
// variance of that mean grows by v (one-dimensional closed form).
func TestPosteriorGivenNoisyMeans(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	n := 300
	tab := &dataset.Table{Names: []string{"u", "v", "w"}, Rows: n, Data: make([]float64, 3*n)}
	for i := range tab.Data {
		tab.Data[i] = 1 + 2*r.NormFloat64()
	}
	means := func(ms MeanStatistic) []float64 {
		k := len(ms.MeanBounds())
		out := make([]float64, k)
		for j := range out {
			for _, x := range ms.AppendColumn(j, nil) {
				out[j] += x / float64(n)
			}
		}
		return out
	}
	close := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("%s = %.12g, want %.12g", what, got, want)
		}
	}
	g, err := Build(Spec{Model: "gaussian", Cov: testCov, PriorSD: 0.5, Temper: 0.7}, tab)
	if err != nil {
		t.Fatal(err)
	}
	gm := g.(*GaussianMean)
	wantMean, wantCov := gm.Posterior()
	mean, cov, err := gm.PosteriorGivenNoisyMeans(means(gm), make([]float64, 3))
	if err != nil {
		t.Fatal(err)
	}
	for i := range wantMean {
		close("gaussian mean", mean[i], wantMean[i])
		for j := range wantMean {
			close("gaussian cov", cov[i*3+j], wantCov[i][j])
		}
	}
	b, err := Build(Spec{Model: "banana", Predictors: []string{"u", "v", "w"}, Temper: 0.5, Options: map[string]string{"var-rest": "0.5"}}, tab)
	if err != nil {
		t.Fatal(err)
	}
	bm := b.(*Banana)
	mu, v := bm.Posterior()
	mean, cov, err = bm.PosteriorGivenNoisyMeans(means(bm), make([]float64, 3))
	if err != nil {
		t.Fatal(err)
	}
	for j := range mu {
		close("banana mean", mean[j], mu[j])
		close("banana var", cov[j*3+j], v[j])
	}
	// One column, identity covariance, temper 1, prior sd s: the released
	// mean m̃ has variance 1/n + v, so the posterior precision is
	// 1/(1/n + v) + 1/s² and the mean m̃/(1/n + v) over it.
	one := &dataset.Table{Names: []string{"u"}, Rows: n, Data: tab.Data[:n]}
	g1, err := Build(Spec{Model: "gaussian", PriorSD: 2}, one)
	if err != nil {
		t.Fatal(err)
	}
	const mt, nv = 0.7, 0.01
	mean, cov, err = g1.(MeanStatistic).PosteriorGivenNoisyMeans([]float64{mt}, []float64{nv})
	if err != nil {
		t.Fatal(err)
	}
	a := 1/float64(n) + nv
	prec := 1/a + 1/4.0
	close("1-d mean", mean[0], mt/a/prec)
	close("1-d var", cov[0], 1/prec)
	// Each column's own noise variance: identity covariance, two columns
	// with noise variances v1 ≠ v2, so each coordinate is the 1-d case.
	two := &dataset.Table{Names: []string{"u", "v"}, Rows: n, Data: tab.Data[:2*n]}
	g2, err := Build(Spec{Model: "gaussian", PriorSD: 2}, two)
	if err != nil {
		t.Fatal(err)
	}
	nv2 := []float64{0.01, 0.04}
	mean, cov, err = g2.(MeanStatistic).PosteriorGivenNoisyMeans([]float64{0.7, -0.3}, nv2)
	if err != nil {
		t.Fatal(err)
	}
	for j, m := range []float64{0.7, -0.3} {
		a := 1/float64(n) + nv2[j]
		prec := 1/a + 1/4.0
		close("2-d mean", mean[j], m/a/prec)
		close("2-d var", cov[j*2+j], 1/prec)
	}
	close("2-d cov", cov[1], 0)
	if _, _, err := gm.PosteriorGivenNoisyMeans([]float64{1}, []float64{0}); err == nil {
		t.Fatal("three columns accepted one released mean")
	}
}
