package report

import (
	"fmt"
	"math"
	"strings"
)

// CoverageRange is the smallest and largest share of 90% credible
// intervals that contained the true coefficient over the cells of a
// published simulation.
type CoverageRange struct{ Lo, Hi float64 }

// Measured calibration of noise-aware's 90% intervals, as published.
//
// Logistic regression: prior-predictive coverage in the utility experiment
// (`dpmcmc experiment utility --algorithms auto`, results/utility/
// utility_coverage.csv, docs/RESULTS.md "Utility"): the breast-cancer design
// at n = 569, 5,000 and 50,000 and ε = 0.5, 1, 3 and 8 (δ = 1e-5), 100
// replicates per cell (20 at n = 50,000), the true scaled coefficients
// drawn from N(0, s²) and the run given that prior. An exact posterior
// covers 0.90 in every cell. NoiseAwareClinicalCoverage is the range over
// the cells of s = 2.5 and s = 5 (effects of clinical size),
// NoiseAwareLargeEffectCoverage that of s = 10, where many replicates are
// near separation; the ...95 ranges are the same simulations' 95%
// intervals (2.5% and 97.5% quantiles), the ones the summary table shows.
// Each range contains the measured one widened to whole percents (Lo
// rounded down, Hi up), by at most two points more on either side (the
// 2026-11-29 grid with the shrunk path, Plan.ShrinkPath, and its
// backtracking: 0.817–0.942, 0.758–0.875, 0.900–0.975, 0.825–0.925; the
// runs before it 0.80–0.93, 0.77–0.90, 0.86–0.98, 0.84–0.96, so the lower
// ends keep room for the Monte Carlo spread between runs);
// TestCalibrationNoteMatchesResults fails when the published table and
// these ranges disagree.
//
// Linear and Poisson regression: coverage of 90% intervals at fixed known
// coefficients, 150 replicates per setting (core/noiseaware
// TestCalibrationLinearPoisson: linear n = 500, ε = 1 and n = 2,000,
// ε = 0.5; Poisson n = 500 to 20,000, ε = 0.5 to 8), and prior-predictive
// coverage of 90% and 95% intervals, 500 replicates per setting (200 at
// n = 20,000) (TestCalibrationPriorPredictiveLinearPoisson: linear n = 500
// and 2,000, ε = 0.5 to 3; Poisson n = 500 to 20,000, ε = 0.5 to 8, truths
// with sd 0.5 and 1 per half-range); each test checks its measurements
// against these ranges. Poisson's were 0.94–0.99, 0.83–0.87 and 0.90–0.92
// with two releases, measured only where the release says little; at
// n = 20,000, ε = 8 two releases covered 0.12 and 0.60
// (noiseaware.PoissonReleases).
var (
	NoiseAwareClinicalCoverage      = CoverageRange{0.80, 0.95}
	NoiseAwareLargeEffectCoverage   = CoverageRange{0.75, 0.88}
	NoiseAwareClinicalCoverage95    = CoverageRange{0.88, 0.98}
	NoiseAwareLargeEffectCoverage95 = CoverageRange{0.82, 0.94}
	NoiseAwareLinearCoverage        = CoverageRange{0.86, 0.90}
	NoiseAwarePoissonCoverage       = CoverageRange{0.92, 1.00}

	NoiseAwareLinearPriorPredictive    = CoverageRange{0.88, 0.92}
	NoiseAwareLinearPriorPredictive95  = CoverageRange{0.94, 0.96}
	NoiseAwarePoissonPriorPredictive   = CoverageRange{0.85, 0.92}
	NoiseAwarePoissonPriorPredictive95 = CoverageRange{0.91, 0.96}
)

// PercentRange is the measured range [lo, hi] widened to whole percents:
// Lo rounded down, Hi up (a share like 0.85 read back from a CSV or
// computed as 510/600 counts as 85%, not 84%).
func PercentRange(lo, hi float64) CoverageRange {
	const tol = 1e-9
	return CoverageRange{math.Floor(100*lo+tol) / 100, math.Ceil(100*hi-tol) / 100}
}

func pct(c CoverageRange) string {
	return fmt.Sprintf("%.0f–%.0f%%", 100*c.Lo, 100*c.Hi)
}

// CalibrationNote says, for a noise-aware run of a regression model, how
// often its 90% intervals contained the truth in the published
// simulations (see NoiseAwareClinicalCoverage), so that a reader can take
// the intervals at their measured rate and not only at their label; "" for
// other models. It is a constant of the method, not computed from any
// run's data.
func CalibrationNote(model string) string {
	switch strings.ToLower(strings.TrimSpace(model)) {
	case "logistic":
		return "Calibration (measured in simulation, docs/RESULTS.md \"Utility\"): on the breast-cancer design at 569 to 50,000 rows and ε = 0.5 to 8, with true coefficients drawn from the prior, noise-aware's 90% intervals contained " +
			pct(NoiseAwareClinicalCoverage) + " of true effects of clinical size (sd 2.5 or 5 log odds per half-range of a predictor's bound) and " +
			pct(NoiseAwareLargeEffectCoverage) + " of very large ones (sd 10, outcomes close to separation); its 95% intervals, the table's, contained " +
			pct(NoiseAwareClinicalCoverage95) + " and " + pct(NoiseAwareLargeEffectCoverage95) + ". With very large effects in the data, the intervals are somewhat narrower than their label says."
	case "poisson":
		return "Calibration (measured in simulation): with true coefficients drawn from the prior (sd 0.5 and 1 log rate ratio per half-range of a predictor's bound), 500 to 20,000 rows and ε = 0.5 to 8, noise-aware's 90% intervals contained " +
			pct(NoiseAwarePoissonPriorPredictive) + " of them and its 95% intervals, the table's, " + pct(NoiseAwarePoissonPriorPredictive95) +
			"; at fixed known coefficients its 90% intervals contained the truth " + pct(NoiseAwarePoissonCoverage) + " of the time (the upper end where the release says little and the prior carries the interval)."
	case "linear":
		return "Calibration (measured in simulation): with true coefficients drawn from the prior, 500 and 2,000 rows and ε = 0.5 to 3, noise-aware's 90% intervals contained " +
			pct(NoiseAwareLinearPriorPredictive) + " of them and its 95% intervals, the table's, " + pct(NoiseAwareLinearPriorPredictive95) +
			"; at fixed known coefficients its 90% intervals contained the truth " + pct(NoiseAwareLinearCoverage) + " of the time."
	}
	return ""
}
