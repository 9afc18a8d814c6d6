package mcmc

import (
	"fmt"
	"github.com/dpmcmc/dpmcmc/core/privacy"
	"math"
)

// Config-level privacy costs. Each DP kernel's PrivacyParams is its
// config's Cost for the public n and the dimension d, so a run can be
// planned (iterations for a budget, or noise for a number of iterations)
// from public inputs alone, before any data is read, with exactly the
// numbers the kernel will report.

// Cost is the per-iteration cost of DP penalty: one log-likelihood-ratio
// release with μ = 1/(τ√n) + 2^−k (the grid inflation; see dpnoise.go).
func (c DPPenaltyConfig) Cost(n, d int) (PrivacyCost, error) {
	rel, bits, err := costCommon("dp-penalty", c.Relation, c.GridBits, n, d)
	if err != nil {
		return PrivacyCost{}, err
	}
	if err := checkPositive("dp-penalty tau", c.Tau); err != nil {
		return PrivacyCost{}, err
	}
	mu := 1 / (c.Tau * math.Sqrt(float64(n)))
	return PrivacyCost{Relation: rel, Gaussian: []GaussianRelease{{
		What: "log-likelihood ratio", Count: 1, Coords: 1, NominalMu: mu, Mu: mu + GridInflation(1, bits),
	}}}, nil
}

// Cost is the per-iteration cost of DP-HMC (dp-hmc.txt Thm 3.5): L+1
// gradient releases with μ_g = 1/(τ_g√n) + √d·2^−k and one
// log-likelihood-ratio release with μ_l = 1/(τ_l√n) + 2^−k.
func (c DPHMCConfig) Cost(n, d int) (PrivacyCost, error) {
	rel, bits, err := costCommon("dp-hmc", c.Relation, c.GridBits, n, d)
	if err != nil {
		return PrivacyCost{}, err
	}
	if c.Leapfrog < 1 {
		return PrivacyCost{}, fmt.Errorf("mcmc: dp-hmc leapfrog = %d must be at least 1", c.Leapfrog)
	}
	if err := checkPositive("dp-hmc tau", c.Tau); err != nil {
		return PrivacyCost{}, err
	}
	if err := checkPositive("dp-hmc tau_grad", c.TauGrad); err != nil {
		return PrivacyCost{}, err
	}
	sqrtN := math.Sqrt(float64(n))
	muL := 1 / (c.Tau * sqrtN)
	muG := 1 / (c.TauGrad * sqrtN)
	return PrivacyCost{Relation: rel, Gaussian: []GaussianRelease{
		{What: "log-likelihood ratio", Count: 1, Coords: 1, NominalMu: muL, Mu: muL + GridInflation(1, bits)},
		{What: "gradient", Count: c.Leapfrog + 1, Coords: d, NominalMu: muG, Mu: muG + GridInflation(d, bits)},
	}}, nil
}

// Cost is the per-iteration cost of DP-MALA (thesis Alg. 3, Lemmas 2–3):
// the proposal drift with μ_g = σ_p·f·G/(2√a) + √d·2^−k (f = 2 for
// replace-one, 1 for add/remove) and the log acceptance ratio with
// μ_l = 1/√τ + 2^−k. σ_p is the configured Step, the largest step the kernel
// can use (its adaptation only shrinks it).
func (c DPMALAConfig) Cost(n, d int) (PrivacyCost, error) {
	rel, bits, err := costCommon("dp-mala", c.Relation, c.GridBits, n, d)
	if err != nil {
		return PrivacyCost{}, err
	}
	a := c.A
	if a == 0 {
		a = 1
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"step", c.Step}, {"a", a}, {"grad_clip", c.GradClip}, {"tau", c.Tau}} {
		if err := checkPositive("dp-mala "+v.name, v.x); err != nil {
			return PrivacyCost{}, err
		}
	}
	muG := c.Step * rel.SensitivityFactor() * c.GradClip / (2 * math.Sqrt(a))
	muL := 1 / math.Sqrt(c.Tau)
	return PrivacyCost{Relation: rel, Gaussian: []GaussianRelease{
		{What: "proposal (drift)", Count: 1, Coords: d, NominalMu: muG, Mu: muG + GridInflation(d, bits)},
		{What: "log acceptance ratio", Count: 1, Coords: 1, NominalMu: muL, Mu: muL + GridInflation(1, bits)},
	}}, nil
}

func costCommon(name, relation string, gb, n, d int) (rel privacy.Relation, bits int, err error) {
	if n < 1 || d < 1 {
		return 0, 0, fmt.Errorf("mcmc: %s cost needs n ≥ 1 and d ≥ 1 (got n = %d, d = %d)", name, n, d)
	}
	if rel, err = parseRelation(relation); err != nil {
		return 0, 0, err
	}
	bits, err = gridBits(gb)
	return rel, bits, err
}
