// Page entry point: start the engine and say so.
import { startEngine } from './wasm.js';

const status = document.querySelector('[data-testid="status"]');
const selftest = document.querySelector('[data-testid="selftest"]');

async function main() {
  const t0 = performance.now();
  const api = await startEngine();
  const ms = performance.now() - t0;
  const sum = api.selfTest();
  const expected = (1000 * 1001) / 2;
  if (sum !== expected) {
    throw new Error(`self-test returned ${sum}, expected ${expected}`);
  }
  status.textContent = `dpmcmc ${api.version} ready`;
  status.classList.add('ready');
  selftest.textContent = `Self-test passed: 1 + 2 + … + 1000 = ${sum}, computed in Go (started in ${ms.toFixed(0)} ms).`;
  selftest.hidden = false;
  document.documentElement.dataset.ready = 'true';
}

main().catch((err) => {
  status.textContent = `dpmcmc failed to start: ${err && err.message ? err.message : err}`;
  status.classList.add('error');
  status.setAttribute('role', 'alert');
  console.error(err);
});
