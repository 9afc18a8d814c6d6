// Browser benchmark (make bench-browser): runs site/bench.html headless and
// reports per-iteration time in a wasm worker against native (bin/bench-native,
// the same config), the app's time from navigation to ready, and the
// transfer sizes of what the app loads (raw and brotli). Writes
// build/bench/browser.json and prints a table.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Harness, root, DESKTOP } from './helpers.mjs';

const site = path.join(root, 'build', 'site');
const h = new Harness();
await h.start(site);
try {
  // 1. Time to ready and transfer sizes of the app.
  const t0 = Date.now();
  const { context, page, rec } = await h.open(DESKTOP);
  const wall = Date.now() - t0;
  const readyMs = await page.evaluate(() => globalThis.__dpmcmcReadyMs);
  let raw = 0;
  let br = 0;
  const seen = new Set();
  for (const r of rec.requests) {
    let p = new URL(r.url).pathname;
    if (p === '/') p = '/index.html';
    if (seen.has(p)) continue;
    seen.add(p);
    const f = path.join(site, p);
    if (!existsSync(f)) continue;
    raw += statSync(f).size;
    br += existsSync(`${f}.br`) ? statSync(`${f}.br`).size : statSync(f).size;
  }
  await context.close();

  // 2. Per-iteration time, wasm worker vs native, same config.
  const ctx2 = await h.browser.newContext({ viewport: DESKTOP });
  const bpage = await ctx2.newPage();
  await bpage.goto(new URL('bench.html', h.url).href);
  await bpage.waitForSelector('html[data-done]', { timeout: 300000 });
  const res = JSON.parse(await bpage.getByTestId('bench-result').textContent());
  await ctx2.close();
  const cfgFile = path.join(root, 'build', 'bench', 'config.json');
  mkdirSync(path.dirname(cfgFile), { recursive: true });
  writeFileSync(cfgFile, JSON.stringify(res.config));
  const native = JSON.parse(execFileSync(path.join(root, 'bin', 'bench-native'), ['-config', cfgFile, '-data', path.join(root, 'site', 'demo', 'cohort.csv')], { encoding: 'utf8' }));

  const out = {
    config: res.config,
    wasm_ns_per_iteration: res.wasm.ns_per_iteration,
    native_ns_per_iteration: native.ns_per_iteration,
    wasm_over_native: res.wasm.ns_per_iteration / native.ns_per_iteration,
    navigation_to_ready_ms: readyMs,
    load_wall_ms: wall,
    transfer_raw_bytes: raw,
    transfer_brotli_bytes: br,
    requests: seen.size,
  };
  writeFileSync(path.join(root, 'build', 'bench', 'browser.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`config: ${res.config.algorithm}, ${res.config.model.model} on the demo (n = 2000, d = 5), ${res.wasm.iterations} iterations`);
  console.log(`per iteration: wasm worker ${(out.wasm_ns_per_iteration / 1e3).toFixed(1)} µs, native ${(out.native_ns_per_iteration / 1e3).toFixed(1)} µs (× ${out.wasm_over_native.toFixed(2)})`);
  console.log(`navigation to ready: ${readyMs.toFixed(0)} ms (4 workers started, demo loaded)`);
  console.log(`transfer: ${(raw / 1e6).toFixed(2)} MB raw, ${(br / 1e6).toFixed(2)} MB brotli, ${seen.size} requests`);
} finally {
  await h.stop();
}
