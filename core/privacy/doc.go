// Package privacy computes how much privacy a run of a differentially
// private sampler has spent, and calibrates noise to a budget.
//
// # The guarantee, for a statistician
//
// A randomised procedure M is (ε, δ)-differentially private if, for any two
// datasets D and D′ that are neighbours and any set S of outputs,
// P(M(D) ∈ S) ≤ e^ε P(M(D′) ∈ S) + δ. Think of a hypothesis test of "row i is
// in the data" against "it is not": no test can have power much larger than
// its size (power ≤ e^ε·size + δ). Smaller ε and δ mean stronger protection;
// δ should be far below 1/n.
//
// Neighbours are defined by a Relation, which must be stated:
//
//   - AddRemove: D′ is D with one row added or removed (n itself is private).
//     A sum of per-row terms clipped to norm C changes by at most C.
//   - Replace: D′ is D with one row's values changed (n is public). This is
//     the papers' default. A clipped sum changes by at most 2C.
//
// Everything a sampler releases is a noisy function of the data; the
// accountant adds up the privacy cost of every release of every chain
// (warm-up included) and reports ε at the chosen δ.
//
// # Accountants and when to use each
//
// TightGaussian (Gaussian-DP, Dong–Roth–Su; Sommer et al. 2019). For any
// number of releases of Gaussian noise with known sensitivity — DP penalty,
// DP-HMC, DP-MALA — the total is summarised by one number μ = √Σ(Δᵢ/σᵢ)² and
// δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) is exact. It is the tightest
// possible and the default wherever it applies. Assumes every release is a
// Gaussian mechanism on the full data (no subsampling).
//
// RDP (Rényi DP, Mironov 2017). Costs are curves ε(α) over orders α > 1 that
// add up under composition, then are converted to (ε, δ) with the improved
// conversion (Balle et al. 2020) or the classic one (to match papers). It
// handles subsampling: Poisson sampling (each row in the minibatch
// independently with probability q) exactly (Mironov, Talwar & Zhang 2019),
// and fixed-size batches drawn without replacement with the bound of Wang,
// Balle & Kasiviswanathan 2019, which also gives DP Barker (Heikkilä et al.
// 2019). RDP is valid but not tight; the order grid only affects slack.
//
// PLD (privacy loss distributions, Koskela et al. 2020). For many
// repetitions of one subsampled Gaussian (DP-SGLD, SGNHT, SGHMC), the
// distribution of the log-likelihood ratio between the outputs on
// neighbouring data is discretised and convolved by FFT. It is nearly
// tight and gives the smallest ε for subsampled Gaussians; its discretisation
// is pessimistic by construction (see PLD). It checks its own numerical error
// and fails rather than under-report, after which RDP is used and the report
// says so.
//
// zCDP (Bun & Steinke 2016). ρ-zCDP is the RDP curve ρα; kept for papers that
// report it (the DP-MALA thesis). Never tighter than TightGaussian.
//
// Approximate-DP composition. When each step is only known to be (ε, δ)-DP
// (DP-Fast MH), k steps compose by the basic rule (kε, kδ), the advanced rule
// of Dwork, Rothblum & Vadhan, or the optimal rule of Kairouz, Oh &
// Viswanath (exact for homogeneous steps); BestComposition takes the smallest.
//
// Pure ε. One sample from a posterior tempered by ρ with |log p(x|θ)| ≤ B is
// 4ρB-DP (one posterior sample, Wang, Fienberg & Smola 2015).
//
// # Matching the sampling scheme
//
// A Poisson-sampling accountant is invalid for fixed-size minibatches: use
// Sampling WithoutReplacement with Relation Replace (sensitivity 2·clip).
// Neither is the Poisson replace-one pair (1−q)N(0) + qN(1) vs (1−q)N(0) +
// qN(−1): with a fixed batch size, leaving the differing row out lets another
// row into the batch, and a dataset whose other rows all sit at the opposite
// clip turns one step into (1−q)N(0) + qN(2) vs N(0), the Poisson add/remove
// pair at half the noise multiplier. The PLD accountant uses the symmetrised
// version of that pair (Zhu, Dong & Wang 2022, Prop. 30; see
// NewSubsampledGaussianPLD), RDP the bound of Wang, Balle & Kasiviswanathan.
//
// # Choosing among accountants
//
// Ledger takes events (what was released) and returns a Report naming the
// accountant used: tight Gaussian when everything is Gaussian, PLD (else RDP)
// for a repeated subsampled Gaussian, RDP plus basic composition for
// mixtures. Every result is rounded up; where several valid accountants
// apply, the smallest is reported and named.
//
// # Per-algorithm functions
//
// PenaltyAccount / PlanPenaltyIterations / CalibrateTau (μ = 1/(τ√n) per
// iteration), HMCAccount / PlanHMCIterations (μ² = (1/τ_l² + (L+1)/τ_g²)/n),
// MALAAccount (μ² = σ_p²c_g²/(4a) + 1/τ), BarkerAccount (Thm 2 + WBK),
// FastMHAccount (best (ε, δ) composition), SGLDAccount (subsampled Gaussian)
// and OPSEpsilon (4ρB).
package privacy
