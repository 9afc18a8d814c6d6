package audit

import (
	"math/rand/v2"
	"testing"

	"github.com/dpmcmc/dpmcmc/core/dataset"
	"github.com/dpmcmc/dpmcmc/core/mcmc"
	"github.com/dpmcmc/dpmcmc/core/model"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"github.com/dpmcmc/dpmcmc/core/rng"
)

// The banana's dp-map start by its mean statistic (mcmc.DPInit with
// MeanColumns) audited as a black box: 4 rows, both columns bounded to
// [−1, 1], var1 = var2 so that the start's y = (θ1, θ2 + aθ1²) is the
// same multiple of the released column sums in both coordinates. The
// differing row is (−1, −1) in D and (1, 1) in D′, which moves both sums
// by 2 = 2h: the L2 sensitivity 2√2 the release assumes. The statistic is
// y1 + y2 (the sufficient direction). The claim is the plan's ε of one
// Gaussian release with μ = Mu plus its grid inflation. Seeded bug: the
// add/remove sensitivity (half) on these replace-one neighbours.
func TestAuditDPInitMeanStatistic(t *testing.T) {
	const delta, mu = 1e-5, 0.5
	build := func(t *testing.T, row float64) model.Model {
		tab, err := dataset.FromColumns([]string{"x1", "x2"}, [][]float64{{row, 0.3, -0.6, 0.1}, {row, -0.2, 0.5, 0.9}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tab.ApplyBounds(map[string]dataset.Bound{"x1": {Lo: -1, Hi: 1}, "x2": {Lo: -1, Hi: 1}}); err != nil {
			t.Fatal(err)
		}
		m, err := model.Build(model.Spec{Model: "banana", Options: map[string]string{"var1": "1", "var2": "1", "a": "2"}}, tab)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	pair := [2]model.Model{build(t, -1), build(t, 1)}
	a := pair[0].(*model.Banana).A()
	for _, c := range []struct {
		variant, relation string
		broken            bool
	}{
		{"correct", "replace", false},
		{"sensitivity-halved", "add-remove", true},
	} {
		t.Run(c.variant, func(t *testing.T) {
			t.Parallel()
			cfg := mcmc.DPInitConfig{Mu: mu, MeanColumns: 2, Relation: c.relation}
			cost, err := mcmc.DPInitConfig{Mu: mu, MeanColumns: 2}.Cost(2)
			if err != nil {
				t.Fatal(err)
			}
			claim, err := privacy.TightGaussian{Mu: cost.StepMu()}.Epsilon(delta)
			if err != nil {
				t.Fatal(err)
			}
			mech := func(nb int, noise *rand.Rand) ([]float64, error) {
				r := rng.Streams{Public: rand.New(rand.NewPCG(1, 2)), Noise: noise}
				th, err := mcmc.DPInit(pair[nb], cfg, []float64{0, 0}, r)
				if err != nil {
					return nil, err
				}
				return []float64{th[0], th[1] + a*th[0]*th[0]}, nil
			}
			runAudit(t, auditCase{kernel: "dp-map (mean statistic)", variant: c.variant, mech: mech, claim: claim, delta: delta,
				stats: []Statistic{{Name: "y1 + y2", F: func(o []float64) float64 { return o[0] + o[1] }}}, broken: c.broken, trials: 1000000})
		})
	}
}
