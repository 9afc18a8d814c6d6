package mcmc

// Seeded bugs for the black-box privacy audit (core/audit), which drives the
// kernels through their exported API only and must show that it catches
// them. Nothing else calls this: no run config field, JSON name or
// command-line flag reaches it.

// AuditSeedFastMHBug turns k into a known-unsound variant: plainMHFree makes
// the "privacy for free" branches use the paper's min(1, r) instead of
// Barker's acceptance (not ratio-bounded: see DPFastMH, change 1), and
// noiseScale multiplies the std of the Gaussian noise of the noisy branches
// (1 leaves it unchanged; 0.5 is the halved-noise bug). For core/audit only.
func AuditSeedFastMHBug(k *DPFastMH, plainMHFree bool, noiseScale float64) {
	k.plainMHFree = plainMHFree
	k.noiseScale = noiseScale
}
