// Package diag computes MCMC convergence diagnostics and posterior summaries:
// rank-normalised split R-hat, bulk and tail effective sample sizes (ESS),
// Monte Carlo standard errors (MCSE), quantiles, and two distances between
// samples (MMD and a symmetric KL divergence of 2-D histograms) used by the
// experiments.
//
// The R-hat, ESS and MCSE definitions follow
//
//	A. Vehtari, A. Gelman, D. Simpson, B. Carpenter, P.-C. Bürkner (2021).
//	Rank-normalization, folding, and localization: an improved R-hat for
//	assessing convergence of MCMC. Bayesian Analysis 16(2), 667–718.
//
// exactly as implemented in the R package posterior (convergence.R), so that
// results agree with posterior::summarise_draws to floating-point rounding
// (the tests check 48 parameters of the BUGS "blocker" model to 1e-8).
//
// Layout: a single parameter's draws are x[chain][iteration]; all chains must
// have the same length. Functions return NaN when a diagnostic is undefined
// (non-finite draws, constant draws, too few iterations, ragged chains),
// as posterior returns NA.
//
// The package-level functions allocate a fresh Workspace; code that computes
// many diagnostics (e.g. Summary) reuses one Workspace so the hot loops do
// not allocate.
package diag
