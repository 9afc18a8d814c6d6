// Browser benchmark (make bench-browser): runs site/bench.html headless and
// reports per-iteration time in a wasm worker against native (bin/bench-native,
// the same config), the app's time from navigation to ready (with a
// breakdown), the transfer sizes of what the app loads (raw and brotli), and
// the load of a large CSV (row 5: a generated ~100 MB file through the file
// input: time, longest main-thread task, peak memory, progress updates).
// Writes build/bench/browser.json and prints a table.
//
// The machine is shared: the wasm and native measurements are interleaved
// (ROUNDS rounds, each a bench page with RUNS chains, then native) and the
// best of each is reported, with the medians alongside.
//
//   node e2e/bench.mjs [--skip-large] [--only=iter,scale,startup,large]
//   BENCH_SITE=build/site-testkey node e2e/bench.mjs

import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Harness, root, DESKTOP } from './helpers.mjs';

const args = process.argv.slice(2);
const only = new Set((args.find((a) => a.startsWith('--only='))?.slice(7) ?? 'iter,scale,startup,large').split(','));
if (args.includes('--skip-large')) only.delete('large');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const site = path.resolve(root, process.env.BENCH_SITE ?? path.join('build', 'site'));
const outFile = path.join(root, 'build', 'bench', 'browser.json');
const prev = existsSync(outFile) ? JSON.parse(readFileSync(outFile, 'utf8')) : {};

const min = (xs) => Math.min(...xs);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Start-up: navigation to ready (best of ROUNDS fresh contexts), its breakdown, and transfer sizes. */
async function startup(h) {
  const rounds = [];
  let raw = 0;
  let br = 0;
  let requests = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = Date.now();
    const { context, page, rec } = await h.open(DESKTOP, { intercept: false });
    const wall = Date.now() - t0;
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const marks = Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('dpmcmc:')).map((m) => [m.name.slice(7), m.startTime]));
      const wasm = performance.getEntriesByType('resource').find((e) => /app\.wasm\.[0-9a-f]+\.js$/.test(e.name));
      return {
        ready: globalThis.__dpmcmcReadyMs,
        responseEnd: nav.responseEnd,
        domContentLoaded: nav.domContentLoadedEventEnd,
        wasmAssetEnd: wasm?.responseEnd,
        marks,
      };
    });
    rounds.push({ wall, ...t });
    if (r === 0) {
      const seen = new Set();
      for (const q of rec.requests) {
        let p = new URL(q.url).pathname;
        if (p === '/') p = '/index.html';
        if (seen.has(p)) continue;
        seen.add(p);
        const f = path.join(site, p);
        if (!existsSync(f)) continue;
        raw += statSync(f).size;
        br += existsSync(`${f}.br`) ? statSync(`${f}.br`).size : statSync(f).size;
      }
      requests = seen.size;
    }
    await context.close();
  }
  const best = rounds.reduce((a, b) => (b.ready < a.ready ? b : a));
  return {
    navigation_to_ready_ms: best.ready,
    navigation_to_ready_median_ms: median(rounds.map((x) => x.ready)),
    load_wall_ms: best.wall,
    startup_breakdown_ms: {
      html_response_end: best.responseEnd,
      wasm_asset_loaded: best.wasmAssetEnd,
      dom_content_loaded: best.domContentLoaded,
      wasm_asset_evaluated: best.marks.asset,
      module_decoded: best.marks.decoded,
      module_compiled: best.marks.compiled,
      page_engine_started: best.marks.engine,
      workers_ready: best.marks.pool,
      service_worker: best.marks.offline,
      demo_loaded: best.marks.demo,
      ready: best.ready,
    },
    transfer_raw_bytes: raw,
    transfer_brotli_bytes: br,
    requests,
  };
}

/** Per-iteration time, wasm worker vs native, interleaved rounds. */
async function iterations(h) {
  const wasm = [];
  const native = [];
  let config;
  for (let r = 0; r < ROUNDS; r++) {
    const ctx = await h.browser.newContext({ viewport: DESKTOP });
    const page = await ctx.newPage();
    await page.goto(new URL(`bench.html#runs=${RUNS}`, h.url).href);
    await page.waitForSelector('html[data-done]', { timeout: 600000 });
    const res = JSON.parse(await page.getByTestId('bench-result').textContent());
    await ctx.close();
    if (!res.wasm) throw new Error(`bench page: ${await page.getByTestId('bench-status').textContent()}`);
    config = res.config;
    wasm.push(...res.runs);
    const cfgFile = path.join(root, 'build', 'bench', 'config.json');
    writeFileSync(cfgFile, JSON.stringify(res.config));
    for (let i = 0; i < RUNS; i++) {
      native.push(JSON.parse(execFileSync(path.join(root, 'bin', 'bench-native'), ['-config', cfgFile, '-data', path.join(root, 'site', 'demo', 'cohort.csv')], { encoding: 'utf8' })));
    }
  }
  const w = wasm.map((x) => x.ns_per_iteration);
  const k = wasm.map((x) => x.advance_ns_per_iteration);
  const n = native.map((x) => x.ns_per_iteration);
  const best = wasm.reduce((a, b) => (b.ns_per_iteration < a.ns_per_iteration ? b : a));
  return {
    config,
    wasm_ns_per_iteration: min(w),
    wasm_median_ns_per_iteration: median(w),
    wasm_advance_ns_per_iteration: min(k),
    wasm_first_run_ns_per_iteration: min(wasm.filter((_, i) => i % RUNS === 0).map((x) => x.ns_per_iteration)),
    native_ns_per_iteration: min(n),
    native_median_ns_per_iteration: median(n),
    wasm_over_native: min(w) / min(n),
    wasm_advance_over_native: min(k) / min(n),
    wasm_median_over_native_median: median(w) / median(n),
    wasm_best_run: best,
    rounds: ROUNDS,
    runs_per_round: RUNS,
  };
}

/**
 * Scaling (row 2d): the bench config with K chains at once on K workers, for
 * K = 1 and K = the core count, rounds interleaved; the best wall time per
 * iteration for each K (first start to last end) gives the speedup
 * K·T₁/T_K (K on ideal scaling).
 */
async function scaling(h) {
  const cores = Math.max(1, os.cpus().length);
  const ks = [...new Set([1, cores])];
  const wall = Object.fromEntries(ks.map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of ks) {
      const ctx = await h.browser.newContext({ viewport: DESKTOP });
      const page = await ctx.newPage();
      await page.goto(new URL(`bench.html#runs=${RUNS}&chains=${k}`, h.url).href);
      await page.waitForSelector('html[data-done]', { timeout: 600000 });
      const res = JSON.parse(await page.getByTestId('bench-result').textContent());
      await ctx.close();
      if (!res.wasm) throw new Error(`bench page (${k} chains): ${await page.getByTestId('bench-status').textContent()}`);
      // The first run of a page includes the engine's tier-up.
      wall[k].push(...res.runs.slice(1).map((x) => x.wall_ns_per_iteration));
    }
  }
  const best = Object.fromEntries(ks.map((k) => [k, min(wall[k])]));
  return {
    scaling_cores: cores,
    scaling_wall_ns_per_iteration: best,
    scaling_speedup: (cores * best[1]) / best[cores],
    scaling_median_speedup: (cores * median(wall[1])) / median(wall[cores]),
  };
}

/**
 * Writes a CSV of about `bytes` bytes (11 numeric columns: a 0/1 outcome and
 * 10 predictors with 6 significant digits) and returns its numeric size
 * (rows × columns × 8 bytes).
 */
async function writeLargeCSV(file, bytes) {
  const cols = ['y', ...Array.from({ length: 10 }, (_, j) => `x${j + 1}`)];
  const out = createWriteStream(file);
  const write = (s) => new Promise((resolve) => (out.write(s) ? resolve() : out.once('drain', resolve)));
  await write(`${cols.join(',')}\n`);
  let size = 0;
  let rows = 0;
  let seed = 12345;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  while (size < bytes) {
    let chunk = '';
    for (let i = 0; i < 10000; i++) {
      let line = rnd() < 0.3 ? '1' : '0';
      for (let j = 0; j < 10; j++) line += `,${((rnd() - 0.5) * 8).toPrecision(6)}`;
      chunk += `${line}\n`;
      rows++;
    }
    size += chunk.length;
    await write(chunk);
  }
  await new Promise((resolve) => out.end(resolve));
  return { rows, numericBytes: rows * cols.length * 8, fileBytes: statSync(file).size };
}

/**
 * Row 5: load a ~100 MB CSV through the file input. Records the time until
 * the file is shown (file-info with the row count), the longest main-thread
 * task (PerformanceObserver longtask), how often the progress text changed
 * while loading, and the peak memory of the browser's renderer processes
 * (page + workers; sampled every 100 ms from /proc: VmRSS summed over
 * Chromium's renderer processes, the baseline before the load subtracted)
 * and of the JS heaps (CDP Runtime.getHeapUsage of the page and workers).
 */
async function largeLoad(h) {
  const dir = path.join(root, 'build', 'bench');
  const file = path.join(dir, 'large.csv');
  const target = 100e6;
  let meta;
  if (existsSync(file) && Math.abs(statSync(file).size - target) < 2e6 && existsSync(`${file}.json`)) {
    meta = JSON.parse(readFileSync(`${file}.json`, 'utf8'));
  } else {
    meta = await writeLargeCSV(file, target);
    writeFileSync(`${file}.json`, JSON.stringify(meta));
  }
  const { context, page } = await h.open(DESKTOP);
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
    window.__progress = [];
    const info = document.querySelector('[data-testid="file-info"]');
    const record = () => window.__progress.push({ t: performance.now(), text: info.textContent });
    new MutationObserver(record).observe(info, { childList: true, characterData: true, subtree: true });
    const bar = document.querySelector('[data-testid="load-progress"]');
    if (bar) new MutationObserver(() => window.__progress.push({ t: performance.now(), value: bar.value })).observe(bar, { attributes: true });
  });
  // Peak resident memory of the renderer processes of this browser (the
  // descendants of this process: other browsers may run on the machine).
  const rss = () => {
    const parent = new Map();
    const cmd = new Map();
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = readFileSync(`/proc/${d}/stat`, 'utf8');
        parent.set(Number(d), Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]));
        cmd.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8'));
      } catch { /* gone */ }
    }
    const mine = (pid) => {
      for (let p = pid, n = 0; p > 1 && n < 20; p = parent.get(p), n++) if (p === process.pid) return true;
      return false;
    };
    let total = 0;
    for (const [pid, c] of cmd) {
      if (!c.includes('--type=renderer') || !mine(pid)) continue;
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        if (m) total += Number(m[1]) * 1024;
      } catch { /* gone */ }
    }
    return total;
  };
  const base = rss();
  let peak = base;
  const timer = setInterval(() => { peak = Math.max(peak, rss()); }, 100);
  const t0 = Date.now();
  await page.getByTestId('csv-input').setInputFiles(file);
  const rowsText = meta.rows.toLocaleString('en-US');
  await page.waitForFunction((n) => {
    const t = document.querySelector('[data-testid="file-info"]').textContent;
    return t.replace(/[ ,\u202f\u00a0]/g, '').includes(String(n)) || document.querySelector('[data-testid="error"]').textContent;
  }, meta.rows, { timeout: 600000, polling: 100 });
  const loadMs = Date.now() - t0;
  // The page then plans the default run in the same worker (another parse
  // of the file, when the settings allow one): the peak includes it.
  await page.waitForTimeout(300);
  await page.waitForFunction(() => document.querySelector('[data-testid="plan"]').textContent !== 'Planning…', null, { timeout: 600000, polling: 100 });
  await page.waitForTimeout(300);
  const planText = await page.getByTestId('plan').textContent();
  clearInterval(timer);
  peak = Math.max(peak, rss());
  const r = await page.evaluate(() => ({ inspected: performance.getEntriesByName('dpmcmc:inspected').at(-1)?.detail, longTasks: window.__longTasks, progress: window.__progress, error: document.querySelector('[data-testid="error"]').textContent, info: document.querySelector('[data-testid="file-info"]').textContent }));
  await context.close();
  const during = r.progress.filter((p) => p.t >= 0);
  return {
    large_csv_bytes: meta.fileBytes,
    large_csv_rows: meta.rows,
    large_csv_numeric_bytes: meta.numericBytes,
    large_csv_load_ms: loadMs,
    large_csv_error: r.error || undefined,
    large_csv_longest_main_thread_task_ms: r.longTasks.length ? Math.max(...r.longTasks.map((x) => x.duration)) : 0,
    large_csv_long_tasks: r.longTasks.length,
    large_csv_progress_updates: during.length,
    large_csv_progress_texts: [...new Set(during.map((p) => p.text ?? `progress ${p.value}`))].slice(0, 12),
    large_csv_renderer_rss_baseline_bytes: base,
    large_csv_renderer_rss_peak_bytes: peak,
    large_csv_peak_memory_over_numeric: (peak - base) / meta.numericBytes,
    large_csv_engine_memory_bytes: r.inspected?.memoryBytes,
    large_csv_engine_memory_over_numeric: r.inspected?.memoryBytes / meta.numericBytes,
    large_csv_planned_after_load: Boolean(planText),
    large_csv_note: `checked ${rowsText} rows shown; memory is the renderer processes' resident size above the baseline before the load, until the page's plan of the default run (a second parse) is done`,
  };
}

const h = new Harness();
await h.start(site);
let out;
try {
  out = { ...prev, measured_at: new Date().toISOString(), load_average: os.loadavg() };
  if (only.has('startup')) Object.assign(out, await startup(h));
  if (only.has('iter')) Object.assign(out, await iterations(h));
  if (only.has('scale')) Object.assign(out, await scaling(h));
  if (only.has('large')) Object.assign(out, await largeLoad(h));
} finally {
  await h.stop();
}
mkdirSync(path.dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
if (only.has('iter')) {
  console.log(`config: ${out.config.algorithm}, ${out.config.model.model} on the demo, ${out.wasm_best_run.iterations} iterations; best of ${ROUNDS}×${RUNS} runs`);
  console.log(`per iteration: wasm worker ${(out.wasm_ns_per_iteration / 1e3).toFixed(1)} µs (inside advance() ${(out.wasm_advance_ns_per_iteration / 1e3).toFixed(1)} µs), native ${(out.native_ns_per_iteration / 1e3).toFixed(1)} µs (× ${out.wasm_over_native.toFixed(2)}; medians × ${out.wasm_median_over_native_median.toFixed(2)})`);
}
if (only.has('scale')) {
  console.log(`scaling: ${out.scaling_cores} chains on ${out.scaling_cores} workers ${(out.scaling_wall_ns_per_iteration[out.scaling_cores] / 1e3).toFixed(1)} µs per iteration (wall), 1 chain ${(out.scaling_wall_ns_per_iteration[1] / 1e3).toFixed(1)} µs: speedup ×${out.scaling_speedup.toFixed(2)} (medians ×${out.scaling_median_speedup.toFixed(2)})`);
}
if (only.has('startup')) {
  console.log(`navigation to ready: ${out.navigation_to_ready_ms.toFixed(0)} ms (median ${out.navigation_to_ready_median_ms.toFixed(0)}); ${JSON.stringify(out.startup_breakdown_ms, (k, v) => (typeof v === 'number' ? Math.round(v) : v))}`);
  console.log(`transfer: ${(out.transfer_raw_bytes / 1e6).toFixed(2)} MB raw, ${(out.transfer_brotli_bytes / 1e6).toFixed(3)} MB brotli, ${out.requests} requests`);
}
if (only.has('large')) {
  console.log(`large CSV: ${(out.large_csv_bytes / 1e6).toFixed(0)} MB, ${out.large_csv_rows} rows: ${out.large_csv_load_ms} ms, longest main-thread task ${out.large_csv_longest_main_thread_task_ms.toFixed(0)} ms, ${out.large_csv_progress_updates} progress updates, peak memory ${(out.large_csv_peak_memory_over_numeric).toFixed(2)}× the numeric size (renderer RSS; the parsing engine's wasm memory ${out.large_csv_engine_memory_over_numeric?.toFixed(2)}×)${out.large_csv_error ? `; error: ${out.large_csv_error}` : ''}`);
}
