// The embed page (embed.html): one built-in demo with a small control set
// (algorithm, ε, run/stop) and live plots, for documentation pages.
//
//   embed.html?demo=banana&algorithm=dp-penalty&epsilon=2[&chains=1][&autorun=1]
//   embed.html?demo=logistic&algorithm=noise-aware   (or algorithm=auto: the recommended one)
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
import { DEMOS, ALGORITHMS, parseParams, demoData, demoConfig, offers, dimension } from './embed-demo.js';

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
let recommended = null; // what algorithm=auto runs (the engine's recommendation)
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
    if (!run.chains.some((c) => c.positions)) return;
    // A chain not started yet (noise-aware's chains start from chain 0's
    // release) is an empty series: the charts have one per chain.
    const chains = run.chains.map((c) => (c.positions ? c : { ...c, n: 0, positions: new Float64Array(0) }));
    const [a, b] = run.plot;
    run.trace.setData(traceData(chains, a));
    run.pair.setData(pairData(chains, a, b, run.warmup));
  });
}

function describe() {
  const done = run.chains.reduce((s, c) => s + c.n, 0);
  const total = run.chains.reduce((s, c) => s + c.total, 0);
  const acc = run.chains.reduce((s, c) => s + c.accepted, 0);
  const rate = done > 0 ? ` · acceptance ${(acc / done).toFixed(2)} (on screen only)` : '';
  const which = run.auto ? `auto: ${run.algorithm} · ` : '';
  // noise-aware draws independently: no acceptance to show.
  return `${which}${done} / ${total} ${run.algorithm === 'noise-aware' ? 'draws' : 'iterations'} · ε = ${run.epsilon}${run.algorithm === 'noise-aware' ? '' : rate}`;
}

/**
 * Plans the selected (algorithm, ε) in worker 0 exactly as the chains will
 * prepare the run, and shows the engine's forecast: from public inputs
 * only (n, d, bounds, ε, δ, the algorithm and chains), before anything
 * runs, whether the chains can move far enough to converge. A run that the
 * forecast says will not converge is labelled so when it ends: the embed
 * has no R-hat to show, and its plots rescale to any range, so a stuck
 * chain would otherwise look like a posterior.
 */
let planned = 0;
async function showForecast() {
  if (!pool) return;
  const id = ++planned;
  const algorithm = algo.value === 'auto' ? recommended : algo.value;
  const res = await pool.plan(JSON.stringify(demoConfig(params.demo, algorithm, Number(eps.value), params.chains)));
  if (id !== planned) return; // a newer choice
  const f = res.error ? null : res.plan?.forecast;
  const box = $('forecast');
  box.hidden = !f?.text;
  // The ε the forecast names may lie beyond this demo's slider.
  const need = Math.max(f?.epsilon_to_mix ?? 0, f?.will_mix_typical === false ? f.epsilon_to_mix_typical ?? 0 : 0);
  const beyond = need > Number(eps.max) ? ` That is beyond this demo's ε slider (at most ${eps.max}): here ${algorithm} cannot show a converged run.` : '';
  box.textContent = f?.text ? `${f.kind === 'exact' ? 'Forecast' : 'Mixing forecast'}: ${f.text}${/[.!?]$/.test(f.text) ? '' : '.'}${beyond}` : '';
  // Will not, or (will_mix_typical) will probably not, converge.
  box.classList.toggle('warn', Boolean(f?.text) && (!f.will_mix || f.will_mix_typical === false));
  box.dataset.willMix = f ? String(Boolean(f.will_mix)) : '';
  box.dataset.kind = f?.kind ?? '';
  box.dataset.probablyNot = String(Boolean(f?.will_mix && f.will_mix_typical === false));
}

/** The end-of-run line: the forecast's verdict where it said the chains will not converge. */
function ending(cancelled) {
  const head = `${cancelled ? 'Stopped' : 'Done'}: ${describe()}`;
  if ($('forecast').dataset.probablyNot === 'true') return `${head}. The forecast said these chains will probably not converge at this ε: read these draws as where the chains went, not as the posterior.`;
  if ($('forecast').dataset.willMix !== 'false') return head;
  if ($('forecast').dataset.kind === 'too-few-draws') return `${head}. Not converged, as forecast: this ε pays for too few draws to show convergence, so these draws are not a posterior sample.`;
  return `${head}. Not converged, as forecast: the chains could not move far enough at this ε, so these draws show where they started, not the posterior.`;
}

function finish(state, text) {
  // Keyboard users: focus leaves the Stop button about to be disabled for
  // Run, but only if it is there: the host page keeps its own focus.
  const refocus = document.hasFocus() && document.activeElement === stopBtn;
  runBtn.disabled = false;
  stopBtn.disabled = true;
  algo.disabled = false;
  eps.disabled = false;
  setState(state, text);
  progress.classList.toggle('warn', state !== 'failed' && ($('forecast').dataset.willMix === 'false' || $('forecast').dataset.probablyNot === 'true'));
  // The progress line updates many times a second and is not announced;
  // the status says how the run ended.
  status.textContent = { done: 'done', cancelled: 'stopped', failed: 'failed' }[state] ?? state;
  redraw();
  if (refocus) runBtn.focus({ preventScroll: true });
}

function onMessage(msg) {
  if (!run || msg.runId !== run.id) return;
  const ch = run.chains[msg.chain];
  switch (msg.type) {
    case 'started': {
      const { dim, total, warmup, release } = msg.info;
      ch.dim = dim;
      ch.total = total;
      ch.positions = new Float64Array(total * dim);
      run.warmup = warmup;
      if (run.shared && msg.chain === 0) {
        // noise-aware: chain 0 made the run's one release; the other
        // chains sample from it (the key that made it stays in worker 0).
        for (let c = 1; c < run.chains.length; c++) pool.startChain(run.id, c, data, run.json, release);
      }
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
        finish(cancelled ? 'cancelled' : 'done', ending(cancelled));
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

/** The names of the plotted parameters (θ1, θ2, … by position). */
function plotted() {
  const [a, b] = DEMOS[params.demo].plot ?? [0, 1];
  return [a, b];
}

function start() {
  const epsilon = Number(eps.value);
  const auto = algo.value === 'auto';
  const algorithm = auto ? recommended : algo.value;
  const cfg = demoConfig(params.demo, algorithm, epsilon, params.chains);
  const plot = plotted();
  const trace = traceChart($('trace-plot'), params.chains, `θ${plot[0] + 1}`);
  const pair = pairChart($('pair-plot'), params.chains, `θ${plot[0] + 1}`, `θ${plot[1] + 1}`);
  run?.trace.destroy();
  run?.pair.destroy();
  const json = JSON.stringify(cfg);
  run = {
    id: nextRun++, epsilon, trace, pair, warmup: 0, frame: 0, plot, algorithm, auto, json,
    shared: algorithm === 'noise-aware',
    chains: Array.from({ length: params.chains }, () => ({ n: 0, total: 0, accepted: 0, dim: 2, positions: null, ended: false })),
  };
  // Keyboard users: focus moves from Run, about to be disabled, to Stop.
  const refocus = document.hasFocus() && document.activeElement === runBtn;
  runBtn.disabled = true;
  stopBtn.disabled = false;
  algo.disabled = true;
  eps.disabled = true;
  progress.classList.remove('warn');
  status.textContent = 'running';
  if (refocus) stopBtn.focus({ preventScroll: true });
  setState('running', 'Starting…');
  // A shared release (noise-aware): chain 0 first, the others from its
  // release (see 'started').
  for (let c = 0; c < (run.shared ? 1 : params.chains); c++) pool.startChain(run.id, c, data, json);
}

/** Fills the algorithm select: auto names its choice; noise-aware only where the demo can run it (offers). */
function renderAlgorithms() {
  const names = { auto: `recommended (${recommended ?? '…'})`, 'noise-aware': 'noise-aware', 'dp-penalty': 'DP penalty', 'dp-hmc': 'DP-HMC', 'dp-mala': 'DP-MALA', ops: 'one posterior sample' };
  algo.replaceChildren(...ALGORITHMS.map((a) => {
    const o = document.createElement('option');
    o.value = a;
    o.textContent = names[a];
    if (!offers(params.demo, a)) {
      o.disabled = true;
      o.title = 'noise-aware needs a regression or a public bound on every data column';
    }
    return o;
  }));
}

async function main() {
  const demo = DEMOS[params.demo];
  document.title = `dpmcmc demo: ${demo.title}`;
  $('title').textContent = `dpmcmc · ${demo.title}`;
  renderAlgorithms();
  algo.value = params.algorithm;
  // What the URL asked for and could not be used, said in the frame.
  $('params-note').hidden = params.notes.length === 0;
  $('params-note').textContent = params.notes.length ? `Embed parameters: ${params.notes.join('; ')}.` : '';
  eps.value = String(params.epsilon);
  const [a, b] = plotted();
  $('trace-caption').textContent = `Trace of θ${a + 1}`;
  $('pair-caption').textContent = `Draws of (θ${a + 1}, θ${b + 1})`;
  showEpsilon();
  eps.addEventListener('input', showEpsilon);
  eps.addEventListener('change', showForecast);
  algo.addEventListener('change', showForecast);
  runBtn.addEventListener('click', start);
  stopBtn.addEventListener('click', () => run && pool.cancel(run.id));

  data = demoData(params.demo);
  const module = await compileEngine();
  pool = new Pool(params.chains);
  const [versions, offline] = await Promise.all([pool.start(module), registerOffline()]);
  pool.listen(onMessage);
  // What auto runs: the engine's recommendation for this demo's model and
  // public n and d, among the private algorithms this embed offers.
  const rec = await pool.recommend(demo.rows, dimension(params.demo), true, demo.model.model, Boolean(demo.meanStatistic));
  recommended = ALGORITHMS.includes(rec) && rec !== 'auto' ? rec : 'dp-penalty';
  const chosen = algo.value;
  renderAlgorithms();
  algo.value = chosen;
  algo.dataset.recommended = recommended;
  $('version').textContent = `dpmcmc ${versions.version}.`;
  // Plans need the rows' public n (worker 0 plans on the last file it read).
  await pool.inspect(data);
  await showForecast();
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
