// Engine worker: one Go/WebAssembly instance off the main thread.
//
// The page creates a fixed pool of these at start-up (so no script is
// fetched after the page is ready) and posts each the compiled
// WebAssembly.Module. A worker then parses CSV files ("inspect") and runs
// one chain at a time ("start"), streaming its draws in chunks as
// transferable Float64Arrays. Between slices of iterations it yields to its
// event loop, so a "cancel" message stops the chain after the current slice;
// the "end" message then reports exactly the iterations that ran.
//
// Messages in:  {type:'init', module} | {type:'inspect', id, file, opts} | {type:'plan', id, config} | {type:'recommend', id, n, d, private, model, meanBounded}
//               | {type:'start', runId, file, config, chain, release?} | {type:'cancel', runId}
// Messages out: {type:'loaded'} | {type:'ready', version, selfTest} | {type:'inspected', id, result} | {type:'planned', id, result} | {type:'recommended', id, result}
//               | {type:'progress', id, loaded, total} (bytes of the file parsed, while inspecting)
//               | {type:'started', runId, chain, info (info.release: chain 0's shared release)} | {type:'draws', runId, chain, draws, iteration, total, accepted}
//               | {type:'end', runId, chain, iterations, cancelled, aborted, ms, stats, local} | {type:'error', runId?, id?, error}
//
// aborted: null, or why the chain stopped before its end (its state became
// non-finite): {message, algorithm, chain, iteration, total, step}, the
// engine's (and the command-line tool's) message and its fields.
//
// local: the chain's local diagnostics {accepted, clipped, rowTerms, divergent, divergentWarmup} (not private,
// shown on this page only, never exported).
// stats (for the benchmark page): {prepareMs (file read + newChain), advanceMs (time inside
// h.advance, the engine's own work), loopMs (first advance to last flush), slices, posts}.

import { startEngine } from './wasm.js';

let api;
let engineReady; // resolves once api is set: messages wait for it
const apiReady = new Promise((resolve) => { engineReady = resolve; });
let lastFile = null; // the file last inspected (worker 0), for plans
const cancelled = new Set();

const SLICE_MS = 12; // target time of one slice of iterations
const POST_MS = 80; // target time between chunks of draws

/** Resolves on the next turn of the event loop (faster than setTimeout 0). */
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
function yieldTurn() {
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(0);
  });
}

/**
 * What the engine reads a file from: the File itself where FileReaderSync
 * exists (the engine then reads it in chunks as it parses: a large file is
 * never copied whole), else its bytes.
 */
async function source(file) {
  if (typeof FileReaderSync === 'function') return file;
  return new Uint8Array(await file.arrayBuffer());
}

const PROGRESS_MS = 100; // at most one progress message per PROGRESS_MS

async function inspect({ id, file, opts }) {
  const src = await source(file);
  lastFile = src;
  let last = 0;
  const progress = (loaded, total) => {
    const now = performance.now();
    if (now - last < PROGRESS_MS && loaded < total) return;
    last = now;
    postMessage({ type: 'progress', id, loaded, total });
  };
  const result = JSON.parse(api.inspect(src, JSON.stringify(opts ?? {}), progress));
  result.memoryBytes = api.memoryBytes(); // the engine's memory after the load (for the benchmark)
  postMessage({ type: 'inspected', id, result });
}

/** Concatenates chunks of draws into one transferable array. */
function concat(chunks) {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Float64Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function runChain({ runId, file, config, chain, release }) {
  const t0 = performance.now();
  // release: chain 0's shared release (noise-aware), handed on by the page;
  // this worker's own noise key never leaves the engine.
  const h = api.newChain(await source(file), config, chain, release ?? undefined);
  if (h.error) {
    postMessage({ type: 'error', runId, chain, error: h.error });
    return;
  }
  postMessage({ type: 'started', runId, chain, info: h.info });
  const loop0 = performance.now();
  const stats = { prepareMs: loop0 - t0, advanceMs: 0, loopMs: 0, slices: 0, posts: 0 };
  let slice = 1;
  let chunks = [];
  let last = performance.now();
  let r = { iteration: 0, total: h.total(), accepted: 0, done: h.total() === 0 };
  const flush = () => {
    if (chunks.length === 0) return;
    const draws = concat(chunks);
    chunks = [];
    postMessage({ type: 'draws', runId, chain, draws, iteration: r.iteration, total: r.total, accepted: r.accepted }, [draws.buffer]);
    stats.posts++;
  };
  while (!r.done && !cancelled.has(runId)) {
    const s0 = performance.now();
    r = h.advance(slice);
    const dt = performance.now() - s0;
    stats.advanceMs += dt;
    stats.slices++;
    // Aim each slice at SLICE_MS so that a cancel is handled promptly.
    slice = Math.max(1, Math.min(100000, Math.round(slice * SLICE_MS / Math.max(dt, 0.25))));
    if (r.draws.length) chunks.push(r.draws);
    if (performance.now() - last >= POST_MS) {
      flush();
      last = performance.now();
    }
    await yieldTurn(); // lets a 'cancel' message in
  }
  flush();
  stats.loopMs = performance.now() - loop0;
  const iterations = h.done();
  const aborted = h.abort();
  postMessage({ type: 'end', runId, chain, iterations, cancelled: !aborted && iterations < h.total(), aborted, ms: performance.now() - t0, stats, local: h.local() });
  h.free();
}

onmessage = (e) => {
  const msg = e.data;
  const fail = (err) => postMessage({ type: 'error', runId: msg.runId, id: msg.id, chain: msg.chain, error: { message: String(err?.message ?? err) } });
  switch (msg.type) {
    case 'init':
      startEngine(msg.module).then((a) => {
        api = a;
        engineReady();
        postMessage({ type: 'ready', version: a.version, selfTest: a.selfTest() });
      }, fail);
      break;
    case 'inspect':
      apiReady.then(() => inspect(msg)).catch(fail);
      break;
    case 'plan':
      apiReady.then(() => postMessage({ type: 'planned', id: msg.id, result: lastFile ? JSON.parse(api.plan(lastFile, msg.config)) : { error: { message: 'no file' } } })).catch(fail);
      break;
    case 'recommend':
      apiReady.then(() => postMessage({ type: 'recommended', id: msg.id, result: api.recommend(msg.n, msg.d, msg.private, msg.model, Boolean(msg.meanBounded)) })).catch(fail);
      break;
    case 'start':
      apiReady.then(() => runChain(msg)).catch(fail);
      break;
    case 'cancel':
      cancelled.add(msg.runId);
      break;
    default:
      fail(new Error(`unknown message ${msg.type}`));
  }
};

// The scripts have loaded (the pool's start-up waits for this in every worker).
postMessage({ type: 'loaded' });
