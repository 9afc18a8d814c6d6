// Benchmark page (bench.html): one chain of a fixed config on the demo in a
// worker, timed per iteration; the config comes from the URL hash
// (#config=<JSON>) or defaults to the demo's logistic HMC.
import { compileEngine } from './wasm.js';
import { Pool } from './pool.js';
import { DEMO_CSV, DEMO_NAME } from './demo-data.js';
import { $ } from './ui.js';

export const DEFAULT_CONFIG = {
  model: { model: 'logistic', outcome: 'event', predictors: ['age10', 'bmi5', 'sbp20', 'smoker'] },
  data: { bounds: { event: [0, 1], age10: [-4.2, 3], bmi5: [-2.4, 4.6], sbp20: [-2.5, 4.5], smoker: [0, 1] } },
  algorithm: 'hmc', chains: 1, warmup: 200, draws: 800, seed: 1,
};

async function main() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const config = hash.get('config') ?? JSON.stringify(DEFAULT_CONFIG);
  const t0 = performance.now();
  const module = await compileEngine();
  const pool = new Pool(1);
  await pool.start(module);
  const startup = performance.now() - t0;
  const file = new File([DEMO_CSV], DEMO_NAME);
  const result = await new Promise((resolve, reject) => {
    let first = 0;
    pool.listen((msg) => {
      if (msg.type === 'started') first = performance.now();
      if (msg.type === 'error') reject(new Error(msg.error.message));
      if (msg.type === 'end') {
        const ms = performance.now() - first;
        resolve({ iterations: msg.iterations, ns_per_iteration: (ms * 1e6) / msg.iterations });
      }
    });
    pool.startChain(1, 0, file, config);
  });
  const out = { config: JSON.parse(config), engine_start_ms: startup, wasm: result };
  $('bench-result').textContent = JSON.stringify(out, null, 2);
  $('bench-status').textContent = 'done';
  document.documentElement.dataset.done = 'true';
}

main().catch((e) => {
  $('bench-status').textContent = `failed: ${e.message}`;
  document.documentElement.dataset.done = 'error';
});
