package mcmc

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
)

// gmmData draws n rows x ~ ½N(θ1, σx²) + ½N(θ1+θ2, σx²) with θ = (0, 1),
// σx² = 2 (Welling & Teh; Heikkilä et al. §4), optionally truncated to
// [−trunc, trunc] by rejection (trunc = 0: none).
func gmmData(n int, seed uint64, trunc float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 123))
	x := make([]float64, n)
	for i := range x {
		for {
			v := math.Sqrt2 * r.NormFloat64()
			if r.IntN(2) == 1 {
				v += 1
			}
			if trunc == 0 || math.Abs(v) <= trunc {
				x[i] = v
				break
			}
		}
	}
	return x
}

// gmmModel builds core/model's gmm on x with tempering F and prior
// variances pv1, pv2 (public column bound [−bound, bound] if bound > 0).
func gmmModel(t testing.TB, x []float64, F, pv1, pv2, bound float64) model.Model {
	t.Helper()
	tab, err := dataset.FromColumns([]string{"x"}, [][]float64{x})
	if err != nil {
		t.Fatal(err)
	}
	if bound > 0 {
		tab.Bounds = []*dataset.Bound{{Lo: -bound, Hi: bound}}
	}
	spec := model.Spec{Model: "gmm", Temper: F, Options: map[string]string{
		"prior-var1": strconv.FormatFloat(pv1, 'g', -1, 64),
		"prior-var2": strconv.FormatFloat(pv2, 'g', -1, 64),
	}}
	m, err := model.Build(spec, tab)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// gmmGridPosterior integrates the tempered GMM posterior numerically on a
// grid (the data binned into bins of width ≤ 0.005: the midpoint error of
// Σℓ_i is O(F·n·w²) ≈ 1e-6 here) and returns the means and variances of
// θ1, θ2. logPrior(θ1, θ2) may return −Inf (outside a box).
func gmmGridPosterior(x []float64, F float64, logPrior func(a, b float64) float64, lo1, hi1, lo2, hi2 float64, n1, n2 int) gridPost {
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		xmin, xmax = math.Min(xmin, v), math.Max(xmax, v)
	}
	nb := int(math.Ceil((xmax-xmin)/0.005)) + 1
	w := (xmax - xmin) / float64(nb-1)
	cnt := make([]float64, nb)
	for _, v := range x {
		cnt[int(math.Round((v-xmin)/w))]++
	}
	var cx, cc []float64
	for i, c := range cnt {
		if c > 0 {
			cx = append(cx, xmin+float64(i)*w)
			cc = append(cc, c)
		}
	}
	const varX = 2.0
	lp := make([]float64, n1*n2)
	mx := math.Inf(-1)
	for i := 0; i < n1; i++ {
		a := lo1 + (hi1-lo1)*float64(i)/float64(n1-1)
		for j := 0; j < n2; j++ {
			b := lo2 + (hi2-lo2)*float64(j)/float64(n2-1)
			v := logPrior(a, b)
			if !math.IsInf(v, -1) {
				s := 0.0
				for k, xv := range cx {
					d1 := xv - a
					d2 := d1 - b
					p, q := -d1*d1/(2*varX), -d2*d2/(2*varX)
					m := math.Max(p, q)
					s += cc[k] * (m + math.Log(math.Exp(p-m)+math.Exp(q-m)))
				}
				v += F * s
			}
			lp[i*n2+j] = v
			mx = math.Max(mx, v)
		}
	}
	var z, m1, m2, s1, s2 float64
	for i := 0; i < n1; i++ {
		a := lo1 + (hi1-lo1)*float64(i)/float64(n1-1)
		for j := 0; j < n2; j++ {
			b := lo2 + (hi2-lo2)*float64(j)/float64(n2-1)
			p := math.Exp(lp[i*n2+j] - mx)
			z += p
			m1 += p * a
			m2 += p * b
			s1 += p * a * a
			s2 += p * b * b
		}
	}
	g := gridPost{lo1: lo1, hi1: hi1, lo2: lo2, hi2: hi2, n1: n1, n2: n2, cum: make([]float64, len(lp))}
	g.mean = [2]float64{m1 / z, m2 / z}
	g.variance = [2]float64{s1/z - g.mean[0]*g.mean[0], s2/z - g.mean[1]*g.mean[1]}
	acc := 0.0
	for i, v := range lp {
		acc += math.Exp(v-mx) / z
		g.cum[i] = acc
	}
	return g
}

// gridPost is a grid approximation of a 2-d posterior: its moments, and
// draws (a grid point by its mass) used as public starting points.
type gridPost struct {
	mean, variance     [2]float64
	lo1, hi1, lo2, hi2 float64
	n1, n2             int
	cum                []float64
}

func (g gridPost) draw(r *rand.Rand) []float64 {
	k := sort.SearchFloat64s(g.cum, r.Float64()*g.cum[len(g.cum)-1])
	k = min(k, len(g.cum)-1)
	i, j := k/g.n2, k%g.n2
	return []float64{g.lo1 + (g.hi1-g.lo1)*float64(i)/float64(g.n1-1), g.lo2 + (g.hi2-g.lo2)*float64(j)/float64(g.n2-1)}
}

// runChains runs chains independent chains (goroutines) of warmup+draws
// iterations from the given starts and returns the pooled draws (chain
// after chain) and the mean acceptance.
func runChains(t *testing.T, mk func() (Kernel, error), starts [][]float64, seed uint64, warmup, draws int) ([]float64, float64) {
	t.Helper()
	d := len(starts[0])
	out := make([]float64, len(starts)*draws*d)
	accs := make([]float64, len(starts))
	var wg sync.WaitGroup
	for c, s := range starts {
		k, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Init(s); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			na := 0
			Sample(k, dpStreams(seed+uint64(c)), warmup, draws, out[c*draws*d:(c+1)*draws*d], func(it int, info Info) {
				if it >= warmup && info.Accepted {
					na++
				}
			})
			accs[c] = float64(na) / float64(draws)
		}()
	}
	wg.Wait()
	a := 0.0
	for _, v := range accs {
		a += v
	}
	return out, a / float64(len(starts))
}

// chainMoments checks pooled means (4 MCSE) and variances (4 MCSE + relTol)
// of chains×draws×d samples; the MCSE is from batch means of length
// batch within chains (pooled over chains).
func chainMoments(t *testing.T, draws []float64, chains, d, batch int, mean, variance []float64, relTol float64) {
	t.Helper()
	n := len(draws) / d / chains
	nb := n / batch
	for j := 0; j < d; j++ {
		var bm, bv []float64
		for c := 0; c < chains; c++ {
			for b := 0; b < nb; b++ {
				s, ss := 0.0, 0.0
				for i := b * batch; i < (b+1)*batch; i++ {
					v := draws[(c*n+i)*d+j]
					s += v
					ss += (v - mean[j]) * (v - mean[j])
				}
				bm = append(bm, s/float64(batch))
				bv = append(bv, ss/float64(batch))
			}
		}
		mu, se := meanSE(bm)
		v, sev := meanSE(bv)
		t.Logf("θ%d: mean %.4f vs %.4f (MCSE %.4f, z %+.2f); variance %.4f vs %.4f (MCSE %.4f)", j+1, mu, mean[j], se, (mu-mean[j])/se, v, variance[j], sev)
		if math.Abs(mu-mean[j]) > 4*se {
			t.Errorf("θ%d: mean %.4f, want %.4f ± 4×%.4f", j+1, mu, mean[j], se)
		}
		if math.Abs(v-variance[j]) > 4*sev+relTol*variance[j] {
			t.Errorf("θ%d: variance %.4f, want %.4f ± (4×%.4f + %.0f%%)", j+1, v, variance[j], sev, 100*relTol)
		}
		if se > 0.25*math.Sqrt(variance[j]) {
			t.Errorf("θ%d: MCSE %.4f > 0.25 sd: chains too short or stuck", j+1, se)
		}
	}
}

func meanSE(y []float64) (m, se float64) {
	for _, v := range y {
		m += v
	}
	m /= float64(len(y))
	ss := 0.0
	for _, v := range y {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(y)-1) / float64(len(y)))
}

// TestDPBarkerGMM reproduces the GMM experiment of Heikkilä et al. (§4;
// testdata README anchors): N = 1e6, N₀ = 100 (F = 1e-4), b = 1000
// without replacement, proposal variance 0.01, clip 0.99·√b/N₀, C = 2,
// 20,000 iterations after 1000 burn-in; acceptance ≈ 0.44; the moments are
// compared with the exact tempered posterior of our data by grid
// integration. Tolerance: 4 MCSE (batch means) plus, for the variances,
// 10% for the kernel's approximations (CLT for Δ*, V_corr, clipping).
// The anchors for numpy's seed-123 data are mean (0.489, 0.018),
// variance (0.201, 0.722); ours are logged alongside. The full run is
// skipped under -short (a 3000-iteration acceptance check runs instead).
func TestDPBarkerGMM(t *testing.T) {
	const N = 1000000
	x := gmmData(N, 123, 0)
	m := gmmModel(t, x, 100.0/N, 10, 1, 0)
	mk := func() (Kernel, error) {
		return NewDPBarker(m, DPBarkerConfig{Step: 0.1, Batch: 1000, Clip: 0.99, BarkerC: 2})
	}
	if testing.Short() {
		_, acc := runChains(t, mk, [][]float64{{0.5, 0}}, 11, 500, 3000)
		t.Logf("acceptance %.3f (anchor ≈ 0.44)", acc)
		if math.Abs(acc-0.44) > 0.05 {
			t.Errorf("acceptance %.3f, want 0.44 ± 0.05", acc)
		}
		return
	}
	g := gmmGridPosterior(x, 100.0/N, func(a, b float64) float64 {
		return -a*a/20 - b*b/2
	}, -3, 4, -5, 5, 141, 201)
	t.Logf("exact tempered posterior (grid): mean (%.4f, %.4f), variance (%.4f, %.4f); anchors (numpy seed-123 data) (0.489, 0.018), (0.201, 0.722)",
		g.mean[0], g.mean[1], g.variance[0], g.variance[1])
	// 8 chains of the paper's length, started at public draws from the
	// exact posterior (the paper starts from a DP-VI estimate): the
	// posterior is bimodal and one chain of 20,000 steps of size 0.1
	// switches modes too rarely for a reliable MCSE.
	const chains = 8
	r := rand.New(rand.NewPCG(99, 1))
	starts := make([][]float64, chains)
	for c := range starts {
		starts[c] = g.draw(r)
	}
	draws, acc := runChains(t, mk, starts, 11, 1000, 20000)
	t.Logf("acceptance %.3f (anchor ≈ 0.44)", acc)
	if math.Abs(acc-0.44) > 0.04 {
		t.Errorf("acceptance %.3f, want 0.44 ± 0.04", acc)
	}
	chainMoments(t, draws, chains, 2, 1000, g.mean[:], g.variance[:], 0.10)
}

// checkDrawMoments compares means (4 MCSE) and variances (4 MCSE + relTol
// of the variance) of n×d draws.
func checkDrawMoments(t *testing.T, draws []float64, d int, mean, variance []float64, relTol float64) {
	t.Helper()
	n := len(draws) / d
	y := make([]float64, n)
	for j := 0; j < d; j++ {
		for i := range y {
			y[i] = draws[i*d+j]
		}
		mu, se := dpBatchMCSE(y)
		for i := range y {
			v := draws[i*d+j] - mu
			y[i] = v * v
		}
		v, sev := dpBatchMCSE(y)
		t.Logf("θ%d: mean %.4f vs %.4f (MCSE %.4f, z %+.2f); variance %.4f vs %.4f (MCSE %.4f)", j+1, mu, mean[j], se, (mu-mean[j])/se, v, variance[j], sev)
		if math.Abs(mu-mean[j]) > 4*se {
			t.Errorf("θ%d: mean %.4f, want %.4f ± 4×%.4f", j+1, mu, mean[j], se)
		}
		if math.Abs(v-variance[j]) > 4*sev+relTol*variance[j] {
			t.Errorf("θ%d: variance %.4f, want %.4f ± (4×%.4f + %.0f%%)", j+1, v, variance[j], sev, 100*relTol)
		}
		if se > 0.25*math.Sqrt(variance[j]) {
			t.Errorf("θ%d: MCSE %.4f > 0.25 sd: chain too short or stuck", j+1, se)
		}
	}
}

// TestVCorrShipped checks the shipped correction mixtures: the recorded
// sup-norm CDF error is what the mixture achieves, it is no worse than
// the reference fits in testdata/vcorr (where one exists) by more than 50%,
// and draws from V + N(0, C) follow the logistic.
func TestVCorrShipped(t *testing.T) {
	ref := map[float64]string{1: "C1.0_K50.csv", 2: "C2.0_K50.csv"}
	for _, C := range VCorrCs() {
		m, err := vcorrFor(C)
		if err != nil {
			t.Fatal(err)
		}
		e := m.supCDFError(30, 1e-3)
		t.Logf("C = %v: sup |CDF error| %.3g (recorded %.3g)", C, e, m.supErr)
		if e > m.supErr {
			t.Errorf("C = %v: sup CDF error %.3g exceeds the recorded %.3g", C, e, m.supErr)
		}
		if f, ok := ref[C]; ok {
			rm := readVCorrCSV(t, "../../testdata/vcorr/"+f, C)
			re := rm.supCDFError(30, 1e-3)
			t.Logf("C = %v: reference fit %s: sup |CDF error| %.3g", C, f, re)
			if e > 1.5*re {
				t.Errorf("C = %v: shipped fit %.3g is worse than 1.5× the reference %.3g", C, e, re)
			}
		}
		// Sampling check: P(V + N(0,C) ≤ x) at a few x, 4σ binomial + fit error.
		r := dpStreams(uint64(C * 10))
		const S = 400000
		xs := []float64{-3, -1, 0, 0.5, 2}
		cnt := make([]int, len(xs))
		sd := math.Sqrt(C)
		for i := 0; i < S; i++ {
			v := m.draw(r.Noise) + sd*r.Noise.NormFloat64()
			for j, xv := range xs {
				if v <= xv {
					cnt[j]++
				}
			}
		}
		for j, xv := range xs {
			p := logistic(xv)
			got := float64(cnt[j]) / S
			if math.Abs(got-p) > 4*math.Sqrt(p*(1-p)/S)+m.supErr {
				t.Errorf("C = %v: P(V+N ≤ %v) = %.4f, logistic %.4f", C, xv, got, p)
			}
		}
	}
}

func readVCorrCSV(t *testing.T, path string, C float64) *vcorrMix {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tab := vcorrTable{C: C}
	for i, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if i == 0 {
			continue
		}
		f := strings.Split(ln, ",")
		var v [3]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(strings.TrimSpace(f[j]), 64); err != nil {
				t.Fatal(err)
			}
		}
		v[0] = math.Abs(v[0])
		tab.Comp = append(tab.Comp, v)
	}
	return newVCorrMix(tab)
}

// TestDPBarkerStepAllocs: no allocation per iteration, subsampled (Floyd's
// draw, the fused ratio pass) and full.
func TestDPBarkerStepAllocs(t *testing.T) {
	x := gmmData(5000, 3, 0)
	m := gmmModel(t, x, 0.02, 10, 1, 0)
	for _, cfg := range []DPBarkerConfig{{Step: 0.1, Batch: 100}, {Step: 0.1, Full: true, Clip: 0.01}} {
		k, err := NewDPBarker(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Init([]float64{0.5, 0}); err != nil {
			t.Fatal(err)
		}
		r := dpStreams(1)
		k.Step(r)
		if a := testing.AllocsPerRun(50, func() { k.Step(r) }); a != 0 {
			t.Errorf("full = %v: %.1f allocations per Step", cfg.Full, a)
		}
	}
}
