// Small DOM helpers. Data (column names, cells, messages) is only ever set
// with textContent or attributes, never parsed as HTML.

/** The element with data-testid id (or null). */
export const $ = (id, root = document) => root.querySelector(`[data-testid="${CSS.escape(id)}"]`);

/**
 * Creates an element: el('td', {class: 'num', testid: 'x'}, 'text', child...).
 * Props: class, testid, text, and any attribute; on* functions become listeners.
 */
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'testid') e.dataset.testid = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/**
 * A column name as text nodes with a line-break opportunity (<wbr>) after
 * each underscore, so a narrow cell breaks "blood_pressure" at "blood_",
 * not inside a word; its textContent is the name unchanged.
 */
export function breakable(name) {
  // Split by hand: a lookbehind regex is a syntax error in older Safari.
  const parts = String(name).split('_').map((p, i, all) => (i < all.length - 1 ? `${p}_` : p));
  return parts.flatMap((p, i) => (i < parts.length - 1 ? [document.createTextNode(p), document.createElement('wbr')] : [document.createTextNode(p)]));
}

/** Replaces the children of parent. */
export function fill(parent, ...children) {
  parent.replaceChildren(...children.filter((c) => c !== undefined && c !== null && c !== false));
}

/** Formats a number for tables: 3 significant digits, or '—' when missing. */
export function fmt(v, digits = 3) {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e5)) return v.toExponential(digits - 1);
  let s = v.toPrecision(digits);
  if (s.includes('.') && !s.includes('e')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s.replace('-', '−');
}

/**
 * Formats an ε rounded up (never understated), as the engine's
 * report.SpentDigits and report.Up do: 3 significant digits, or up to 6
 * when fewer would read above the budget it is within (2.34566974 of a
 * typed 2.34567 reads 2.34567, not 2.346).
 */
export function fmtEpsilonUp(v, budget = Infinity) {
  if (!(v > 0) || !Number.isFinite(v)) return fmt(v);
  const up = (d) => {
    let x = Number(v.toPrecision(d));
    if (x < v) x += 10 ** (Math.floor(Math.log10(v)) - d + 1);
    return Number(x.toPrecision(d));
  };
  let d = 3;
  while (d < 6 && v <= budget && up(d) > budget) d++;
  return fmt(up(d), d);
}

/**
 * Adds privacy losses for the tab's tally: the float sum's rounding noise
 * (1.1 + 2.2 = 3.3000000000000003, 1e-5 + 2e-5 = 3.0000000000000004e-5) is
 * removed at 15 significant digits, below any accountant's precision, so a
 * total reads 3.3, not 3.31 rounded up.
 */
export const addLoss = (a, b) => Number((a + b).toPrecision(15));

/** Formats δ as the engine's statement does (Go's shortest form: 1e-05). */
export function fmtDelta(v) {
  if (!(v > 0) || !Number.isFinite(v)) return fmt(v);
  // Go's 'g' with the shortest digits: an exponent below 1e-4, of at least
  // two digits.
  return (v < 1e-4 ? v.toExponential() : String(v)).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Formats an integer with thin separators. */
export const fmtInt = (v) => (v === null || v === undefined ? '—' : Math.round(v).toLocaleString('en-US'));

/** Saves text as a file with Blob + <a download> (allowed by the page's policy). */
export function download(name, text, type = 'text/csv') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
