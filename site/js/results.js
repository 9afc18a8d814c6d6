// Results of a finished (or cancelled) run: the privacy statement, the
// budget spent, the convergence verdict, the summary table, the forest
// plot, the local diagnostics, the plots and the exports. Everything but
// the controls and the uPlot charts is computed and written into the DOM by
// the Go engine on this page (renderResults: wasm/render.go with dom/v2),
// from the draws the workers streamed, with the same code and the same
// spelling of every number as the command-line tool (core/report). No
// number of the results is formatted here.
import { $, el, fill, download } from './ui.js';
import { traceChart, traceData, densityChart, densityData, pairChart, pairData } from './charts.js';

export class Results {
  constructor(api) {
    this.api = api;
    this.charts = [];
    $('plot-param').addEventListener('change', () => {
      // A parameter paired with itself is a diagonal line: pair it with
      // the next one instead.
      const names = this.run?.names ?? [];
      if (names.length > 1 && $('pair-param').value === $('plot-param').value) {
        $('pair-param').value = String((Number($('plot-param').value) + 1) % names.length);
      }
      this.plot();
    });
    $('pair-param').addEventListener('change', () => this.plot());
    $('export-draws').addEventListener('click', () => this.exportDraws());
    $('export-stan').addEventListener('click', () => this.exportStan());
    $('export-report').addEventListener('click', () => this.exportReport());
    $('export-run-config').addEventListener('click', () => this.exportRunConfig());
  }

  clear() {
    for (const c of this.charts) c.destroy();
    this.charts = [];
    this.run = null;
  }

  /** The chains as the engine's summary and export functions take them. */
  chainArgs() {
    const { run } = this;
    return run.chains.map((c) => ({ positions: c.positions.subarray(0, c.n * run.dim), iterations: c.iterations }));
  }

  show(run) {
    this.clear();
    this.run = run;
    $('export-error').hidden = true;
    const section = document.getElementById('results');
    section.hidden = false;
    section.dataset.state = run.aborted ? 'aborted' : run.cancelled ? 'cancelled' : 'done';
    // The Go engine writes the statement, the budget spent, the verdict,
    // the summary table, the forest plot and the local diagnostics into
    // this section (wasm/render.go, honnef.co/go/js/dom/v2), spelled by
    // core/report as the command-line tool spells them.
    const info = {
      rows: run.rows,
      cancelled: run.cancelled,
      // A chain stopped on a non-finite state: the engine marks the
      // results not usable (no summary, no draw exports), as the CLI.
      aborted: run.aborted ?? undefined,
      chains: run.chains.map((c) => ({ iterations: c.iterations, accepted: c.accepted, ms: c.ms ?? 0, ...c.local })),
      // noise-aware: the run's one release, which the report checks is this run's.
      release: run.release ?? undefined,
    };
    const r = JSON.parse(this.api.renderResults(run.resolvedJSON, JSON.stringify(run.names), this.chainArgs(), JSON.stringify(info)));
    if (r.error) {
      $('verdict').textContent = `No results: ${r.error.message}`;
      $('verdict').className = 'verdict bad';
    }
    this.reportText = r.report ?? null;
    $('run-config').textContent = JSON.stringify(run.cfg, null, 2);
    const opts = run.names.map((n, j) => el('option', { value: String(j), text: n }));
    fill($('plot-param'), ...opts);
    fill($('pair-param'), ...run.names.map((n, j) => el('option', { value: String(j), text: n })));
    $('plot-param').value = String(run.names.length > 1 ? 1 : 0);
    $('pair-param').value = String(run.names.length > 2 ? 2 : 0);
    this.plot();
    const suffix = run.private ? '' : ' — NOT PRIVATE';
    $('export-draws').textContent = `Draws (tidy CSV)${suffix}`;
    $('export-stan').textContent = `Stan CSV (one file per chain)${suffix}`;
    $('export-report').disabled = !this.reportText;
    $('export-report').title = this.reportText ? '' : 'A non-private run has no privacy report.';
    const ok = (r.draws ?? 0) >= 1;
    $('export-draws').disabled = !ok;
    $('export-stan').disabled = !ok;
    $('export-note').textContent = run.private
      ? 'Exports hold only the draws, the public configuration and the privacy report — the same files as the dpmcmc sample command.'
      : 'This run is NOT PRIVATE: its files are named accordingly and its configuration names the non-private sampler. Share them only if the data may be shared.';
  }

  plot() {
    const { run } = this;
    if (!run) return;
    for (const c of this.charts) c.destroy();
    const j = Number($('plot-param').value);
    const k = Number($('pair-param').value);
    const n = run.chains.length;
    // The draws the summary and the exports use: a cancelled run's chains
    // cut to the shortest (a review found the trace running on past it).
    // A stopped run is not a posterior sample: its traces run to where each
    // chain stopped, which shows where one left the finite.
    const shortest = Math.min(...run.chains.map((ch) => ch.n));
    // Warmup included: a chain usually stops while warming up.
    const chains = run.aborted ? run.chains : run.chains.map((ch) => ({ ...ch, n: shortest }));
    const from = run.aborted ? 0 : run.warmup;
    const trace = traceChart($('trace-plot'), n, run.names[j]);
    trace.setData(traceData(chains, j, from));
    const dens = densityChart($('density-plot'), n, run.names[j]);
    dens.setData(densityData(chains, j, from));
    const pair = pairChart($('pair-plot'), n, run.names[j], run.names[k]);
    pair.setData(pairData(chains, j, k, from));
    this.charts = [trace, dens, pair];
  }

  suffix() {
    return this.run.private ? '' : '-NOT-PRIVATE';
  }

  /** An export's error, shown beside the export buttons (step 7). */
  fail(what, r) {
    $('export-error').textContent = `${what} failed: ${r.error.message}`;
    $('export-error').hidden = false;
  }

  exportDraws() {
    const r = this.api.exportDraws(this.run.resolvedJSON, JSON.stringify(this.run.names), this.chainArgs());
    if (r.startsWith('{"error"')) return this.fail('Export', JSON.parse(r));
    download(`dpmcmc-draws${this.suffix()}.csv`, r);
  }

  async exportStan() {
    const { run } = this;
    const names = JSON.stringify(run.names);
    const chains = this.chainArgs();
    for (let c = 0; c < chains.length; c++) {
      const r = this.api.exportStan(run.resolvedJSON, names, chains, c, run.rows, run.cancelled, run.release ?? null);
      if (r.startsWith('{"error"')) return this.fail('Export', JSON.parse(r));
      download(`dpmcmc-stan${this.suffix()}_${c + 1}.csv`, r);
      await new Promise((done) => setTimeout(done, 200)); // one download at a time
    }
  }

  exportReport() {
    if (!this.reportText) return;
    download('privacy.json', this.reportText, 'application/json');
  }

  /**
   * The configuration of the run shown, as it started: the one that goes
   * with its draws and privacy.json, whatever the controls above say now
   * (a review changed ε while a run was going and the pre-run config.json
   * then disagreed with the run's privacy report).
   */
  exportRunConfig() {
    if (!this.run) return;
    download(`config${this.suffix()}.json`, `${JSON.stringify(this.run.cfg, null, 2)}\n`, 'application/json');
  }
}
