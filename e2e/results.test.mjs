// The page's results are written by the Go engine (wasm/render.go, through
// honnef.co/go/js/dom/v2) with the same formatting functions as the
// command-line tool (core/report): on the same draws, the page's summary
// table equals `dpmcmc summary --model M` cell by cell, and the caption,
// the verdict, the budget spent and the forest plot's labels are the CLI's
// sentences and spellings.
//
// The test variant (build/site-testkey, bin/dpmcmc-testkey: the fixed noise
// key) is used so that a private run's draws are reproducible, as in
// e2e/testkey.test.mjs. Needs make site-testkey cli-testkey.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Harness, root, DESKTOP, assertClean, setRun, runToEnd, downloads, shot, readyToRun } from './helpers.mjs';

const site = process.env.DPMCMC_SITE_TESTKEY ?? path.join(root, 'build', 'site-testkey');
const cli = process.env.DPMCMC_BIN_TESTKEY ?? path.join(root, 'bin', 'dpmcmc-testkey');
const tmp = mkdtempSync(path.join(tmpdir(), 'dpmcmc-results-'));
const h = new Harness();

before(async () => {
  for (const p of [path.join(site, 'index.html'), cli]) {
    if (!existsSync(p)) throw new Error(`missing ${p}: run make site-testkey cli-testkey`);
  }
  await h.start(site);
});
after(() => h.stop());

/**
 * Parses `dpmcmc summary`'s table: the heading, the header keys, the rows
 * (cells are separated by two or more spaces: tabwriter pads with at least
 * two, and no cell holds two spaces in a row) and the verdict.
 */
function parseSummary(out) {
  const lines = out.split('\n');
  const cells = (l) => l.trim().split(/ {2,}/);
  const keys = cells(lines[2]);
  const rows = [];
  let i = 3;
  for (; i < lines.length && lines[i] !== ''; i++) rows.push(cells(lines[i]));
  return { heading: lines[0], keys, rows, verdict: lines[i + 1] };
}

/** The page's summary table: header keys (data-key) and labels, body cells. */
async function pageTable(page) {
  const table = page.getByTestId('summary-table');
  return {
    caption: await table.locator('caption').textContent(),
    keys: await table.locator('thead th').evaluateAll((ths) => ths.map((th) => th.dataset.key)),
    labels: await table.locator('thead th').allTextContents(),
    rows: await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent))),
  };
}

const RUNS = [
  // Non-private HMC: long enough to converge on the demo (the screenshot,
  // docs/img/app-results.png).
  { algorithm: 'hmc', model: 'logistic', chains: 4, warmup: 200, draws: 400, shot: true },
  // A private run (short: its draws need not converge): its statement, the
  // budget spent and privacy.json.
  { algorithm: 'dp-penalty', model: 'logistic', epsilon: 8, warmup: 40, draws: 60 },
  // Poisson: rate ratios.
  { algorithm: 'mh', model: 'poisson', outcome: 'visits', warmup: 40, draws: 60 },
  // The breast-cancer CSV with the bc5 predictors' public bounds: odds
  // ratios per steps other than 1 (report.Step: 5–30 → 1, 0.03–0.2 → 0.01).
  { algorithm: 'mh', model: 'logistic', csv: 'bc', warmup: 40, draws: 60 },
];

// The bc5 predictors, their public bounds (core/experiment WDBCRanges) and
// the steps they give.
const BC = path.join(root, 'testdata', 'logistic', 'breast_cancer_wdbc.csv');
const BC_BOUNDS = {
  mean_radius: [5, 30], mean_texture: [5, 45], mean_smoothness: [0.03, 0.2], mean_compactness: [0, 0.4], mean_symmetry: [0.1, 0.35],
};
const BC_STEPS = { mean_radius: '1', mean_texture: '1', mean_smoothness: '0.01', mean_compactness: '0.01', mean_symmetry: '0.01' };

for (const { algorithm, model, outcome, epsilon, csv, chains = 2, warmup, draws, shot: screenshot } of RUNS) {
  test(`${algorithm} (${model}${csv ? `, ${csv} CSV` : ''}): the page's results equal dpmcmc summary on the same draws, cell by cell`, { timeout: 180000 }, async () => {
    const { context, page, rec } = await h.open(DESKTOP);
    try {
      if (csv) {
        await page.getByTestId('csv-input').setInputFiles(BC);
        await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.startsWith('breast_cancer_wdbc.csv: 569 rows'));
        await page.getByTestId('outcome-select').selectOption('malignant');
        await page.getByTestId('model-select').selectOption(model);
        for (const cb of await page.getByTestId('predictors').locator('input').all()) {
          await cb.setChecked(Object.hasOwn(BC_BOUNDS, await cb.getAttribute('value')));
        }
        for (const [c, [lo, hi]] of Object.entries(BC_BOUNDS)) {
          await page.getByTestId(`bound-lo-${c}`).fill(String(lo));
          await page.getByTestId(`bound-hi-${c}`).fill(String(hi));
        }
      }
      if (outcome) {
        // The outcome's type is declared, never read from the rows: a
        // count with K = 20 (the demo's design).
        await page.getByTestId('outcome-select').selectOption(outcome);
        await page.getByTestId('model-select').selectOption(model);
        await page.getByTestId('outcome-hi-input').fill('20');
      }
      if (epsilon) await page.getByTestId('epsilon-input').fill(String(epsilon));
      await setRun(page, { algorithm, chains, warmup, draws, seed: 20240611 });
      await readyToRun(page, 60000);
      assert.equal(await runToEnd(page, 170000), 'done');
      const [drawsFile] = await downloads(page, 'export-draws');
      const file = path.join(tmp, `${algorithm}-${model}${csv ?? ''}.csv`);
      writeFileSync(file, drawsFile.text);
      // The CLI is given the run's public bounds (the page's config), as
      // `dpmcmc sample` would have them: the ratios are per the same steps.
      const bounds = JSON.parse(await page.getByTestId('run-config').textContent()).data?.bounds ?? {};
      const boundArgs = Object.entries(bounds).flatMap(([c, [lo, hi]]) => ['--bound', `${c}=${lo}:${hi}`]);
      const privateArgs = algorithm.startsWith('dp-') || algorithm === 'noise-aware' ? ['--private'] : [];
      const want = parseSummary(execFileSync(cli, ['summary', '--model', model, ...boundArgs, ...privateArgs, file], { encoding: 'utf8' }));
      const got = await pageTable(page);

      // Every cell, as text.
      assert.deepEqual(got.keys, want.keys);
      assert.equal(got.rows.length, want.rows.length);
      assert.ok(got.rows.length >= 2);
      for (let i = 0; i < want.rows.length; i++) {
        // The intercept's step and ratio cells are empty: the CLI's line
        // ends before them.
        const cli = [...want.rows[i], ...Array(want.keys.length - want.rows[i].length).fill('')];
        assert.deepEqual(got.rows[i], cli, `row ${i + 1}`);
      }
      const ratio = model === 'logistic' ? 'odds ratio' : 'rate ratio';
      assert.deepEqual(got.keys.slice(-2), ['step', `${ratio.replace(' ', '_')}_per_step`]);
      assert.equal(got.labels.at(-1), `${ratio} per step (95% interval)`);
      // Chains that did not converge: the caption says so first.
      const unconverged = /^Not converged/.test(want.verdict);
      assert.equal(got.caption.startsWith('Not converged (see the verdict above): do not report these numbers; chains that have not mixed describe where they were, not the posterior. '), unconverged, got.caption);
      assert.match(got.caption, new RegExp(`^${unconverged ? 'Not converged \\(see the verdict above\\): [^.]*\\. ' : ''}Posterior summary: ${want.heading}; ${ratio}s are exp\\(step × the coefficient's median and its 2\\.5% and 97\\.5% quantiles\\), the step a round number from the predictor's public bound`));
      assert.equal(await page.getByTestId('verdict').textContent(), want.verdict);
      // The steps: the breast-cancer bounds give 1 and 0.01, so a CLI
      // without the bounds (per 1) prints other ratios; the demo's
      // predictors are already in clinical units (decades, 5 kg/m², 20 mmHg,
      // 0/1) and their bounds give 1.
      const steps = Object.fromEntries(got.rows.slice(1).map((r) => [r[0], r.at(-2)]));
      const perUnit = parseSummary(execFileSync(cli, ['summary', '--model', model, file], { encoding: 'utf8' }));
      // A non-private run on raw measurements in the user's units that did
      // not converge points to the page's control for scale auto; the
      // converged demo run and the private run do not.
      const hint = page.getByTestId('scale-hint');
      if (csv) {
        assert.match(await hint.textContent(), /^Hint: the coefficients were sampled in your units.*under Parameterization \(advanced settings\)/);
        await page.getByTestId('scale-select').selectOption('auto');
        const [cfg] = await downloads(page, 'export-config');
        assert.equal(JSON.parse(cfg.text).model.scale, 'auto');
        // HMC's metric (advanced settings): the config carries it.
        assert.equal(JSON.parse(cfg.text).settings?.metric, undefined);
        await page.getByTestId('metric-select').selectOption('diag');
        const [diag] = await downloads(page, 'export-config');
        assert.equal(JSON.parse(diag.text).settings.metric, 'diag');
        await page.getByTestId('metric-select').selectOption('');
      } else if (screenshot || algorithm.startsWith('dp-')) {
        assert.equal(await hint.isHidden(), true);
      }
      if (csv) {
        assert.deepEqual(steps, BC_STEPS);
        assert.notDeepEqual(perUnit.rows.map((r) => r.at(-1)), want.rows.map((r) => r.at(-1)), 'per-unit ratios differ from per-step ones');
      } else {
        assert.ok(Object.values(steps).every((s) => s === '1'), `steps ${JSON.stringify(steps)}`);
        assert.deepEqual(perUnit.rows, want.rows);
      }

      // The forest plot: one row per coefficient (no intercept), median and
      // 90% interval of the ratio per the row's step (the table's), spelled
      // like the table's ratios.
      const forest = page.getByTestId('forest-plot');
      assert.equal(await forest.isVisible(), true);
      const names = await forest.locator('g.frow text.fname').allTextContents();
      assert.deepEqual(names, got.rows.slice(1).map((r) => r[0]));
      const labels = await forest.locator('g.frow text.flabel').allTextContents();
      labels.forEach((label, i) => {
        const m = /^\d[\d.e+-]* \(\d[\d.e+-]*–\d[\d.e+-]*\) per ([\d.e+-]+)$/.exec(label);
        assert.ok(m, label);
        assert.equal(m[1], steps[names[i]], `${names[i]}: ${label}`);
      });
      assert.equal(await forest.locator('line.ref').count(), 1);
      assert.match(await forest.locator('text.axis-caption').textContent(), new RegExp(`^${ratio} per step of the predictor`));

      // The local diagnostics, one line per chain, labelled not private.
      const local = page.getByTestId('local-diagnostics');
      assert.match(await local.textContent(), /not private, not exported; they stay on this device/);
      assert.equal(await local.locator('li').count(), chains);
      assert.match(await local.locator('li').first().textContent(), new RegExp(`^chain 1: acceptance \\d\\.\\d{3} over ${warmup + draws} iterations`));

      const budget = page.getByTestId('budget-spent');
      if (algorithm.startsWith('dp-')) {
        const [rep] = await downloads(page, 'export-report');
        const r = JSON.parse(rep.text);
        assert.equal(await page.getByTestId('privacy-statement').textContent(), r.statement);
        assert.match(await budget.textContent(), new RegExp(`^Privacy budget spent: ε spent [\\d.]+ of ${r.epsilon_budget} \\(δ = 1e-05\\)\\.$`));
        assert.ok(Number(/spent ([\d.]+) of/.exec(await budget.textContent())[1]) >= r.epsilon_spent, 'ε spent is rounded up');
        assert.equal(await page.getByTestId('budget-text').textContent(), (await budget.textContent()).replace(/^Privacy budget spent: (.*)\.$/, '$1'));
      } else {
        assert.equal(await budget.isVisible(), false);
        assert.match(await page.getByTestId('privacy-statement').textContent(), new RegExp(`^NOT PRIVATE: these draws were produced by ${algorithm}`));
      }
      if (screenshot) {
        assert.match(await page.getByTestId('verdict').textContent(), /^Converged/);
        await shot(page, `results-${algorithm}-1280x800`, 'results');
      }
      await assertClean(page, rec);
    } finally {
      await context.close();
    }
  });
}

// A column named like markup reaches the table and the forest plot (SVG
// text) as text only: no element is made from data.
test('markup in a column name is text in the table and the forest plot', { timeout: 120000 }, async () => {
  const header = '<img src=x onerror=alert(1)>';
  const lines = [`${header},y`];
  for (let i = 0; i < 60; i++) lines.push(`${((i * 37) % 19) / 10 - 0.9},${i % 3 === 0 ? 1 : 0}`);
  const file = path.join(tmp, 'markup.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.getByTestId('csv-input').setInputFiles(file);
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.startsWith('markup.csv'));
    await page.getByTestId('outcome-select').selectOption('y');
    await page.getByTestId('model-select').selectOption('logistic');
    await setRun(page, { algorithm: 'mh', chains: 2, warmup: 20, draws: 30 });
    assert.equal(await runToEnd(page), 'done');
    const got = await pageTable(page);
    assert.deepEqual(got.rows.map((r) => r[0]), ['intercept', header]);
    assert.deepEqual(await page.getByTestId('forest-plot').locator('text.fname').allTextContents(), [header]);
    assert.equal(await page.locator('main img, main script, #results svg foreignObject').count(), 0, 'no element made from data');
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});
