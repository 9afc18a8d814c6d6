// Package noiseaware is a private sampler for the regression models
// (logistic, linear, Poisson) that releases noisy sufficient statistics
// once and then samples, as post-processing, the posterior that accounts for
// the release noise (issue #16 part B). Chains and iterations are free: the
// privacy cost is that of the releases alone. The derivation, and where it
// differs from the papers, is in docs/SAMPLERS.md ("Noise-aware sampler").
//
// # Scaling (public)
//
// Every predictor is mapped to [−1, 1] from its public bound [lo_j, hi_j]:
// x̃_j = (x_j − c_j)/h_j with c_j = (lo_j + hi_j)/2, h_j = (hi_j − lo_j)/2
// (without an intercept: c_j = 0, h_j = max(|lo_j|, |hi_j|), so that no
// centring has to be absorbed). The intercept column stays 1. The linear
// model's outcome is scaled the same way. Coefficients β are sampled on the
// scaled space and mapped back to the user's units (slope β_j/h_j, intercept
// β_0 − Σ_j β_j c_j/h_j; linear: times h_y, plus c_y).
//
// # Release (Gaussian mechanism, tight Gaussian accountant)
//
// At a public expansion point θ_r (r = 1..R; θ_1 = 0) the mechanism releases
//
//	S_r = Σ_i t_i x̃_i          (the score, t_i = y_i − E[y_i | η_i], η_i = x̃_iᵀθ_r)
//	M_r = Σ_i w_i x̃_i x̃_iᵀ     (the Fisher information, w_i = Var[y_i | η_i])
//
// (logistic: t = y − σ(η), w = σ(η)(1 − σ(η)); Poisson: t = y − λ,
// w = λ with λ = min(e^η, K) capped at the outcome's public upper bound K;
// linear: t = y − η, w = 1, and R = 1 because the log-likelihood is exactly
// quadratic). S is released with N(0, σ_S²) on each coordinate; M as the
// vector (M_jj, √2·M_jk for j < k), whose L2 norm is ‖M‖_F, with N(0, σ_M²)
// per entry (so off-diagonal entries get N(0, σ_M²/2)). Replace-one L2
// sensitivities from the public ranges (‖x̃‖² ≤ d, every |x̃_j| ≤ 1):
//
//	Δ_S = √((t⁺ − t⁻)² + (d − 1)·(2·max(|t⁻|, |t⁺|))²)   (intercept coordinate t ∈ [t⁻, t⁺])
//	Δ_M = √2·w⁺·d                                         (w ∈ [0, w⁺])
//
// The second holds because for PSD rank-one A = w x̃x̃ᵀ, B = w'x̃'x̃'ᵀ,
// ‖A − B‖_F² = ‖A‖_F² + ‖B‖_F² − 2·w w'(x̃ᵀx̃')² ≤ 2(w⁺d)²; it is attained by
// orthogonal ±1 rows (d even) at equal weights. Each release is snapped to
// the grid 2^(⌊log₂σ⌋ − 24) and the sums are exact integer sums of terms
// quantized to q, so the accounted sensitivity is Δ + q·√(2m) plus the
// rounding of the exact sums to float64 (2·n·B·2⁻⁵³·√m for S,
// 4√2·n·B·2⁻⁵³·√m for M, B the per-row term bound; Plan), and the
// accounted μ of a block is Δ/σ + √m·2^−24 (m entries). All 2R blocks compose
// by the tight Gaussian (μ-GDP) rule μ = √(Σ μ_b²) and σ is calibrated so that
// μ equals privacy.MuFor(ε, δ). Between releases the next expansion point is
// post-processing of the released (S̃_r, M̃_r): after the first release at
// θ = 0 it is the LDA estimate (logistic) or the least-squares estimate
// (Poisson) from that release; after later releases one damped Newton step,
// with a Levenberg–Marquardt term λ = NewtonDamping·σ_M·√d against the
// noise in M̃ (docs/SAMPLERS.md). With Plan.ShrinkPath (logistic, set from
// public inputs when the releases before the last carry information,
// PathNoise ≤ ShrinkPathMaxNoise) the LDA start gets a ridge against the
// noise in its covariance, and each Newton step is shrunk, direction by
// direction, by the share of its gradient the release noise explains and
// taken from the last point whose step raised the log posterior as the
// released scores estimate it (halved on each return to it).
//
// # Posterior (post-processing of the last release)
//
// With the log-likelihood expanded to second order at θ_R, the score's
// sampling distribution is S | θ ≈ N(M(θ − θ_R), φM) (φ = 1, linear:
// φ = σ²/h_y², exact there), and S̃ = S + N(0, σ_S²I). So
//
//	S̃ | θ, M ~ N(M(θ − θ_R), φM + σ_S²I)
//
// is the likelihood of θ, Gaussian; with the N(0, s²I) prior (s =
// DefaultPriorSD = 20 on the scaled space unless set) θ | S̃, M is Gaussian
// with precision P = MΣ⁻¹M + I/s² and mean P⁻¹MΣ⁻¹(S̃ + Mθ_R),
// Σ = φM + (σ_S² + τ²)I. τ² is the expansion's error on the score,
// estimated from the last two releases (R ≥ 3): the quadratic at θ_R
// predicts the score released at θ_{R−1}, and the excess of the squared
// discrepancy over its release-noise expectation estimates dτ²
// (modelErrorVar). The unknown M is drawn from its pivot: M̃ − M is exactly the
// symmetric Gaussian release noise, so each draw takes M = M̃ − E (E a fresh
// draw of that noise) projected onto the positive semi-definite cone
// (eigenvalues clipped at 0, by Jacobi rotations). Each
// posterior draw is an independent draw of M and then of θ: no Markov chain,
// so every chain is an iid sample and R-hat and ESS are those of iid draws.
//
// With Spec.Whiten the releases after the first are made in coordinates
// adapted to the design, derived from the first release (whiten.go); with
// Spec.AdaptCoords, which core/run sets for every run, the first release
// decides whether they are (Plan.preferDesign), and logistic makes
// AdaptiveLogisticReleases releases.
//
// Approximations, stated in words in the privacy report: the GLM
// log-likelihood is replaced by its quadratic expansion at the last
// expansion point (with the estimated model-error term), the score's
// sampling distribution by its normal
// approximation, and the Fisher information's posterior by its pivot
// projected onto the PSD matrices (Bernstein & Sheldon 2019 and Kulkarni et al.
// 2021 model the statistics' sampling distribution instead).
package noiseaware
