// The built-in demos of the embed mode: public synthetic data generated
// from a fixed public seed (no data file, nothing from the user), and the
// run config of each (demo, algorithm). Parameters come only from the URL
// (or the attributes of <dp-sampler>), never from data.
//
//   banana:   n = 5000 rows of x1 ~ N(0, 2000), x2 ~ N(3, 2500): the banana
//             model of the DP-HMC paper (a = 20), whose posterior over
//             (θ1, θ2) is curved like a banana.
//   gaussian: n = 2000 rows of (x1, x2) ~ N((1, −0.5), I): the Gaussian mean
//             model with known covariance.
//   logistic: n = 2000 rows of x1, x2 ~ N(0, 1) and a 0/1 outcome y with
//             P(y = 1) = σ(−0.5 + x1 − 0.8·x2): logistic regression, the
//             model the noise-aware sampler (and --algorithm auto for a
//             private regression) is for; public bounds x1, x2 ∈ [−4, 4].
//
// Algorithms: the four kernels below, noise-aware for the regression demo
// (one private release, then iid draws), and auto: the engine's
// recommendation for the demo's model, n and number of parameters (the
// app's default sampler; run.Recommend), resolved by a worker at start-up.

export const SEED = 20240601; // public: it drives the demo data only

export const DEMOS = {
  banana: {
    title: 'banana posterior',
    rows: 5000,
    model: { model: 'banana' },
    bounds: { x1: [-200, 200], x2: [-200, 200] },
    row: (z) => [Math.sqrt(2000) * z(), 3 + 50 * z()],
    settings: {
      'dp-penalty': { clip: 0.15, step: 0.06 },
      'dp-hmc': { clip: 0.1, grad_clip: 0.05, leapfrog: 10, step: 0.006 },
      'dp-mala': { clip: 0.1, grad_clip: 0.05 },
      ops: { box: 5, inner_iterations: 200 },
    },
  },
  gaussian: {
    title: 'Gaussian mean',
    rows: 2000,
    model: { model: 'gaussian' },
    bounds: { x1: [-4, 4], x2: [-4, 4] },
    row: (z) => [1 + z(), -0.5 + z()],
    settings: {
      'dp-penalty': { box: 5 },
      'dp-hmc': { box: 5, leapfrog: 10 },
      'dp-mala': { box: 5, grad_clip: 1 },
      ops: { box: 5, inner_iterations: 200 },
    },
  },
  logistic: {
    title: 'logistic regression',
    rows: 2000,
    columns: ['x1', 'x2', 'y'],
    integer: [false, false, true],
    model: { model: 'logistic', outcome: 'y', predictors: ['x1', 'x2'] },
    regression: true,
    // The parameters plotted: the two slopes (0 is the intercept).
    plot: [1, 2],
    bounds: { x1: [-4, 4], x2: [-4, 4] },
    row: (z, u) => {
      const x1 = z();
      const x2 = z();
      const p = 1 / (1 + Math.exp(-(-0.5 + x1 - 0.8 * x2)));
      return [x1, x2, u() < p ? 1 : 0];
    },
    settings: {
      ops: { box: 5, inner_iterations: 200 },
    },
  },
};

/** The algorithms the embed offers: auto resolves to one of the others. */
export const ALGORITHMS = ['auto', 'noise-aware', 'dp-penalty', 'dp-hmc', 'dp-mala', 'ops'];

/** Whether the demo can run the algorithm (noise-aware: regression models only). */
export function offers(name, algorithm) {
  return algorithm !== 'noise-aware' || Boolean(DEMOS[name].regression);
}

/** The number of parameters of the demo's model (public: its design). */
export function dimension(name) {
  const demo = DEMOS[name];
  return demo.model.predictors ? demo.model.predictors.length + 1 : 2;
}

/** Iterations per chain (warmup, draws) of a demo run; OPS draws are costly; noise-aware's are iid. */
export function iterations(algorithm) {
  switch (algorithm) {
    case 'noise-aware': return { warmup: 0, draws: 1000 };
    case 'ops': return { warmup: 0, draws: 150 };
    case 'dp-hmc': return { warmup: 100, draws: 300 };
    default: return { warmup: 200, draws: 600 };
  }
}

/** mulberry32: a small seeded generator of uniforms in [0, 1). */
function uniform(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normals by the polar method. */
function normal(u) {
  let spare = null;
  return () => {
    if (spare !== null) {
      const v = spare;
      spare = null;
      return v;
    }
    let a;
    let b;
    let r;
    do {
      a = 2 * u() - 1;
      b = 2 * u() - 1;
      r = a * a + b * b;
    } while (r >= 1 || r === 0);
    const f = Math.sqrt(-2 * Math.log(r) / r);
    spare = b * f;
    return a * f;
  };
}

/** The demo's data as CSV bytes (a Blob), identical on every load. */
export function demoData(name) {
  const demo = DEMOS[name];
  const u = uniform(SEED);
  const z = normal(u);
  const ints = demo.integer ?? [];
  const lines = [(demo.columns ?? ['x1', 'x2']).join(',')];
  for (let i = 0; i < demo.rows; i++) lines.push(demo.row(z, u).map((v, j) => (ints[j] ? String(v) : v.toFixed(4))).join(','));
  return new Blob([lines.join('\n') + '\n'], { type: 'text/csv' });
}

/** The run config (the same JSON the CLI and the app take). */
export function demoConfig(name, algorithm, epsilon, chains) {
  const demo = DEMOS[name];
  return {
    model: demo.model,
    data: { bounds: demo.bounds },
    algorithm,
    settings: demo.settings[algorithm] ?? {},
    chains,
    ...iterations(algorithm),
    seed: 1,
    privacy: { epsilon, delta: 1e-6 },
  };
}

/**
 * Reads the embed parameters from a query string, clamping each to what the
 * embed offers; unknown values fall back to the defaults.
 */
export function parseParams(search) {
  const q = new URLSearchParams(search);
  const demo = Object.hasOwn(DEMOS, q.get('demo') ?? '') ? q.get('demo') : 'banana';
  let algorithm = ALGORITHMS.includes(q.get('algorithm')) ? q.get('algorithm') : 'dp-penalty';
  // noise-aware is for the regression demo; elsewhere the recommendation.
  if (!offers(demo, algorithm)) algorithm = 'auto';
  let epsilon = Number.parseFloat(q.get('epsilon') ?? '2');
  if (!Number.isFinite(epsilon)) epsilon = 2;
  epsilon = Math.min(10, Math.max(0.1, epsilon));
  let chains = Number.parseInt(q.get('chains') ?? '1', 10);
  if (!Number.isFinite(chains)) chains = 1;
  chains = Math.min(2, Math.max(1, chains));
  const autorun = q.get('autorun') === '1';
  return { demo, algorithm, epsilon, chains, autorun };
}
