package main

// The results of a finished (or cancelled) run as the page shows them:
// every sentence and every number spelled by core/report, the same
// functions `dpmcmc summary` and `dpmcmc sample` print with. render.go
// writes this view into the page's DOM (honnef.co/go/js/dom/v2); this file
// is plain Go, tested natively.

import (
	"encoding/json"
	"fmt"

	"github.com/dpmcmc/dpmcmc/core/diag"
	"github.com/dpmcmc/dpmcmc/core/report"
	"github.com/dpmcmc/dpmcmc/core/run"
)

// runInfo is what the page knows of a run besides its config and draws:
// the public number of rows, whether it was cancelled, and each chain's
// local diagnostics (not private: shown on the page, never exported).
type runInfo struct {
	Rows      int  `json:"rows"`
	Cancelled bool `json:"cancelled"`
	// Aborted is the first chain that stopped on a non-finite state (the
	// others were then stopped), or nil: as the command-line tool, the
	// report charges every iteration that ran and the draws are not
	// summarized or exported.
	Aborted *chainAbort  `json:"aborted,omitempty"`
	Chains  []localChain `json:"chains"`
	// Release is the JSON of the run's shared release (noise-aware: chain
	// 0's chainInfo.Release), which the report checks is this run's; ""
	// for other algorithms.
	Release string `json:"release,omitempty"`
}

// localChain is one chain's local diagnostics as the worker reported them.
type localChain struct {
	Iterations int   `json:"iterations"`
	Accepted   int   `json:"accepted"`
	Clipped    int64 `json:"clipped"`
	RowTerms   int64 `json:"rowTerms"`
	Divergent  int   `json:"divergent"`
	// DivergentWarmup: divergent transitions during warmup.
	DivergentWarmup int     `json:"divergentWarmup"`
	Ms              float64 `json:"ms"`
}

// resultsView is the results section as text.
type resultsView struct {
	Private   bool
	Statement string // the privacy statement, or the NOT PRIVATE one
	// WeakEpsilon: the ε spent is above run.LargeEpsilon; the statement is
	// shown as a warning and the budget line adds run.LargeEpsilonNote.
	WeakEpsilon bool
	// ReportJSON is privacy.json (the export), "" when there is none.
	ReportJSON string
	Budget     string // the budget spent; "" when not private
	// Draws is the number of draws per chain after warmup (chains cut to
	// the shortest).
	Draws int
	// Summarized: there were at least two draws per chain; otherwise
	// Verdict says why there is no table.
	Summarized bool
	Verdict    string
	Converged  bool
	Caption    string
	Table      report.Table
	RhatOK     []bool // per row of Table
	Forest     report.Forest
	// ScaleHint is the page's version of run.ScaleAutoHint for a
	// non-private regression in the user's units that did not converge.
	ScaleHint string
	// PriorNote names the coefficients whose posterior is mostly the prior
	// (report.PriorNote), "" when none is.
	PriorNote string
	// PriorPullNote names the coefficients the prior moves (toward,
	// away from or across its centre) by more than half a posterior sd (report.PriorPullNote), for converged
	// draws; "" when it pulls none.
	PriorPullNote string
	// InterceptNote says that the intercept is the linear predictor outside
	// the public bounds and gives the mean at their centres
	// (report.InterceptNote), for converged draws; "" otherwise.
	InterceptNote string
	// BoxNote names the parameters the parameter box holds against its
	// edge (run.BoxNote), "" when none.
	BoxNote string
	// TailNote names the parameters whose sd a few far draws carry
	// (report.TailNote), for converged draws; "" when none does.
	TailNote string
	// LittleLearned: the chains converged but the private draws determine
	// no predictor's direction (report.LittleLearned, in the verdict): the
	// verdict is shown as a warning, not in green.
	LittleLearned bool
	// DirectionNote says which predictors' effects the draws determine in
	// direction (report.DirectionNote), "" for other models.
	DirectionNote string
	// CalibrationNote is how often noise-aware's 90% intervals contained
	// the truth in the published simulations (report.CalibrationNote), ""
	// for other samplers.
	CalibrationNote string
	Local           []string // one line per chain
}

// PageScaleHint is run.ScaleAutoHint as the page says it: the page's
// control for scale auto is the advanced setting "Parameterization".
const PageScaleHint = "Hint: the coefficients were sampled in your units, where raw measurements (predictors far from 0, or on very different scales) make the posterior hard to sample. Every predictor has a public bound, so \"predictors scaled by their public bounds\" under Parameterization (advanced settings) samples the same posterior and prior, and usually converges."

// results computes the view of a run: cfg is the resolved config, names
// the parameter names, chains the positions the workers streamed.
func results(cfg *run.Config, names []string, chains []chainData, info runInfo) (*resultsView, error) {
	res, err := result(cfg, names, chains)
	if err != nil {
		return nil, err
	}
	v := &resultsView{Private: run.IsPrivate(cfg.Algorithm)}
	if v.Private {
		rep, err := newReport(cfg, info.Rows, len(names), iterations(chains, len(names)), info.Cancelled || info.Aborted != nil, info.Release)
		if err == nil && info.Aborted != nil {
			rep.MarkAborted(info.Aborted.err())
		}
		if err != nil {
			v.Statement = "The privacy report could not be computed: " + err.Error()
		} else {
			b, err := rep.JSON()
			if err != nil {
				return nil, err
			}
			v.ReportJSON = string(b)
			v.Statement = rep.Statement
			v.Budget = "Privacy budget spent: " + report.Budget(rep.Epsilon, rep.EpsilonBudget, rep.Delta) + "."
			// The report's note on a large ε, as the report spells it.
			for _, n := range rep.Notes {
				if run.IsLargeEpsilonNote(n) {
					v.WeakEpsilon = true
					v.Budget += " Note: " + n + "."
				}
			}
		}
	} else {
		v.Statement = report.NotPrivate(cfg.Algorithm)
	}
	for c, ch := range info.Chains {
		v.Local = append(v.Local, report.Local(c, report.Chain{Iterations: ch.Iterations, Accepted: ch.Accepted,
			Clipped: ch.Clipped, Rows: ch.RowTerms, Divergent: ch.Divergent, DivergentWarmup: ch.DivergentWarmup, Seconds: ch.Ms / 1000,
			IndependentDraws: run.IndependentDraws(cfg.Algorithm)}))
	}
	if info.Aborted != nil {
		// As `dpmcmc sample`: no summary and no draws to export.
		v.Verdict = "Not usable: " + info.Aborted.Message
		return v, nil
	}
	d := res.Draws(false)
	v.Draws = d.NumIterations()
	if v.Draws < 2 {
		v.Verdict = report.TooFewDraws
		return v, nil
	}
	v.Summarized = true
	rows := diag.Summary(d.Names, d.Sampling())
	verdict := diag.Assess(rows, d.NumChains()).WithStuck(diag.StuckChains(d.Sampling()))
	v.Converged = verdict.Converged
	v.Verdict = report.Verdict(verdict, v.Private, cfg.Algorithm)
	if info.Cancelled {
		v.Verdict += " " + report.Cancelled(v.Draws)
	}
	model := cfg.Model.Model
	// Ratios per each predictor's public step, from its public bound only
	// (report.Step), as `dpmcmc summary --bound` prints them.
	steps, err := report.Steps(cfg.Data.Bounds)
	if err != nil {
		return nil, err
	}
	v.Table = report.Summary(rows, model, steps)
	v.Caption = "Posterior summary: " + report.Heading(d.NumChains(), v.Draws, 0)
	if cfg.Warmup == 0 {
		v.Caption = "Posterior summary: " + report.HeadingNoWarmup(d.NumChains(), v.Draws)
	}
	if v.Table.RatioName != "" {
		v.Caption += fmt.Sprintf("; %ss are exp(step × the coefficient's median and its 2.5%% and 97.5%% quantiles), the step a round number from the predictor's public bound (1 without one); coefficients are per unit", v.Table.RatioName)
	} else if v.Table.PerStep {
		v.Caption += "; changes of the outcome per step are step × the coefficient's median and its 2.5% and 97.5% quantiles, the step a round number from the predictor's public bound (1 without one); coefficients are per unit"
	}
	for _, r := range rows {
		v.RhatOK = append(v.RhatOK, report.RhatOK(r))
	}
	v.Forest = report.NewForest(rows, model, steps)
	v.BoxNote = run.BoxNote(cfg, d, "the parameter box (advanced settings)")
	if verdict.Converged {
		v.TailNote = report.TailNote(rows, cfg.Algorithm == run.NoiseAware && report.Regression(model))
		v.InterceptNote = report.InterceptNote(model, d.Names, cfg.Data.Bounds, report.ReferenceCodes(cfg.Data.Categories), d.Sampling(), cfg.Data.Bounds[cfg.Model.Outcome])
	}
	if report.Regression(model) {
		prior := run.PriorSDs(cfg, d.Names)
		v.PriorNote = report.PriorNote(rows, prior, run.PriorCentres(cfg, d.Names), v.Private)
		if verdict.Converged {
			_, scaled := run.ModelPrior(cfg)
			v.PriorPullNote = report.PriorPullNote(rows, prior, run.PriorCentres(cfg, d.Names), scaled, run.PriorShifts(cfg, d))
		}
		v.DirectionNote = report.DirectionNote(rows, model, v.Private, verdict.Converged)
		if cfg.Algorithm == run.NoiseAware {
			v.CalibrationNote = report.CalibrationNote(model)
		}
		if run.ScaleAutoHint(cfg, names, verdict.Converged) != "" {
			v.ScaleHint = PageScaleHint
		}
		if little := report.LittleLearned(rows, model, v.Private, verdict.Converged); little != "" {
			v.LittleLearned = true
			v.Verdict = report.Verdict(verdict, v.Private, cfg.Algorithm) + " " + little
			if info.Cancelled {
				v.Verdict += " " + report.Cancelled(v.Draws)
			}
		}
	}
	return v, nil
}

// budgetView is the live budget meter of a running private chain set.
type budgetView struct {
	Fraction float64 `json:"fraction"` // ε spent / ε budget, at most 1
	Text     string  `json:"text"`
}

// budget is the budget spent by the iterations its counts. While chains
// run (running), its counts only the iterations whose draws reached the
// page, and a worker is up to one post interval ahead: the text then says
// "at least", so the meter never claims less spent than there is.
func budget(cfg *run.Config, n, d int, its []int, running bool) (*budgetView, error) {
	rep, err := newReport(cfg, n, d, its, false, "")
	if err != nil {
		return nil, err
	}
	f := 0.0
	if rep.EpsilonBudget > 0 {
		f = min(1, rep.Epsilon/rep.EpsilonBudget)
	}
	text := report.Budget(rep.Epsilon, rep.EpsilonBudget, rep.Delta)
	if running {
		text = report.BudgetSoFar(rep.Epsilon, rep.EpsilonBudget, rep.Delta)
	}
	return &budgetView{Fraction: f, Text: text}, nil
}

// parseRunInfo decodes the page's runInfo JSON.
func parseRunInfo(s string) (runInfo, error) {
	var info runInfo
	err := json.Unmarshal([]byte(s), &info)
	return info, err
}
