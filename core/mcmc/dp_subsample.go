package mcmc

import (
	"fmt"
	"github.com/dpmcmc/dpmcmc/core/mathx"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// Minibatch machinery of the subsampled DP kernels (dp_barker.go,
// dp_penalty_sub.go, dp_sgld.go, dp_fastmh.go).
//
// # Which stream draws the minibatch
//
// Privacy amplification by subsampling holds only if the adversary does not
// know which rows were used: the amplified bound is for the mixture over
// batches. The public stream is seeded by the user's seed, which is part of
// the exported config, so batches drawn from it could be recomputed by
// anyone holding the export and the bound would not apply. The subsampled
// DP kernels therefore draw their batch indices from the noise stream
// (CSPRNG, never exported). The draws are still data-independent (their
// distribution does not depend on the data), as core/rng requires of
// public randomness; they are merely kept secret. Batch sizes that the
// accounting treats as known (TunaMH's B) stay on the public stream.

// batchSampler draws the fixed-size batches without replacement of the
// subsampled kernels: floydSampler when n fits its 32-bit draws (floydOK:
// every table that fits in memory), else worSampler. Both are exactly
// uniform over b-subsets; Floyd's touches O(b) memory instead of an
// n-entry permutation.
type batchSampler struct {
	fl  floydSampler
	wor worSampler
}

func newBatchSampler(n, b int) batchSampler {
	if floydOK(n) {
		return batchSampler{fl: newFloydSampler(n, b)}
	}
	return batchSampler{wor: newWORSampler(n)}
}

// draw returns a uniformly random b-subset of {0…n−1} (a view valid until
// the next draw).
func (s *batchSampler) draw(r *rand.Rand, b int) []int {
	if s.fl.out != nil {
		return s.fl.draw(r, b)
	}
	return s.wor.draw(r, b)
}

// worSampler draws fixed-size batches without replacement: a partial
// Fisher–Yates shuffle of a persistent permutation, O(b) per batch and no
// allocation. Whatever the permutation's current order, the first b entries
// after the shuffle are a uniformly random b-subset (in random order).
type worSampler struct {
	perm []int
}

func newWORSampler(n int) worSampler {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return worSampler{perm: p}
}

// draw returns a uniformly random b-subset of {0…n−1} (a view into the
// sampler's permutation, valid until the next draw).
func (s *worSampler) draw(r *rand.Rand, b int) []int {
	p := s.perm
	n := len(p)
	for j := 0; j < b; j++ {
		k := j + r.IntN(n-j)
		p[j], p[k] = p[k], p[j]
	}
	return p[:b]
}

// floydSampler draws fixed-size batches without replacement by Floyd's
// algorithm (Bentley & Floyd, "Programming pearls: a sample of brilliance",
// CACM 30(9), 1987): for j = n−b, …, n−1, draw t uniform on {0…j} and add t
// to the set S unless it is already there, in which case add j. By
// induction, after the step for j, S is a uniformly random
// (j−n+b+1)-subset of {0…j}: so the result is a uniformly random b-subset
// of {0…n−1}. The uniform integers are exact (Lemire's multiply-and-reject
// method on 32-bit halves of the noise stream's 64-bit words, the method of
// math/rand/v2's Uint32N; the number of words used depends only on the
// stream). Membership is an open-addressing hash set of at least 4b 32-bit
// slots (linear probing, load ≤ 1/4), cleared before each batch, which stays
// in L1/L2 for the batch sizes of the papers: unlike the partial
// Fisher–Yates shuffle of worSampler, a draw does not touch an n-entry
// permutation (one cache miss per index for n = 1e6). The indices come
// out in the order they were added (not sorted, not uniformly permuted);
// the kernels using it only sum over the batch.
type floydSampler struct {
	n     int
	out   []int
	slots []uint32 // index + 1; 0 = empty
	shift uint
}

func newFloydSampler(n, b int) floydSampler {
	bits := 2
	for 1<<bits < 4*b {
		bits++
	}
	return floydSampler{n: n, out: make([]int, b), slots: make([]uint32, 1<<bits), shift: uint(64 - bits)}
}

// floydOK reports whether floydSampler supports n rows (its slots and its
// integer draws are 32-bit).
func floydOK(n int) bool { return uint64(n) < 1<<32 }

// draw returns a uniformly random b-subset of {0…n−1} (b ≤ the b of
// newFloydSampler; a view valid until the next draw).
func (s *floydSampler) draw(r *rand.Rand, b int) []int {
	clear(s.slots)
	out := s.out[:b]
	var word uint64 // words32.uintN written out (it does not inline)
	half := false
	for k, j := 0, s.n-b; j < s.n; k, j = k+1, j+1 {
		m := uint32(j + 1) // t uniform on {0…j}
		var p uint64
		for {
			if !half {
				word = r.Uint64()
			}
			p = uint64(uint32(word)) * uint64(m)
			word >>= 32
			half = !half
			if lo := uint32(p); lo >= m || lo >= -m%m {
				break
			}
		}
		t := uint32(p >> 32)
		if !s.insert(t) {
			s.insert(uint32(j)) // j is new: every earlier pick is < j
			t = uint32(j)
		}
		out[k] = int(t)
	}
	return out
}

// words32 hands out a stream's 64-bit words as two 32-bit halves; uintN is
// the integer draw of floydSampler.draw (the reference its test compares
// with).
type words32 struct {
	r    *rand.Rand
	word uint64 // the unused upper half, when half is set
	half bool
}

// uintN is uniform on {0…m−1}, 0 < m < 2^32, exactly: Lemire's
// multiply-and-reject method (x·m/2^32 for a 32-bit x, rejecting the
// 2^32 mod m values of x that would make some results more likely).
func (w *words32) uintN(m uint32) uint32 {
	for {
		if !w.half {
			w.word = w.r.Uint64()
		}
		p := uint64(uint32(w.word)) * uint64(m)
		w.word >>= 32
		w.half = !w.half
		if lo := uint32(p); lo >= m || lo >= -m%m {
			return uint32(p >> 32)
		}
	}
}

// insert adds v to the set; false if it was already there.
func (s *floydSampler) insert(v uint32) bool {
	key := v + 1
	mask := uint64(len(s.slots) - 1)
	h := (uint64(v) * 0x9e3779b97f4a7c15) >> s.shift
	for {
		e := s.slots[h]
		if e == key {
			return false
		}
		if e == 0 {
			s.slots[h] = key
			return true
		}
		h = (h + 1) & mask
	}
}

// poissonSample writes into buf (cap ≥ n) the rows included by independent
// Bernoulli(q) coins, by geometric skips (O(qn) expected), and returns them.
func poissonSample(r *rand.Rand, n int, q float64, buf []int) []int {
	buf = buf[:0]
	if q >= 1 {
		for i := 0; i < n; i++ {
			buf = append(buf, i)
		}
		return buf
	}
	lq := math.Log1p(-q)
	i := -1
	for {
		u := 1 - r.Float64() // (0, 1]
		g := math.Floor(mathx.Log(u) / lq)
		if g >= float64(n) {
			return buf
		}
		i += 1 + int(g)
		if i >= n {
			return buf
		}
		buf = append(buf, i)
	}
}

// parseSampling maps the config string to the scheme ("" = without
// replacement, the papers' default for fixed-size batches).
func parseSampling(s string) (privacy.Sampling, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "without-replacement", "wor", "fixed", "shuffle":
		return privacy.WithoutReplacement, nil
	case "poisson":
		return privacy.Poisson, nil
	}
	return 0, fmt.Errorf("mcmc: unknown sampling %q (want poisson or without-replacement)", s)
}

// batchSum accumulates scalar terms clipped to ±c exactly: each term is
// rounded to an integer multiple of a power-of-two quantum with at most
// qbits bits, so that Σk and Σk² are exact in 64-bit integers for up to
// maxRows terms (maxRows·K² < 2^63). The clip bound is shrunk by
// κ = 2(maxRows+1)u as in dpnoise.go, so float64 conversions of the sums
// cannot push their sensitivity over the nominal bound.
type batchSum struct {
	qbits int
	kap   float64
}

func newBatchSum(maxRows int) batchSum {
	b := (62 - bits.Len(uint(maxRows))) / 2
	return batchSum{qbits: min(b, 26), kap: 2 * (float64(maxRows) + 1) * unitRoundoff}
}

// quantum returns the shrunk bound c' = c(1−κ), the quantum q = 2^(e−qbits)
// with c' < 2^e, and K = ⌊c'/q⌋.
func (bs *batchSum) quantum(c float64) (cp, q float64, kmax int64) {
	cp = c * (1 - bs.kap)
	_, e := math.Frexp(cp)
	q = math.Ldexp(1, e-bs.qbits)
	return cp, q, int64(cp / q)
}

// quantTerm clips t to ±c' and quantizes it to an integer k ∈ [−K, K]
// (t/q rounded; NaN → −K, counted as clipped).
func quantTerm(t, cp, inv float64, kmax int64) (k int64, clipped bool) {
	switch {
	case t > cp:
		return kmax, true
	case t >= -cp:
		k = roundInt(t * inv)
		return max(-kmax, min(kmax, k)), false
	}
	return -kmax, true // t < −c' or NaN
}

// planIterations returns the largest total number of iterations (all
// chains) whose ε at delta is at most eps, for a monotone accountant, by
// doubling then bisection; 0 if even one iteration is over budget.
func planIterations(eps, delta float64, account func(iters int) (privacy.Report, error)) (int, error) {
	if !(eps > 0) {
		return 0, fmt.Errorf("mcmc: ε = %v must be positive", eps)
	}
	ok := func(t int) (bool, error) {
		r, err := account(t)
		if err != nil {
			return false, err
		}
		return r.Epsilon <= eps, nil
	}
	if good, err := ok(1); err != nil || !good {
		return 0, err
	}
	lo, hi := 1, 2
	for {
		good, err := ok(hi)
		if err != nil {
			return 0, err
		}
		if !good {
			break
		}
		lo, hi = hi, hi*2
		if hi > 1<<40 {
			return lo, nil
		}
	}
	// ok(lo), !ok(hi)
	n := sort.Search(hi-lo, func(i int) bool {
		g, _ := ok(lo + i + 1)
		return !g
	})
	return lo + n, nil
}
