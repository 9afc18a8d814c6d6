package diag

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

// The normal quantile used by the rank normalisation is Wichura's AS241
// (the algorithm of R's qnorm); check it inverts Φ to near machine precision.
func TestNormalQuantilePrecision(t *testing.T) {
	for _, p := range []float64{1e-12, 1e-6, 1.0 / 8000, 0.01, 0.1, 0.3, 0.5, 0.7, 0.975, 1 - 1e-6} {
		z := mathext.NormalQuantile(p)
		back := 0.5 * math.Erfc(-z/math.Sqrt2)
		if rel := math.Abs(back-p) / min(p, 1-p); rel > 1e-13 {
			t.Errorf("p=%g: Φ(Φ⁻¹(p)) relative error %.3g", p, rel)
		}
	}
}

func TestQuantileType7(t *testing.T) {
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	// R: quantile(c(3,1,4,1,5,9,2,6), c(0, .1, .25, .5, .9, 1))
	want := []float64{1, 1, 1.75, 3.5, 6.9, 9}
	got := Quantiles(x, 0, 0.1, 0.25, 0.5, 0.9, 1)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("q%d = %v, want %v", i, got[i], want[i])
		}
	}
	if m := Median(x); m != 3.5 {
		t.Errorf("median %v", m)
	}
	lo, hi := CentralInterval(x, 0.5)
	if lo != 1.75 || hi != 5.25 {
		t.Errorf("interval %v %v", lo, hi)
	}
	if m, s := Mean([]float64{1, 2, 3, 4}), SD([]float64{1, 2, 3, 4}); m != 2.5 || math.Abs(s-math.Sqrt(5.0/3)) > 1e-15 {
		t.Errorf("mean %v sd %v", m, s)
	}
}

func iid(r *rand.Rand, m, n int) [][]float64 {
	x := make([][]float64, m)
	for c := range x {
		x[c] = make([]float64, n)
		for i := range x[c] {
			x[c][i] = r.NormFloat64()
		}
	}
	return x
}

func TestIIDAndStuckChains(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := iid(r, 4, 1000)
	if rh := Rhat(x); rh > 1.01 || rh < 0.99 {
		t.Errorf("iid R-hat %v", rh)
	}
	if e := ESSBulk(x); e < 3000 || e > 5000 {
		t.Errorf("iid bulk-ESS %v", e)
	}
	// One chain shifted by 3 sd: R-hat must flag it.
	for i := range x[0] {
		x[0][i] += 3
	}
	if rh := Rhat(x); rh < 1.1 {
		t.Errorf("shifted chain R-hat %v", rh)
	}
	// Constant and ragged input give NaN, as posterior gives NA.
	c := [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}
	if !math.IsNaN(Rhat(c)) || !math.IsNaN(ESSBulk(c)) || !math.IsNaN(ESSTail(c)) {
		t.Error("constant draws should give NaN")
	}
	if !math.IsNaN(Rhat([][]float64{{1, 2, 3}, {1, 2}})) {
		t.Error("ragged chains should give NaN")
	}
	if !math.IsNaN(ESSMean([][]float64{{1, math.NaN(), 3, 4}})) {
		t.Error("NaN draw should give NaN")
	}
	if !math.IsNaN(ESSMean(nil)) || !math.IsNaN(MCSEQuantile(nil, 0.5)) {
		t.Error("no draws should give NaN")
	}
}

func TestAntitheticCap(t *testing.T) {
	// Perfectly alternating chains: τ̂ is floored at 1/log10(S).
	x := [][]float64{make([]float64, 100), make([]float64, 100)}
	for c := range x {
		for i := range x[c] {
			x[c][i] = float64(i%2)*2 - 1 + 0.001*float64(i)
		}
	}
	e := ESSMean(x)
	if max := 200 * math.Log10(200); e > max+1e-9 {
		t.Errorf("ESS %v exceeds the cap %v", e, max)
	}
}

func TestSummaryAndVerdict(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const m, n = 4, 500
	chains := make([][][]float64, m)
	for c := range chains {
		chains[c] = make([][]float64, n)
		for i := range chains[c] {
			chains[c][i] = []float64{r.NormFloat64(), 5 + 2*r.NormFloat64()}
		}
	}
	rows := Summary([]string{"a", "b"}, chains)
	if len(rows) != 2 || rows[1].Name != "b" {
		t.Fatalf("rows %+v", rows)
	}
	b := rows[1]
	if math.Abs(b.Mean-5) > 0.2 || math.Abs(b.SD-2) > 0.2 || b.Q2_5 > b.Q5 || b.Q5 > b.Median || b.Median > b.Q95 || b.Q95 > b.Q97_5 {
		t.Errorf("summary b %+v", b)
	}
	// Summary must agree with the single-parameter functions.
	x := make([][]float64, m)
	for c := range x {
		x[c] = make([]float64, n)
		for i := range x[c] {
			x[c][i] = chains[c][i][1]
		}
	}
	if b.Rhat != Rhat(x) || b.ESSBulk != ESSBulk(x) || b.ESSTail != ESSTail(x) || b.MCSEMean != MCSEMean(x) || b.MCSESD != MCSESD(x) {
		t.Error("Summary disagrees with the single-parameter functions")
	}
	v := Assess(rows, m)
	if !v.Converged || !strings.HasPrefix(v.Message, "converged") {
		t.Errorf("verdict %+v", v)
	}
	// Two chains of 50: ESS threshold 200 cannot be met.
	short := [][][]float64{chains[0][:50], chains[1][:50]}
	v = Assess(Summary([]string{"a", "b"}, short), 2)
	if v.Converged || !strings.Contains(v.Message, "ESS") || !strings.Contains(v.Message, "at least 4") {
		t.Errorf("short verdict %+v", v)
	}
	// Non-finite draws are named with their count, apart from constant
	// draws (summary of a Stan CSV with a NaN: the review's "all NA, and a
	// generic reason").
	bad := [][][]float64{chains[0], append([][]float64(nil), chains[1]...)}
	bad[1][7] = []float64{math.NaN(), bad[1][7][1]}
	bad[1][9] = []float64{math.Inf(1), bad[1][9][1]}
	v = Assess(Summary([]string{"a", "b"}, bad), 2)
	if v.Converged || !strings.Contains(v.Message, "not finite numbers (NaN or ±Inf), so the diagnostics are undefined, for a (2 draws)") ||
		strings.Contains(v.Message, "constant draws") {
		t.Errorf("non-finite verdict %q", v.Message)
	}
	// NaN rows marshal as null, not an error.
	rows = Summary([]string{"k"}, [][][]float64{{{1}, {1}, {1}}})
	buf, err := json.Marshal(struct {
		R []ParamSummary
		V Verdict
	}{rows, Assess(rows, 1)})
	if err != nil || !strings.Contains(string(buf), `"rhat":null`) {
		t.Errorf("json %s %v", buf, err)
	}
}

func TestWorkspaceDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := iid(r, 4, 1000)
	var w Workspace
	w.Load(x)
	all := func() {
		w.Load(x)
		w.Rhat()
		w.ESSBulk()
		w.ESSTail()
		w.MCSEMean()
		w.MCSESD()
		w.MCSEQuantile(0.1)
	}
	all()
	if a := testing.AllocsPerRun(5, all); a > 0 {
		t.Errorf("%v allocations per run", a)
	}
}

func TestMMD(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	gen := func(n int, shift float64) [][]float64 {
		out := make([][]float64, n)
		for i := range out {
			out[i] = []float64{r.NormFloat64() + shift, r.NormFloat64()}
		}
		return out
	}
	a, b, c := gen(300, 0), gen(300, 0), gen(300, 1)
	same, s1 := MMD2Median(a, b)
	diff, _ := MMD2Median(a, c)
	if math.Abs(same) > 0.01 || diff < 0.05 || !(s1 > 1 && s1 < 3) {
		t.Errorf("MMD² same %v diff %v sigma %v", same, diff, s1)
	}
	// Hand check: x = {0, 1}, y = {0, 2}, σ = 1.
	x := [][]float64{{0}, {1}}
	y := [][]float64{{0}, {2}}
	k := func(d float64) float64 { return math.Exp(-d * d / 2) }
	want := k(1) + k(2) - (k(0)+k(2)+k(1)+k(1))/2
	if got := MMD2(x, y, 1); math.Abs(got-want) > 1e-15 {
		t.Errorf("MMD2 %v want %v", got, want)
	}
	// Median of the distances {0,1,2,1,1,2} is 1.
	if s := MedianBandwidth(x, y); s != 1 {
		t.Errorf("bandwidth %v", s)
	}
	if !math.IsNaN(MMD2(x[:1], y, 1)) {
		t.Error("one point should give NaN")
	}
}

func TestSymmetricKL2D(t *testing.T) {
	g := Grid2D{XMin: 0, XMax: 2, YMin: 0, YMax: 1, NX: 2, NY: 1}
	x := [][]float64{{0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}, {1.5, 0.5}} // P = (3/4, 1/4)
	y := [][]float64{{0.5, 0.5}, {1.5, 0.5}, {9, 9}, {-1, 0}}        // clamped: Q = (1/2, 1/2)
	want := 0.75*math.Log(1.5) + 0.25*math.Log(0.5) + 0.5*math.Log(0.5/0.75) + 0.5*math.Log(2)
	if got := SymmetricKL2D(x, y, g, 0); math.Abs(got-want) > 1e-15 {
		t.Errorf("KL %v want %v", got, want)
	}
	if got := SymmetricKL2D(x, x, g, 0.5); got != 0 {
		t.Errorf("KL(P,P) = %v", got)
	}
	z := [][]float64{{0.5, 0.5}}
	if got := SymmetricKL2D(z, [][]float64{{1.5, 0.5}}, g, 0); !math.IsInf(got, 1) {
		t.Errorf("disjoint raw KL %v", got)
	}
	if got := SymmetricKL2D(z, [][]float64{{1.5, 0.5}}, g, 1); math.IsInf(got, 0) || got <= 0 {
		t.Errorf("smoothed KL %v", got)
	}
}

func TestAcceptance(t *testing.T) {
	if a := AcceptanceRate([]bool{true, false, true, true}); a != 0.75 {
		t.Error(a)
	}
	ch := [][]float64{{0, 0}, {0, 0}, {1, 0}, {1, 0}, {2, 1}}
	if a := MoveRate(ch); a != 0.5 {
		t.Error(a)
	}
}

func TestShortChainsDoNotPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for m := 1; m <= 3; m++ {
		for n := 1; n <= 9; n++ {
			chains := make([][][]float64, m)
			for c := range chains {
				chains[c] = make([][]float64, n)
				for i := range chains[c] {
					chains[c][i] = []float64{r.NormFloat64(), float64(i % 2)}
				}
			}
			rows := Summary([]string{"a", "b"}, chains)
			_ = Assess(rows, m)
			x := [][]float64{}
			for c := range chains {
				col := []float64{}
				for i := range chains[c] {
					col = append(col, chains[c][i][0])
				}
				x = append(x, col)
			}
			for _, p := range []float64{0, 0.01, 0.5, 1} {
				_ = MCSEQuantile(x, p)
			}
			_ = ESSSD(x)
			_ = RhatBasic(x, true)
		}
	}
	// Missing parameter column: NaN row, no panic.
	if s := Summary([]string{"a", "b"}, [][][]float64{{{1}, {2}}}); !math.IsNaN(s[1].Mean) {
		t.Error("missing column should give NaN")
	}
}

func BenchmarkSummary(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	const m, n, p = 4, 5000, 10
	chains := make([][][]float64, m)
	for c := range chains {
		chains[c] = make([][]float64, n)
		for i := range chains[c] {
			row := make([]float64, p)
			for j := range row {
				row[j] = r.NormFloat64()
			}
			chains[c][i] = row
		}
	}
	names := make([]string, p)
	for j := range names {
		names[j] = "p" + string(rune('a'+j))
	}
	b.ResetTimer()
	for b.Loop() {
		Summary(names, chains)
	}
}

// MAD is posterior::mad (R's mad): 1.4826 · median |x − median(x)|. For 1..10 the
// median is 5.5, the absolute deviations 0.5 (twice), 1.5, …, 4.5, whose
// median is 2.5: MAD = 3.7065.
func TestSummaryMAD(t *testing.T) {
	x := make([][]float64, 10)
	for i := range x {
		x[i] = []float64{float64(i + 1)}
	}
	s := Summary([]string{"x"}, [][][]float64{x})[0]
	if math.Abs(s.MAD-1.4826*2.5) > 1e-12 || s.Median != 5.5 {
		t.Errorf("median %v, MAD %v", s.Median, s.MAD)
	}
}

// A chain that never moved is named, first among the problems, and the
// advice is not to run longer (a review: an HMC chain of a Poisson
// regression held its starting point for 3,000 iterations at acceptance
// 0.92, and the verdict said "Run longer chains").
func TestStuckChainsVerdict(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	chains := make([][][]float64, 4)
	for c := range chains {
		for range 500 {
			chains[c] = append(chains[c], []float64{r.NormFloat64(), r.NormFloat64()})
		}
	}
	if s := StuckChains(chains); len(s) != 0 {
		t.Errorf("moving chains called stuck: %v", s)
	}
	// Chain 2 sits at its start in both parameters; chain 4 in one only
	// (it moved).
	for i := range chains[1] {
		chains[1][i] = []float64{0.5, -1}
		chains[3][i][0] = 2
	}
	if s := StuckChains(chains); len(s) != 1 || s[0] != 2 {
		t.Fatalf("stuck %v, want [2]", s)
	}
	rows := Summary([]string{"a", "b"}, chains)
	v := Assess(rows, 4).WithStuck(StuckChains(chains))
	if v.Converged || !strings.HasPrefix(v.Problems[0], "chain 2 never moved") || !strings.HasSuffix(v.Message, StuckAdvice) || strings.Contains(v.Message, LongerChainsAdvice) {
		t.Errorf("verdict %+v", v)
	}
	// One chain: the note on the number of chains stays.
	one := chains[1:2]
	v = Assess(Summary([]string{"a", "b"}, one), 1).WithStuck(StuckChains(one))
	if !strings.Contains(v.Message, StuckAdvice+" Note: 1 chain(s)") || !strings.HasPrefix(v.Problems[0], "chain 1 never moved") {
		t.Errorf("one stuck chain: %q", v.Message)
	}
	if w := Assess(rows, 4); w.WithStuck(nil).Message != w.Message {
		t.Error("WithStuck(nil) changed the verdict")
	}
}
