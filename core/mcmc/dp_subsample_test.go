package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// chi2Crit is the upper z-sigma critical value of a χ² with df degrees of
// freedom (Wilson–Hilferty; z = 4.5: p ≈ 3e−6).
func chi2Crit(df float64) float64 {
	const z = 4.5
	a := 2 / (9 * df)
	return df * math.Pow(1-a+z*math.Sqrt(a), 3)
}

// checkWOR draws T batches of b from {0…n−1} and checks that every batch
// is a set of b distinct indices in range and that the batches are uniform
// over the C(n, b) subsets: χ² over the subsets (exact multinomial), and
// over the per-index and per-pair inclusion counts (each normalized by its
// 1 − p, as b indices or b(b−1)/2 pairs are counted per draw).
func checkWOR(t *testing.T, name string, n, b, T int, draw func() []int) {
	t.Helper()
	subset := map[uint64]int{}
	inc := make([]float64, n)
	pair := make([]float64, n*n)
	seen := make([]bool, n)
	for range T {
		rows := draw()
		if len(rows) != b {
			t.Fatalf("%s: %d rows, want %d", name, len(rows), b)
		}
		var key uint64
		for _, i := range rows {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("%s: batch %v out of range or repeated", name, rows)
			}
			seen[i] = true
			key |= 1 << i
			inc[i]++
		}
		for _, i := range rows {
			seen[i] = false
			for _, j := range rows {
				if i < j {
					pair[i*n+j]++
				}
			}
		}
		subset[key]++
	}
	nsub := 1.0 // C(n, b)
	for k := 0; k < b; k++ {
		nsub = nsub * float64(n-k) / float64(k+1)
	}
	if float64(len(subset)) != nsub {
		t.Fatalf("%s: %d distinct subsets drawn, want all %v", name, len(subset), nsub)
	}
	e := float64(T) / nsub
	x2 := 0.0
	for _, c := range subset {
		x2 += (float64(c) - e) * (float64(c) - e) / e
	}
	x2i, x2p, np := 0.0, 0.0, n*(n-1)/2
	if b < n { // otherwise every index and pair is in every batch
		p1 := float64(b) / float64(n)
		e1 := float64(T) * p1
		for _, c := range inc {
			x2i += (c - e1) * (c - e1) / (e1 * (1 - p1))
		}
		if b >= 2 {
			p2 := float64(b*(b-1)) / float64(n*(n-1))
			e2 := float64(T) * p2
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					c := pair[i*n+j]
					x2p += (c - e2) * (c - e2) / (e2 * (1 - p2))
				}
			}
		}
	}
	t.Logf("%s n=%d b=%d: χ² subsets %.1f (df %v), indices %.1f (df %d), pairs %.1f (df %d)", name, n, b, x2, nsub-1, x2i, n-1, x2p, np-1)
	if x2 > chi2Crit(nsub-1) || x2i > chi2Crit(float64(n-1)) || x2p > chi2Crit(float64(np-1)) {
		t.Fatalf("%s: not uniform: χ² %.1f/%.1f, %.1f/%.1f, %.1f/%.1f", name, x2, chi2Crit(nsub-1),
			x2i, chi2Crit(float64(n-1)), x2p, chi2Crit(float64(np-1)))
	}
}

// The minibatch draws are uniform over the b-subsets (the subsampling
// amplification assumes it): Floyd's sampler (dp-barker) and the partial
// Fisher–Yates shuffle (the other subsampled kernels), at fixed seeds.
func TestWORUniform(t *testing.T) {
	T := 240_000
	if testing.Short() {
		T = 60_000
	}
	for _, c := range []struct{ n, b int }{{10, 3}, {10, 1}, {10, 9}, {10, 10}, {5, 2}} {
		r := rand.New(rand.NewChaCha8([32]byte{byte(c.n), byte(c.b)}))
		fs := newFloydSampler(c.n, c.b)
		checkWOR(t, "floyd", c.n, c.b, T, func() []int { return fs.draw(r, c.b) })
		w := newWORSampler(c.n)
		checkWOR(t, "fisher-yates", c.n, c.b, T, func() []int { return w.draw(r, c.b) })
	}
}

// Floyd's sampler at the paper's size and near its 32-bit limit (where
// Lemire's method rejects up to 30% of the words): distinct indices in
// range, and no allocation.
func TestFloydLarge(t *testing.T) {
	for _, c := range []struct{ n, b int }{{1_000_000, 1000}, {3 << 30, 200}, {1<<32 - 1, 50}} {
		if !floydOK(c.n) {
			t.Fatalf("floydOK(%d) = false", c.n)
		}
		fs := newFloydSampler(c.n, c.b)
		r := rand.New(rand.NewChaCha8([32]byte{9}))
		hi := 0
		for range 50 {
			seen := map[int]bool{}
			for _, i := range fs.draw(r, c.b) {
				if i < 0 || i >= c.n || seen[i] {
					t.Fatalf("n = %d: index %d out of range or repeated", c.n, i)
				}
				seen[i] = true
				hi = max(hi, i)
			}
		}
		if hi < c.n/2 {
			t.Fatalf("n = %d: largest index drawn %d", c.n, hi)
		}
		if a := testing.AllocsPerRun(20, func() { fs.draw(r, c.b) }); a != 0 {
			t.Fatalf("draw allocates %v", a)
		}
	}
	if floydOK(1 << 32) {
		t.Fatal("floydOK(2^32) = true")
	}
}

// words32.uintN is exactly uniform, including where Lemire's rejection
// matters: m = 3·2^30 (2^32 mod m = 2^30: without the rejection, one
// residue mod 3 would have probability 1/2), and small m.
func TestUintNUniform(t *testing.T) {
	w := words32{r: rand.New(rand.NewChaCha8([32]byte{4}))}
	const T = 300_000
	for _, c := range []struct{ m, mod uint32 }{{3 << 30, 3}, {10, 10}, {7, 7}, {1 << 31, 16}, {1<<32 - 1, 5}} {
		cnt := make([]float64, c.mod)
		for range T {
			v := w.uintN(c.m)
			if v >= c.m {
				t.Fatalf("uintN(%d) = %d", c.m, v)
			}
			cnt[v%c.mod]++
		}
		// the residues are equally likely when mod divides m; for
		// m = 2^32 − 1 (= 3·5·17·257·65537) too
		e := float64(T) / float64(c.mod)
		x2 := 0.0
		for _, o := range cnt {
			x2 += (o - e) * (o - e) / e
		}
		t.Logf("m = %d: χ² of v mod %d = %.1f (df %d)", c.m, c.mod, x2, c.mod-1)
		if x2 > chi2Crit(float64(c.mod-1)) {
			t.Fatalf("uintN(%d) not uniform mod %d: χ² %.1f", c.m, c.mod, x2)
		}
	}
}

// floydSampler.draw is Floyd's algorithm on words32.uintN with a plain set:
// the same indices, batch after batch, from the same stream (including
// near 2^32, where draws are rejected).
func TestFloydMatchesReference(t *testing.T) {
	for _, c := range []struct{ n, b int }{{10, 3}, {1000, 999}, {1_000_000, 1000}, {3 << 30, 100}} {
		fs := newFloydSampler(c.n, c.b)
		r1 := rand.New(rand.NewChaCha8([32]byte{5}))
		r2 := rand.New(rand.NewChaCha8([32]byte{5}))
		for range 20 {
			got := fs.draw(r1, c.b)
			w := words32{r: r2}
			set := map[int]bool{}
			for k, j := 0, c.n-c.b; j < c.n; k, j = k+1, j+1 {
				v := int(w.uintN(uint32(j + 1)))
				if set[v] {
					v = j
				}
				set[v] = true
				if got[k] != v {
					t.Fatalf("n = %d, b = %d: index %d is %d, reference %d", c.n, c.b, k, got[k], v)
				}
			}
		}
	}
}
