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
