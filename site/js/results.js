// Results of a finished (or cancelled) run: the privacy statement, the
// convergence verdict, the summary table, the plots and the exports. The
// summary, the verdict, the report and every export file are computed by
// the Go engine on this page from the draws the workers streamed, with the
// same code as the command-line tool.
import { $, el, fill, fmt, download } from './ui.js';
import { traceChart, traceData, densityChart, densityData, pairChart, pairData } from './charts.js';

export class Results {
  constructor(api) {
    this.api = api;
    this.charts = [];
    $('plot-param').addEventListener('change', () => this.plot());
    $('pair-param').addEventListener('change', () => this.plot());
    $('export-draws').addEventListener('click', () => this.exportDraws());
    $('export-stan').addEventListener('click', () => this.exportStan());
    $('export-report').addEventListener('click', () => this.exportReport());
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
    const section = document.getElementById('results');
    section.hidden = false;
    section.dataset.state = run.cancelled ? 'cancelled' : 'done';
    const names = JSON.stringify(run.names);
    const sum = JSON.parse(this.api.summary(run.resolvedJSON, names, this.chainArgs()));
    this.report = null;
    if (run.private) {
      const its = JSON.stringify(run.chains.map((c) => c.iterations));
      this.reportText = this.api.report(run.resolvedJSON, run.rows, run.dim, its, run.cancelled);
      const rep = JSON.parse(this.reportText);
      if (rep.error) {
        $('privacy-statement').textContent = `The privacy report could not be computed: ${rep.error.message}`;
      } else {
        this.report = rep;
        $('privacy-statement').textContent = rep.statement;
      }
    } else {
      $('privacy-statement').textContent = `NOT PRIVATE: these draws were produced by ${run.cfg.algorithm}, a sampler that adds no privacy noise. They are not differentially private and can reveal information about individual rows.`;
    }
    $('privacy-statement').classList.toggle('warn', !run.private);
    $('run-config').textContent = JSON.stringify(run.cfg, null, 2);
    this.renderSummary(sum, run);
    const opts = run.names.map((n, j) => el('option', { value: String(j), text: n }));
    fill($('plot-param'), ...opts);
    fill($('pair-param'), ...run.names.map((n, j) => el('option', { value: String(j), text: n })));
    $('plot-param').value = String(run.names.length > 1 ? 1 : 0);
    $('pair-param').value = String(run.names.length > 2 ? 2 : 0);
    this.plot();
    const suffix = run.private ? '' : ' — NOT PRIVATE';
    $('export-draws').textContent = `Draws (tidy CSV)${suffix}`;
    $('export-stan').textContent = `Stan CSV (one file per chain)${suffix}`;
    $('export-report').disabled = !this.report;
    $('export-report').title = this.report ? '' : 'A non-private run has no privacy report.';
    const ok = sum.iterations >= 1;
    $('export-draws').disabled = !ok;
    $('export-stan').disabled = !ok;
    $('export-note').textContent = run.private
      ? 'Exports hold only the draws, the public configuration and the privacy report — the same files as the dpmcmc sample command.'
      : 'This run is NOT PRIVATE: its files are named accordingly and its configuration names the non-private sampler. Share them only if the data may be shared.';
  }

  renderSummary(sum, run) {
    const v = $('verdict');
    if (sum.error) {
      v.textContent = `No summary: ${sum.error.message}`;
      fill($('summary-table'));
      return;
    }
    if (sum.rows.length === 0) {
      v.textContent = 'Too few draws after warmup for a summary (the run was stopped early).';
      v.className = 'verdict bad';
      fill($('summary-table'));
      return;
    }
    const cut = run.cancelled ? ` The run was cancelled: chains are cut to the shortest, ${sum.iterations} draws each after warmup.` : '';
    const msg = sum.verdict.message;
    v.textContent = `${msg.charAt(0).toUpperCase()}${msg.slice(1)}${cut}`;
    v.className = `verdict ${sum.verdict.converged ? 'good' : 'bad'}`;
    const ratio = sum.ratioName;
    const head = ['parameter', 'mean', 'sd', '2.5%', '97.5%', 'R-hat', 'bulk ESS', 'tail ESS'];
    if (ratio) head.push(`${ratio} (95% interval)`);
    const rows = sum.rows.map((r) => el('tr', {},
      el('td', { class: 'name', text: r.variable }),
      ...[r.mean, r.sd, r['q2.5'], r['q97.5']].map((x) => el('td', { class: 'num', text: fmt(x) })),
      el('td', { class: `num ${r.rhat !== null && r.rhat < 1.01 ? '' : 'flag'}`, text: fmt(r.rhat, 4) }),
      el('td', { class: 'num', text: r.ess_bulk === null ? '—' : String(Math.round(r.ess_bulk)) }),
      el('td', { class: 'num', text: r.ess_tail === null ? '—' : String(Math.round(r.ess_tail)) }),
      ratio ? el('td', { class: 'num', text: r.ratio ? `${fmt(r.ratio[0])} (${fmt(r.ratio[1])}–${fmt(r.ratio[2])})` : '' }) : null));
    fill($('summary-table'),
      el('caption', { text: `Posterior summary: ${sum.chains} chains × ${sum.iterations} draws after warmup${ratio ? `; ${ratio}s are exp(coefficient)` : ''}` }),
      el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, ...rows));
  }

  plot() {
    const { run } = this;
    if (!run) return;
    for (const c of this.charts) c.destroy();
    const j = Number($('plot-param').value);
    const k = Number($('pair-param').value);
    const n = run.chains.length;
    const trace = traceChart($('trace-plot'), n, run.names[j]);
    trace.setData(traceData(run.chains, j, run.warmup));
    const dens = densityChart($('density-plot'), n, run.names[j]);
    dens.setData(densityData(run.chains, j, run.warmup));
    const pair = pairChart($('pair-plot'), n, run.names[j], run.names[k]);
    pair.setData(pairData(run.chains, j, k, run.warmup));
    this.charts = [trace, dens, pair];
  }

  suffix() {
    return this.run.private ? '' : '-NOT-PRIVATE';
  }

  fail(what, r) {
    $('error').textContent = `${what} failed: ${r.error.message}`;
    $('error').hidden = false;
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
      const r = this.api.exportStan(run.resolvedJSON, names, chains, c, run.rows, run.cancelled);
      if (r.startsWith('{"error"')) return this.fail('Export', JSON.parse(r));
      download(`dpmcmc-stan${this.suffix()}_${c + 1}.csv`, r);
      await new Promise((done) => setTimeout(done, 200)); // one download at a time
    }
  }

  exportReport() {
    if (!this.report) return;
    download('privacy.json', this.reportText, 'application/json');
  }
}
