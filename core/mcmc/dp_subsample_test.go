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
	// the generation stamps wrap: the set is cleared and draws stay valid
	r := rand.New(rand.NewChaCha8([32]byte{1}))
	fs := newFloydSampler(10, 3)
	fs.gen = 1<<32 - 3
	checkWOR(t, "floyd (stamp wrap)", 10, 3, 30_000, func() []int { return fs.draw(r, 3) })
}

// Floyd's sampler at the paper's size: distinct indices in range, the
// noise stream advanced by exactly b draws, and no allocation.
func TestFloydLarge(t *testing.T) {
	const n, b = 1_000_000, 1000
	fs := newFloydSampler(n, b)
	r := rand.New(rand.NewChaCha8([32]byte{9}))
	ref := rand.New(rand.NewChaCha8([32]byte{9}))
	seen := map[int]bool{}
	for range 20 {
		seen = map[int]bool{}
		for _, i := range fs.draw(r, b) {
			if i < 0 || i >= n || seen[i] {
				t.Fatalf("index %d out of range or repeated", i)
			}
			seen[i] = true
		}
		for j := n - b; j < n; j++ {
			ref.IntN(j + 1)
		}
		if r.Uint64() != ref.Uint64() {
			t.Fatal("draw did not consume exactly b IntN draws")
		}
	}
	if a := testing.AllocsPerRun(100, func() { fs.draw(r, b) }); a != 0 {
		t.Fatalf("draw allocates %v", a)
	}
}
