package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
)

func mustBuild(t testing.TB, f fixture, n int, seed uint64) Model {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	m, err := Build(f.spec, f.gen(r, n))
	if err != nil {
		t.Fatalf("%s: Build: %v", f.name, err)
	}
	return m
}

// sampleBox draws θ uniformly in the box, hitting a corner coordinate with
// probability 0.3 per coordinate.
func sampleBox(r *rand.Rand, box []Interval, theta []float64) {
	for k, b := range box {
		switch u := r.Float64(); {
		case u < 0.15:
			theta[k] = b.Lo
		case u < 0.3:
			theta[k] = b.Hi
		default:
			theta[k] = b.Lo + (b.Hi-b.Lo)*r.Float64()
		}
	}
}

func fdClose(fd, g float64) bool {
	return math.Abs(fd-g) <= 1e-5*(1+math.Abs(g))
}

// centralDiff returns the central finite difference of f at theta along k.
func centralDiff(f func([]float64) float64, theta []float64, k int) float64 {
	h := 1e-5 * max(1, math.Abs(theta[k]))
	old := theta[k]
	theta[k] = old + h
	up := f(theta)
	theta[k] = old - h
	dn := f(theta)
	theta[k] = old
	return (up - dn) / (2 * h)
}

func TestGradientsFiniteDifferences(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			m := mustBuild(t, f, 40, 1)
			d := m.Dim()
			r := rand.New(rand.NewPCG(2, 3))
			theta := make([]float64, d)
			grad := make([]float64, d)
			one := make([]float64, 1)
			buf := make([]float64, m.N())
			for trial := 0; trial < 20; trial++ {
				sampleBox(r, f.box, theta)
				// Per row.
				for i := 0; i < m.N(); i++ {
					m.GradLogLikRow(theta, i, grad)
					li := func(th []float64) float64 { m.LogLik(th, []int{i}, one); return one[0] }
					for k := 0; k < d; k++ {
						if fd := centralDiff(li, theta, k); !fdClose(fd, grad[k]) {
							t.Fatalf("row %d θ=%v: ∂ℓ/∂θ%d = %g, finite difference %g", i, theta, k, grad[k], fd)
						}
					}
				}
				// Summed, all rows and a subset with a repeat.
				for _, rows := range [][]int{nil, {3, 0, 3, 17}} {
					m.GradLogLik(theta, rows, grad)
					sum := func(th []float64) float64 { return LogLikSum(m, th, rows, buf) }
					for k := 0; k < d; k++ {
						if fd := centralDiff(sum, theta, k); !fdClose(fd, grad[k]) {
							t.Fatalf("rows %v θ=%v: ∂Σℓ/∂θ%d = %g, finite difference %g", rows, theta, k, grad[k], fd)
						}
					}
				}
				// Prior.
				m.GradLogPrior(theta, grad)
				for k := 0; k < d; k++ {
					if fd := centralDiff(m.LogPrior, theta, k); !fdClose(fd, grad[k]) {
						t.Fatalf("θ=%v: ∂log p/∂θ%d = %g, finite difference %g", theta, k, grad[k], fd)
					}
				}
				// Posterior helper.
				scratch := make([]float64, d)
				GradLogPosterior(m, theta, grad, scratch)
				post := func(th []float64) float64 { return LogPosterior(m, th, buf) }
				for k := 0; k < d; k++ {
					if fd := centralDiff(post, theta, k); !fdClose(fd, grad[k]) {
						t.Fatalf("θ=%v: ∂log π/∂θ%d = %g, finite difference %g", theta, k, grad[k], fd)
					}
				}
			}
		})
	}
}

func TestLogLikRowsConsistent(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			m := mustBuild(t, f, 30, 4)
			r := rand.New(rand.NewPCG(5, 6))
			theta := make([]float64, m.Dim())
			sampleBox(r, f.box, theta)
			all := make([]float64, m.N())
			m.LogLik(theta, nil, all)
			rows := []int{29, 0, 5, 5, 12}
			sub := make([]float64, len(rows))
			m.LogLik(theta, rows, sub)
			for k, i := range rows {
				if sub[k] != all[i] {
					t.Fatalf("row %d: rows path %g, all-rows path %g", i, sub[k], all[i])
				}
			}
			// Ratio helpers.
			thetaNew := make([]float64, m.Dim())
			sampleBox(r, f.box, thetaNew)
			cur := make([]float64, len(rows))
			out := make([]float64, len(rows))
			LogLikRatio(m, thetaNew, theta, rows, cur, out)
			newv := make([]float64, len(rows))
			m.LogLik(thetaNew, rows, newv)
			for k := range rows {
				if cur[k] != sub[k] || math.Abs(out[k]-(newv[k]-sub[k])) > 1e-12*(1+math.Abs(newv[k])) {
					t.Fatalf("LogLikRatio k=%d: cur %g out %g want %g, %g", k, cur[k], out[k], sub[k], newv[k]-sub[k])
				}
			}
			curAll := make([]float64, m.N())
			outAll := make([]float64, m.N())
			LogLikRatio(m, thetaNew, theta, nil, curAll, outAll)
			if curAll[7] != all[7] {
				t.Fatalf("LogLikRatio nil rows: cur %g want %g", curAll[7], all[7])
			}
		})
	}
}

// TestLogLikFormulas checks each per-row log-likelihood against a direct,
// independent evaluation of its density.
func TestLogLikFormulas(t *testing.T) {
	normal := func(x, mu, v float64) float64 {
		return -0.5*(x-mu)*(x-mu)/v - 0.5*math.Log(2*math.Pi*v)
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			tab := f.gen(r, 25)
			m, err := Build(f.spec, tab)
			if err != nil {
				t.Fatal(err)
			}
			theta := make([]float64, m.Dim())
			sampleBox(r, f.box, theta)
			out := make([]float64, m.N())
			m.LogLik(theta, nil, out)
			col := func(name string, i int) float64 {
				j, err := tab.Col(name)
				if err != nil {
					t.Fatal(err)
				}
				return tab.At(i, j)
			}
			names := m.ParamNames()
			eta := func(i int) float64 {
				s := 0.0
				for k, nm := range names {
					if nm == "intercept" {
						s += theta[k]
					} else {
						s += theta[k] * col(nm, i)
					}
				}
				return s
			}
			F := 1.0
			if tp, ok := m.(interface{ Temper() float64 }); ok {
				F = tp.Temper()
			}
			for i := 0; i < m.N(); i++ {
				var want float64
				switch mm := m.(type) {
				case *Logistic:
					p := 1 / (1 + math.Exp(-eta(i)))
					if col("y", i) == 1 {
						want = math.Log(p)
					} else {
						want = math.Log(1 - p)
					}
				case *Linear:
					want = normal(col("y", i), eta(i), mm.NoiseSD()*mm.NoiseSD())
				case *Poisson:
					y := col("y", i)
					lg, _ := math.Lgamma(y + 1)
					lam := math.Exp(eta(i))
					want = y*math.Log(lam) - lam - lg
				case *GaussianMean:
					// Direct: −½(x−θ)ᵀΣ⁻¹(x−θ) − ½log det(2πΣ), via the
					// inverse computed independently by Gauss–Jordan.
					cols := f.spec.Predictors
					if cols == nil {
						cols = tab.Names
					}
					d := len(cols)
					cov := mm.Cov()
					inv, det := gaussJordan(cov)
					q := 0.0
					for a := 0; a < d; a++ {
						for b := 0; b < d; b++ {
							q += (col(cols[a], i) - theta[a]) * inv[a][b] * (col(cols[b], i) - theta[b])
						}
					}
					want = -0.5*q - 0.5*(float64(d)*math.Log(2*math.Pi)+math.Log(det))
				case *GMM:
					x := col("x", i)
					v := mm.varX
					want = math.Log(0.5*math.Exp(normal(x, theta[0], v)) + 0.5*math.Exp(normal(x, theta[0]+theta[1], v)))
				case *Banana:
					cols := f.spec.Predictors
					if cols == nil {
						cols = []string{"x1", "x2"}
					}
					for j, c := range cols {
						mu := theta[j]
						if j == 1 {
							mu += mm.A() * theta[0] * theta[0]
						}
						want += normal(col(c, i), mu, mm.v[j])
					}
				}
				want *= F
				if math.Abs(out[i]-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("row %d θ=%v: ℓ = %.15g, direct %.15g", i, theta, out[i], want)
				}
			}
		})
	}
}

// gaussJordan returns the inverse and determinant of a small matrix.
func gaussJordan(a [][]float64) ([][]float64, float64) {
	n := len(a)
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, 2*n)
		copy(m[i], a[i])
		m[i][n+i] = 1
	}
	det := 1.0
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if p != c {
			m[p], m[c] = m[c], m[p]
			det = -det
		}
		det *= m[c][c]
		piv := m[c][c]
		for k := range m[c] {
			m[c][k] /= piv
		}
		for r := 0; r < n; r++ {
			if r != c {
				f := m[r][c]
				for k := range m[r] {
					m[r][k] -= f * m[c][k]
				}
			}
		}
	}
	inv := make([][]float64, n)
	for i := range inv {
		inv[i] = m[i][n:]
	}
	return inv, det
}

func TestLogisticStableAtExtremes(t *testing.T) {
	tab := genTable([]col{{name: "x", lo: -1, hi: 1}, {name: "y", binary: true, hi: 1}})(rand.New(rand.NewPCG(1, 1)), 10)
	m, err := Build(Spec{Model: "logistic", Outcome: "y"}, tab)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, m.N())
	grad := make([]float64, 2)
	for _, th := range [][]float64{{800, 0}, {-800, 0}, {0, 1e6}} {
		m.LogLik(th, nil, out)
		for i, v := range out {
			if math.IsNaN(v) || math.IsInf(v, 0) || v > 0 {
				t.Fatalf("θ=%v row %d: ℓ=%g", th, i, v)
			}
		}
		m.GradLogLik(th, nil, grad)
		if math.IsNaN(grad[0]) || math.IsNaN(grad[1]) {
			t.Fatalf("θ=%v: grad %v", th, grad)
		}
	}
	// ℓ = −log 2 at η = 0 for either outcome.
	m.LogLik([]float64{0, 0}, nil, out)
	for _, v := range out {
		if math.Abs(v+math.Ln2) > 1e-15 {
			t.Fatalf("ℓ(0) = %g, want −log 2", v)
		}
	}
}

func TestParamNames(t *testing.T) {
	want := map[string][]string{
		"logistic":                      {"intercept", "a", "b", "c"},
		"logistic-tempered-nointercept": {"c", "a"},
		"linear":                        {"intercept", "a", "b"},
		"poisson":                       {"intercept", "a", "b"},
		"gaussian":                      {"theta1", "theta2", "theta3"},
		"gaussian-identity-2of3":        {"theta1", "theta2"},
		"gmm":                           {"theta1", "theta2"},
		"gmm-tempered":                  {"theta1", "theta2"},
		"banana":                        {"theta1", "theta2"},
		"banana-sharp-3d":               {"theta1", "theta2", "theta3"},
	}
	for _, f := range fixtures() {
		m := mustBuild(t, f, 3, 1)
		got := m.ParamNames()
		if len(got) != m.Dim() || len(got) != len(want[f.name]) {
			t.Fatalf("%s: names %v, dim %d", f.name, got, m.Dim())
		}
		for k := range got {
			if got[k] != want[f.name][k] {
				t.Fatalf("%s: names %v, want %v", f.name, got, want[f.name])
			}
		}
		got[0] = "mutated"
		if m.ParamNames()[0] == "mutated" {
			t.Fatalf("%s: ParamNames exposes internal state", f.name)
		}
		if m.N() != 3 || m.Name() != f.spec.Model {
			t.Fatalf("%s: N %d Name %s", f.name, m.N(), m.Name())
		}
	}
}

func TestNoAllocations(t *testing.T) {
	for _, f := range fixtures() {
		m := mustBuild(t, f, 50, 1)
		d := m.Dim()
		theta := make([]float64, d)
		thetaNew := make([]float64, d)
		sampleBox(rand.New(rand.NewPCG(1, 2)), f.box, theta)
		sampleBox(rand.New(rand.NewPCG(3, 2)), f.box, thetaNew)
		grad := make([]float64, d)
		scratch := make([]float64, d)
		out := make([]float64, m.N())
		cur := make([]float64, m.N())
		rows := []int{1, 4, 9}
		rowGrads := make([]float64, m.N()*d)
		checks := map[string]func(){
			"GradLogLikRows":      func() { GradLogLikRows(m, theta, nil, 0, rowGrads) },
			"GradLogLikRows rows": func() { GradLogLikRows(m, theta, rows, 0, rowGrads[:len(rows)*d]) },
			"LogLik":              func() { m.LogLik(theta, nil, out) },
			"LogLik rows":         func() { m.LogLik(theta, rows, out) },
			"GradLogLikRow":       func() { m.GradLogLikRow(theta, 3, grad) },
			"GradLogLik":          func() { m.GradLogLik(theta, nil, grad) },
			"GradLogLik rows":     func() { m.GradLogLik(theta, rows, grad) },
			"LogPrior":            func() { _ = m.LogPrior(theta) },
			"GradLogPrior":        func() { m.GradLogPrior(theta, grad) },
			"LogLikRatio":         func() { LogLikRatio(m, thetaNew, theta, rows, cur, out) },
			"LogLikDiff":          func() { LogLikDiff(m, thetaNew, nil, cur, out) },
			"LogLikSum rows":      func() { _ = LogLikSum(m, theta, rows, out) },
			"LogPosterior":        func() { _ = LogPosterior(m, theta, out) },
			"GradLogPosterior":    func() { GradLogPosterior(m, theta, grad, scratch) },
		}
		for name, fn := range checks {
			if a := testing.AllocsPerRun(20, fn); a != 0 {
				t.Errorf("%s %s: %v allocs/op", f.name, name, a)
			}
		}
	}
}

// The mixture's row Hessian is bounded in every direction u by
// F/σ_x²·max_k(a_kᵀu)² (a_1 = (1, 0), a_2 = (1, 1)), the inequality
// GMMWidestPosteriorSDLower rests on: checked by central differences of the
// row gradient at random points, rows and directions, and nearly attained
// where one component has all the responsibility (x at θ1, the other mean
// far away) in the direction u ∝ (1, −1), where a bound from the
// responsibilities' average would be half the true curvature.
func TestGMMRowHessianBound(t *testing.T) {
	const varX, f = 2.0, 0.7
	r := rand.New(rand.NewPCG(3, 9))
	x := make([]float64, 200)
	for i := range x {
		x[i] = -6 + 13*r.Float64()
	}
	x[0] = 0.3
	tab, err := dataset.FromColumns([]string{"x"}, [][]float64{x})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(Spec{Model: "gmm", Options: map[string]string{"var-x": "2", "temper": "0.7"}}, tab)
	if err != nil {
		t.Fatal(err)
	}
	curv := func(theta, u []float64, i int) float64 { // uᵀ(−∇²ℓ_i)u
		const h = 1e-4
		gp, gm := make([]float64, 2), make([]float64, 2)
		m.GradLogLikRow([]float64{theta[0] + h*u[0], theta[1] + h*u[1]}, i, gp)
		m.GradLogLikRow([]float64{theta[0] - h*u[0], theta[1] - h*u[1]}, i, gm)
		return -((gp[0]-gm[0])*u[0] + (gp[1]-gm[1])*u[1]) / (2 * h)
	}
	bound := func(u []float64) float64 {
		return f / varX * max(u[0]*u[0], (u[0]+u[1])*(u[0]+u[1]))
	}
	for range 20000 {
		theta := []float64{-5 + 10*r.Float64(), -5 + 10*r.Float64()}
		phi := math.Pi * r.Float64()
		u := []float64{math.Cos(phi), math.Sin(phi)}
		i := r.IntN(len(x))
		if c := curv(theta, u, i); c > bound(u)+1e-6 {
			t.Fatalf("θ = %v, u = %v, x = %g: curvature %g above the bound %g", theta, u, x[i], c, bound(u))
		}
	}
	u := []float64{1 / math.Sqrt2, -1 / math.Sqrt2}
	if c := curv([]float64{0.3, 30}, u, 0); math.Abs(c/bound(u)-1) > 1e-3 {
		t.Errorf("one component responsible: curvature %g, bound %g (want nearly equal)", c, bound(u))
	}
	// The public bound is 1/√(min over u of n·bound(u) + uᵀP₀u), P₀ the
	// prior precision (prior variances 10 and 1, the defaults).
	const n = 569
	best := math.Inf(1)
	for k := range 100000 {
		phi := math.Pi * float64(k) / 100000
		v := []float64{math.Cos(phi), math.Sin(phi)}
		best = min(best, n*bound(v)+v[0]*v[0]/10+v[1]*v[1])
	}
	if got, want := m.(*GMM).WidestPosteriorSDLower(n), 1/math.Sqrt(best); math.Abs(got/want-1) > 1e-4 {
		t.Errorf("widest sd bound %g, want %g", got, want)
	}
}
