package main

// The private-run API: the plan of a run (from public inputs only) and the
// privacy report of what ran, both computed by core/run.

import (
	"encoding/json"

	"github.com/dpmcmc/dpmcmc/core/run"
)

// planResult is the plan of a run and its resolved config: the settings
// Prepare derives from public inputs (n, d, bounds, budget), which every
// chain worker derives identically.
type planResult struct {
	Plan   *run.Plan       `json:"plan"`
	Config json.RawMessage `json:"config"`
	// Clipped counts, per column with any, the values its public bound
	// moved. LOCAL DIAGNOSTIC, NOT PRIVATE (dataset.ClipCounts): the page
	// shows it on screen, labelled, and never puts it in an export.
	Clipped map[string]clipCount `json:"clipped,omitempty"`
}

// clipCount is a dataset.ClipCount as the page reads it.
type clipCount struct {
	Below int `json:"below"`
	Above int `json:"above"`
}

// plan prepares the run on the loaded file as the chain workers will and
// returns its plan. Only public quantities come out (n, d, and settings
// derived from the typed bounds and budget), and the local clip counts.
func plan(src source, cfgJSON string) (*planResult, error) {
	cfg, err := run.ParseConfig([]byte(cfgJSON))
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t, _, err := run.LoadData(src.Open(), cfg)
	if err != nil {
		return nil, err
	}
	p, err := run.Prepare(cfg, t)
	if err != nil {
		return nil, err
	}
	resolved, err := p.Config.PublicJSON()
	if err != nil {
		return nil, err
	}
	res := &planResult{Plan: p.Plan, Config: resolved}
	for col, c := range p.Clipped {
		if c.Below+c.Above > 0 {
			if res.Clipped == nil {
				res.Clipped = map[string]clipCount{}
			}
			res.Clipped[col] = clipCount{Below: c.Below, Above: c.Above}
		}
	}
	return res, nil
}

// newReport is the privacy report of a run of n rows and d parameters whose
// chains ran iterations (warmup included); cfg is the resolved config.
// release is the JSON of the run's shared release (chain 0's
// chainInfo.Release, noise-aware), "" when there is none or it is not
// known yet: the report then checks it is this run's
// (PrivacyReport.NoteReleaseOrSay: a release it cannot check leaves a
// note, never a report that is not written); it states nothing computed
// from it.
func newReport(cfg *run.Config, n, d int, iterations []int, cancelled bool, release string) (*run.PrivacyReport, error) {
	r, err := run.NewReport(cfg, n, d, iterations, cancelled)
	if err != nil || release == "" {
		return r, err
	}
	r.NoteReleaseOrSay(cfg, n, d, []byte(release))
	return r, nil
}

// reportJSON is newReport as JSON (the privacy.json export).
func reportJSON(cfg *run.Config, n, d int, iterations []int, cancelled bool, release string) (string, error) {
	r, err := newReport(cfg, n, d, iterations, cancelled, release)
	if err != nil {
		return "", err
	}
	b, err := r.JSON()
	return string(b), err
}
