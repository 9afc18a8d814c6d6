// The pool of engine workers (js/worker.js), created once at start-up.
//
// Creating every worker before the page reports "ready" means no script is
// fetched later: after start-up the page makes no request at all. The
// compiled WebAssembly.Module is posted to each worker (compiled once).
// Worker 0 also parses files; chain c runs on worker c, so the number of
// chains is at most the pool size.

export const POOL_SIZE = 4;

export class Pool {
  constructor(size = POOL_SIZE) {
    this.size = size;
    this.workers = [];
    this.listeners = new Set();
    this.nextId = 1;
    this.pending = new Map(); // inspect id -> resolve
    this.progress = new Map(); // inspect id -> onProgress
  }

  /**
   * Creates the workers and starts the engine in the first `eager` of them
   * (default: all). Resolves when every worker's scripts have loaded (so no
   * script is fetched later) and the eager ones are ready; initRest() then
   * starts the others, off the page's start-up path. A worker queues the
   * messages it receives before its engine is ready. module is a compiled
   * WebAssembly.Module or a promise of one.
   */
  start(module, eager = this.size) {
    this.module = module;
    this.initialised = 0;
    const ready = [];
    // Worker 0 is created first, the others once it has loaded its scripts
    // (in parallel): worker 0 is then the first worker the page has (the
    // crash test picks it), and it starts its engine meanwhile.
    const spawn = (i) => {
      const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: `dpmcmc-${i}` });
      this.workers.push(w);
      const loaded = new Promise((resolve, reject) => {
        const onLoaded = (e) => {
          if (e.data.type === 'loaded') {
            w.removeEventListener('message', onLoaded);
            resolve();
          }
        };
        w.addEventListener('message', onLoaded);
        w.addEventListener('error', (e) => reject(new Error(`worker ${i}: ${e.message}`)));
      });
      ready.push(new Promise((resolve, reject) => {
        const onReady = (e) => {
          if (e.data.type === 'ready') {
            w.removeEventListener('message', onReady);
            resolve(e.data);
          } else if (e.data.type === 'error' && e.data.id === undefined && e.data.runId === undefined) {
            reject(new Error(e.data.error.message));
          }
        };
        w.addEventListener('message', onReady);
        w.addEventListener('error', (e) => reject(new Error(`worker ${i}: ${e.message}`)));
      }));
      w.addEventListener('message', (e) => this.dispatch(i, e.data));
      // A worker that dies (out of memory, a crash in the engine) raises an
      // error event; the app ends the run with a message instead of waiting.
      w.addEventListener('error', (e) => {
        for (const f of this.listeners) f({ type: 'crashed', worker: i, error: { message: e.message || 'the worker stopped' } }, i);
      });
      if (i === 0) this.initRest(eager);
      return loaded;
    };
    const all = spawn(0).then(() => {
      const rest = [];
      for (let i = 1; i < this.size; i++) rest.push(spawn(i));
      return Promise.all(rest);
    });
    const allLoaded = all.then(() => {
      this.initRest(eager);
      this.ready = Promise.all(ready);
      this.ready.catch(() => {}); // reported by start() or by the listeners
    });
    return allLoaded.then(() => Promise.all(ready.slice(0, eager))).then((r) => r[0]);
  }

  /** Starts the engine in the workers not started yet (at most up to worker `upTo`). */
  initRest(upTo = this.size) {
    for (; this.initialised < Math.min(upTo, this.workers.length); this.initialised++) {
      const w = this.workers[this.initialised];
      // module may be a promise: the workers load their scripts meanwhile.
      Promise.resolve(this.module).then((module) => w.postMessage({ type: 'init', module }), () => {});
    }
  }

  dispatch(worker, msg) {
    if (msg.type === 'loaded' || msg.type === 'ready') return;
    if (msg.type === 'progress') {
      this.progress.get(msg.id)?.(msg.loaded, msg.total);
      return;
    }
    if (msg.type === 'inspected' || msg.type === 'planned' || msg.type === 'recommended' || (msg.type === 'error' && msg.id)) {
      const resolve = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      this.progress.delete(msg.id);
      resolve?.(msg.type === 'error' ? { error: msg.error, columns: [], preview: [] } : msg.result);
      return;
    }
    for (const f of this.listeners) f(msg, worker);
  }

  /**
   * Parses a file (a File or Blob) in worker 0; resolves with the inspect
   * result. onProgress(bytesParsed, size) is called while it parses.
   */
  inspect(file, opts = {}, onProgress = null) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      if (onProgress) this.progress.set(id, onProgress);
      this.workers[0].postMessage({ type: 'inspect', id, file, opts });
    });
  }

  /**
   * Plans a run on the last inspected file in worker 0, exactly as the
   * chains will prepare it; resolves with {plan, config} or {error}.
   */
  plan(config) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.workers[0].postMessage({ type: 'plan', id, config });
    });
  }

  /**
   * The engine's recommended algorithm for a model on n rows with d
   * parameters (public inputs; api.recommend, the app's default sampler),
   * asked of worker 0 (for pages without an engine on the main thread).
   * meanBounded: the gaussian or banana model with a public bound on every
   * data column (noise-aware can run it).
   */
  recommend(n, d, priv, model, meanBounded = false) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.workers[0].postMessage({ type: 'recommend', id, n, d, private: priv, model, meanBounded });
    });
  }

  /**
   * Starts chain c of a run on worker c; release is chain 0's shared release
   * (noise-aware) for the other chains, else undefined.
   */
  startChain(runId, c, file, config, release) {
    this.workers[c].postMessage({ type: 'start', runId, file, config, chain: c, release });
  }

  /** Asks every worker to stop the run after its current slice. */
  cancel(runId) {
    for (const w of this.workers) w.postMessage({ type: 'cancel', runId });
  }

  /** Subscribes to chain messages (started, draws, end, error); returns an unsubscribe function. */
  listen(f) {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }
}
