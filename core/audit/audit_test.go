package audit

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/privacy"
)

// The full audit (make audit) runs 10× more trials than the default, which
// is sized for CI (about 27 CPU-seconds for the package). -short does not
// shrink it further: at fewer trials some seeded bugs (the clip removed in
// a 5-step chain) can no longer be told apart from their claim.
var full = flag.Bool("audit.full", false, "run the full privacy audit (make audit)")

// trials returns the number of runs per dataset for an audit whose default
// (CI) size is n.
func trials(n int) int {
	if *full {
		return 10 * n
	}
	return n
}

func TestRegIncBeta(t *testing.T) {
	for _, c := range []struct{ x, a, b, want float64 }{
		{0.5, 2, 3, 11.0 / 16}, // 1 − (1−x)^3(1+3x) ... closed form
		{0.3, 1, 1, 0.3},
		{0.2, 1, 5, 1 - math.Pow(0.8, 5)},
		{0.9, 5, 1, math.Pow(0.9, 5)},
	} {
		if got := RegIncBeta(c.x, c.a, c.b); math.Abs(got-c.want) > 1e-13 {
			t.Errorf("I_%v(%v, %v) = %.15g, want %.15g", c.x, c.a, c.b, got, c.want)
		}
	}
}

func TestClopperPearson(t *testing.T) {
	// R: binom.test(5, 100)$conf.int = [0.01643, 0.11284]; binom.test(0, 10)
	// upper 0.30850; binom.test(300, 300000) = [0.000889826, 0.001119628].
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{5, 100, 0.016431, 0.112844}, {0, 10, 0, 0.308497}, {300, 300000, 0.000889826, 0.001119628}} {
		lo := ClopperPearsonLower(c.k, c.n, 0.025)
		hi := ClopperPearsonUpper(c.k, c.n, 0.025)
		if math.Abs(lo-c.lo) > 1e-6*math.Max(1, c.lo*1e3) || math.Abs(hi-c.hi) > 1e-6*math.Max(1, c.hi*1e3) {
			t.Errorf("CP(%d/%d, 95%%) = [%.9f, %.9f], want [%.9f, %.9f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if ClopperPearsonUpper(10, 10, 0.01) != 1 || ClopperPearsonLower(0, 10, 0.01) != 0 {
		t.Error("edge cases")
	}
	// Coverage: the one-sided 90% bounds cover p in ≥ 90% of 2000 binomial
	// experiments (fixed seed).
	r := rand.New(rand.NewPCG(1, 2))
	const p, n = 0.03, 500
	miss := [2]int{}
	for range 2000 {
		k := 0
		for range n {
			if r.Float64() < p {
				k++
			}
		}
		if ClopperPearsonLower(k, n, 0.1) > p {
			miss[0]++
		}
		if ClopperPearsonUpper(k, n, 0.1) < p {
			miss[1]++
		}
	}
	if miss[0] > 200 || miss[1] > 200 {
		t.Errorf("coverage misses %v of 2000 (want ≤ 200 each)", miss)
	}
}

// gaussianMech releases f(D) + N(0, 1) with f(D) = 0, f(D′) = mu: the
// Gaussian mechanism with GDP parameter mu, whose tight ε(δ) is known.
func gaussianMech(mu float64) Mechanism {
	return func(nb int, noise *rand.Rand) ([]float64, error) {
		return []float64{float64(nb)*mu + noise.NormFloat64()}, nil
	}
}

// The auditor is sound and has power on the mechanism whose privacy curve
// is known exactly: its lower bound stays below the true ε and comes
// reasonably close to it; a mechanism with twice the μ the claim assumes
// is flagged.
func TestAuditGaussianMechanism(t *testing.T) {
	const delta = 1e-3
	n := trials(100000)
	for _, c := range []struct {
		trueMu, claimMu float64
		violation       bool
	}{{1, 1, false}, {2, 1, true}} {
		claim, err := privacy.TightGaussian{Mu: c.claimMu}.Epsilon(delta)
		if err != nil {
			t.Fatal(err)
		}
		truth, _ := privacy.TightGaussian{Mu: c.trueMu}.Epsilon(delta)
		res, err := Run(gaussianMech(c.trueMu), claim, Options{Trials: n, Delta: delta, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("μ = %v (claim μ = %v, true ε = %.3f): %v", c.trueMu, c.claimMu, truth, res)
		if res.EpsLB > truth {
			t.Errorf("lower bound %.3f above the true ε %.3f", res.EpsLB, truth)
		}
		if res.Violation() != c.violation {
			t.Errorf("violation = %v, want %v", res.Violation(), c.violation)
		}
		if !c.violation && res.EpsLB < 0.5*truth {
			t.Errorf("weak audit: ε_lb = %.3f, true ε = %.3f", res.EpsLB, truth)
		}
	}
}
