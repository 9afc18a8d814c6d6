// The page's draws equal the CLI's bit for bit: the test variant of the site
// (build/site-testkey, engine built with -tags dpmcmc_testkey: the fixed
// noise key of core/rng) and of the CLI run the same config and public seed;
// the exported tidy draws, Stan CSV files and privacy.json must be
// byte-identical to the CLI's files.
//
// Two CLIs: the same command compiled to wasm and run under Node
// (bin/dpmcmc-testkey.wasm) and the native CLI (bin/dpmcmc-testkey). On
// amd64, Go's math.Exp and math.Log run assembly that can differ from the
// portable Go code wasm runs in the last bit, and a chain amplifies that;
// core/ therefore uses core/mathx (portable Exp, Log, LogFactorial) on every
// path that shapes the draws, and both comparisons must match exactly.
//
// Needs make site-testkey cli-testkey (make test-e2e builds them).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Harness, root, DESKTOP, assertClean, setRun, runToEnd, downloads, readyToRun } from './helpers.mjs';

const site = process.env.DPMCMC_SITE_TESTKEY ?? path.join(root, 'build', 'site-testkey');
const cli = process.env.DPMCMC_BIN_TESTKEY ?? path.join(root, 'bin', 'dpmcmc-testkey');
const cliWasm = `${cli}.wasm`;
const wasmExecNode = path.join(execFileSync('go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim(), 'lib', 'wasm', 'wasm_exec_node.js');
const demo = path.join(root, 'site', 'demo', 'cohort.csv');
const tmp = mkdtempSync(path.join(tmpdir(), 'dpmcmc-testkey-'));
const h = new Harness();

before(async () => {
  for (const p of [path.join(site, 'index.html'), cli, cliWasm]) {
    if (!existsSync(p)) throw new Error(`missing ${p}: run make site-testkey cli-testkey`);
  }
  await h.start(site);
});
after(() => h.stop());

/** Runs the CLI (native, or wasm under Node) on the demo with the page's config; returns its output file. */
function runCLI(kind, name, cfgText, format) {
  const cfg = path.join(tmp, `${name}.json`);
  writeFileSync(cfg, cfgText);
  const out = path.join(tmp, `${name}-${kind}-${format}.csv`);
  const args = ['sample', '--config', cfg, '--data', demo, '--format', format, '--out', out, '--quiet'];
  if (kind === 'native') execFileSync(cli, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  else execFileSync(process.execPath, [wasmExecNode, cliWasm, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  return out;
}

const files = {}; // algorithm -> the page's exports

// Every sampler the page offers, with the settings it needs on the demo
// (inputs of the advanced panel) and a size that keeps the test short.
const RUNS = [
  { algorithm: 'hmc' }, { algorithm: 'mh' }, { algorithm: 'mala' }, { algorithm: 'barker' }, { algorithm: 'tunamh' },
  { algorithm: 'dp-penalty' }, { algorithm: 'dp-hmc' }, { algorithm: 'dp-mala' },
  { algorithm: 'dp-penalty-sub' }, { algorithm: 'dp-sgld' }, { algorithm: 'dp-sgnht' }, { algorithm: 'dp-fastmh' },
  { algorithm: 'dp-barker', warmup: 5, draws: 10, fill: { 'batch-input': '100', 'temper-input': '0.05' } },
  { algorithm: 'ops', warmup: 0, draws: 4, fill: { 'box-input': '5', 'inner-iterations-input': '200' } },
  { algorithm: 'hybrid', fill: { 'box-input': '5', 'inner-iterations-input': '200' } },
  // dp-barker-full needs a clip (its noise is fixed by C, so the clip sets ε per step).
  { algorithm: 'dp-barker-full', warmup: 5, draws: 10, fill: { 'clip-input': '0.02' } },
  { algorithm: 'dp-fastmh-full' }, { algorithm: 'dp-sghmc' },
  // noise-aware: ONE release for the run, made by chain 0 (worker 0's key) and
  // handed to chain 1, as the CLI's chains share the run's key.
  { algorithm: 'noise-aware' },
];

test('RUNS covers every algorithm of run.Algorithms (the CLI\'s --algorithm list)', () => {
  const { stdout, stderr } = spawnSync(cli, ['sample', '-h'], { encoding: 'utf8' });
  const m = /sampler: ([^\n]+)\n/.exec(stdout + stderr);
  assert.ok(m, `no algorithm list in the CLI's help:\n${(stdout + stderr).slice(0, 500)}`);
  // "auto (the recommended one; …)" names the recommended algorithm (run.Recommend), not one more.
  const all = m[1].replace(/\([^)]*\)/g, '').split(',').map((a) => a.trim()).filter((a) => a && a !== 'auto').sort();
  assert.ok(all.every((a) => /^[a-z0-9-]+$/.test(a)), `algorithm list ${all}`);
  assert.ok(all.length >= 18, `only ${all.length} algorithms parsed`);
  // exact draws from the closed-form posteriors of the gaussian and banana
  // models, which the page does not offer (its models are the regressions):
  // the page does not list it (run.AlgorithmModels), the CLI tests run it.
  assert.ok(all.includes('exact'), `no exact in ${all}`);
  assert.deepEqual(RUNS.map((r) => r.algorithm).sort(), all.filter((a) => a !== 'exact'));
});

test('the page offers exactly the samplers of its models: RUNS, without exact', { timeout: 60000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    const offered = await page.getByTestId('algorithm-select').locator('option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
    assert.deepEqual(offered.sort(), RUNS.map((r) => r.algorithm).sort());
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

for (const { algorithm, warmup = 40, draws = 60, fill = {} } of RUNS) {
  test(`${algorithm}: browser exports equal the CLI's (wasm under Node) byte for byte`, { timeout: 120000 }, async () => {
    const { context, page, rec } = await h.open(DESKTOP);
    try {
      await setRun(page, { algorithm, chains: 2, warmup, draws, seed: 20240611 });
      for (const [id, v] of Object.entries(fill)) await page.getByTestId(id).fill(v);
      // Planning a private run (the PLD accountant of the SG samplers) can
      // take longer than runToEnd's 10 s on a loaded machine.
      await readyToRun(page, 60000);
      assert.equal(await runToEnd(page), 'done');
      const cfgText = await page.getByTestId('run-config').textContent();
      const cfg = JSON.parse(cfgText);
      assert.equal(cfg.algorithm, algorithm);
      assert.equal(cfg.seed, 20240611);
      const got = { cfgText };
      [got.draws] = await downloads(page, 'export-draws');
      got.stan = await downloads(page, 'export-stan', 2);
      if (cfg.privacy) {
        [got.report] = await downloads(page, 'export-report');
        assert.equal(got.report.name, 'privacy.json');
        assert.equal(JSON.parse(got.report.text).statement, await page.getByTestId('privacy-statement').textContent());
      } else {
        assert.equal(await page.getByTestId('export-report').isDisabled(), true);
      }
      files[algorithm] = got;
      assert.equal(got.draws.text.split('\n').length, 1 + 2 * draws + 1);
      compare(got, 'wasm', algorithm);
      await assertClean(page, rec);
    } finally {
      await context.close();
    }
  });
}

for (const { algorithm } of RUNS) {
  test(`${algorithm}: browser draws equal the native CLI's bit for bit`, {
    timeout: 60000,
  }, () => {
    assert.ok(files[algorithm], 'the browser run failed');
    compare(files[algorithm], 'native', algorithm);
  });
}

// CSV oddities (docs/RELIABILITY.md, F3): the page reads files with the same
// Go loader (wasm) as the CLI, so it must refuse a non-UTF-8 header, a bad
// "sep=" line or a trailing delimiter with the CLI's message, word for word,
// and honour Excel's "sep=" line.
const oddities = path.join(root, 'testdata', 'csv-oddities');
for (const name of ['latin1_header.csv', 'cp1252_header.csv', 'excel_sep_invalid.csv', 'excel_sep_trailing.csv']) {
  test(`${name}: the page shows the CLI's load error`, { timeout: 60000 }, async () => {
    const file = path.join(oddities, name);
    const cliError = (kind) => {
      const args = ['sample', '--data', file, '--model', 'gaussian', '--algorithm', 'mh', '--out', path.join(tmp, 'never.csv'), '--quiet'];
      const r = kind === 'native' ? spawnSync(cli, args, { encoding: 'utf8' }) : spawnSync(process.execPath, [wasmExecNode, cliWasm, ...args], { encoding: 'utf8' });
      assert.equal(r.status, 1, r.stderr);
      const prefix = `dpmcmc: ${file}: `;
      const line = r.stderr.trim().split('\n').at(-1);
      assert.ok(line.startsWith(prefix), line);
      return line.slice(prefix.length);
    };
    const want = cliError('native');
    assert.equal(cliError('wasm'), want);
    const { context, page, rec } = await h.open(DESKTOP);
    try {
      await page.getByTestId('csv-input').setInputFiles(file);
      const err = page.getByTestId('error');
      await err.waitFor({ state: 'visible' });
      assert.equal(await err.textContent(), `${name}: ${want}`);
      assert.equal(await page.getByTestId('run-button').isVisible(), false);
      await assertClean(page, rec);
    } finally {
      await context.close();
    }
  });
}

// The page's preview reads past what the loader skips before the header
// (dataset.SkipPreamble), so Excel's "sep=;" line sets the delimiter there too.
test('excel_sep_hint.csv: the page honours the "sep=;" line', { timeout: 60000 }, async () => {
  const { context, page, rec } = await h.open(DESKTOP);
  try {
    await page.getByTestId('csv-input').setInputFiles(path.join(oddities, 'excel_sep_hint.csv'));
    await page.waitForFunction(() => document.querySelector('[data-testid="file-info"]').textContent.startsWith('excel_sep_hint.csv: 2 rows'));
    assert.deepEqual(await page.getByTestId('preview').locator('thead th').allTextContents(), ['age', 'weight']);
    await assertClean(page, rec);
  } finally {
    await context.close();
  }
});

/** Asserts the page's files equal the CLI's (kind: wasm or native). */
function compare(got, kind, algorithm) {
  const cliDraws = readFileSync(runCLI(kind, algorithm, got.cfgText, 'draws'), 'utf8');
  assert.ok(got.draws.text === cliDraws, `tidy draws differ from the ${kind} CLI's:\n${got.draws.text.slice(0, 300)}\nvs\n${cliDraws.slice(0, 300)}`);
  const cliStan = runCLI(kind, algorithm, got.cfgText, 'stan');
  for (let c = 0; c < 2; c++) {
    const want = readFileSync(cliStan.replace(/\.csv$/, `_${c + 1}.csv`), 'utf8');
    assert.ok(got.stan[c].text === want, `Stan CSV of chain ${c + 1} differs from the ${kind} CLI's:\n${got.stan[c].text.slice(0, 800)}\nvs\n${want.slice(0, 800)}`);
  }
  if (got.report) {
    const want = readFileSync(cliStan.replace(/\.csv$/, '.privacy.json'), 'utf8');
    assert.ok(got.report.text.trim() === want.trim(), `privacy.json differs from the ${kind} CLI's:\n${got.report.text}\nvs\n${want}`);
    // noise-aware: the report holds nothing computed from the run's release
    // (which coordinates it used, its eigenvalue estimate): DESIGN.md rule 5.
    if (algorithm === 'noise-aware') assert.doesNotMatch(got.report.text, /release_coordinates|design_min_eigenvalue/);
  }
}
