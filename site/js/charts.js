// Plots with the vendored uPlot (site/vendor/uplot, loaded as a classic
// script that defines globalThis.uPlot): live traces, densities and a
// pairwise scatter. Colours are the Okabe–Ito palette (colour-blind safe);
// chains are also told apart in the legend by name.

export const CHAIN_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];

const MAX_POINTS = 1500; // per chain, after thinning

function cssVar(name, fallback) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function axes(xLabel, yLabel) {
  const stroke = cssVar('--fg', '#1b1f24');
  const grid = { stroke: cssVar('--line', '#dde1e6'), width: 1 };
  return [
    { label: xLabel, stroke, grid, ticks: grid },
    { label: yLabel, stroke, grid, ticks: grid, size: 56 },
  ];
}

function width(target) {
  return Math.max(260, Math.floor(target.clientWidth || 600));
}

/** A uPlot chart that follows its container's width. */
class Chart {
  constructor(target, opts, data) {
    this.target = target;
    target.replaceChildren();
    this.plot = new globalThis.uPlot({ width: width(target), height: opts.height ?? 220, ...opts }, data, target);
    // A canvas says nothing to a screen reader, and the legend's values
    // follow the mouse: one text alternative for the whole chart.
    const caption = target.closest('figure')?.querySelector('figcaption')?.textContent ?? 'Live trace of the chains';
    target.setAttribute('role', 'img');
    target.setAttribute('aria-label', `${caption}: a chart of the draws; the summary table and the exported draws hold the same numbers.`);
    this.resize = () => this.plot.setSize({ width: width(target), height: this.plot.height });
    this.observer = new ResizeObserver(() => this.resize());
    this.observer.observe(target);
  }
  setData(data) { this.plot.setData(data); }
  destroy() {
    this.observer.disconnect();
    this.plot.destroy();
  }
}

/** The x series is labelled xLabel in the legend (the trace's iteration, the density's and the scatter's parameter). */
function chainSeries(n, points, xLabel = 'iteration') {
  const s = [{ label: xLabel }];
  for (let c = 0; c < n; c++) {
    const colour = CHAIN_COLOURS[c % CHAIN_COLOURS.length];
    s.push(points
      ? { label: `chain ${c + 1}`, stroke: colour, fill: colour, paths: () => null, points: { show: true, size: 3, stroke: colour, fill: colour } }
      : { label: `chain ${c + 1}`, stroke: colour, width: 1, points: { show: false } });
  }
  return s;
}

/**
 * Trace data of parameter j: chains[c] = {positions, dim, n} (n iterations
 * so far). Thinned to at most MAX_POINTS per chain.
 */
export function traceData(chains, j, from = 0) {
  const maxN = Math.max(0, ...chains.map((c) => c.n));
  const stride = Math.max(1, Math.ceil((maxN - from) / MAX_POINTS));
  const xs = [];
  for (let i = from; i < maxN; i += stride) xs.push(i + 1);
  const data = [xs];
  for (const ch of chains) {
    const ys = new Array(xs.length);
    for (let k = 0; k < xs.length; k++) {
      const i = xs[k] - 1;
      ys[k] = i < ch.n ? ch.positions[i * ch.dim + j] : null;
    }
    data.push(ys);
  }
  return data;
}

export function traceChart(target, nChains, yLabel) {
  return new Chart(target, {
    scales: { x: { time: false } },
    series: chainSeries(nChains, false),
    axes: axes('iteration', yLabel),
    cursor: { drag: { x: true, y: false } },
  }, [[], ...Array.from({ length: nChains }, () => [])]);
}

/** Per-chain histogram densities of parameter j over the post-warmup draws. */
export function densityData(chains, j, warmup, bins = 40) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const ch of chains) {
    for (let i = warmup; i < ch.n; i++) {
      const v = ch.positions[i * ch.dim + j];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (!(hi > lo)) {
    lo -= 0.5;
    hi += 0.5;
  }
  const w = (hi - lo) / bins;
  const xs = Array.from({ length: bins }, (_, b) => lo + (b + 0.5) * w);
  const data = [xs];
  for (const ch of chains) {
    const counts = new Array(bins).fill(0);
    const m = Math.max(0, ch.n - warmup);
    for (let i = warmup; i < ch.n; i++) {
      const b = Math.min(bins - 1, Math.floor((ch.positions[i * ch.dim + j] - lo) / w));
      counts[b]++;
    }
    data.push(counts.map((k) => (m > 0 ? k / (m * w) : null)));
  }
  return data;
}

export function densityChart(target, nChains, xLabel) {
  return new Chart(target, {
    scales: { x: { time: false } },
    series: chainSeries(nChains, false, xLabel),
    axes: axes(xLabel, 'density'),
  }, [[], ...Array.from({ length: nChains }, () => [])]);
}

/** Scatter data of parameters a (x) and b (y), post-warmup, thinned, sorted by x. */
export function pairData(chains, a, b, warmup) {
  const pts = [];
  chains.forEach((ch, c) => {
    const m = Math.max(0, ch.n - warmup);
    const stride = Math.max(1, Math.ceil(m / MAX_POINTS));
    for (let i = warmup; i < ch.n; i += stride) {
      pts.push([ch.positions[i * ch.dim + a], ch.positions[i * ch.dim + b], c]);
    }
  });
  pts.sort((p, q) => p[0] - q[0]);
  const data = [pts.map((p) => p[0])];
  for (let c = 0; c < chains.length; c++) data.push(pts.map((p) => (p[2] === c ? p[1] : null)));
  return data;
}

export function pairChart(target, nChains, xLabel, yLabel) {
  return new Chart(target, {
    height: 260,
    scales: { x: { time: false } },
    series: chainSeries(nChains, true, xLabel),
    axes: axes(xLabel, yLabel),
  }, [[], ...Array.from({ length: nChains }, () => [])]);
}
