package main

// The private-run API (plan and privacy report) — stubs until core/run
// exports MakePlan and NewReport; see private_run.go when they land.

import (
	"errors"

	"github.com/dpmcmc/dpmcmc/core/export"
	"github.com/dpmcmc/dpmcmc/core/run"
)

var errNoPrivate = errors.New("private runs are not available in this build yet")

// plan returns the JSON plan of a private run (iterations per chain,
// warmup, planned ε, accountant, noise scales) from public inputs only.
func plan(cfg *run.Config, n int) (string, error) { return "", errNoPrivate }

// newReport is the privacy report of a run of n rows whose chains ran
// iterations (warmup included).
func newReport(cfg *run.Config, n int, iterations []int, cancelled bool) (export.PrivacyReport, error) {
	return nil, errNoPrivate
}

// reportJSON is newReport as JSON.
func reportJSON(cfg *run.Config, n int, iterations []int, cancelled bool) (string, error) {
	return "", errNoPrivate
}
