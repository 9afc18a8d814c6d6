// The embed page (embed.html): one built-in demo with a small control set
// (algorithm, ε, run/stop) and live plots, for documentation pages.
//
//   embed.html?demo=banana&algorithm=dp-penalty&epsilon=2[&chains=1][&autorun=1]
//
// Parameters come only from the URL (see embed-demo.js); the data are
// public synthetic rows generated here from a fixed seed. The engine runs in
// the app's own chain workers (js/worker.js via js/pool.js), one per chain,
// all created before the page reports ready (html[data-ready]); with the
// service worker installed (js/offline.js) the page then makes no request,
// and works offline on later loads.

import { compileEngine } from './wasm.js';
import { Pool } from './pool.js';
import { traceChart, traceData, pairChart, pairData } from './charts.js';
import { registerOffline } from './offline.js';
import { DEMOS, parseParams, demoData, demoConfig } from './embed-demo.js';

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);

const params = parseParams(location.search);
const status = $('status');
const progress = $('progress');
const algo = $('algorithm-select');
const eps = $('epsilon-input');
const epsOut = $('epsilon-value');
const runBtn = $('run-button');
const stopBtn = $('stop-button');

let pool;
let data; // the demo's CSV bytes
let run = null; // the current run
let nextRun = 1;

function setState(state, text) {
  progress.dataset.state = state;
  progress.textContent = text;
  progress.classList.toggle('error', state === 'failed');
}

function showEpsilon() {
  epsOut.value = Number(eps.value).toFixed(1);
}

/** Redraws the plots (at most once per animation frame). */
function redraw() {
  if (!run || run.frame) return;
  run.frame = requestAnimationFrame(() => {
    run.frame = 0;
    const chains = run.chains.filter((c) => c.positions);
    if (chains.length === 0) return;
    run.trace.setData(traceData(chains, 0));
    run.pair.setData(pairData(chains, 0, 1, run.warmup));
  });
}

function describe() {
  const done = run.chains.reduce((s, c) => s + c.n, 0);
  const total = run.chains.reduce((s, c) => s + c.total, 0);
  const acc = run.chains.reduce((s, c) => s + c.accepted, 0);
  const rate = done > 0 ? ` · acceptance ${(acc / done).toFixed(2)} (on screen only)` : '';
  return `${done} / ${total} iterations · ε = ${run.epsilon}${rate}`;
}

function finish(state, text) {
  runBtn.disabled = false;
  stopBtn.disabled = true;
  algo.disabled = false;
  eps.disabled = false;
  setState(state, text);
  redraw();
}

function onMessage(msg) {
  if (!run || msg.runId !== run.id) return;
  const ch = run.chains[msg.chain];
  switch (msg.type) {
    case 'started': {
      const { dim, total, warmup } = msg.info;
      ch.dim = dim;
      ch.total = total;
      ch.positions = new Float64Array(total * dim);
      run.warmup = warmup;
      setState('running', describe());
      break;
    }
    case 'draws':
      ch.positions.set(msg.draws, ch.n * ch.dim);
      ch.n += msg.draws.length / ch.dim;
      ch.accepted = msg.accepted;
      setState('running', describe());
      redraw();
      break;
    case 'end':
      ch.ended = true;
      ch.cancelled = msg.cancelled;
      if (run.chains.every((c) => c.ended)) {
        const cancelled = run.chains.some((c) => c.cancelled);
        finish(cancelled ? 'cancelled' : 'done', `${cancelled ? 'Stopped' : 'Done'}: ${describe()}`);
      }
      break;
    case 'error':
      pool.cancel(run.id);
      finish('failed', `Failed: ${msg.error?.message ?? msg.error}`);
      run.id = -1;
      break;
    default:
  }
}

function start() {
  const epsilon = Number(eps.value);
  const cfg = demoConfig(params.demo, algo.value, epsilon, params.chains);
  const trace = traceChart($('trace-plot'), params.chains, 'θ1');
  const pair = pairChart($('pair-plot'), params.chains, 'θ1', 'θ2');
  run?.trace.destroy();
  run?.pair.destroy();
  run = {
    id: nextRun++, epsilon, trace, pair, warmup: 0, frame: 0,
    chains: Array.from({ length: params.chains }, () => ({ n: 0, total: 0, accepted: 0, dim: 2, positions: null, ended: false })),
  };
  runBtn.disabled = true;
  stopBtn.disabled = false;
  algo.disabled = true;
  eps.disabled = true;
  setState('running', 'Starting…');
  const json = JSON.stringify(cfg);
  for (let c = 0; c < params.chains; c++) pool.startChain(run.id, c, data, json);
}

async function main() {
  const demo = DEMOS[params.demo];
  document.title = `dpmcmc demo: ${demo.title}`;
  $('title').textContent = `dpmcmc · ${demo.title}`;
  algo.value = params.algorithm;
  eps.value = String(params.epsilon);
  showEpsilon();
  eps.addEventListener('input', showEpsilon);
  runBtn.addEventListener('click', start);
  stopBtn.addEventListener('click', () => run && pool.cancel(run.id));

  data = demoData(params.demo);
  const module = await compileEngine();
  pool = new Pool(params.chains);
  const [versions, offline] = await Promise.all([pool.start(module), registerOffline()]);
  pool.listen(onMessage);
  $('version').textContent = `dpmcmc ${versions[0]}.`;
  status.textContent = 'ready';
  document.documentElement.dataset.offline = offline;
  document.documentElement.dataset.ready = 'true';
  runBtn.disabled = false;
  if (params.autorun) start();
}

main().catch((err) => {
  status.textContent = `failed to start: ${err?.message ?? err}`;
  status.classList.add('error');
  console.error(err);
});
