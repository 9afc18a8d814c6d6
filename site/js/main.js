// Page entry point: compile the engine once, start it on this page (for
// summaries and exports) and in the worker pool (parsing and chains), then
// hand over to the app and load the built-in demo.
//
// The page is "ready" (status text, html[data-ready]) only once every
// worker has loaded its scripts, worker 0's engine has started and the demo
// is on screen: after that the page makes no network request at all.
import { compileEngine, startEngine } from './wasm.js';
import { Pool } from './pool.js';
import { App, demoFile } from './app.js';
import { $ } from './ui.js';
import { registerOffline } from './offline.js';

const status = $('status');

async function main() {
  const t0 = performance.now();
  const mark = (name) => performance.mark(`dpmcmc:${name}`);
  // The workers load their scripts while the engine compiles; worker 0
  // (which parses files) starts its engine at once, the others right after
  // the page is ready (off the start-up path: a chain started earlier waits
  // in its worker).
  const offlineStarted = registerOffline().then((o) => { mark('offline'); return o; });
  const modulePromise = compileEngine();
  const pool = new Pool();
  const poolStarted = pool.start(modulePromise, 1).then(() => mark('pool'));
  // Worker 0 queues the demo's parse until its engine has started.
  const demo = demoFile();
  const demoInspected = pool.inspect(demo);
  const module = await modulePromise;
  mark('compiled');
  // The service worker caches the app's own assets while it installs, all
  // before "ready", so the app works offline afterwards and no request
  // happens once it is ready.
  const [api, , offline] = await Promise.all([
    startEngine(module).then((a) => { mark('engine'); return a; }),
    poolStarted,
    offlineStarted,
  ]);
  document.documentElement.dataset.offline = offline;
  const sum = api.selfTest();
  if (sum !== 500500) throw new Error(`self-test returned ${sum}, expected 500500`);
  const app = new App(api, pool);
  await app.loadDemo(demo, demoInspected);
  mark('demo');
  const ms = performance.now() - t0;
  status.textContent = `dpmcmc ${api.version} ready`;
  status.classList.add('ready');
  const selftest = $('selftest');
  selftest.textContent = `Self-test passed: 1 + 2 + … + 1000 = ${sum}, computed in Go (started in ${ms.toFixed(0)} ms).`;
  selftest.hidden = false;
  $('version').textContent = `Version ${api.version}.`;
  globalThis.__dpmcmcReadyMs = performance.now();
  document.documentElement.dataset.ready = 'true';
  pool.initRest();
}

main().catch((err) => {
  status.textContent = `dpmcmc failed to start: ${err && err.message ? err.message : err}`;
  status.classList.add('error');
  status.setAttribute('role', 'alert');
  console.error(err);
});
