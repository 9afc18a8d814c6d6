package run

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

func prepareBC5(t *testing.T, cfg *Config) *Prepared {
	t.Helper()
	f, err := os.Open("../../testdata/logistic/bc5_design_std.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, _, err := LoadData(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(cfg, tab)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func smallConfig(alg string) *Config {
	return &Config{
		Model:     model.Spec{Model: "logistic", Outcome: "y", Predictors: []string{"mean_radius", "mean_texture"}},
		Algorithm: alg, Chains: 2, Warmup: 50, Draws: 70, Seed: 9,
	}
}

// Advancing a chain in slices of any size gives the same draws as one slice.
func TestChainSlicesAreInvisible(t *testing.T) {
	for _, alg := range []string{"mh", "hmc", "mala", "barker"} {
		p := prepareBC5(t, smallConfig(alg))
		key := rng.KeyFromBytes([32]byte{7})
		whole, err := p.NewChain(1, key)
		if err != nil {
			t.Fatal(err)
		}
		all := slices.Clone(whole.Advance(1 << 20))
		sliced, _ := p.NewChain(1, key)
		var got []float64
		for !sliced.Finished() {
			got = append(got, sliced.Advance(7)...)
		}
		if !slices.Equal(all, got) || len(all) != 120*3 {
			t.Fatalf("%s: sliced draws differ (len %d vs %d)", alg, len(got), len(all))
		}
		if r := sliced.Result(); r.Iterations != 120 || len(r.Warmup) != 50*3 || len(r.Draws) != 70*3 {
			t.Fatalf("%s: result shape %d iterations, %d warmup, %d draws", alg, r.Iterations, len(r.Warmup), len(r.Draws))
		}
	}
}

// A non-private run's draws follow from its seed alone (as in Stan): two
// noise keys give the same draws, and another seed other draws. A private
// run's accept decisions and noise do not follow from the seed: two keys
// give different draws at the same seed.
func TestNonPrivateRunReproducibleBySeed(t *testing.T) {
	draws := func(alg string, seed uint64, key byte, private bool) []float64 {
		cfg := smallConfig(alg)
		cfg.Seed = seed
		if private {
			cfg.Data.Bounds = map[string][2]float64{"mean_radius": {-3, 3}, "mean_texture": {-3, 3}}
			cfg.Privacy = &Budget{Epsilon: 2, Delta: 1e-5}
		}
		p := prepareBC5(t, cfg)
		ch, err := p.NewChain(0, rng.KeyFromBytes([32]byte{key}))
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(ch.Advance(1 << 20))
	}
	for _, alg := range []string{"mh", "hmc", "mala", "barker"} {
		a, b, c := draws(alg, 9, 1, false), draws(alg, 9, 2, false), draws(alg, 10, 1, false)
		if !slices.Equal(a, b) {
			t.Errorf("%s: the same seed with two keys gives different draws", alg)
		}
		if slices.Equal(a, c) {
			t.Errorf("%s: two seeds give the same draws", alg)
		}
	}
	if a, b := draws("dp-penalty", 9, 1, true), draws("dp-penalty", 9, 2, true); slices.Equal(a, b) {
		t.Error("dp-penalty: two keys give the same draws: its noise follows from the public seed")
	}
}

// A cancelled run keeps what ran and counts exactly those iterations.
func TestCancelCountsWhatRan(t *testing.T) {
	cfg := smallConfig("mh")
	cfg.Warmup, cfg.Draws, cfg.ProgressEvery = 1000, 100000, 50
	p := prepareBC5(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	seen := 0
	res, err := p.run(ctx, testKey, func(pr Progress) {
		seen += len(pr.Draws) / 3
		if pr.Iteration >= 500 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled {
		t.Fatal("run not marked cancelled")
	}
	total := 0
	for _, ch := range res.Chains {
		if ch.Iterations*3 != len(ch.Warmup)+len(ch.Draws) {
			t.Fatalf("chain counts %d iterations but holds %d positions", ch.Iterations, (len(ch.Warmup)+len(ch.Draws))/3)
		}
		total += ch.Iterations
	}
	if total != res.Iterations() || total >= 2*101000 || total < 500 {
		t.Fatalf("iterations %d (sum %d)", res.Iterations(), total)
	}
	if seen != total {
		t.Fatalf("progress reported %d iterations, %d ran", seen, total)
	}
}

// testKey fixes the noise key of runs in tests, so that statistical tests
// are deterministic.
var testKey = rng.KeyFromBytes([32]byte{4, 2})

func openBC5() (*os.File, error) { return os.Open("../../testdata/logistic/bc5_design_std.csv") }

// runAndReport runs p with the test key and returns its result and privacy
// report, failing the test on an error.
func runAndReport(t *testing.T, p *Prepared) (*Result, *PrivacyReport) {
	t.Helper()
	res, err := p.run(context.Background(), testKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Report(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, rep
}
