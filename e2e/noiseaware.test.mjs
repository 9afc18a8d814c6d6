// Issue #16, done when: the page's flow with a real CSV (the breast-cancer
// data, testdata/logistic/breast_cancer_wdbc.csv), public bounds and ε = 3
// runs the default private sampler — noise-aware, the command-line tool's
// --algorithm auto — and shows converged results with sensible odds ratios.
//
// The flow runs twice: on the test variant (build/site-testkey: the fixed
// noise key, so the release and the draws are the same on every run) and on
// the deployed variant (build/site: a fresh crypto/rand key per worker, as a
// user runs it; its draws differ from run to run). The checks hold for any
// release: the verdict, R-hat, ESS, finite odds ratios, and no private 95%
// interval on the other side of 1 from a non-private run of the same model
// (the native CLI's HMC) whose interval excludes 1. The deployed run's
// screenshot is docs/img/app-noise-aware.png (copied there when
// DPMCMC_DOC_SHOT is set). Needs make build site-testkey.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Harness, root, DESKTOP, assertClean, runToEnd, shot, shotsDir, readyToRun } from './helpers.mjs';

const sites = {
  testkey: process.env.DPMCMC_SITE_TESTKEY ?? path.join(root, 'build', 'site-testkey'),
  deployed: process.env.DPMCMC_SITE ?? path.join(root, 'build', 'site'),
};
const cli = process.env.DPMCMC_BIN ?? path.join(root, 'bin', 'dpmcmc');
const csv = path.join(root, 'testdata', 'logistic', 'breast_cancer_wdbc.csv');
const tmp = mkdtempSync(path.join(tmpdir(), 'dpmcmc-noiseaware-'));
const harness = { testkey: new Harness(), deployed: new Harness() };

// The bc5 predictors and their public bounds (core/experiment WDBCRanges).
const BOUNDS = {
  mean_radius: [5, 30], mean_texture: [5, 45], mean_smoothness: [0.03, 0.2], mean_compactness: [0, 0.4], mean_symmetry: [0.1, 0.35],
};

before(async () => {
  for (const p of [...Object.values(sites).map((s) => path.join(s, 'index.html')), cli]) {
    if (!existsSync(p)) throw new Error(`missing ${p}: run make build site-testkey`);
  }
  for (const [k, h] of Object.entries(harness)) await h.start(sites[k]);
});
after(async () => {
  for (const h of Object.values(harness)) await h.stop();
});

/** The page's summary table: column keys and body cells. */
async function table(page) {
  const t = page.getByTestId('summary-table');
  return {
    keys: await t.locator('thead th').evaluateAll((ths) => ths.map((th) => th.dataset.key)),
    rows: await t.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent))),
  };
}

/** Median odds ratio per predictor of `dpmcmc summary` (the CLI's table). */
function cliOddsRatios(out) {
  const lines = out.split('\n');
  const cells = (l) => l.trim().split(/ {2,}/);
  const ors = {};
  for (let i = 3; i < lines.length && lines[i] !== ''; i++) {
    const c = cells(lines[i]);
    if (c[0] !== 'intercept') ors[c[0]] = Number(c.at(-1).split(' ')[0]);
  }
  return ors;
}

for (const variant of Object.keys(sites)) test(`${variant} site: breast-cancer CSV, bounds, ε = 3, default sampler: noise-aware, converged, sensible odds ratios`, { timeout: 240000 }, async () => {
  const { context, page, rec } = await harness[variant].open(DESKTOP);
  try {
    await page.getByTestId('csv-input').setInputFiles(csv);
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.startsWith('breast_cancer_wdbc.csv: 569 rows'));
    await page.getByTestId('outcome-select').selectOption('malignant');
    // Until the outcome's type is declared, no sampler is called recommended.
    assert.match(await page.getByTestId('algorithm-doc').textContent(), /The default until the outcome's type is declared in step 2/);
    assert.doesNotMatch(await page.getByTestId('algorithm-doc').textContent(), /Recommended/);
    await page.getByTestId('model-select').selectOption('logistic');
    // Only the five bc5 predictors.
    for (const cb of await page.getByTestId('predictors').locator('input').all()) {
      await cb.setChecked(Object.hasOwn(BOUNDS, await cb.getAttribute('value')));
    }
    for (const [c, [lo, hi]] of Object.entries(BOUNDS)) {
      await page.getByTestId(`bound-lo-${c}`).fill(String(lo));
      await page.getByTestId(`bound-hi-${c}`).fill(String(hi));
    }
    await page.getByTestId('epsilon-input').fill('3');
    // The default private sampler is the CLI's auto choice for a logistic
    // regression.
    assert.equal(await page.getByTestId('algorithm-select').inputValue(), 'noise-aware');
    assert.match(await page.getByTestId('algorithm-doc').textContent(), /Recommended for these data/);
    await page.waitForFunction(() => /planned ε = 3/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    assert.match(await page.getByTestId('plan').textContent(), /The budget is spent once, by the release; every draw after it is free\./);
    // The forecast, next to the plan, in the engine's words.
    const forecast = page.getByTestId('forecast');
    assert.equal(await forecast.isVisible(), true);
    assert.match(await forecast.textContent(), /^Forecast: private releases of the noisy statistics, made once before any draw, then draws that spend no privacy/);
    // ... and the preview of how much the release can tell, from public
    // inputs only (n = 569, 6 coefficients, ε = 3: it warns).
    // The warning and its remedies first, the preview's numbers after.
    assert.match(await forecast.textContent(), /no privacy: the chains mix whatever ε; the intervals widen as ε shrinks to account for the release noise\. At this budget the 95% intervals will not tell the direction.*\. Preview from public inputs only .*a slope's posterior sd would be [\d.]+, [\d.]+, [\d.]+ of its prior sd .*in log odds per predictor sd\. Real designs tell less: correlated predictors, .* several times larger, on strongly correlated predictors tens of times\.$/);
    // It says what would help: the ε, and how many predictors this budget
    // could serve (run.informativePredictors: two at n = 569, ε = 3 since
    // the previews of fewer predictors take the shrunk path, one before).
    assert.match(await forecast.textContent(), /raise ε \(to at least about [\d.]+ at this n and number of predictors;.*use fewer predictors \((only one|about \d+ or fewer) would be enough at this ε/);
    // The chains mix, but the preview warns: the line is marked.
    assert.equal(await forecast.evaluate((e) => e.dataset.willMix), 'true');
    assert.equal(await forecast.evaluate((e) => e.classList.contains('warn')), true);
    // Under it, before any run, the measured calibration the summary will
    // repeat (the plan's forecast.calibration).
    const fcal = page.getByTestId('forecast-calibration');
    assert.equal(await fcal.isVisible(), true);
    assert.match(await fcal.textContent(), /^Calibration \(measured in simulation, docs\/RESULTS\.md "Utility"\): .*90% intervals contained \d+–\d+% of true effects of clinical size/);

    assert.equal(await runToEnd(page, 200000), 'done');
    const cfg = JSON.parse(await page.getByTestId('run-config').textContent());
    assert.equal(cfg.algorithm, 'noise-aware');
    assert.equal(cfg.chains, 4);
    const verdict = await page.getByTestId('verdict').textContent();
    assert.match(verdict, /^Converged/);
    // One release, counted once: ε spent is the budget, not 4 × it.
    assert.match(await page.getByTestId('budget-spent').textContent(), /^Privacy budget spent: ε spent 3(\.0+)? of 3 \(δ = /);
    assert.match(await page.getByTestId('privacy-statement').textContent(), /noise-aware/);

    const { keys, rows } = await table(page);
    const col = (k) => keys.indexOf(k);
    assert.ok(col('rhat') >= 0 && col('ess_bulk') >= 0, `keys ${keys}`);
    assert.deepEqual(rows.map((r) => r[0]), ['intercept', ...Object.keys(BOUNDS)]);
    const page5 = {};
    for (const r of rows) {
      const rhat = Number(r[col('rhat')]);
      assert.ok(rhat <= 1.01, `${r[0]}: R-hat ${rhat}`);
      assert.ok(Number(r[col('ess_bulk')]) >= 1000, `${r[0]}: ESS ${r[col('ess_bulk')]}`);
      if (r[0] === 'intercept') continue;
      const m = /^([\d.e+-]+) \(([\d.e+-]+)–([\d.e+-]+)\)$/.exec(r.at(-1));
      assert.ok(m, `${r[0]}: odds ratio cell ${r.at(-1)}`);
      const [or, lo, hi] = m.slice(1).map(Number);
      assert.ok([or, lo, hi].every((v) => Number.isFinite(v) && v > 0) && lo <= or && or <= hi, `${r[0]}: ${r.at(-1)}`);
      page5[r[0]] = { or, lo, hi, cell: r.at(-1) };
    }

    // The prior note names exactly the coefficients whose posterior sd is
    // above 1/√2 of their prior sd in the user's units (N(0, 20²) on the
    // predictors scaled by the bounds: slope 20/h, intercept
    // 20·√(1 + Σ(c/h)²)); cells within 2% of the threshold are skipped
    // (the sd cell has 3 significant digits).
    const note = page.getByTestId('prior-note');
    const noteText = (await note.isVisible()) ? await note.textContent() : '';
    const named = noteText ? noteText.replace(/^Mostly the prior: /, '').split(' (')[0].split(', ') : [];
    let v0 = 1;
    const priorSD = {};
    for (const [c, [lo, hi]] of Object.entries(BOUNDS)) {
      const ctr = (lo + hi) / 2, h = (hi - lo) / 2;
      priorSD[c] = 20 / h;
      v0 += (ctr / h) ** 2;
    }
    priorSD.intercept = 20 * Math.sqrt(v0);
    // A coefficient whose 95% interval excludes 0 is not "mostly prior"
    // however wide (the data pull it from the prior: the prior-pull note's).
    for (const r of rows) {
      const ratio = Number(r[col('sd')]) / priorSD[r[0]];
      if (Math.abs(ratio / Math.SQRT1_2 - 1) < 0.02) continue;
      const away = Number(r[col('2.5%')]) > 0 || Number(r[col('97.5%')]) < 0;
      assert.equal(named.includes(r[0]), ratio > Math.SQRT1_2 && !away, `${r[0]}: sd ${r[col('sd')]}, prior sd ${priorSD[r[0]]}, note "${noteText}"`);
    }

    // The direction line agrees with the table's 95% interval columns:
    // each slope is named as raising the odds, lowering them, or not
    // determined, on the side its 2.5% and 97.5% cells say.
    const dir = page.getByTestId('direction-note');
    assert.equal(await dir.isVisible(), true);
    const dirText = await dir.textContent();
    assert.match(dirText, /^Direction of the effects/);
    const side = { up: [], down: [], open: [] };
    for (const r of rows) {
      if (r[0] === 'intercept') continue;
      const a = Number(r[col('2.5%')]), b = Number(r[col('97.5%')]);
      side[a > 0 ? 'up' : b < 0 ? 'down' : 'open'].push(r[0]);
    }
    if (side.up.length + side.down.length === 0) {
      assert.match(dirText, /not determined for any predictor/, dirText);
    } else {
      for (const [k, phrase] of [['up', 'raises the odds: '], ['down', 'lowers the odds: '], ['open', 'not determined (the interval includes no effect): ']]) {
        if (side[k].length) assert.ok(dirText.includes(phrase + side[k].join(', ')), `${k}: ${side[k]} in "${dirText}"`);
      }
    }

    // Under the summary, noise-aware's measured calibration (the share of
    // its 90% and 95% intervals that contained the truth in the published
    // simulations; report.CalibrationNote), the CLI's line.
    const cal = page.getByTestId('calibration-note');
    assert.equal(await cal.isVisible(), true);
    assert.equal(await cal.textContent(), await fcal.textContent());
    assert.match(await cal.textContent(), /^Calibration \(measured in simulation, docs\/RESULTS\.md "Utility"\): .*90% intervals contained \d+–\d+% of true effects of clinical size/);

    // A non-private run of the same model (the native CLI's HMC on the
    // same config without the budget, and the same prior: scale bounds,
    // N(0, 20²) on the scaled coefficients, which a non-private config
    // without a scale would replace by N(0, 10²) in the user's units):
    // every predictor whose non-private 95% interval excludes 1 has its
    // private median odds ratio on the same side of 1.
    assert.equal(cfg.model.scale ?? '', '', 'the page leaves the scale to the default, so the reference sets it');
    const np = { ...cfg, model: { ...cfg.model, scale: 'bounds' }, algorithm: 'hmc', warmup: 500, draws: 1000, privacy: undefined };
    const cfgFile = path.join(tmp, 'hmc.json');
    writeFileSync(cfgFile, JSON.stringify(np));
    const out = path.join(tmp, 'hmc.csv');
    execFileSync(cli, ['sample', '--config', cfgFile, '--data', csv, '--out', out, '--quiet'], { stdio: ['ignore', 'ignore', 'inherit'] });
    // With the run's bounds: the ratios per the same public steps as the page's.
    const boundArgs = Object.entries(BOUNDS).flatMap(([c, [lo, hi]]) => ['--bound', `${c}=${lo}:${hi}`]);
    const summary = execFileSync(cli, ['summary', '--model', 'logistic', ...boundArgs, out], { encoding: 'utf8' });
    const ref = cliOddsRatios(summary);
    const refRows = Object.fromEntries(summary.split('\n').slice(3).filter((l) => l.trim()).map((l) => {
      const c = l.trim().split(/ {2,}/);
      return [c[0], c.at(-1)];
    }));
    const report = [];
    for (const [name, p] of Object.entries(page5)) report.push(`${name}: private ${p.cell}, non-private ${refRows[name]} (median ${ref[name]})`);
    console.log(`${variant}: ${verdict}\n${rows.map((r) => r.join(' | ')).join('\n')}\n${noteText}\n${report.join('\n')}`);
    for (const [name, p] of Object.entries(page5)) {
      const m = /^([\d.e+-]+) \(([\d.e+-]+)–([\d.e+-]+)\)$/.exec(refRows[name] ?? '');
      assert.ok(m, `non-private ${name}: ${refRows[name]}`);
      const [, lo, hi] = m.slice(1).map(Number);
      // The private interval never claims the opposite direction.
      if (lo > 1) assert.ok(p.hi > 1, `${name}: private ${p.cell}, non-private ${refRows[name]}`);
      if (hi < 1) assert.ok(p.lo < 1, `${name}: private ${p.cell}, non-private ${refRows[name]}`);
    }

    await shot(page, `results-noise-aware-${variant}-1280x800`, 'results');
    if (variant === 'deployed' && process.env.DPMCMC_DOC_SHOT) copyFileSync(path.join(shotsDir, `results-noise-aware-${variant}-1280x800.png`), path.join(root, 'docs', 'img', 'app-noise-aware.png'));
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

// A cancelled noise-aware run: chain 0 made the release and handed it on,
// every chain stops after its slice; the report charges the one release in
// full (ε spent = the budget, whatever ran), and the partial draws are shown.
test('cancel a noise-aware run: the one release is charged in full, the partial draws are kept', { timeout: 120000 }, async () => {
  const { context, page, rec } = await harness.testkey.open(DESKTOP);
  try {
    // The page opens on the demo cohort.
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    // The demo's outcome is declared 0/1: the default private sampler is
    // noise-aware.
    assert.equal(await page.getByTestId('algorithm-select').inputValue(), 'noise-aware');
    await page.getByTestId('chains-input').fill('3');
    // No warmup: noise-aware's draws are iid (the input is disabled, the
    // plan says so).
    assert.equal(await page.getByTestId('warmup-input').isDisabled(), true);
    await page.getByTestId('draws-input').fill('50000000');
    await readyToRun(page, 60000);
    await page.getByTestId('run-button').click();
    // Chains 2 and 3 start once chain 1 has handed its release on.
    await page.waitForFunction(() => [1, 2, 3].every((c) => document.querySelector(`[data-testid="progress-chain-${c}"]`)?.value > 1000), null, { timeout: 60000 });
    await page.getByTestId('cancel-button').click();
    await page.waitForSelector('[data-testid="progress"][data-state="cancelled"]', { timeout: 20000 });
    for (const tx of await page.locator('[data-testid^="progress-text-"]').allTextContents()) assert.match(tx, /\(cancelled\)$/);
    assert.match(await page.getByTestId('verdict').textContent(), /cancelled: chains are cut to the shortest/);
    assert.match(await page.getByTestId('budget-spent').textContent(), /^Privacy budget spent: ε spent 2 of 2 \(δ = /);
    assert.equal((await page.getByTestId('summary-table').locator('tbody tr').count()) > 1, true);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});
