// Benchmark page (bench.html): one chain of a fixed config on the demo in a
// worker, timed per iteration; the config comes from the URL hash
// (#config=<JSON>) or defaults to the demo's logistic HMC; #runs=N runs the
// chain N times in the same worker (default 3: the first run includes the
// engine's tier-up from baseline to optimised code); #chains=K runs K chains
// at once on K workers (the scaling row).
//
// Each run reports the time per iteration seen by the page (from the
// worker's "started" message to its "end" message: kernel, slicing,
// messaging) and, from the worker's own clock, the time spent inside the
// engine's advance() (the kernel with its JS↔Go call) and in the whole
// loop, so that the benchmark can split the browser/native ratio.
import { compileEngine } from './wasm.js';
import { Pool } from './pool.js';
import { DEMO_CSV, DEMO_NAME } from './demo-data.js';
import { $ } from './ui.js';

export const DEFAULT_CONFIG = {
  model: { model: 'logistic', outcome: 'event', predictors: ['age10', 'bmi5', 'sbp20', 'smoker'] },
  data: { bounds: { event: [0, 1], age10: [-4.2, 3], bmi5: [-2.4, 4.6], sbp20: [-2.5, 4.5], smoker: [0, 1] } },
  algorithm: 'hmc', chains: 1, warmup: 200, draws: 800, seed: 1,
};

/**
 * Runs the config's chains (one per worker, all at once) and resolves with
 * chain 0's timings and the wall time from the first chain's start to the
 * last chain's end (for the scaling row: K chains on K workers).
 */
function runOnce(pool, runId, file, config) {
  const chains = config.chains ?? 1;
  return new Promise((resolve, reject) => {
    let first = 0;
    let ended = 0;
    let chain0;
    const stop = pool.listen((msg) => {
      if (msg.runId !== runId) return;
      if (msg.type === 'started' && !first) first = performance.now();
      if (msg.type === 'error') reject(new Error(msg.error.message));
      if (msg.type === 'end') {
        const ms = performance.now() - first;
        const n = msg.iterations;
        const s = msg.stats ?? {};
        if (msg.chain === 0) {
          chain0 = {
            iterations: n,
            ns_per_iteration: (ms * 1e6) / n,
            advance_ns_per_iteration: (s.advanceMs * 1e6) / n,
            loop_ns_per_iteration: (s.loopMs * 1e6) / n,
            prepare_ms: s.prepareMs,
            slices: s.slices,
            posts: s.posts,
          };
        }
        if (++ended === chains) {
          stop();
          resolve({ ...chain0, chains, wall_ns_per_iteration: (ms * 1e6) / n });
        }
      }
    });
    const json = JSON.stringify(config);
    for (let c = 0; c < chains; c++) pool.startChain(runId, c, file, json);
  });
}

async function main() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const config = JSON.parse(hash.get('config') ?? JSON.stringify(DEFAULT_CONFIG));
  if (hash.has('chains')) config.chains = Math.max(1, Number(hash.get('chains')));
  const runs = Math.max(1, Number(hash.get('runs') ?? 3));
  const t0 = performance.now();
  const module = await compileEngine();
  const pool = new Pool(config.chains ?? 1);
  await pool.start(module);
  const startup = performance.now() - t0;
  const file = new File([DEMO_CSV], DEMO_NAME);
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await runOnce(pool, i + 1, file, config));
  // The best run (least disturbed by other load on the machine).
  const best = results.reduce((a, b) => (b.ns_per_iteration < a.ns_per_iteration ? b : a));
  const out = { config, cores: navigator.hardwareConcurrency, engine_start_ms: startup, wasm: best, runs: results };
  $('bench-result').textContent = JSON.stringify(out, null, 2);
  $('bench-status').textContent = 'done';
  document.documentElement.dataset.done = 'true';
}

main().catch((e) => {
  $('bench-status').textContent = `failed: ${e.message}`;
  document.documentElement.dataset.done = 'error';
});
