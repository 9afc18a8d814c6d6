// Page and embed usability around noise-aware and aborted chains (issue #16
// follow-up, docs/APP.md "No warmup for noise-aware", "The recommended
// sampler in the embed", "A chain that diverges"):
//   - noise-aware runs no warmup: the warmup input is disabled with the
//     reason, the plan and the planned report say "no warmup: iid draws",
//     and the exported config has warmup 0; other samplers keep theirs;
//   - a chain whose state becomes non-finite (dp-sgld at step 1e6 on the
//     demo: the prior's pull overshoots) stops the run with a message naming
//     chain, iteration and setting as `dpmcmc sample` does, the results are
//     marked not usable (no summary, no draw exports), and the privacy
//     report charges every iteration that ran;
//   - the embed page offers algorithm=noise-aware (every demo) and
//     algorithm=auto (the engine's recommendation: noise-aware for the
//     regression demo and, with every data column bounded, the banana and
//     the Gaussian);
//   - repeat private runs on the same rows add up: before a run the page
//     says what earlier runs of the tab spent and the total this one would
//     reach, and under the second run's results the total; a bound typed
//     the wrong way round is named in the blocker.
//
// Needs make build site-testkey cli-testkey (build/site-testkey,
// bin/dpmcmc, bin/dpmcmc-testkey); run with
//   node --test e2e/usability.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Harness, root, DESKTOP, assertClean, setRun, runToEnd, readyToRun, downloads, summaryRows } from './helpers.mjs';

const site = process.env.DPMCMC_SITE_TESTKEY ?? path.join(root, 'build', 'site-testkey');
const cliTestkey = process.env.DPMCMC_BIN_TESTKEY ?? path.join(root, 'bin', 'dpmcmc-testkey');
const demo = path.join(root, 'site', 'demo', 'cohort.csv');
const tmp = mkdtempSync(path.join(tmpdir(), 'dpmcmc-usability-'));
const h = new Harness();

before(async () => {
  for (const p of [path.join(site, 'index.html'), cliTestkey]) {
    if (!existsSync(p)) throw new Error(`missing ${p}: run make build site-testkey cli-testkey`);
  }
  await h.start(site);
});
after(() => h.stop());

const planText = (page) => page.getByTestId('plan').textContent();

test('noise-aware runs no warmup: the input is disabled with the reason, the plan and the planned report say so, the config has warmup 0', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    // The demo's outcome is declared 0/1: the default private sampler is noise-aware.
    assert.equal(await page.getByTestId('algorithm-select').inputValue(), 'noise-aware');
    const warmup = page.getByTestId('warmup-input');
    assert.equal(await warmup.isDisabled(), true);
    assert.equal(await warmup.inputValue(), '0');
    assert.equal(await page.getByTestId('warmup-note').isVisible(), true);
    assert.match(await page.getByTestId('warmup-note').textContent(), /^Warmup per chain: none for noise-aware \(no warmup: its draws are independent \(iid\) exact draws from the posterior given the releases/);
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    assert.match(await planText(page), /× 1,000 iterations \(0 warmup \+ 1,000 draws\)/);
    assert.match(await planText(page), /Note: no warmup: iid draws \(/);
    const [planned] = await downloads(page, 'export-planned-report');
    const report = JSON.parse(planned.text);
    assert.equal(report.warmup_per_chain, 0);
    assert.ok(report.notes.some((n) => n.startsWith('no warmup: iid draws')), `notes ${report.notes}`);
    const [cfg] = await downloads(page, 'export-config');
    assert.equal(JSON.parse(cfg.text).warmup, 0);

    // Another sampler has its warmup back (the input kept its value).
    await page.getByTestId('algorithm-select').selectOption('dp-hmc');
    assert.equal(await warmup.isEnabled(), true);
    assert.equal(await warmup.inputValue(), '500');
    assert.equal(await page.getByTestId('warmup-note').isHidden(), true);
    await page.waitForFunction(() => /\(500 warmup \+ 1,000 draws\)/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    assert.doesNotMatch(await planText(page), /no warmup/);
    await page.getByTestId('algorithm-select').selectOption('noise-aware');
    assert.equal(await warmup.isDisabled(), true);
    // Too few draws per chain for the verdict's ESS: warned before the
    // release spends the budget, with the free remedy.
    await page.getByTestId('draws-input').fill('50');
    const warning = page.getByTestId('run-forecast-warning');
    await warning.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await warning.textContent(), /^Before you run: the forecast \(step 4\) says only 50 draws per chain are planned, fewer than the 100 per chain .* give at least 100 draws per chain \(noise-aware's draws after its release cost no privacy\)\. This run would spend ε = [\d.]+ on draws/);
    await page.getByTestId('draws-input').fill('1000');
    await page.waitForFunction(() => document.querySelector('[data-testid="run-forecast-warning"]').hidden, null, { timeout: 20000 });
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a chain that diverges stops the run: a message naming chain, iteration and setting, results not usable, every iteration that ran charged', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    await setRun(page, { algorithm: 'dp-sgld', chains: 2, warmup: 100, draws: 200, seed: 20240611 });
    await page.getByTestId('step-input').fill('1e6');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    assert.equal(await runToEnd(page), 'failed');
    const err = page.getByTestId('chain-error');
    assert.equal(await err.isVisible(), true);
    const text = await err.textContent();
    const m = /^The run stopped: dp-sgld chain (\d): the state became non-finite \(NaN or Inf\) at iteration (\d+) of 300 at step 1e\+06: the dynamics diverged; lower --step\. .* On this page, --step is "Step size" in the advanced sampler settings\. The results below are not a posterior sample\.$/.exec(text);
    assert.ok(m, text);
    const [chain, iteration] = [Number(m[1]), Number(m[2])];

    // The results: not usable (no summary, no draws to export), the report
    // and its statement say the run stopped and charge what ran.
    assert.equal(await page.locator('#results').getAttribute('data-state'), 'aborted');
    assert.match(await page.getByTestId('verdict').textContent(), /^Not usable: dp-sgld chain \d: the state became non-finite/);
    assert.deepEqual(await summaryRows(page), []);
    assert.equal(await page.getByTestId('export-draws').isDisabled(), true);
    assert.equal(await page.getByTestId('export-stan').isDisabled(), true);
    assert.match(await page.getByTestId(`progress-text-${chain}`).textContent(), /\(stopped: non-finite state\)$/);
    const [file] = await downloads(page, 'export-report');
    const report = JSON.parse(file.text);
    assert.equal(report.statement, await page.getByTestId('privacy-statement').textContent());
    assert.equal(report.aborted, `dp-sgld chain ${chain}, at iteration ${iteration} of 300, step 1e+06`);
    assert.equal(report.cancelled, true);
    assert.match(report.statement, new RegExp(`^This dp-sgld run stopped before its end because a chain's state became non-finite \\(dp-sgld chain ${chain}, at iteration ${iteration} of 300, step 1e\\+06\\); its draws are not a posterior sample and were not released\\. The \\d+ iterations that ran \\(2 chains, warmup included\\) spent \\(ε = `));
    // Every iteration that ran is charged: the failing chain's, the
    // failing iteration included, and the other chain's (its progress).
    assert.equal(report.iterations_per_chain[chain - 1], iteration);
    const other = 3 - chain;
    const shown = Number((await page.getByTestId(`progress-text-${other}`).textContent()).split(' / ')[0].replace(/,/g, ''));
    const otherIts = report.iterations_per_chain[other - 1];
    // The other chain either stopped on its own non-finite state (its
    // failing iteration is counted but stores no draw) or was stopped.
    assert.ok(otherIts === shown || otherIts === shown + 1, `chain ${other}: report ${otherIts}, progress ${shown}`);
    assert.ok(report.epsilon_spent > 0 && report.epsilon_spent < report.epsilon_budget, `ε spent ${report.epsilon_spent}`);
    assert.match(await page.getByTestId('budget-spent').textContent(), /^Privacy budget spent: ε spent [\d.]+ of 2 \(δ = /);
    // The run's meter shows the same ε (it counts the failing iteration too).
    assert.equal(`Privacy budget spent: ${await page.getByTestId('budget-text').textContent()}.`, await page.getByTestId('budget-spent').textContent());

    // The command-line tool stops on the same state with the same message
    // (the fixed test key: the same chain diverges at the same iteration).
    const cfgFile = path.join(tmp, 'sgld.json');
    writeFileSync(cfgFile, await page.getByTestId('run-config').textContent());
    const out = path.join(tmp, 'sgld.csv');
    const r = spawnSync(cliTestkey, ['sample', '--config', cfgFile, '--data', demo, '--out', out, '--quiet'], { encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    const c = /dpmcmc: dp-sgld chain (\d): the state became non-finite \(NaN or Inf\) at iteration (\d+) of 300 at step 1e\+06/.exec(r.stderr);
    assert.ok(c, r.stderr);
    if (Number(c[1]) === chain) assert.equal(Number(c[2]), iteration);
    assert.match(r.stderr, /This dp-sgld run stopped before its end/);
    assert.equal(existsSync(out), false, 'the CLI wrote draws');
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

/** Opens embed.html?query on the test site and waits until it is ready. */
async function openEmbed(query) {
  const context = await h.browser.newContext({ viewport: { width: 800, height: 600 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.effectiveDirective));
  });
  await page.goto(`${h.url}embed.html?${query}`);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
  return { context, page, errors };
}

async function runEmbedToEnd(page) {
  await page.getByTestId('run-button').click();
  const e = await page.waitForSelector('[data-testid="progress"]:is([data-state="done"],[data-state="cancelled"],[data-state="failed"])', { timeout: 90000 });
  return { state: await e.getAttribute('data-state'), text: await e.textContent() };
}

test('embed: algorithm=noise-aware and algorithm=auto run on every demo (run.Recommend\'s noise-aware: a regression, or every data column bounded); a per-iteration sampler on the Gaussian demo is forecast not to converge', { timeout: 240000 }, async () => {
  for (const [query, select, runs, text] of [
    ['demo=logistic&algorithm=noise-aware&chains=2&epsilon=3', 'noise-aware', 'noise-aware', /^Done: 2000 \/ 2000 draws · ε = 3$/],
    ['demo=logistic&algorithm=auto&chains=2&epsilon=3', 'auto', 'noise-aware', /^Done: auto: noise-aware · 2000 \/ 2000 draws · ε = 3$/],
    // The banana's and the Gaussian's data columns all have public bounds:
    // one release of their clipped sums, then exact draws.
    ['demo=banana&algorithm=auto&epsilon=2', 'auto', 'noise-aware', /^Done: auto: noise-aware · 1000 \/ 1000 draws · ε = 2$/],
    ['demo=banana&algorithm=noise-aware&chains=2&epsilon=2', 'noise-aware', 'noise-aware', /^Done: 2000 \/ 2000 draws · ε = 2$/],
    ['demo=gaussian&algorithm=auto&epsilon=0.5', 'auto', 'noise-aware', /^Done: auto: noise-aware · 1000 \/ 1000 draws · ε = 0\.5$/],
    // The Gaussian demo's per-iteration chains cannot move far enough: the
    // forecast says so before the run (the model's posterior sd is
    // public) and names noise-aware, and the end of the run repeats it.
    // Names are read case-insensitively.
    ['demo=Gaussian&algorithm=DP-HMC&epsilon=2', 'dp-hmc', 'noise-aware', /^Done: 400 \/ 400 iterations · ε = 2 · acceptance .*\. Not converged, as forecast: the chains could not move far enough at this ε, so these draws show where they started, not the posterior\.$/],
  ]) {
    const { context, page, errors } = await openEmbed(query);
    try {
      const sel = page.getByTestId('algorithm-select');
      assert.equal(await sel.inputValue(), select, query);
      assert.equal(await sel.getAttribute('data-recommended'), runs, query);
      assert.equal(await sel.locator('option[value="auto"]').textContent(), `recommended (${runs})`);
      assert.equal(await sel.locator('option[value="noise-aware"]').isDisabled(), false, query);
      if (query.includes('logistic')) {
        // The plotted parameters are the two slopes.
        assert.equal(await page.getByTestId('trace-caption').textContent(), 'Trace of θ2');
        assert.equal(await page.getByTestId('pair-caption').textContent(), 'Draws of (θ2, θ3)');
      }
      // The engine's forecast, from public inputs, before any run.
      const forecast = page.getByTestId('forecast');
      assert.equal(await forecast.isHidden(), false, query);
      const wontMix = query.includes('DP-HMC');
      assert.equal(await forecast.getAttribute('data-will-mix'), String(!wontMix), query);
      assert.match(await forecast.textContent(), wontMix
        ? /^Mixing forecast: .*they will not converge; use noise-aware or a larger ε \(about \d+\)\. That is beyond this demo's ε slider \(at most 10\): here dp-hmc cannot show a converged run\.$/
        : query.includes('logistic') ? /^Forecast: private releases/
          : /^Forecast: one private release of the column sums, clipped to their public bounds, .*with a flat prior the posterior sds are [\d.]+× \(θ1\), [\d.]+× \(θ2.*\) the non-private ones\.$/, query);
      assert.equal(await page.getByTestId('params-note').isHidden(), true, query);
      assert.match(await page.getByTestId('version').textContent(), /^dpmcmc \S+\.$/);
      const r = await runEmbedToEnd(page);
      assert.equal(r.state, 'done', `${query}: ${r.text}`);
      assert.match(r.text, text, query);
      assert.equal(await page.getByTestId('progress').evaluate((e) => e.classList.contains('warn')), wontMix, query);
      assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], `${query}: CSP violations`);
      assert.deepEqual(errors, [], `${query}: page errors`);
    } finally {
      await context.close();
    }
  }
});

test('embed: parameters it cannot use are named in the frame, with what runs instead', { timeout: 60000 }, async () => {
  const { context, page, errors } = await openEmbed('Demo=foo&algorithm=bar&EPSILON=0.01&chains=4&autorun=true&eps=4');
  try {
    assert.equal(await page.getByTestId('title').textContent(), 'dpmcmc · banana posterior');
    assert.equal(await page.getByTestId('algorithm-select').inputValue(), 'dp-penalty');
    assert.equal(await page.getByTestId('epsilon-value').textContent(), '0.1');
    assert.equal(await page.getByTestId('params-note').textContent(),
      'Embed parameters: eps is not a parameter of the embed (demo, algorithm, epsilon, chains, autorun): ignored; demo=foo is not one of banana, gaussian, logistic: showing banana; algorithm=bar is not one of auto, noise-aware, dp-penalty, dp-hmc, dp-mala, ops: running dp-penalty; epsilon=0.01 is outside 0.1–10: using ε = 0.1; chains=4: the embed runs 1 or 2 chains; using 2.');
    // autorun=true is read as autorun=1; the status says the run is on.
    await page.waitForSelector('[data-testid="progress"]:is([data-state="running"],[data-state="done"])', { timeout: 10000 });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('repeat private runs on the same rows add up: the page says what earlier runs of the tab spent before the next run and under its results; a reversed bound is named', { timeout: 240000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    await setRun(page, { algorithm: 'noise-aware', chains: 2, draws: 200 });
    await page.getByTestId('epsilon-input').fill('1.5');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    assert.equal(await page.getByTestId('session-budget').isHidden(), true, 'no earlier run yet');
    assert.equal(await runToEnd(page), 'done');
    assert.equal(await page.getByTestId('session-spent').isHidden(), true, 'the first run is covered by its own statement');
    // Before the second run: what the first spent and the total it would reach.
    const before = page.getByTestId('session-budget');
    await page.waitForFunction(() => !document.querySelector('[data-testid="session-budget"]').hidden);
    assert.match(await before.textContent(), /^Earlier private run in this tab \(1\) spent ε = 1\.5 at δ = .*; this run would bring the total to ε = 3 at δ = .*add up/);
    // Unhidden, it is also announced, from the plan's always-rendered region.
    assert.match(await page.getByTestId('plan-announce').textContent(), /^Planned: ε = 1\.5[^.]*\. Earlier private run in this tab \(1\) spent ε = 1\.5 at δ = [^;]*; this run would bring the total to ε = 3 at δ = [\d.e-]+\.$/);
    assert.equal(await runToEnd(page), 'done');
    const after = page.getByTestId('session-spent');
    await page.waitForFunction(() => !document.querySelector('[data-testid="session-spent"]').hidden);
    assert.match(await after.textContent(), /^This is the 2nd private run on these rows in this tab: together the runs have spent ε = 3 at δ = /);
    // Sums without floating-point noise: 1e-5 + 1e-5 + 1e-5 is 3e-05, not
    // 3.0000000000000004e-05.
    assert.match(await before.textContent(), /\(2\) spent ε = 3 at δ = 2e-05 .* total to ε = 4\.5 at δ = 3e-05\./);
    // The results on screen match the settings until they change.
    assert.equal(await page.getByTestId('results-stale').isHidden(), true);
    // A non-private sampler is not told about the budget, and the results
    // of the last run are marked as coming from other settings.
    await page.getByTestId('algorithm-select').selectOption('hmc');
    await page.waitForFunction(() => document.querySelector('[data-testid="session-budget"]').hidden);
    assert.equal(await page.getByTestId('results-stale').textContent(), 'These results are from the last run: the file or the settings above have changed since.');
    // The run's own configuration stays downloadable beside its results:
    // the pre-run config.json now describes the hmc run the controls set.
    const [runCfg] = await downloads(page, 'export-run-config');
    assert.equal(runCfg.name, 'config.json');
    assert.deepEqual(JSON.parse(runCfg.text), JSON.parse(await page.getByTestId('run-config').textContent()));
    assert.equal(JSON.parse(runCfg.text).algorithm, 'noise-aware');
    assert.equal(JSON.parse(runCfg.text).privacy.epsilon, 1.5);
    await page.getByTestId('algorithm-select').selectOption('noise-aware');
    await page.waitForFunction(() => document.querySelector('[data-testid="results-stale"]').hidden);

    // A bound typed the wrong way round is named, not called missing.
    await page.getByTestId('algorithm-select').selectOption('noise-aware');
    await page.getByTestId('bound-lo-age10').fill('3');
    await page.getByTestId('bound-hi-age10').fill('-4.2');
    await page.waitForFunction(() => /age10/.test(document.querySelector('[data-testid="run-blocker"]').textContent));
    assert.equal(await page.getByTestId('run-blocker').textContent(), 'The lower bound must be below the upper one (age10).');
    assert.equal(await page.getByTestId('run-button').isDisabled(), true);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a decimal comma is refused, not dropped: ε "0,5" and a bound "4,6" block the run with a message naming each field, in any keyboard locale', { timeout: 120000 }, async () => {
  // A type="number" field drops the comma a European user types: "0,5"
  // read as 5, a budget ten times the one meant (a review, 2026-11-27).
  for (const locale of ['en-US', 'de-DE']) {
    const context = await h.browser.newContext({ viewport: DESKTOP, locale, serviceWorkers: 'block' });
    const page = await context.newPage();
    try {
      await page.goto(h.url);
      await page.waitForSelector('html[data-ready="true"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
      await setRun(page, { algorithm: 'noise-aware', chains: 2, draws: 200 });
      const eps = page.getByTestId('epsilon-input');
      await eps.fill('');
      await eps.pressSequentially('0,5');
      assert.equal(await eps.inputValue(), '0,5', 'the field keeps what was typed');
      await page.waitForFunction(() => /decimals/.test(document.querySelector('[data-testid="run-blocker"]').textContent));
      assert.equal(await page.getByTestId('run-blocker').textContent(), 'Use a point for decimals: ε (epsilon) "0,5" has a comma (write 0.5, not 0,5; no thousands separators).');
      assert.equal(await page.getByTestId('run-button').isDisabled(), true);
      assert.equal(await page.getByTestId('plan').textContent(), '', 'no plan at ε = 5');
      await page.getByTestId('bound-hi-bmi5').fill('4,6'); // the bounds' step comes before the budget's: named first
      await page.waitForFunction(() => /upper bound of bmi5/.test(document.querySelector('[data-testid="run-blocker"]').textContent));
      assert.equal(await page.getByTestId('run-blocker').textContent(), 'Use a point for decimals: upper bound of bmi5 "4,6", ε (epsilon) "0,5" have a comma (write 0.5, not 0,5; no thousands separators).');
      await eps.fill('0.5');
      await page.getByTestId('bound-hi-bmi5').fill('4.6');
      await page.waitForFunction(() => /planned ε = 0\.5 /.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
      assert.equal(await page.getByTestId('run-button').isDisabled(), false);
      // Other non-numbers are refused too, not read as JavaScript would.
      // Each is named as text that is not a number (before, "0x10" read
      // as "ε must be a positive number", a bound "200 mg/dL" as a missing
      // one, δ "1/100000" as out of range, an advanced field's "0.05x" as
      // its default, silently).
      const notNumber = (what) => `Not a number: ${what} (write digits with a point, e.g. 0.05, 200 or 1e-5; units go in your notes, not in the field).`;
      for (const typed of ['0x10', 'Infinity', '1_0']) {
        await eps.fill(typed);
        await page.waitForFunction((want) => document.querySelector('[data-testid="run-blocker"]').textContent === want, notNumber(`ε (epsilon) "${typed}"`));
      }
      await eps.fill('0.5');
      await page.getByTestId('bound-hi-bmi5').fill('200 mg/dL');
      await page.getByTestId('delta-input').fill('1/100000');
      await page.waitForFunction((want) => document.querySelector('[data-testid="run-blocker"]').textContent === want, notNumber('upper bound of bmi5 "200 mg/dL", δ (delta) "1/100000"'));
      assert.equal(await page.getByTestId('run-blockers-more').locator('li').count(), 0, 'no second message misdescribing the same fields');
      await page.getByTestId('bound-hi-bmi5').fill('4.6');
      await page.getByTestId('delta-input').fill('1e-5');
      await page.waitForFunction(() => /planned ε = 0\.5 /.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
      // An advanced setting's text is named too, not replaced by its default.
      await page.getByTestId('algorithm-select').selectOption('dp-penalty');
      await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
      await page.getByTestId('step-input').fill('0.05x');
      await page.waitForFunction(() => /^Not a number: .*"0\.05x"/.test(document.querySelector('[data-testid="run-blocker"]').textContent));
      assert.equal(await page.getByTestId('run-button').isDisabled(), true);
      await page.getByTestId('step-input').fill('0');
      // The engine's refusals name the page's fields, not the CLI's flags.
      await page.getByTestId('algorithm-select').selectOption('ops');
      await page.waitForFunction(() => /^Cannot run: /.test(document.querySelector('[data-testid="run-blocker"]').textContent), null, { timeout: 60000 });
      assert.match(await page.getByTestId('run-blocker').textContent(), /^Cannot run: ops needs a public parameter "Parameter box ±B \(0 = none\)": its log-likelihood bound is taken over it \(every parameter in \[−B, B\] for a box B; .*\); choose it from public knowledge/);
      assert.doesNotMatch(await page.getByTestId('run-blocker').textContent(), /--box/);
    } finally {
      await context.close();
    }
  }
});

test('the tally of private runs follows the rows, not the file: an identical copy loaded again keeps it, a file with one row changed starts its own', { timeout: 240000 }, async () => {
  const rows = Array.from({ length: 300 }, (_, i) => {
    const x1 = ((i * 37) % 100) / 25 - 2;
    const x2 = (i * 13) % 2;
    return [x1.toFixed(2), x2, (i * 7919) % 3 === 0 || x1 > 1 ? 1 : 0];
  });
  const write = (name, rs) => {
    const f = path.join(tmp, name);
    writeFileSync(f, `x1,x2,y\n${rs.map((r) => r.join(',')).join('\n')}\n`);
    return f;
  };
  const a = write('cohort-a.csv', rows);
  const copy = write('cohort-copy.csv', rows);
  const other = write('cohort-other.csv', rows.map((r, i) => (i === 150 ? [r[0], 1 - r[1], r[2]] : r)));
  const { context, page, rec } = await h.open(DESKTOP);
  const declare = async (file, name) => {
    await page.getByTestId('csv-input').setInputFiles(file);
    await page.waitForFunction((n) => document.querySelector('[data-testid="file-info"]').textContent.startsWith(`${n}: 300 rows`), name);
    await page.getByTestId('outcome-select').selectOption('y');
    await page.getByTestId('model-select').selectOption('logistic');
    for (const [c, [lo, hi]] of Object.entries({ x1: [-2, 2], x2: [0, 1] })) {
      await page.getByTestId(`bound-lo-${c}`).fill(String(lo));
      await page.getByTestId(`bound-hi-${c}`).fill(String(hi));
    }
    await setRun(page, { algorithm: 'noise-aware', chains: 2, draws: 100 });
    await page.getByTestId('epsilon-input').fill('1');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
  };
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    await declare(a, 'cohort-a.csv');
    assert.equal(await page.getByTestId('session-budget').isHidden(), true, 'no earlier run on these rows');
    assert.equal(await runToEnd(page), 'done');
    await declare(copy, 'cohort-copy.csv');
    // The last file's run is not shown as the new file's (step 6 empty).
    assert.equal(await page.locator('[data-testid^="progress-chain-"]').count(), 0);
    assert.equal(await page.getByTestId('budget-meter-box').isHidden(), true);
    assert.equal(await page.getByTestId('live-bar').isHidden(), true);
    assert.match(await page.getByTestId('session-budget').textContent(), /^Earlier private run in this tab \(1\) spent ε = 1 at δ = .*; this run would bring the total to ε = 2 /);
    await declare(other, 'cohort-other.csv');
    assert.equal(await page.getByTestId('session-budget').isHidden(), true, 'other rows: a tally of their own');
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('a converged private run that determines no direction says so in its verdict, shown as a warning', { timeout: 120000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    // 2 × 1000 iid draws: with 2 × 200, an R-hat above 1.01 or a tail-ESS
    // below 200 happens by chance alone for about one key in five on this
    // demo (100 keys measured), and the verdict is then "not converged".
    await setRun(page, { algorithm: 'noise-aware', chains: 2, draws: 1000 });
    // At ε = 0.05 the release of 2,000 rows says almost nothing.
    await page.getByTestId('epsilon-input').fill('0.05');
    await page.waitForFunction(() => /planned ε/.test(document.querySelector('[data-testid="plan"]').textContent), null, { timeout: 60000 });
    assert.equal(await runToEnd(page), 'done');
    const verdict = page.getByTestId('verdict');
    assert.match(await verdict.textContent(), /^Converged.* But no predictor's direction is determined \(every 95% interval includes no effect\): at this budget and number of rows the intervals are too wide to act on\./);
    assert.equal(await verdict.getAttribute('class'), 'verdict warn');
    // The end-of-run announcement carries the caveat too (it is the
    // warning colour's meaning).
    assert.equal(await page.getByTestId('run-announce').textContent(), "Run finished. Converged. But no predictor's direction is determined: at this budget and number of rows the intervals are too wide to act on. See step 7, Results.");
    assert.match(await page.getByTestId('direction-note').textContent(), /not determined for any predictor/);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

test('noise-aware\'s weak-release forecast is repeated beside Run; a file cannot be loaded during a run; a file chosen after the demo is read', { timeout: 180000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'));
    assert.equal(await page.getByTestId('algorithm-select').inputValue(), 'noise-aware');
    const warning = page.getByTestId('run-forecast-warning');
    // At ε = 0.05 the preview says the release will not tell a direction.
    await page.getByTestId('epsilon-input').fill('0.05');
    await warning.waitFor({ state: 'visible', timeout: 60000 });
    assert.match(await warning.textContent(), /^Before you run: the forecast \(step 4\) says that at this budget the 95% intervals will not tell the direction even of a strong effect, so this run would spend ε = 0\.05 on a posterior close to the prior\./);
    assert.match(await page.getByTestId('forecast').textContent(), /At this budget the 95% intervals will not tell the direction/);
    await readyToRun(page);
    await page.getByTestId('epsilon-input').fill('2');
    await page.waitForFunction(() => document.querySelector('[data-testid="run-forecast-warning"]').hidden, null, { timeout: 60000 });

    // A long run: loading the demo again while it runs is refused, and the
    // run goes on.
    await setRun(page, { chains: 2, draws: 2000000 });
    await readyToRun(page, 60000);
    await page.getByTestId('run-button').click();
    await page.waitForSelector('[data-testid="progress"][data-state="running"]', { timeout: 20000 });
    await page.getByTestId('demo-button').click();
    await page.waitForFunction(() => /^A run is in progress: cancel it \(step 6\) or let it finish before loading the demo\.$/.test(document.querySelector('[data-testid="error"]').textContent), null, { timeout: 10000 });
    assert.equal(await page.getByTestId('progress').getAttribute('data-state'), 'running');
    await page.getByTestId('cancel-button').click();
    await page.waitForSelector('[data-testid="progress"]:is([data-state="done"],[data-state="cancelled"])', { timeout: 60000 });

    // A file, then the demo, then the file again: each is read, and the
    // file control holds no stale file after the demo.
    const file = path.join(tmp, 'reselect.csv');
    writeFileSync(file, 'x,y\n' + Array.from({ length: 60 }, (_, i) => `${(i % 7) - 3},${i % 2}`).join('\n') + '\n');
    await page.getByTestId('csv-input').setInputFiles(file);
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('reselect.csv'), null, { timeout: 20000 });
    await page.getByTestId('demo-button').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('2,000 rows'), null, { timeout: 20000 });
    assert.equal(await page.getByTestId('csv-input').evaluate((i) => i.files.length), 0);
    await page.getByTestId('csv-input').setInputFiles(file);
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.includes('reselect.csv'), null, { timeout: 20000 });
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});
