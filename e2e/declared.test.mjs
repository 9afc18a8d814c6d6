// The outcome, its type (the model family) and the predictors come from the
// header and from what the user declares, never from the rows (issue #15,
// item 3). Two files that differ in one row must give the same model
// controls after loading, and the same exported config and planned privacy
// report once the same public inputs are set, byte for byte. A declared 0/1
// outcome needs no typed bound. A semicolon file with decimal commas loads
// with "numbers use a decimal comma" and runs.
//
// Needs make build (bin/dpmcmc, build/site) and Chromium; run with
//   node --test e2e/declared.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Harness, root, DESKTOP, assertClean, setRun, runToEnd, downloads, summaryRows, readyToRun } from './helpers.mjs';

const h = new Harness();
const tmp = mkdtempSync(path.join(tmpdir(), 'dpmcmc-declared-'));

before(() => h.start(process.env.DPMCMC_SITE ?? path.join(root, 'build', 'site')));
after(() => h.stop());

/**
 * Writes rows (arrays of cells) under header as dir/cohort.csv: both files
 * of a pair have the same name, so that only their rows differ.
 */
function writeCSV(dir, header, rows) {
  mkdirSync(path.join(tmp, dir), { recursive: true });
  const file = path.join(tmp, dir, 'cohort.csv');
  writeFileSync(file, `${[header, ...rows].map((r) => r.join(',')).join('\n')}\n`);
  return file;
}

/** 200 rows of x1 ∈ [−2, 2], x2 ∈ {0, 1}, y ∈ {0, 1} (a fixed pattern). */
function baseRows() {
  return Array.from({ length: 200 }, (_, i) => [((i % 9) - 4) / 2, i % 3 === 0 ? 1 : 0, (i * 7) % 5 < 2 ? 1 : 0]);
}

async function load(page, file) {
  await page.getByTestId('csv-input').setInputFiles(file);
  await page.waitForFunction(() => /^cohort\.csv: 200 rows/.test(document.querySelector('[data-testid="file-info"]').textContent));
}

/** What the model and bounds steps show right after loading, before any input. */
function modelState(page) {
  return page.evaluate(() => {
    const q = (id) => document.querySelector(`[data-testid="${id}"]`);
    return {
      outcome: q('outcome-select').value,
      outcomes: [...q('outcome-select').options].map((o) => [o.value, o.textContent]),
      family: q('model-select').value,
      predictors: [...q('predictors').querySelectorAll('input')].map((i) => [i.value, i.checked]),
      bounds: [...q('bounds-table').querySelectorAll('tbody tr')].map((tr) => [tr.dataset.column, ...[...tr.querySelectorAll('input')].map((i) => [i.value, i.disabled])]),
      blocker: q('run-blocker').textContent,
      algorithm: q('algorithm-select').value,
      delta: q('delta-input').value,
    };
  });
}

/**
 * Sets the same public inputs on a loaded file and waits for the plan (or
 * its error, or a blocker matching blocked).
 */
async function declare(page, bounds, blocked = /^Cannot run/) {
  await page.getByTestId('model-select').selectOption('logistic');
  for (const [c, [lo, hi]] of Object.entries(bounds)) {
    await page.getByTestId(`bound-lo-${c}`).fill(String(lo));
    await page.getByTestId(`bound-hi-${c}`).fill(String(hi));
  }
  await setRun(page, { algorithm: 'dp-penalty', chains: 2, warmup: 20, draws: 30, seed: 4242 });
  await page.waitForFunction((blocked) => {
    const plan = document.querySelector('[data-testid="plan"]').textContent;
    return /planned ε/.test(plan) || blocked.test(document.querySelector('[data-testid="run-blocker"]').textContent);
  }, blocked, { timeout: 60000 });
}

/** The pre-run exports: config.json and (when planned) privacy-planned.json. */
async function exportsBeforeRun(page) {
  const [config] = await downloads(page, 'export-config');
  assert.equal(config.name, 'config.json');
  if (await page.getByTestId('export-planned-report').isDisabled()) return { config: config.text, report: null };
  const [report] = await downloads(page, 'export-planned-report');
  assert.equal(report.name, 'privacy-planned.json');
  return { config: config.text, report: report.text };
}

test('one row with y = 2 changes neither the defaults nor the exports; a declared 0/1 outcome needs no bound', { timeout: 180000 }, async () => {
  const rows = baseRows();
  const a = writeCSV('y-a', ['x1', 'x2', 'y'], rows);
  const b = writeCSV('y-b', ['x1', 'x2', 'y'], rows.map((r, i) => (i === 17 ? [r[0], r[1], 2] : r)));
  const bounds = { x1: [-2, 2], x2: [0, 1] };
  const got = [];
  for (const file of [a, b]) {
    const { context, page, rec } = await h.open(DESKTOP);
    try {
      await load(page, file);
      const state = await modelState(page);
      // Nothing is preselected from the rows: the last column by position,
      // its type undeclared, every other column a predictor.
      assert.equal(state.outcome, 'y');
      assert.equal(state.family, '');
      assert.deepEqual(state.predictors, [['x1', true], ['x2', true]]);
      assert.match(state.blocker, /^Declare what the outcome "y" is/);
      assert.equal(await page.getByTestId('export-config').isDisabled(), true);
      await declare(page, bounds);
      // Only the predictors' bounds were typed: the 0/1 outcome's is [0, 1].
      assert.deepEqual(await page.getByTestId('bound-lo-y').evaluate((i) => [i.value, i.disabled]), ['0', true]);
      assert.deepEqual(await page.getByTestId('bound-hi-y').evaluate((i) => [i.value, i.disabled]), ['1', true]);
      await readyToRun(page, 10000);
      assert.equal(await page.getByTestId('run-blocker').textContent(), '');
      const ex = await exportsBeforeRun(page);
      const local = await page.getByTestId('outcome-local-check').evaluate((e) => (e.hidden ? '' : e.textContent));
      const clip = await page.getByTestId('clip-note').evaluate((e) => (e.hidden ? '' : e.textContent));
      got.push({ state, ex, local, clip });
      if (file === b) {
        // The run goes through (y = 2 is clipped to the declared bound) and
        // its report is the planned one.
        assert.equal(await runToEnd(page), 'done');
        // 2 × 30 draws cannot converge: the forest plot says so first.
        assert.match(await page.getByTestId('verdict').textContent(), /^Not converged/);
        assert.match(await page.getByTestId('forest-plot').locator('figcaption').textContent(), /^The chains did not converge: these intervals show where the chains were, not the posterior/);
        const [report] = await downloads(page, 'export-report');
        assert.equal(report.text, ex.report, 'the report after the run equals the planned report');
      }
      await assertClean(page, rec);
    } finally {
      await context.close();
    }
  }
  const [ra, rb] = got;
  assert.deepEqual(ra.state, rb.state, 'the model and bounds steps right after loading');
  assert.equal(ra.ex.config, rb.ex.config, 'config.json');
  assert.ok(ra.ex.report, 'a planned privacy report');
  assert.equal(ra.ex.report, rb.ex.report, 'privacy-planned.json');
  const cfg = JSON.parse(ra.ex.config);
  assert.deepEqual(cfg.model, { model: 'logistic', outcome: 'y', predictors: ['x1', 'x2'] });
  assert.deepEqual(cfg.data.bounds, { y: [0, 1], x1: [-2, 2], x2: [0, 1] });
  const rep = JSON.parse(ra.ex.report);
  assert.equal(rep.model, 'logistic');
  assert.deepEqual(rep.public_bounds, { y: [0, 1], x1: [-2, 2], x2: [0, 1] });
  assert.deepEqual(rep.iterations_per_chain, [50, 50]);
  // The rows may be described on screen, labelled local, and only there.
  assert.equal(ra.local, '');
  assert.match(rb.local, /^Local check \(not private, stays on this device\): not every value of y is 0 or 1/);
  // So may the values the bounds clipped: none in a, y's 2 in b.
  assert.equal(ra.clip, '');
  assert.match(rb.clip, /^Values outside their public bounds, clipped to them \(counted on this device, never exported\): y 1 above 1 \(fitted as the nearest of 0 and 1: if y is coded otherwise, e\.g\. 1\/2, type its text coding above: 1=0, 2=1\)\. /);
});

test('values outside a bound are counted on screen only; a 0/1 outcome coded 1/2 runs once its coding 1=0, 2=1 is typed', { timeout: 180000 }, async () => {
  // x1 ∈ [−2, 2]: the bound [−1, 1] clips the rows with |x1| > 1.
  const rows = baseRows().map((r) => [r[0], r[1], r[2] + 1]);
  const above = rows.filter((r) => r[0] > 1).length;
  const below = rows.filter((r) => r[0] < -1).length;
  const file = writeCSV('coded12', ['x1', 'x2', 'y'], rows);
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await load(page, file);
    await declare(page, { x1: [-1, 1], x2: [0, 1] });
    const note = () => page.getByTestId('clip-note').evaluate((e) => (e.hidden ? '' : e.textContent));
    assert.match(await note(), new RegExp(`: x1 ${above} above 1 and ${below} below -1; y ${rows.filter((r) => r[2] === 2).length} above 1 \\(fitted as the nearest of 0 and 1`));
    await page.getByTestId('coding-y').fill('1=0, 2=1');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent) && /^Values/.test(document.querySelector('[data-testid="clip-note"]').textContent) && !/; y /.test(document.querySelector('[data-testid="clip-note"]').textContent), null, { timeout: 60000 });
    assert.match(await note(), new RegExp(`: x1 ${above} above 1 and ${below} below -1\\. Clipping is what keeps`));
    // The note appears by unhiding: its first sentence is also announced
    // with the plan, from the region that is always rendered.
    assert.match(await page.getByTestId('plan-announce').textContent(), new RegExp(`^Planned: ε = [\\d.]+[^.]*\\. Values outside their public bounds, clipped to them \\(counted on this device, never exported\\): x1 ${above} above 1 and ${below} below -1\\.$`));
    const ex = await exportsBeforeRun(page);
    assert.deepEqual(JSON.parse(ex.config).data.categories, { y: { 1: 0, 2: 1 } });
    for (const text of [ex.config, ex.report]) assert.doesNotMatch(text, /counted on this device|"clipped"|\d above \d/);
    assert.equal(await runToEnd(page), 'done');
    // A bound that holds every value: no note.
    await page.getByTestId('bound-lo-x1').fill('-2');
    await page.getByTestId('bound-hi-x1').fill('2');
    await page.waitForFunction(() => document.querySelector('[data-testid="clip-note"]').hidden && /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('text in a row of a predictor changes neither the predictors nor the config; the engine (first row) or the file check (a later row) names the row', { timeout: 240000 }, async () => {
  const rows = baseRows();
  const a = writeCSV('text-a', ['x1', 'z', 'y'], rows);
  const b = writeCSV('text-b', ['x1', 'z', 'y'], rows.map((r, i) => (i === 0 ? [r[0], 'abc', r[2]] : r)));
  // A word further down a number column: the file still loads (before, it
  // did not, and the error's advice to untick the column could not be
  // followed), and a run that uses z is blocked, naming the line.
  const c = writeCSV('text-c', ['x1', 'z', 'y'], rows.map((r, i) => (i === 7 ? [r[0], 'forty', r[2]] : r)));
  const bounds = { x1: [-2, 2], z: [0, 1] };
  const got = [];
  for (const file of [a, b, c]) {
    const { context, page, rec } = await h.open(DESKTOP);
    try {
      await load(page, file);
      const state = await modelState(page);
      assert.deepEqual(state.predictors, [['x1', true], ['z', true]]);
      await declare(page, bounds, /^Cannot run|^z holds a cell/);
      // The page's own blockers (c's word) keep the pre-run exports off.
      const withZ = (await page.getByTestId('export-config').isDisabled()) ? null : await exportsBeforeRun(page);
      const blocker = await page.getByTestId('run-blocker').textContent();
      const runnable = !(await page.getByTestId('run-button').isDisabled());
      // Without z, both files plan the same run.
      await page.getByTestId('predictor-z').uncheck();
      await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
      const withoutZ = await exportsBeforeRun(page);
      got.push({ state, withZ, blocker, runnable, withoutZ });
      await assertClean(page, rec);
    } finally {
      await context.close();
    }
  }
  const [ra, rb, rc] = got;
  assert.deepEqual(ra.state, rb.state, 'the model and bounds steps right after loading');
  assert.equal(ra.withZ.config, rb.withZ.config, 'config.json with z');
  assert.deepEqual(JSON.parse(ra.withZ.config).model.predictors, ['x1', 'z']);
  // A's run is planned; B's stops when the engine loads z, naming the row,
  // on screen only: nothing of it is in the config.
  assert.equal(ra.runnable, true);
  assert.equal(ra.blocker, '');
  assert.ok(ra.withZ.report);
  assert.equal(rb.runnable, false);
  assert.match(rb.blocker, /^Cannot run: line 2, column 2 \("z"\)/);
  assert.equal(rb.withZ.report, null, 'no planned report for a run that cannot be prepared');
  assert.equal(ra.withoutZ.config, rb.withoutZ.config, 'config.json without z');
  assert.ok(ra.withoutZ.report);
  assert.equal(ra.withoutZ.report, rb.withoutZ.report, 'privacy-planned.json without z');
  assert.deepEqual(rc.state, ra.state);
  assert.equal(rc.withZ, null);
  assert.equal(rc.runnable, false);
  assert.equal(rc.blocker, 'z holds a cell that is not a number (local check, on this screen only: line 9, "forty" is not a number): correct it in the file and load the file again, or untick z among the predictors.');
  assert.equal(rc.withoutZ.config, ra.withoutZ.config);
  assert.equal(rc.withoutZ.report, ra.withoutZ.report);
});

test('a count outcome is declared with K, a number outcome with LO and HI; the bounds table shows the same values', { timeout: 120000 }, async () => {
  const file = writeCSV('count', ['x1', 'visits'], Array.from({ length: 200 }, (_, i) => [((i % 9) - 4) / 2, (i * 7) % 5]));
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await load(page, file);
    await page.getByTestId('model-select').selectOption('poisson');
    assert.equal(await page.getByTestId('outcome-lo-box').isVisible(), false);
    assert.match(await page.getByTestId('outcome-hi-label').textContent(), /^K:/);
    await page.getByTestId('outcome-hi-input').fill('12');
    assert.deepEqual(await page.getByTestId('bound-lo-visits').evaluate((i) => [i.value, i.disabled]), ['0', true]);
    assert.equal(await page.getByTestId('bound-hi-visits').inputValue(), '12');
    await page.getByTestId('bound-lo-x1').fill('-2');
    await page.getByTestId('bound-hi-x1').fill('2');
    await setRun(page, { algorithm: 'dp-penalty', chains: 2, warmup: 20, draws: 30, seed: 7 });
    // The Poisson and linear likelihoods need a parameter box for DP.
    await page.getByTestId('box-input').fill('5');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    let cfg = JSON.parse((await downloads(page, 'export-config'))[0].text);
    assert.deepEqual(cfg.model, { model: 'poisson', outcome: 'visits', predictors: ['x1'] });
    assert.deepEqual(cfg.data.bounds, { visits: [0, 12], x1: [-2, 2] });

    // A number: LO and HI, typed in either place.
    await page.getByTestId('model-select').selectOption('linear');
    assert.equal(await page.getByTestId('bound-lo-visits').isDisabled(), false);
    await page.getByTestId('bound-lo-visits').fill('-1');
    assert.equal(await page.getByTestId('outcome-lo-input').inputValue(), '-1');
    assert.equal(await page.getByTestId('outcome-hi-input').inputValue(), '12');
    // The linear model's noise sd has no default: it is asked for, then
    // written into the config and stated in the plan.
    assert.equal(await page.getByTestId('noise-sd-box').isVisible(), true);
    await page.waitForFunction(() => /^Type the noise sd of visits/.test(document.querySelector('[data-testid="run-blocker"]').textContent), null, { timeout: 10000 });
    await page.getByTestId('noise-sd-input').fill('2.5');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    cfg = JSON.parse((await downloads(page, 'export-config'))[0].text);
    assert.deepEqual(cfg.model, { model: 'linear', outcome: 'visits', predictors: ['x1'], options: { 'noise-sd': '2.5' } });
    assert.match(await page.getByTestId('plan').textContent(), /noise sd σ = 2\.5 \(in the outcome's units\) is public and known/);
    assert.deepEqual(cfg.data.bounds, { visits: [-1, 12], x1: [-2, 2] });

    // Choosing another outcome asks for its declaration again.
    await page.getByTestId('outcome-select').selectOption('x1');
    assert.equal(await page.getByTestId('model-select').inputValue(), '');
    assert.match(await page.getByTestId('run-blocker').textContent(), /^Declare what the outcome "x1" is/);
    assert.deepEqual(await page.getByTestId('predictors').locator('input').evaluateAll((is) => is.map((i) => [i.value, i.checked])), [['visits', true]]);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('the demo keeps its documented declaration', { timeout: 60000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    assert.equal(await page.getByTestId('outcome-select').inputValue(), 'event');
    assert.equal(await page.getByTestId('model-select').inputValue(), 'logistic');
    assert.deepEqual(await page.getByTestId('bound-hi-event').evaluate((i) => [i.value, i.disabled]), ['1', true]);
    assert.match(await page.getByTestId('outcome-doc').textContent(), /^Declared 0\/1/);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a semicolon file with decimal commas: the loader names the option, and with "numbers use a decimal comma" it loads and runs with the values read as numbers', { timeout: 120000 }, async () => {
  // 200 rows "y;x1;x2" written as a European spreadsheet exports them.
  mkdirSync(path.join(tmp, 'dc'), { recursive: true });
  const file = path.join(tmp, 'dc', 'cohort.csv');
  const rows = baseRows().map(([x1, x2, y]) => [y, String(x1 + 0.25).replace('.', ','), x2]);
  writeFileSync(file, `${[['y', 'x1', 'x2'], ...rows].map((r) => r.join(';')).join('\n')}\n`);
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.getByTestId('csv-input').setInputFiles(file);
    const err = page.getByTestId('error');
    await page.waitForFunction(() => !document.querySelector('[data-testid="error"]').hidden);
    assert.match(await err.textContent(), /line 2, column 2 \("x1"\): "-1,75" is not a number \(it looks like a decimal comma.*the page: "numbers use a decimal comma"/);
    await page.getByTestId('decimal-comma-input').check();
    await page.waitForFunction(() => /^cohort\.csv: 200 rows/.test(document.querySelector('[data-testid="file-info"]').textContent));
    assert.equal(await err.isHidden(), true);
    await page.getByTestId('outcome-select').selectOption('y');
    await page.getByTestId('model-select').selectOption('logistic');
    for (const c of ['x1', 'x2']) await page.getByTestId('predictors').locator(`input[value="${c}"]`).check();
    for (const [c, [lo, hi]] of Object.entries({ x1: [-3, 3], x2: [0, 1] })) {
      await page.getByTestId(`bound-lo-${c}`).fill(String(lo));
      await page.getByTestId(`bound-hi-${c}`).fill(String(hi));
    }
    // iid draws: 4 × 1000 converge whatever the release.
    await setRun(page, { algorithm: 'noise-aware', chains: 4, draws: 1000 });
    const [config] = await downloads(page, 'export-config');
    assert.equal(JSON.parse(config.text).data.decimal_comma, true);
    assert.equal(await runToEnd(page), 'done');
    assert.match(await page.getByTestId('verdict').textContent(), /^Converged/);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('missing predictor cells: counted on screen only, replaced by declared values for every predictor, and the exports equal those of the complete file', { timeout: 240000 }, async () => {
  const rows = baseRows();
  const full = writeCSV('miss-full', ['x1', 'x2', 'y'], rows);
  // Rows 3, 20, 37, … lose x1 (NA or empty): 12 cells.
  const holes = writeCSV('miss-holes', ['x1', 'x2', 'y'], rows.map((r, i) => (i % 17 === 3 ? [i % 2 ? 'NA' : '', r[1], r[2]] : r)));
  const noOutcome = writeCSV('miss-outcome', ['x1', 'x2', 'y'], rows.map((r, i) => (i === 50 ? [r[0], r[1], 'NA'] : r)));
  const bounds = { x1: [-2, 2], x2: [0, 1] };
  const got = [];
  for (const file of [holes, full]) {
    const { context, page, rec } = await h.open(DESKTOP);
    try {
      await load(page, file);
      const info = await page.getByTestId('file-info').textContent();
      if (file === holes) {
        assert.match(info, /200 rows × 3 columns.* Missing cells \(counted on this device, never exported\): x1 12\./);
        await declare(page, bounds, /x1 has missing cells \(step 3\): tick "Replace missing values"/);
        assert.match(await page.getByTestId('missing-note').textContent(), /^Missing cells in x1 \(12, the first on line 5\)/);
        assert.equal(await page.getByTestId('export-config').isDisabled(), true);
      } else {
        assert.doesNotMatch(info, /Missing/);
        await declare(page, bounds);
      }
      await page.getByTestId('impute-toggle').check();
      // A value is asked for every predictor, missing cells or not.
      assert.equal(await page.getByTestId('impute-x2').count(), 1);
      assert.equal(await page.getByTestId('impute-y').count(), 0);
      await page.getByTestId('impute-x1').fill('0');
      // Ticked, every predictor needs a value, missing cells or not.
      assert.match(await page.getByTestId('run-blocker').textContent(), /value for missing cells of every predictor \(step 3; not typed yet: x2\)/);
      await page.getByTestId('impute-x2').fill('0');
      await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
      assert.equal(await page.getByTestId('run-blocker').textContent(), '');
      assert.equal(await page.getByTestId('missing-note').isHidden(), true);
      const ex = await exportsBeforeRun(page);
      got.push(ex);
      if (file === holes) {
        assert.equal(await runToEnd(page), 'done');
        assert.match(await page.getByTestId('privacy-statement').textContent(), /Missing values of the predictors, if any, were replaced by public values declared by the analyst \(x1 = 0, x2 = 0\), row by row/);
        const [report] = await downloads(page, 'export-report');
        assert.equal(report.text, ex.report, 'the report after the run equals the planned report');
      }
      await assertClean(page, rec);
    } finally {
      await context.close();
    }
  }
  // The exports do not tell which file had missing cells, nor how many.
  assert.equal(got[0].config, got[1].config, 'config.json');
  assert.equal(got[0].report, got[1].report, 'privacy-planned.json');
  const cfg = JSON.parse(got[0].config);
  assert.deepEqual(cfg.data.impute, { x1: 0, x2: 0 });
  assert.deepEqual(JSON.parse(got[0].report).missing_cells_replaced_by, { x1: 0, x2: 0 });

  // A missing outcome cannot be replaced: the run is blocked and says why.
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await load(page, noOutcome);
    await page.getByTestId('model-select').selectOption('logistic');
    assert.match(await page.getByTestId('run-blocker').textContent(), /The outcome y has 1 missing cell \(counted on this device, never exported, on line 52\): remove those rows before loading the file/);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('columns written as text (sex F/M, a yes/no outcome) run once their coding is typed; the bound comes from the coding', { timeout: 180000 }, async () => {
  const rows = Array.from({ length: 200 }, (_, i) => [20 + (i * 7) % 60, i % 2 ? 'M' : 'F', i % 3 ? 'no' : 'yes', (i * 5) % 7 < 3 ? 'yes' : 'no']);
  const file = writeCSV('coded', ['age', 'sex', 'smoker', 'y'], rows);
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await load(page, file);
    await declare(page, { age: [18, 90] }, /hold text/);
    // The page names every text column without a coding before any run,
    // and does not ask for their bounds: the coding gives them.
    const more = () => page.getByTestId('run-blockers-more').evaluate((ul) => (ul.hidden ? [] : [...ul.children].map((li) => li.textContent)));
    assert.match(await page.getByTestId('run-blocker').textContent(), /^y, sex and smoker hold text \(local check: the values read on this device are not numbers\): type the text coding in step 3, e\.g\. no=0, yes=1/);
    assert.deepEqual(await more(), []);
    // A non-private run needs the codings too.
    await page.getByTestId('algorithm-select').selectOption('mh');
    assert.match(await page.getByTestId('run-blocker').textContent(), /^y, sex and smoker hold text/);
    await page.getByTestId('algorithm-select').selectOption('dp-penalty');
    await page.getByTestId('coding-sex').fill('F=0');
    assert.deepEqual(await more(), ['y and smoker hold text (local check: the values read on this device are not numbers): type the text coding in step 3, e.g. no=0, yes=1; the coding also gives the bound.']);
    assert.match(await page.getByTestId('run-blocker').textContent(), /^The text coding of sex \(step 3\): give every value the column can take/);
    await page.getByTestId('coding-sex').fill('F=0, M=1');
    assert.match(await page.getByTestId('run-blocker').textContent(), /^y and smoker hold text/);
    await page.getByTestId('coding-smoker').fill('no: 0; yes: 1');
    // A 0/1 outcome coded 1/2 would be clipped to all ones: refused.
    await page.getByTestId('coding-y').fill('no=1, yes=2');
    await page.waitForFunction(() => /^Cannot run/.test(document.querySelector('[data-testid="run-blocker"]').textContent), null, { timeout: 60000 });
    assert.match(await page.getByTestId('run-blocker').textContent(), /the coding of the 0\/1 outcome "y" maps "yes" to 2: a 0\/1 outcome's coding must give 0 and 1 only/);
    await page.getByTestId('coding-y').fill('no=0, yes=1');
    // The coded predictors' bounds are their numbers'.
    assert.deepEqual(await page.getByTestId('bound-lo-sex').inputValue(), '0');
    assert.deepEqual(await page.getByTestId('bound-hi-smoker').inputValue(), '1');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    const ex = await exportsBeforeRun(page);
    const cfg = JSON.parse(ex.config);
    assert.deepEqual(cfg.data.categories, { y: { no: 0, yes: 1 }, sex: { F: 0, M: 1 }, smoker: { no: 0, yes: 1 } });
    assert.deepEqual(cfg.data.bounds, { y: [0, 1], age: [18, 90], sex: [0, 1], smoker: [0, 1] });
    assert.equal(await runToEnd(page), 'done');
    assert.deepEqual((await summaryRows(page)).map((r) => r[0]), ['intercept', 'age', 'sex', 'smoker']);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('every blocker is listed at once: the first beside Run, the others under it, each gone once fixed', { timeout: 120000 }, async () => {
  const file = writeCSV('blockers', ['x1', 'x2', 'y'], baseRows());
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await load(page, file);
    const more = () => page.getByTestId('run-blockers-more').evaluate((ul) => (ul.hidden ? [] : [...ul.children].map((li) => li.textContent)));
    await page.getByTestId('epsilon-input').fill('');
    assert.match(await page.getByTestId('run-blocker').textContent(), /^Declare what the outcome "y" is \(step 2\)/);
    // The undeclared outcome's bound comes with its declaration: not listed twice.
    assert.deepEqual(await more(), ['Fill in every public bound to run a private sampler (missing: x1, x2).', 'ε must be a positive number.']);
    await page.getByTestId('model-select').selectOption('logistic');
    assert.equal(await page.getByTestId('run-blocker').textContent(), 'Fill in every public bound to run a private sampler (missing: x1, x2).');
    assert.deepEqual(await more(), ['ε must be a positive number.']);
    for (const [c, lo, hi] of [['x1', -2, 2], ['x2', 0, 1]]) {
      await page.getByTestId(`bound-lo-${c}`).fill(String(lo));
      await page.getByTestId(`bound-hi-${c}`).fill(String(hi));
    }
    assert.equal(await page.getByTestId('run-blocker').textContent(), 'ε must be a positive number.');
    assert.deepEqual(await more(), []);
    assert.equal(await page.getByTestId('run-blockers-more').isHidden(), true);
    await page.getByTestId('epsilon-input').fill('3');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    assert.equal(await page.getByTestId('run-blocker').textContent(), '');
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});
