package run

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/noiseaware"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// meanTable is n rows of (x1, x2) = (c1 + s1·z, c2 + s2·z) from a fixed seed.
func meanTable(t *testing.T, n int, c1, s1, c2, s2 float64) *dataset.Table {
	t.Helper()
	r := rand.New(rand.NewPCG(71, 72))
	x1, x2 := make([]float64, n), make([]float64, n)
	for i := range x1 {
		x1[i], x2[i] = c1+s1*r.NormFloat64(), c2+s2*r.NormFloat64()
	}
	tab, err := dataset.FromColumns([]string{"x1", "x2"}, [][]float64{x1, x2})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// The embed's two mean-statistic demos, with --algorithm auto in a private
// run: noise-aware is chosen (every data column has a public bound), the
// plan and the report spend the same ε within the budget, every chain
// samples from the one release, and the draws are the exact posterior
// given it (mean and sd within 4 Monte Carlo errors of the closed form).
func TestNoiseAwareMeanModels(t *testing.T) {
	for _, c := range []struct {
		name   string
		tab    *dataset.Table
		spec   model.Spec
		bounds map[string][2]float64
	}{
		{"gaussian", meanTable(t, 2000, 1, 1, -0.5, 1), model.Spec{Model: "gaussian"}, map[string][2]float64{"x1": {-4, 4}, "x2": {-4, 4}}},
		{"banana", meanTable(t, 5000, 0, math.Sqrt(2000), 3, 50), model.Spec{Model: "banana"}, map[string][2]float64{"x1": {-200, 200}, "x2": {-200, 200}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := &Config{Model: c.spec, Algorithm: Auto, Chains: 4, Seed: 3,
				Data: DataSpec{Bounds: c.bounds}, Privacy: &Budget{Epsilon: 2, Delta: 1e-6}}
			p, err := Prepare(cfg, c.tab)
			if err != nil {
				t.Fatal(err)
			}
			if p.Plan.Algorithm != NoiseAware || p.Plan.Warmup != 0 || p.Plan.Draws != defaultNoiseAwareDraws {
				t.Fatalf("auto planned %s with %d + %d", p.Plan.Algorithm, p.Plan.Warmup, p.Plan.Draws)
			}
			if !slices.Equal(p.Config.Model.Predictors, []string{"x1", "x2"}) && c.name == "gaussian" {
				t.Fatalf("the resolved config does not name the gaussian's columns: %v", p.Config.Model.Predictors)
			}
			if p.Plan.Epsilon > 2 || p.Plan.Epsilon < 1.999 {
				t.Fatalf("planned ε %v", p.Plan.Epsilon)
			}
			if f := p.Plan.Forecast; f == nil || !f.WillMix || f.MeanPreview == nil || len(f.MeanPreview.SDRatio) != 2 || !strings.Contains(f.Text, "× (θ1)") {
				t.Fatalf("forecast %+v", f)
			}
			key := rng.KeyFromBytes([32]byte{7})
			res, err := p.run(context.Background(), key, nil)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := p.Report(res)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(rep.Epsilon-p.Plan.Epsilon) > 1e-8 || rep.Mu <= 0 || rep.Settings["releases"] != 1 {
				t.Fatalf("report ε %v μ %v settings %v, plan ε %v", rep.Epsilon, rep.Mu, rep.Settings, p.Plan.Epsilon)
			}
			all := rep.Statement + " " + rep.Mechanism + " " + strings.Join(rep.Notes, " ")
			for _, want := range []string{"1 private release of noisy statistics", "the sums of the data columns x1, x2", "exact given the release", "no warmup"} {
				if !strings.Contains(all, want) {
					t.Errorf("report lacks %q:\n%s", want, all)
				}
			}
			// The release every chain used, and the posterior it gives.
			ch, err := p.NewChainSharedKey(0, key)
			if err != nil {
				t.Fatal(err)
			}
			k := ch.k.(*noiseaware.MeanKernel)
			rel := k.Released()
			ms := p.Model.(model.MeanStatistic)
			nv := make([]float64, 2)
			for j, iv := range ms.MeanBounds() {
				nsd := (iv.Hi - iv.Lo) / 2 * rep.Settings["noise_std_scaled_sums"] / float64(p.Model.N())
				nv[j] = nsd * nsd
			}
			mean, cov, err := ms.PosteriorGivenNoisyMeans(rel.S[0], nv)
			if err != nil {
				t.Fatal(err)
			}
			a := 0.0
			if b, ok := p.Model.(*model.Banana); ok {
				a = b.A()
			}
			for j := range 2 {
				var s, s2 float64
				cnt := 0
				for _, chain := range res.Chains {
					for i := 0; i+1 < len(chain.Draws); i += 2 {
						th := chain.Draws[i : i+2]
						y := th[j]
						if j == 1 {
							y += a * th[0] * th[0]
						}
						s += y
						s2 += y * y
						cnt++
					}
				}
				m := s / float64(cnt)
				sd := math.Sqrt(s2/float64(cnt) - m*m)
				want := math.Sqrt(cov[j*2+j])
				if math.Abs(m-mean[j]) > 4*want/math.Sqrt(float64(cnt)) || math.Abs(sd/want-1) > 4/math.Sqrt(2*float64(cnt)) {
					t.Errorf("y%d: draws' mean %.5g sd %.5g, posterior given the release %.5g, %.5g", j+1, m, sd, mean[j], want)
				}
			}
			// Another process's chain adopts the JSON of the release and
			// draws from the same posterior; a release of the wrong shape
			// is refused.
			b, err := json.Marshal(rel)
			if err != nil {
				t.Fatal(err)
			}
			ch2, err := p.NewChainFromRelease(1, rng.KeyFromBytes([32]byte{8}), b)
			if err != nil {
				t.Fatal(err)
			}
			if got := ch2.k.(*noiseaware.MeanKernel).Released(); !slices.Equal(got.S[0], rel.S[0]) {
				t.Fatalf("adopted %v, released %v", got.S[0], rel.S[0])
			}
			bad := strings.Replace(string(b), `"s":[[`, `"s":[[1,`, 1)
			if _, err := p.NewChainFromRelease(1, key, []byte(bad)); err == nil {
				t.Fatal("a release with three means adopted for two columns")
			}
		})
	}
}

// Without a bound on every data column noise-aware is refused with the
// column named, and auto keeps the per-iteration samplers; a plan without
// data needs the gaussian's columns named.
func TestNoiseAwareMeanNeedsBounds(t *testing.T) {
	tab := meanTable(t, 500, 1, 1, -0.5, 1)
	cfg := &Config{Model: model.Spec{Model: "gaussian"}, Algorithm: NoiseAware, Chains: 2, Seed: 1,
		Data: DataSpec{Bounds: map[string][2]float64{"x1": {-4, 4}}}, Privacy: &Budget{Epsilon: 1, Delta: 1e-6}}
	if _, err := Prepare(cfg, tab); err == nil || !strings.Contains(err.Error(), "give a bound for x2") {
		t.Fatalf("a column without a bound: %v", err)
	}
	cfg.Algorithm = Auto
	cfg.Settings.Clip = 5
	if p, err := Prepare(cfg, tab); err != nil || p.Plan.Algorithm == NoiseAware {
		t.Fatalf("auto without every bound: %v", err)
	}
	cfg.Settings.Clip = 0
	cfg.Algorithm = NoiseAware
	cfg.Data.Bounds["x2"] = [2]float64{-4, 4}
	if _, err := MakePlan(cfg, 500, 2); err == nil || !strings.Contains(err.Error(), "--predictors") {
		t.Fatalf("a gaussian plan without its columns: %v", err)
	}
	cfg.Model.Predictors = []string{"x1", "x2"}
	p, err := MakePlan(cfg, 500, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The scaled sums' sensitivity: Δ = 2√2 for two columns.
	pr, err := Prepare(cfg, tab)
	if err != nil {
		t.Fatal(err)
	}
	if p.Epsilon != pr.Plan.Epsilon || !slices.Equal(p.Notes, pr.Plan.Notes) {
		t.Fatalf("plan without data %v %v, with data %v %v", p.Epsilon, p.Notes, pr.Plan.Epsilon, pr.Plan.Notes)
	}
	if !strings.Contains(strings.Join(p.Notes, " "), "L2 sensitivity 2.828427125") {
		t.Fatalf("notes %v", p.Notes)
	}
}
