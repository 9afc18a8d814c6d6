package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPoissonMoments(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, mu := range []float64{0, 0.3, 4, 9.99, 10, 37.5, 1e3, 2.5e5} {
		const n = 200000
		s, s2 := 0.0, 0.0
		for i := 0; i < n; i++ {
			k := float64(poisson(r, mu))
			s += k
			s2 += k * k
		}
		mean := s / n
		v := s2/n - mean*mean
		seMean := math.Sqrt(mu / n)
		seVar := math.Sqrt((mu + 2*mu*mu) / n) // Var of (X−μ)²: μ + 2μ²
		if math.Abs(mean-mu) > 5*seMean || math.Abs(v-mu) > 5*seVar+1e-12 {
			t.Errorf("Poisson(%g): mean %g var %g", mu, mean, v)
		}
	}
}

// TestPoissonPMF compares frequencies with the pmf at a mean where PTRS is used.
func TestPoissonPMF(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const mu, n = 23.0, 400000
	counts := make([]float64, 80)
	for i := 0; i < n; i++ {
		if k := poisson(r, mu); k < len(counts) {
			counts[k]++
		}
	}
	chi2, df := 0.0, 0
	for k := 5; k <= 45; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		e := n * math.Exp(-mu+float64(k)*math.Log(mu)-lg)
		chi2 += (counts[k] - e) * (counts[k] - e) / e
		df++
	}
	// χ²(41) has mean 41, sd ≈ 9; 41 + 6 sd ≈ 95.
	if chi2 > 95 {
		t.Errorf("χ² = %.1f over %d cells", chi2, df)
	}
}

func TestDualAveragingConverges(t *testing.T) {
	// Deterministic acceptance curve a(ε) = exp(−ε²): target 0.8 at ε* = √(−ln 0.8).
	da := NewDualAveraging(1, 0.8)
	eps := 1.0
	for i := 0; i < 2000; i++ {
		eps = da.Update(math.Exp(-eps * eps))
	}
	want := math.Sqrt(-math.Log(0.8))
	if got := da.Final(); math.Abs(got-want) > 0.02*want {
		t.Errorf("final step %g, want %g", got, want)
	}
}

func TestVarianceWindowsStan(t *testing.T) {
	// Stan's default schedule for 1000 warmup iterations: metric updates at
	// the ends of windows 75–99, 100–149, 150–249, 250–449, 450–949.
	w := newVarianceWindows(1)
	w.plan(1000)
	inv := []float64{1}
	var ends []int
	for it := 0; it < 1000; it++ {
		if w.observe([]float64{float64(it % 7)}, inv, nil) {
			ends = append(ends, it)
		}
	}
	want := []int{99, 149, 249, 449, 949}
	if len(ends) != len(want) {
		t.Fatalf("window ends %v, want %v", ends, want)
	}
	for i := range want {
		if ends[i] != want[i] {
			t.Fatalf("window ends %v, want %v", ends, want)
		}
	}
	// Short warmup: 15% / 75% / 10%.
	w.plan(100)
	ends = ends[:0]
	for it := 0; it < 100; it++ {
		if w.observe([]float64{float64(it % 7)}, inv, nil) {
			ends = append(ends, it)
		}
	}
	if len(ends) != 1 || ends[0] != 89 {
		t.Errorf("short warmup window ends %v, want [89]", ends)
	}
}

func TestHaltonJitter(t *testing.T) {
	j, err := NewJitter(JitterConfig{Kind: "halton", Width: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	// 16 consecutive points of a base-2 van der Corput sequence fill the 16
	// cells of [0, 1) once each; a random shift moves the cell boundaries, so
	// allow one cell to stay empty.
	cells := make([]int, 16)
	for i := 0; i < 16; i++ {
		f := j.Factor(r)
		if f < 0.8 || f > 1.2 {
			t.Fatalf("factor %g outside [0.8, 1.2]", f)
		}
		u := (f - 0.8) / 0.4
		cells[int(u*16)%16]++
	}
	empty := 0
	for _, c := range cells {
		if c == 0 {
			empty++
		}
	}
	if empty > 1 {
		t.Errorf("halton factors cover cells %v", cells)
	}
	if _, err := NewJitter(JitterConfig{Kind: "sobol"}); err == nil {
		t.Error("unknown jitter accepted")
	}
}

func TestStepAllocatesNothing(t *testing.T) {
	m := testModel()
	mean, _ := m.posterior()
	kernels := []func() (Kernel, error){
		func() (Kernel, error) { return NewMH(m, MHConfig{Step: 0.05, Adapt: true}) },
		func() (Kernel, error) { return NewBarker(m, BarkerConfig{Step: 0.05}) },
		func() (Kernel, error) { return NewMALA(m, MALAConfig{Step: 0.05, Adapt: true}) },
		func() (Kernel, error) {
			return NewHMC(m, HMCConfig{Step: 0.05, Steps: 4, Jitter: JitterConfig{Kind: "halton"}, Adapt: true, AdaptMetric: true})
		},
		func() (Kernel, error) {
			return NewTunaMH(m, TunaMHConfig{Step: 0.05, Lambda: 1000, Box: tunaBox(m, 0.6)})
		},
	}
	for _, mk := range kernels {
		k, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Init(mean); err != nil {
			t.Fatal(err)
		}
		r := testStreams(9)
		allocs := testing.AllocsPerRun(200, func() {
			info := k.Step(r)
			if a, ok := k.(Adaptive); ok {
				a.Adapt(0, info)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per Step", k.Name(), allocs)
		}
	}
}

func TestInitErrors(t *testing.T) {
	m := testModel()
	k, err := NewMH(m, MHConfig{Step: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if k.Init([]float64{1, 2}) == nil {
		t.Error("wrong length accepted")
	}
	if k.Init([]float64{1, math.NaN(), 2}) == nil {
		t.Error("NaN accepted")
	}
	if _, err := NewMH(m, MHConfig{Step: 0}); err == nil {
		t.Error("zero step accepted")
	}
	if _, err := NewHMC(m, HMCConfig{Step: 0.1}); err == nil {
		t.Error("zero leapfrog steps accepted")
	}
	if _, err := NewTunaMH(m, TunaMHConfig{Step: 0.1, Lambda: 1}); err == nil {
		t.Error("tunamh without a box on a model with no global bound accepted")
	}
	if _, err := NewTunaMH(m, TunaMHConfig{Step: 0.1, Box: tunaBox(m, 1)}); err == nil {
		t.Error("tunamh with λ = 0 accepted")
	}
	tk, err := NewTunaMH(m, TunaMHConfig{Step: 0.1, Lambda: 1, Box: tunaBox(m, 0.5)})
	if err != nil {
		t.Fatal(err)
	}
	if tk.Init([]float64{10, 10, 10}) == nil {
		t.Error("tunamh init outside the box accepted")
	}
}

// TestTunaMHStaysInBox: proposals outside the box are rejected.
func TestTunaMHStaysInBox(t *testing.T) {
	m := testModel()
	mean, _ := m.posterior()
	box := tunaBox(m, 0.15) // 1.5 sd: many proposals fall outside
	k, err := NewTunaMH(m, TunaMHConfig{Step: 0.1, Lambda: 50, Box: box})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Init(mean); err != nil {
		t.Fatal(err)
	}
	r := testStreams(2)
	for i := 0; i < 20000; i++ {
		info := k.Step(r)
		if info.Clipped != 0 {
			t.Fatalf("bound violated on %d rows", info.Clipped)
		}
		for j, v := range k.Position() {
			if v < box[j].Lo || v > box[j].Hi {
				t.Fatalf("position %v outside box", k.Position())
			}
		}
	}
}

func TestSampleLayout(t *testing.T) {
	m := testModel()
	mean, _ := m.posterior()
	k, _ := NewMH(m, MHConfig{Step: 0.05})
	_ = k.Init(mean)
	out := make([]float64, 10*3)
	calls := 0
	Sample(k, testStreams(4), 5, 10, out, func(it int, info Info) {
		if it != calls {
			t.Fatalf("it = %d, want %d", it, calls)
		}
		calls++
	})
	if calls != 15 {
		t.Errorf("%d callbacks, want 15", calls)
	}
	for j, v := range k.Position() {
		if out[9*3+j] != v {
			t.Errorf("last draw %v, position %v", out[27:], k.Position())
		}
	}
}
