// End-to-end tests of the app's flow in headless Chromium: the demo, a CSV
// from disk, runs, cancel, exports (parsed, in the CLI's formats), markup in
// data rendered as text, loader errors, phone layout; every test also
// proves no request after load (page and workers) and no CSP violation.
// Screenshots of each step: e2e/screenshots/step-*-{1280x800,390x844}.png.
//
// Needs make build (bin/dpmcmc, build/site) and Chromium; run with
//   node --test e2e/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Harness, root, DESKTOP, PHONE, assertClean, shot, setRun, runToEnd, downloads, summaryRows, readyToRun } from './helpers.mjs';

const h = new Harness();
const tmp = mkdtempSync(path.join(tmpdir(), 'dpmcmc-e2e-'));
const PARAMS = ['intercept', 'age10', 'bmi5', 'sbp20', 'smoker'];

before(() => h.start(process.env.DPMCMC_SITE ?? path.join(root, 'build', 'site')));
after(() => h.stop());

/** Parses a simple CSV (no quoted fields) into rows; '#' lines are skipped. */
function parseCSV(text) {
  return text.trim().split('\n').filter((l) => !l.startsWith('#')).map((l) => l.split(','));
}

test('demo flow: 2 chains to completion, summary, plots, exports (1280x800)', { timeout: 180000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    // make serve shows the demo first; the button loads it again.
    await shot(page, 'step-1-load-1280x800');
    await page.getByTestId('demo-button').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    assert.equal(await page.getByTestId('preview').locator('tbody tr').count(), 5);
    assert.equal(await page.getByTestId('outcome-select').inputValue(), 'event');
    assert.equal(await page.getByTestId('model-select').inputValue(), 'logistic');
    assert.equal(await page.getByTestId('bound-lo-age10').inputValue(), '-4.2');
    assert.equal(await page.getByTestId('bound-hi-event').inputValue(), '1');
    assert.match(await page.getByTestId('delta-input').inputValue(), /^1e-5$|^0\.00001$/);
    await shot(page, 'step-2-model-1280x800', 'model');
    await shot(page, 'step-3-bounds-1280x800', 'bounds');
    await shot(page, 'step-4-budget-1280x800', 'budget');

    await setRun(page, { algorithm: 'hmc', chains: 2, warmup: 100, draws: 150 });
    await page.waitForFunction(() => /2 chains × 250 iterations/.test(document.querySelector('[data-testid="plan"]').textContent));
    assert.equal(await page.getByTestId('not-private-warning').isVisible(), true);
    await shot(page, 'step-5-algorithm-1280x800', 'algo');
    assert.equal(await runToEnd(page), 'done');
    await shot(page, 'step-6-run-1280x800', 'run');

    const rows = await summaryRows(page);
    assert.deepEqual(rows.map((r) => r[0]), PARAMS);
    for (const r of rows.slice(1)) assert.match(r.at(-1), /^\d.*\(.+–.+\)$/, `odds ratio cell ${r}`);
    assert.match(await page.getByTestId('privacy-statement').textContent(), /^NOT PRIVATE/);
    assert.match(await page.getByTestId('verdict').textContent(), /\w/);
    for (const id of ['trace-plot', 'density-plot', 'pair-plot']) {
      assert.equal(await page.getByTestId(id).locator('canvas').count(), 1, id);
    }
    await shot(page, 'step-7-results-1280x800', 'results');

    // Tidy draws CSV: the CLI's format (.chain, .iteration, .draw, parameters).
    const [draws] = await downloads(page, 'export-draws');
    assert.equal(draws.name, 'dpmcmc-draws-NOT-PRIVATE.csv');
    const t = parseCSV(draws.text);
    assert.deepEqual(t[0], ['.chain', '.iteration', '.draw', ...PARAMS]);
    assert.equal(t.length, 1 + 2 * 150);
    assert.deepEqual(t[1].slice(0, 3), ['1', '1', '1']);
    assert.deepEqual(t.at(-1).slice(0, 3), ['2', '150', '300']);
    // Stan CSV: one file per chain, CmdStan header comments, config, no lp__.
    const stan = await downloads(page, 'export-stan', 2);
    assert.deepEqual(stan.map((f) => f.name), ['dpmcmc-stan-NOT-PRIVATE_1.csv', 'dpmcmc-stan-NOT-PRIVATE_2.csv']);
    for (const f of stan) {
      assert.match(f.text, /^# model = logistic$/m);
      assert.match(f.text, /^#\s+algorithm = hmc$/m);
      assert.match(f.text, /^#\s+num_samples = 150$/m);
      const cfg = JSON.parse(/^# config = (.*)$/m.exec(f.text)[1]);
      assert.equal(cfg.algorithm, 'hmc');
      assert.equal(cfg.chains, 2);
      const s = parseCSV(f.text);
      assert.deepEqual(s[0], PARAMS);
      assert.equal(s.length, 1 + 150);
      assert.doesNotMatch(f.text, /lp__/);
    }
    // A non-private run has no privacy report.
    assert.equal(await page.getByTestId('export-report').isDisabled(), true);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a CSV from disk through csv-input (semicolons, Poisson)', { timeout: 120000 }, async () => {
  const file = path.join(tmp, 'visits.csv');
  const lines = ['age;smoker;visits'];
  for (let i = 0; i < 300; i++) lines.push(`${(i % 7) - 3};${i % 3 === 0 ? 1 : 0};${(i * 7) % 5}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.getByTestId('csv-input').setInputFiles(file);
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.startsWith('visits.csv: 300 rows'));
    assert.match(await page.getByTestId('file-info').textContent(), /semicolon-separated/);
    const types = await page.getByTestId('preview').locator('thead tr.types td').allTextContents();
    assert.deepEqual(types, ['number', 'binary', 'count']);
    // The types are read from the rows for the preview only: the outcome
    // defaults to the last column by position and its type is declared.
    assert.equal(await page.getByTestId('outcome-select').inputValue(), 'visits');
    assert.equal(await page.getByTestId('model-select').inputValue(), '');
    await page.getByTestId('model-select').selectOption('poisson');
    // Bounds are never pre-filled from the data; the count outcome's lower
    // bound 0 is its declaration's.
    for (const c of ['age', 'smoker', 'visits']) {
      assert.equal(await page.getByTestId(`bound-lo-${c}`).inputValue(), c === 'visits' ? '0' : '');
      assert.equal(await page.getByTestId(`bound-hi-${c}`).inputValue(), '');
    }
    await setRun(page, { algorithm: 'mh', chains: 2, warmup: 100, draws: 100 });
    assert.equal(await runToEnd(page), 'done');
    const rows = await summaryRows(page);
    assert.deepEqual(rows.map((r) => r[0]), ['intercept', 'age', 'smoker']);
    const head = await page.getByTestId('summary-table').locator('thead th').allTextContents();
    assert.match(head.at(-1), /rate ratio/);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('cancel keeps the partial draws and says so', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await setRun(page, { algorithm: 'mh', chains: 2, warmup: 50, draws: 5000000 });
    await page.getByTestId('run-button').click();
    await page.waitForFunction(() => {
      const p = document.querySelector('[data-testid="progress-chain-1"]');
      return p && p.value > 2000;
    }, null, { timeout: 30000 });
    await page.getByTestId('cancel-button').click();
    const state = await page.waitForSelector('[data-testid="progress"]:is([data-state="cancelled"],[data-state="done"])', { timeout: 10000 });
    assert.equal(await state.getAttribute('data-state'), 'cancelled');
    const texts = await page.locator('[data-testid^="progress-text-"]').allTextContents();
    assert.equal(texts.length, 2);
    for (const tx of texts) assert.match(tx, /\(cancelled\)$/);
    assert.equal(await page.locator('#results').getAttribute('data-state'), 'cancelled');
    const rows = await summaryRows(page);
    assert.deepEqual(rows.map((r) => r[0]), PARAMS);
    assert.match(await page.getByTestId('verdict').textContent(), /cancelled: chains are cut to the shortest/);
    const [draws] = await downloads(page, 'export-draws');
    const t = parseCSV(draws.text);
    const per = Number(/cut to the shortest, (\d+) draws/.exec(await page.getByTestId('verdict').textContent())[1]);
    assert.equal(t.length, 1 + 2 * per);
    // The Stan CSVs hold the same cut chains (their header used to state
    // the planned draws, and the export failed after every cancel).
    const stan = await downloads(page, 'export-stan', 2);
    for (const f of stan) {
      assert.match(f.text, new RegExp(`num_samples = ${per}\\n`), f.name);
      assert.equal(f.text.split('\n').filter((l) => l && !l.startsWith('#')).length, 1 + per, f.name);
    }
    assert.equal(await page.getByTestId('export-error').isHidden(), true);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('markup in a header and cells is rendered as text', { timeout: 60000 }, async () => {
  const header = '<img src=x onerror=alert(1)>';
  const file = path.join(tmp, 'markup.csv');
  writeFileSync(file, `${header},y,"<b>bold</b>"\n1,0,<script>alert(2)</script>\n2,1,x\n3,0,y\n`);
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.getByTestId('csv-input').setInputFiles(file);
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.startsWith('markup.csv'));
    const ths = await page.getByTestId('preview').locator('thead th').allTextContents();
    assert.deepEqual(ths, [header, 'y', '<b>bold</b>']);
    assert.equal(await page.locator('main img, main b, main script').count(), 0, 'no element made from data');
    assert.equal(await page.getByTestId(`bound-lo-${header}`).count() + await page.getByTestId(`predictor-${header}`).count(), 2);
    await page.waitForTimeout(300);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a bad CSV shows the loader\'s specific message', { timeout: 60000 }, async () => {
  const file = path.join(tmp, 'bad.csv');
  writeFileSync(file, 'age,event\n50,1\n61,0\nabc,1\n');
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.getByTestId('csv-input').setInputFiles(file);
    const err = page.getByTestId('error');
    await err.waitFor({ state: 'visible' });
    assert.match(await err.textContent(), /^bad\.csv: line 4, column 1 \("age"\): .*"abc".*not a number/);
    // A word past a number column's first cell: the file loads without the
    // column, so that the message's "leave the column out" can be done;
    // a run that uses it is blocked, and the message goes once it is out.
    assert.equal(await page.getByTestId('run-button').isDisabled(), true);
    await page.getByTestId('model-select').selectOption('logistic'); // of the outcome, event (the last column)
    await page.waitForFunction(() => /^age holds a cell that is not a number \(local check, on this screen only: line 4, "abc" is not a number\)/.test(document.querySelector('[data-testid="run-blocker"]').textContent));
    await shot(page, 'step-1-error-1280x800');
    await page.getByTestId('predictor-age').uncheck();
    await err.waitFor({ state: 'hidden' });
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('phone width: every step fits 390x844', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(PHONE);
  try {
    await shot(page, 'step-1-load-390x844');
    await shot(page, 'step-2-model-390x844', 'model');
    await shot(page, 'step-3-bounds-390x844', 'bounds');
    await shot(page, 'step-4-budget-390x844', 'budget');
    await setRun(page, { algorithm: 'hmc', chains: 2, warmup: 100, draws: 100 });
    await shot(page, 'step-5-algorithm-390x844', 'algo');
    assert.equal(await runToEnd(page), 'done');
    await shot(page, 'step-6-run-390x844', 'run');
    await shot(page, 'step-7-results-390x844', 'results');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('every control is labelled', { timeout: 60000 }, async () => {
  const { context, page } = await h.open(DESKTOP);
  try {
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, button')]
      .filter((e) => !e.closest('[hidden]'))
      .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || (e.tagName === 'BUTTON' && e.textContent.trim())))
      .map((e) => e.dataset.testid ?? e.outerHTML.slice(0, 60)));
    assert.deepEqual(unlabelled, []);
  } finally {
    await context.close();
  }
});

test('keyboard and screen readers: a short plan announcement, Run by Enter moves focus to Cancel and then to the results, start and end announced, charts with a text alternative', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await setRun(page, { algorithm: 'hmc', chains: 2, warmup: 50, draws: 50 });
    await readyToRun(page);
    // The long plan and forecast are not live regions; one short line is.
    assert.equal(await page.getByTestId('plan').getAttribute('aria-live'), null);
    assert.equal(await page.getByTestId('forecast').getAttribute('aria-live'), null);
    assert.equal(await page.getByTestId('plan-announce').textContent(), 'Planned: a non-private run.');
    await page.getByTestId('run-button').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^Run finished\. /.test(document.querySelector('[data-testid="run-announce"]').textContent), null, { timeout: 60000 });
    assert.match(await page.getByTestId('run-announce').textContent(), /^Run finished\. (Converged|Not converged)[^.]*\. See step 7, Results\.$/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'results-h');
    for (const id of ['trace-plot', 'density-plot']) {
      assert.equal(await page.getByTestId(id).getAttribute('role'), 'img');
      assert.match(await page.getByTestId(id).getAttribute('aria-label'), /a chart of the draws; the summary table and the exported draws hold the same numbers/);
    }
    // A private plan's announcement says what the forecast warns of.
    await page.getByTestId('epsilon-input').fill('1');
    await setRun(page, { algorithm: 'dp-penalty', chains: 4, warmup: 200, draws: 200 });
    await page.waitForFunction(() => document.querySelector('[data-testid="plan-announce"]').textContent === 'Planned: ε = 1; the forecast says the chains will not converge.', null, { timeout: 20000 });
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('private run: bounds required, plan, budget meter, statement, privacy.json; cancel reports what ran', { timeout: 180000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await setRun(page, { algorithm: 'dp-penalty', chains: 2, warmup: 50, draws: 100 });
    // A private run cannot start without every bound.
    await page.getByTestId('bound-lo-bmi5').fill('');
    await page.getByTestId('bound-hi-bmi5').fill('');
    await page.waitForFunction(() => document.querySelector('[data-testid="run-button"]').disabled);
    assert.match(await page.getByTestId('run-blocker').textContent(), /Fill in every public bound/);
    await page.getByTestId('bound-lo-bmi5').fill('-2.4');
    await page.getByTestId('bound-hi-bmi5').fill('4.6');
    await page.waitForFunction(() => /planned ε = 2/.test(document.querySelector('[data-testid="plan"]').textContent));
    assert.equal(await runToEnd(page), 'done');
    assert.match(await page.getByTestId('privacy-statement').textContent(), /satisfy \(ε = 2, δ = 1e-05\)-differential privacy/);
    assert.match(await page.getByTestId('budget-text').textContent(), /^ε spent [0-9.]+ of 2 \(δ = 1e-05\)$/);
    const [report] = await downloads(page, 'export-report');
    const r = JSON.parse(report.text);
    assert.deepEqual(r.iterations_per_chain, [150, 150]);
    assert.ok(r.epsilon_spent <= 2 && r.epsilon_spent > 1.9, `ε spent ${r.epsilon_spent}`);
    assert.equal(r.cancelled, false);
    const [draws] = await downloads(page, 'export-draws');
    assert.equal(draws.name, 'dpmcmc-draws.csv');
    await shot(page, 'step-7-results-private-1280x800', 'results');

    // Cancel a long private run: the report charges exactly what ran.
    await page.getByTestId('draws-input').fill('2000000');
    await readyToRun(page, 10000);
    await page.getByTestId('run-button').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="progress-chain-2"]')?.value > 500, null, { timeout: 30000 });
    await shot(page, 'step-6-run-private-1280x800', 'run');
    // While chains run the meter counts the draws that reached the page,
    // which lag the workers: it says "at least".
    await page.waitForFunction(() => /^ε spent so far at least [0-9.]+ of 2 .*chains still running$/.test(document.querySelector('[data-testid="budget-text"]').textContent), null, { timeout: 10000 });
    await page.getByTestId('cancel-button').click();
    await page.waitForSelector('[data-testid="progress"][data-state="cancelled"]', { timeout: 10000 });
    const ran = await page.locator('[data-testid^="progress-chain-"]').evaluateAll((ps) => ps.map((p) => p.value));
    const [rep2] = await downloads(page, 'export-report');
    const r2 = JSON.parse(rep2.text);
    assert.equal(r2.cancelled, true);
    assert.deepEqual(r2.iterations_per_chain, ran);
    assert.ok(r2.epsilon_spent < 2, `cancelled run spent ${r2.epsilon_spent}`);
    assert.doesNotMatch(await page.getByTestId('budget-text').textContent(), /so far|running/);
    assert.match(await page.getByTestId('privacy-statement').textContent(), new RegExp(`${ran[0] + ran[1]} iterations in total`));
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a private run forecast not to converge is warned beside the Run button, with the ε it would spend', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.getByTestId('epsilon-input').fill('1');
    await setRun(page, { algorithm: 'dp-penalty', chains: 4, warmup: 200, draws: 200 });
    const warning = page.getByTestId('run-forecast-warning');
    await warning.waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await page.getByTestId('forecast').getAttribute('data-will-mix'), 'false');
    assert.match(await warning.textContent(), /^Before you run: the forecast \(step 4\) says these chains cannot converge, so this run would spend ε = 1 on draws that are not a posterior sample\. The recommended sampler, noise-aware, does not have this limit/);
    // A warning, not a lock: the Run button's contract is unchanged.
    await readyToRun(page);
    await page.getByTestId('epsilon-input').fill('1.5');
    await page.waitForFunction(() => /ε = 1\.5 on draws/.test(document.querySelector('[data-testid="run-forecast-warning"]').textContent), null, { timeout: 10000 });
    // At the first ε the forecast names, the chains could converge only
    // for predictors spread over their whole ranges: still warned, with
    // the ε typical data would need.
    const text = await page.getByTestId('forecast').textContent();
    const m = /a larger ε \(at least about ([\d.e+]+) for predictors spread over their whole public ranges; about ([\d.e+]+) for the typical spread\)/.exec(text);
    assert.ok(m, text);
    const [first, typical] = [Number(m[1]), Number(m[2])];
    assert.ok(typical > 2 * first, text);
    await page.getByTestId('epsilon-input').fill(String(Math.round(first * 1.5)));
    await page.waitForFunction(() => /can converge only if the predictors spread over most of their public ranges; for typical data they will probably not/.test(document.querySelector('[data-testid="run-forecast-warning"]').textContent), null, { timeout: 10000 });
    assert.equal(await page.getByTestId('forecast').getAttribute('data-will-mix'), 'true');
    assert.match(await page.getByTestId('forecast').getAttribute('class'), /\bwarn\b/);
    assert.match(await page.getByTestId('forecast').textContent(), /they will probably not converge; use noise-aware or a larger ε \(about [\d.e+]+\)/);
    await readyToRun(page);
    // The recommended sampler gets no warning.
    await page.getByTestId('algorithm-select').selectOption('noise-aware');
    await page.waitForFunction(() => document.querySelector('[data-testid="run-forecast-warning"]').hidden, null, { timeout: 10000 });
    await readyToRun(page);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('minibatch and gradient samplers and the private start run in the page with their settings', { timeout: 240000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.locator('details.advanced summary').click();
    for (const [algorithm, fill] of [
      ['dp-sgld', { 'batch-input': '200' }],
      ['dp-barker', { 'batch-input': '100', 'temper-input': '0.05' }],
      ['dp-barker-full', {}], // clip 0: calibrated to the budget
      ['dp-hmc', {}],
    ]) {
      // DP Barker at b/n = 0.05 affords few iterations at ε = 2.
      await setRun(page, algorithm === 'dp-barker' ? { algorithm, chains: 2, warmup: 5, draws: 10 } : { algorithm, chains: 2, warmup: 20, draws: 30 });
      for (const [id, v] of Object.entries(fill)) await page.getByTestId(id).fill(v);
      await page.getByTestId('init-select').selectOption(algorithm === 'dp-hmc' ? 'dp-map' : '');
      await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 90000 });
      assert.equal(await runToEnd(page), 'done', `${algorithm}: ${await page.getByTestId('progress').textContent()}`);
      assert.deepEqual((await summaryRows(page)).map((r) => r[0]), PARAMS);
      assert.match(await page.getByTestId('privacy-statement').textContent(), new RegExp(`produced by ${algorithm}`));
      for (const [id] of Object.entries(fill)) await page.getByTestId(id).fill('0');
    }
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a worker that dies mid-run ends the run with a message, not a hung page', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await setRun(page, { algorithm: 'mh', chains: 2, warmup: 50, draws: 5000000 });
    await readyToRun(page, 10000);
    await page.getByTestId('run-button').click();
    await page.waitForSelector('[data-testid="progress"][data-state="running"]', { timeout: 10000 });
    const worker = page.workers().find((w) => w.url().includes('worker'));
    // An uncaught exception in a worker raises its error event in the page,
    // as an engine crash or running out of memory would.
    await worker.evaluate(() => { setTimeout(() => { throw new Error('simulated crash'); }, 0); });
    await page.waitForSelector('[data-testid="progress"][data-state="failed"]', { timeout: 30000 });
    assert.match(await page.getByTestId('error').textContent(), /stopped .*simulated crash/);
    // The crash is reported on screen; nothing else went wrong.
    rec.pageErrors = rec.pageErrors.filter((e) => !e.includes('simulated crash'));
    rec.console = rec.console.filter((e) => !e.includes('simulated crash'));
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

// Runs in the page before its scripts: once globalThis.__injectChainError =
// { chain, after } is set, the (after + 1)-th 'draws' message of that chain
// reaches the app as an engine 'error' message (as a Go panic or an
// allocation failure inside the chain's loop would post), and the chain's
// later messages are dropped.
function injectChainError() {
  const add = Worker.prototype.addEventListener;
  Worker.prototype.addEventListener = function (type, fn, opts) {
    if (type !== 'message') return add.call(this, type, fn, opts);
    return add.call(this, type, (e) => {
      const inj = globalThis.__injectChainError;
      const d = e.data;
      if (!inj || !d || d.chain !== inj.chain) return fn(e);
      if (!('__injected' in e)) { // once per message, whatever the number of listeners
        if (inj.failedRun === d.runId) e.__injected = 'drop';
        else if (d.type === 'draws' && (inj.seen = (inj.seen ?? 0) + 1) > inj.after) {
          inj.failedRun = d.runId;
          e.__injected = { type: 'error', runId: d.runId, chain: d.chain, error: { message: 'simulated engine error' } };
        } else e.__injected = null;
      }
      if (e.__injected === 'drop') return undefined;
      return fn(e.__injected ? { data: e.__injected } : e);
    }, opts);
  };
}

test('a chain whose engine fails mid-run is charged all its planned iterations', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP, { initScript: injectChainError });
  try {
    await setRun(page, { algorithm: 'dp-penalty', chains: 2, warmup: 50, draws: 2000000 });
    await page.waitForFunction(() => /planned ε = 2/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    await page.evaluate(() => { globalThis.__injectChainError = { chain: 1, after: 2 }; });
    assert.equal(await runToEnd(page), 'failed');
    assert.match(await page.getByTestId('error').textContent(), /simulated engine error/);
    const [report] = await downloads(page, 'export-report');
    const r = JSON.parse(report.text);
    // Chain 2 ran an unknown number of iterations after its last message:
    // the report charges every planned one (it charged none before).
    assert.equal(r.iterations_per_chain[1], 2000050);
    assert.ok(r.iterations_per_chain[0] < 2000050 && r.cancelled, JSON.stringify(r.iterations_per_chain));
    assert.ok(r.epsilon_spent > 1 && r.epsilon_spent <= 2, `ε spent ${r.epsilon_spent}`);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('nothing of the data is kept in browser storage', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await setRun(page, { algorithm: 'dp-penalty', chains: 2, warmup: 20, draws: 30 });
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent));
    assert.equal(await runToEnd(page), 'done');
    const stored = await page.evaluate(async () => ({
      local: localStorage.length,
      session: sessionStorage.length,
      indexedDB: (await indexedDB.databases()).map((d) => d.name),
      cookies: document.cookie,
    }));
    assert.deepEqual(stored, { local: 0, session: 0, indexedDB: [], cookies: '' });
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});
