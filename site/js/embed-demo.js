// The built-in demos of the embed mode: public synthetic data generated
// from a fixed public seed (no data file, nothing from the user), and the
// run config of each (demo, algorithm). Parameters come only from the URL
// (or the attributes of <dp-sampler>), never from data.
//
//   banana:   n = 5000 rows of x1 ~ N(0, 2000), x2 ~ N(3, 2500): the banana
//             model of the DP-HMC paper (a = 20), whose posterior over
//             (θ1, θ2) is curved like a banana; public bounds ±200.
//   gaussian: n = 2000 rows of (x1, x2) ~ N((1, −0.5), I): the Gaussian mean
//             model with known covariance; public bounds ±4.
//   logistic: n = 2000 rows of x1, x2 ~ N(0, 1) and a 0/1 outcome y with
//             P(y = 1) = σ(−0.5 + x1 − 0.8·x2): logistic regression, the
//             model the noise-aware sampler (and --algorithm auto for a
//             private regression) is for; public bounds x1, x2 ∈ [−4, 4].
//
// Algorithms: the four kernels below, noise-aware (one private release,
// then iid draws: of the regression's statistics, or of the column sums of
// the banana and Gaussian demos, whose every column has a public bound),
// and auto: the engine's
// recommendation for the demo's model, n and number of parameters (the
// app's default sampler; run.Recommend), resolved by a worker at start-up.

export const SEED = 20240601; // public: it drives the demo data only

export const DEMOS = {
  banana: {
    title: 'banana posterior',
    rows: 5000,
    model: { model: 'banana' },
    // Every data column has a public bound: noise-aware can run it
    // (run.MeanStatisticBounded).
    meanStatistic: true,
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
    meanStatistic: true,
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

/** Whether the demo can run the algorithm (noise-aware: a regression, or a model read through its bounded column means). */
export function offers(name, algorithm) {
  return algorithm !== 'noise-aware' || Boolean(DEMOS[name].regression || DEMOS[name].meanStatistic);
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

/** The embed's URL parameters. */
export const PARAMS = ['demo', 'algorithm', 'epsilon', 'chains', 'autorun'];

/**
 * Reads the embed parameters from a query string, clamping each to what the
 * embed offers. Names are read case-insensitively; a value that cannot be
 * used is replaced by the default and every replacement is said in notes
 * (shown in the frame), so that a page author sees what runs.
 */
export function parseParams(search) {
  const notes = [];
  // Names are read case-insensitively; an unknown name is said, not ignored.
  const q = new URLSearchParams();
  for (const [k, v] of new URLSearchParams(search)) {
    const key = k.trim().toLowerCase();
    if (PARAMS.includes(key)) q.set(key, v);
    else notes.push(`${k} is not a parameter of the embed (${PARAMS.join(', ')}): ignored`);
  }
  const low = (k) => q.get(k)?.trim().toLowerCase() ?? null;
  let demo = low('demo') ?? 'banana';
  if (!Object.hasOwn(DEMOS, demo)) {
    notes.push(`demo=${q.get('demo')} is not one of ${Object.keys(DEMOS).join(', ')}: showing banana`);
    demo = 'banana';
  }
  let algorithm = low('algorithm') ?? 'dp-penalty';
  if (!ALGORITHMS.includes(algorithm)) {
    notes.push(`algorithm=${q.get('algorithm')} is not one of ${ALGORITHMS.join(', ')}: running dp-penalty`);
    algorithm = 'dp-penalty';
  }
  // A demo that cannot run noise-aware runs the recommendation (every
  // built-in demo can; a demo added without public bounds could not).
  if (!offers(demo, algorithm)) {
    notes.push(`noise-aware needs a regression or a public bound on every data column: running the recommended algorithm`);
    algorithm = 'auto';
  }
  let epsilon = 2;
  if (q.has('epsilon')) {
    const raw = q.get('epsilon');
    const v = Number(raw);
    if (!Number.isFinite(v) || raw.trim() === '') notes.push(`epsilon=${raw} is not a number: using ε = 2`);
    else {
      // The slider's range and step.
      epsilon = Math.round(Math.min(10, Math.max(0.1, v)) * 10) / 10;
      if (epsilon !== v) notes.push(`epsilon=${raw} ${v < 0.1 || v > 10 ? 'is outside 0.1–10' : 'is not a multiple of 0.1'}: using ε = ${epsilon}`);
    }
  }
  let chains = 1;
  if (q.has('chains')) {
    const v = Number(q.get('chains'));
    chains = Number.isInteger(v) ? Math.min(2, Math.max(1, v)) : 1;
    if (chains !== v) notes.push(`chains=${q.get('chains')}: the embed runs 1 or 2 chains; using ${chains}`);
  }
  const auto = low('autorun');
  const autorun = auto === '1' || auto === 'true' || auto === 'yes';
  if (auto !== null && !autorun && !['0', 'false', 'no'].includes(auto)) notes.push(`autorun=${q.get('autorun')}: use autorun=1`);
  return { demo, algorithm, epsilon, chains, autorun, notes };
}
