// The page's flow: load a CSV, choose the model, the public bounds, the
// budget and the sampler, then run chains in the worker pool with live
// progress. Every number shown or exported is computed by the Go engine;
// this file only moves values between the controls, the engine and the
// workers. Data values reach the DOM through textContent only.
import { $, el, fill, fmt, fmtInt, fmtEpsilonUp, fmtDelta, addLoss, download, breakable } from './ui.js';
import { POOL_SIZE } from './pool.js';
import { traceChart, traceData } from './charts.js';
import { Results } from './results.js';
import { DEMO_CSV, DEMO_NAME, DEMO_COLUMNS, DEMO_MODEL } from './demo-data.js';

const MAX_MB = 200;

// The outcome's public declaration (the model-select control): its type
// chooses the family and is its public bound. Nothing here is read from the
// rows: the column types the engine infers are shown in the preview, labelled
// local, and used for nothing else than the local check below.
const DECLARATIONS = {
  logistic: { what: '0/1', fixed: { lo: '0', hi: '1' }, doc: 'Declared 0/1: its public bound is [0, 1], nothing to type. Every value must be 0 or 1; a value outside [0, 1] is clipped to it, any other stops the run with an error naming its row.' },
  poisson: { what: 'a count 0…K', fixed: { lo: '0' }, doc: 'Declared a count 0…K: type K, the largest count it can take by design (its public bound is [0, K]). Values above K are clipped to K. The recommended sampler (noise-aware) reads a count of K as "K or more", but it caps the rate at K and the other samplers take a clipped count as it is: where rates reach K the intervals are confidently wrong, so K is the largest count possible by design, not a typical one. A value that is not a whole number stops the run with an error naming its row.' },
  linear: { what: 'a number LO…HI', fixed: {}, doc: 'Declared a number LO…HI: type the smallest and largest values it can take by design (its public bound). Values outside are clipped to it, which the model does not describe: with many of them the intervals are confidently wrong, so the bound holds every possible value, not the usual range.' },
};

/** The built-in demo dataset as a File. */
export function demoFile() {
  return new File([DEMO_CSV], DEMO_NAME, { type: 'text/csv' });
}

export class App {
  constructor(api, pool) {
    this.api = api;
    this.pool = pool;
    this.algorithms = JSON.parse(api.algorithms());
    this.bounds = {}; // column -> {lo, hi} as typed
    this.demo = false;
    this.algorithmChosen = false; // the user picked a sampler (the default no longer follows the model)
    // The tab's tally of private runs per dataset (fileKey -> {runs, epsilon,
    // delta}): reloading the same rows, or re-reading them with another
    // option, keeps what was spent on them.
    this.sessions = new Map();
    this.runSeq = 0;
    this.run = null;
    this.results = new Results(api);
    pool.listen((msg) => this.onChainMessage(msg));
    this.wire();
  }

  // ---- controls ---------------------------------------------------------

  wire() {
    const input = $('csv-input');
    input.disabled = false;
    input.addEventListener('change', () => {
      if (input.files[0]) this.loadFile(input.files[0], false);
    });
    // Choosing the same file again (fixed on disk, or after the demo) must
    // read it again: the browser fires no change for an unchanged value.
    input.addEventListener('click', () => {
      input.value = '';
    });
    const drop = $('dropzone');
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      const f = e.dataTransfer?.files?.[0];
      if (f) this.loadFile(f, false);
    });
    $('demo-button').disabled = false;
    $('demo-button').addEventListener('click', () => this.loadDemo());
    // The file is read again with the other number format.
    $('decimal-comma-input').addEventListener('change', () => {
      if (this.file && !this.demo) this.loadFile(this.file, false);
    });
    $('outcome-select').addEventListener('change', () => {
      // A declaration belongs to its column: a new outcome is declared anew.
      $('model-select').value = '';
      this.renderPredictors(null);
      this.update();
    });
    $('impute-toggle').addEventListener('change', () => this.update());
    for (const side of ['lo', 'hi']) {
      const i = $(`outcome-${side}-input`);
      i.addEventListener('input', () => {
        (this.bounds[$('outcome-select').value] ??= { lo: '', hi: '' })[side] = i.value;
        this.update();
      });
    }
    $('export-config').addEventListener('click', () => this.exportConfig());
    $('export-planned-report').addEventListener('click', () => this.exportPlannedReport());
    for (const b of document.querySelectorAll('.presets button')) {
      b.addEventListener('click', () => {
        $('epsilon-input').value = b.dataset.eps;
        this.update();
      });
    }
    // A count's fixed lower bound 0 carries over to a number LO…HI (a
    // review switched Poisson to linear and found LO empty). Registered
    // before update() runs: dataset.shown is the declaration last rendered.
    $('model-select').addEventListener('input', () => {
      const b = this.bounds[$('outcome-select').value];
      if ($('model-select').dataset.shown === 'poisson' && $('model-select').value === 'linear' && b?.lo === '') b.lo = DECLARATIONS.poisson.fixed.lo;
    });
    for (const id of ['model-select', 'noise-sd-input', 'prior-input', 'epsilon-input', 'delta-input', 'chains-input', 'warmup-input', 'draws-input', 'seed-input', 'temper-input', 'scale-select', 'init-select', 'init-share-input']) {
      $(id).addEventListener('input', () => this.update());
    }
    for (const e of document.querySelectorAll('[data-setting]')) e.addEventListener('input', () => this.update());
    $('algorithm-select').addEventListener('change', () => {
      // The user's choice: the default no longer follows the model.
      this.algorithmChosen = true;
      this.update();
    });
    $('chains-input').max = String(POOL_SIZE);
    $('seed-input').value = String(1 + (crypto.getRandomValues(new Uint32Array(1))[0] % 2147483647));
    $('run-button').addEventListener('click', () => this.startRun());
    $('cancel-button').addEventListener('click', () => this.cancelRun());
    $('live-param').addEventListener('change', () => this.redrawLive());
  }

  showError(message) {
    const e = $('error');
    e.textContent = message;
    e.hidden = !message;
    e.dataset.kind = '';
  }

  // ---- 1. load ----------------------------------------------------------

  /**
   * Loads the built-in demo. inspected, when given, is the promise of worker
   * 0's inspect result for a demoFile() posted earlier (start-up posts it
   * before the engines are ready, so the parse follows worker 0's start at
   * once).
   */
  loadDemo(file = demoFile(), inspected = null) {
    return this.loadFile(file, true, inspected);
  }

  /**
   * Empties step 6 of a finished run: a new file's step 6 must not show
   * the last file's chains, budget spent and live trace (a review read
   * "ε spent 3 of 3" and a trace of a column the new file lacks as if
   * they were the new file's).
   */
  clearRunPanel() {
    fill($('progress'));
    delete $('progress').dataset.state;
    $('budget-meter-box').hidden = true;
    $('budget-text').textContent = '';
    $('chain-error').hidden = true;
    $('chain-error').textContent = '';
    this.live?.destroy();
    this.live = null;
    fill($('live-trace'));
    $('live-bar').hidden = true;
    $('local-diagnostics').hidden = true;
    this.results.clear();
  }

  async loadFile(file, demo, inspected = null) {
    if (this.run?.active) {
      // The results of the run would appear under the new file's name.
      this.showError(`A run is in progress: cancel it (step 6) or let it finish before loading ${demo ? 'the demo' : file.name}.`);
      return;
    }
    this.showError('');
    // The file control names the file in use, or nothing (the demo, a
    // dropped file).
    if (demo || $('csv-input').files?.[0] !== file) $('csv-input').value = '';
    if (file.size > MAX_MB * 1024 * 1024) {
      this.showError(`${file.name} is ${(file.size / 1e6).toFixed(0)} MB; this page accepts files up to ${MAX_MB} MB. Use the dpmcmc command-line tool for larger data.`);
      return;
    }
    $('file-info').textContent = `Reading ${file.name}…`;
    // Progress of the parse in worker 0 (a large file takes seconds).
    const bar = $('load-progress');
    bar.value = 0;
    bar.hidden = demo;
    const mb = (b) => (b / 1e6).toFixed(b < 1e7 ? 1 : 0);
    // The demo is written with decimal points; a user's file as the box says.
    const decimalComma = !demo && $('decimal-comma-input').checked;
    const keyed = fileKey(file).catch(() => `size:${file.size}`);
    // The rows' key comes with the parse, so the file, its rows and their
    // tally change together (a run started in between cannot mix them).
    const [info, key] = await Promise.all([inspected ?? this.pool.inspect(file, decimalComma ? { decimalComma } : {}, (loaded, total) => {
      bar.value = total ? loaded / total : 1;
      $('file-info').textContent = `Reading ${file.name}… ${mb(loaded)} of ${mb(total)} MB (${Math.floor((100 * loaded) / Math.max(total, 1))}%)`;
    }), keyed]);
    bar.hidden = true;
    // For the benchmark (e2e/bench.mjs): the parsing engine's memory afterwards.
    performance.mark('dpmcmc:inspected', { detail: { bytes: file.size, memoryBytes: info.memoryBytes } });
    this.file = file;
    this.info = info;
    this.demo = demo;
    this.decimalComma = decimalComma;
    // What the private runs of this tab have spent on these rows
    // (sessionText), kept across reloads of the same bytes.
    if (!this.sessions.has(key)) this.sessions.set(key, { runs: 0, epsilon: 0, delta: 0 });
    this.session = this.sessions.get(key);
    this.bounds = {};
    // Values declared for the predictors' missing cells (step 3), and the
    // box, belong to the file, as its bounds and codings do.
    this.impute = {};
    $('impute-toggle').checked = false;
    // Typed codings of text columns, as typed (step 3).
    this.coding = {};
    if (demo) for (const c of DEMO_COLUMNS) this.bounds[c.name] = { lo: String(c.lo), hi: String(c.hi) };
    fill($('predictors'));
    fill($('bounds-table').querySelector('tbody'));
    delete $('bounds-table').querySelector('tbody').dataset.key;
    this.renderFile(file, info);
    // Whether the steps show depends on the loader's verdict and the header
    // only, never on the column types inferred from the rows.
    const usable = !info.error && info.columns.length > 0;
    for (const id of ['model', 'bounds', 'budget', 'algo', 'run']) document.getElementById(id).hidden = !usable;
    document.getElementById('results').hidden = true;
    if (!this.run?.active) this.clearRunPanel();
    if (!usable) {
      $('run-button').disabled = true;
      return;
    }
    this.renderModel();
    $('delta-input').value = String(defaultDelta(info.rows));
    this.renderAlgorithms();
    this.update();
  }

  renderFile(file, info) {
    if (info.error) {
      this.showError(`${file.name}: ${info.error.message}`);
      $('error').dataset.line = info.error.line ?? '';
      $('error').dataset.column = info.error.columnName ?? '';
    }
    const cols = info.columns;
    $('file-info').textContent = info.error
      ? `${file.name}: ${cols.length} columns; the file could not be loaded.`
      : `${file.name}${this.demo ? ' (built-in demo: a synthetic cohort)' : ''}: ${fmtInt(info.rows)} rows × ${cols.length} columns, ${delimName(info.delimiter)}-separated.${missingText(info.missing)}${wordText(cols)} The preview below is shown on this screen only.`;
    const table = $('preview');
    if (cols.length === 0) {
      table.hidden = true;
      return;
    }
    const head = el('thead', {},
      el('tr', {}, ...cols.map((c) => el('th', { scope: 'col', text: c.name }))),
      el('tr', { class: 'types' }, ...cols.map((c) => el('td', { text: c.type }))));
    const body = el('tbody', {}, ...info.preview.map((row) => el('tr', {}, ...row.map((v) => el('td', { text: v })))));
    fill(table, el('caption', { text: `First ${info.preview.length} rows, and the column types this tab reads from the rows (local only: never exported, never used to choose a default)` }), head, body);
    table.hidden = false;
  }

  // ---- 2. model ---------------------------------------------------------
  //
  // Outcome, declaration and predictors come from the header (public
  // schema) and what the user declares; the demo's from its documented
  // design (DEMO_MODEL). Nothing here reads the inferred column types.

  renderModel() {
    const cols = this.info.columns;
    const sel = $('outcome-select');
    fill(sel, ...cols.map((c) => el('option', { value: c.name, text: c.name })));
    // Default: the last column by position (a fact of the header); its type
    // is left undeclared until the user declares it.
    sel.value = this.demo ? DEMO_MODEL.outcome : cols.at(-1).name;
    $('model-select').value = this.demo ? DEMO_MODEL.family : '';
    this.renderPredictors(this.demo ? DEMO_MODEL.predictors : null);
  }

  renderPredictors(chosen) {
    const outcome = $('outcome-select').value;
    const box = $('predictors');
    const before = new Set([...box.querySelectorAll('input:checked')].map((i) => i.value));
    const listed = new Set([...box.querySelectorAll('input')].map((i) => i.value));
    const items = this.info.columns.filter((c) => c.name !== outcome).map((c) => {
      // New columns (e.g. the previous outcome) start checked.
      const on = chosen ? chosen.includes(c.name) : before.has(c.name) || !listed.has(c.name);
      const cb = el('input', { type: 'checkbox', value: c.name, testid: `predictor-${c.name}`, checked: on });
      cb.addEventListener('change', () => this.update());
      return el('label', { class: 'check' }, cb, ` ${c.name}`);
    });
    fill(box, ...items);
  }

  predictors() {
    return [...$('predictors').querySelectorAll('input:checked')].map((i) => i.value);
  }

  /** The declared family ('' while undeclared). */
  family() {
    return $('model-select').value;
  }

  /**
   * The public bound of a column as typed, {lo, hi} strings; the outcome's
   * comes from its declaration (0/1 fixes both sides, a count its lower
   * side at 0).
   */
  boundOf(name) {
    let b = (this.bounds[name] ??= { lo: '', hi: '' });
    // A coded column's bound is that of its numbers unless one is typed.
    const coded = parseCoding(this.coding[name] ?? '');
    if (coded?.map && b.lo === '' && b.hi === '') {
      const v = Object.values(coded.map);
      b = { lo: String(Math.min(...v)), hi: String(Math.max(...v)) };
    }
    if (name !== $('outcome-select').value) return b;
    const d = DECLARATIONS[this.family()];
    return d ? { ...b, ...d.fixed } : b;
  }

  /** Shows the declaration's inputs and help, and the local check. */
  renderDeclaration() {
    const outcome = $('outcome-select').value;
    $('model-select').dataset.shown = this.family();
    const d = DECLARATIONS[this.family()];
    const b = this.boundOf(outcome);
    $('outcome-lo-box').hidden = !d || 'lo' in d.fixed;
    $('noise-sd-box').hidden = this.family() !== 'linear';
    $('outcome-hi-box').hidden = !d || 'hi' in d.fixed;
    $('outcome-hi-label').textContent = this.family() === 'poisson'
      ? 'K: the largest count the outcome can take'
      : 'HI: the largest value the outcome can take';
    for (const side of ['lo', 'hi']) {
      const i = $(`outcome-${side}-input`);
      if (document.activeElement !== i && i.value !== b[side]) i.value = b[side];
    }
    $('outcome-doc').textContent = d ? d.doc : `Declare what ${outcome} is: 0/1 (logistic regression), a count 0…K (Poisson) or a number LO…HI (linear). The declaration is public: it goes into the run configuration and the privacy report.`;
    // A local check of the declaration against the types the engine read
    // from the rows: on screen only, labelled so, never in a config.
    const col = this.info.columns.find((c) => c.name === outcome);
    const fits = { logistic: ['binary'], poisson: ['binary', 'count'], linear: ['binary', 'count', 'number'] };
    const local = $('outcome-local-check');
    let msg = '';
    const coded = Boolean(parseCoding(this.coding?.[outcome] ?? '')?.map);
    if (d && col && !coded && !fits[this.family()].includes(col.type)) {
      msg = col.type === 'text'
        ? `Local check (not private, stays on this device): the first value of ${outcome} is not a number, so the run will stop with an error unless you type its text coding in step 3 (e.g. no=0, yes=1).`
        : `Local check (not private, stays on this device): not every value of ${outcome} is ${d.what === '0/1' ? '0 or 1' : 'a whole number ≥ 0'} (this tab reads the column as "${col.type}"). The declaration is what the run uses.`;
    }
    local.textContent = msg;
    local.hidden = !msg;
  }

  // ---- 3. bounds --------------------------------------------------------

  renderBounds(used) {
    const body = $('bounds-table').querySelector('tbody');
    const imputing = $('impute-toggle').checked;
    const key = JSON.stringify([used, this.family(), imputing]);
    if (body.dataset.key === key) return;
    body.dataset.key = key;
    const outcome = used[0];
    $('bounds-table').querySelector('th.impute-col').hidden = !imputing;
    const rows = used.map((name) => {
      const fixed = name === outcome ? DECLARATIONS[this.family()]?.fixed ?? {} : {};
      const mk = (side) => {
        const i = el('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', testid: `bound-${side}-${name}`, 'aria-label': `${side === 'lo' ? 'lower' : 'upper'} bound of ${name}`, value: this.boundOf(name)[side], disabled: side in fixed });
        i.addEventListener('input', () => {
          this.bounds[name][side] = i.value;
          this.update();
        });
        return i;
      };
      const demoCol = this.demo ? DEMO_COLUMNS.find((c) => c.name === name) : null;
      let help = demoCol ? demoCol.units : 'the smallest and largest values it can take, in its own units';
      if (name === outcome) {
        const d = DECLARATIONS[this.family()];
        help = d ? `outcome, declared ${d.what}${'hi' in fixed ? ': nothing to type' : this.family() === 'poisson' ? ': type K' : ''}${demoCol ? ` (${demoCol.units})` : ''}` : 'outcome: declare its type in step 2';
      }
      // The value for a predictor's missing cells: asked for every used
      // predictor when the option is on, whether or not its cells are
      // missing, so that the configuration does not tell which are.
      let impute = null;
      if (imputing) {
        impute = el('td', { class: 'impute' });
        if (name !== outcome) {
          const i = el('input', { type: 'text', inputmode: 'decimal', autocomplete: 'off', spellcheck: 'false', testid: `impute-${name}`, placeholder: 'value if missing', 'aria-label': `value for the missing cells of ${name}`, value: this.impute[name] ?? '' });
          i.addEventListener('input', () => {
            this.impute[name] = i.value;
            this.update();
          });
          impute.append(el('span', { class: 'phone-label', text: 'if missing' }), i);
        }
      }
      // The coding of a column written as text: offered for every column
      // (the column types read from the rows choose nothing).
      const coding = el('input', { type: 'text', testid: `coding-${name}`, placeholder: 'if text: F=0, M=1', 'aria-label': `coding of the text values of ${name}`, value: this.coding[name] ?? '', spellcheck: 'false', autocomplete: 'off' });
      coding.addEventListener('input', () => {
        this.coding[name] = coding.value;
        this.update();
      });
      const tr = el('tr', {}, el('th', { scope: 'row' }, ...breakable(name)), el('td', {}, mk('lo')), el('td', {}, mk('hi')), impute, el('td', { class: 'coding' }, el('span', { class: 'phone-label', text: 'text coding' }), coding), el('td', { class: 'help', text: help }));
      tr.dataset.column = name;
      return tr;
    });
    fill(body, ...rows);
    const note = $('bounds-note');
    note.hidden = !this.demo;
    note.textContent = this.demo ? 'The demo\'s bounds are filled in because they come from the demo\'s documented design (the clinical ranges it was generated within), not from its rows.' : '';
  }

  /** Puts the bounds' values in their inputs (the outcome's appear twice). */
  syncBounds() {
    for (const i of $('bounds-table').querySelectorAll('input[data-testid^="bound-"]')) {
      const [, side, ...rest] = i.dataset.testid.split('-');
      const v = this.boundOf(rest.join('-'))[side];
      if (document.activeElement !== i && i.value !== v) i.value = v;
    }
  }

  /**
   * True when the engine read column name as text and none of its cells
   * in the on-screen preview is a number: a categorical column (sex F/M),
   * not a number column with a stray word. Local: never exported.
   */
  textValued(name) {
    const j = this.info.columns.findIndex((c) => c.name === name);
    if (j < 0 || this.info.columns[j].type !== 'text') return false;
    const missingToken = /^(|\.|na|nan|n\/a|null)$/i;
    // A cell that starts like a number ("70 kg", "12 345", "1.234,5") is
    // a number written in a way the loader does not read: the engine's
    // error quotes it, which helps more than asking for a coding.
    const numberLike = /^[+-]?[.,]?\d/;
    return this.info.preview.every((row) => {
      const v = (row[j] ?? '').trim();
      return missingToken.test(v) || (!Number.isFinite(Number(v)) && !numberLike.test(v));
    });
  }

  /**
   * True when a bound is partly typed or invalid. The sides a declaration
   * fixes do not count as typed: a count outcome without K has no bound
   * (enough for a non-private run), not half of one.
   */
  partialBound(name) {
    const fixed = name === $('outcome-select').value ? DECLARATIONS[this.family()]?.fixed ?? {} : {};
    const b = this.bounds[name] ?? {};
    const typed = ['lo', 'hi'].filter((side) => !(side in fixed) && (b[side] ?? '') !== '');
    if (typed.length === 0 && Object.keys(fixed).length < 2) return false;
    return boundPair(this.boundOf(name)) === null;
  }

  // ---- 5. algorithm -----------------------------------------------------

  renderAlgorithms() {
    const sel = $('algorithm-select');
    const prev = sel.value;
    // Only the samplers of the page's model families (exact runs the
    // gaussian and banana models, which the page does not offer).
    const runsHere = (a) => !a.models || a.models.some((m) => Object.hasOwn(DECLARATIONS, m));
    const group = (label, priv) => el('optgroup', { label },
      ...this.algorithms.filter((a) => a.private === priv && runsHere(a)).map((a) => el('option', { value: a.name, text: priv ? a.name : `${a.name} — NOT PRIVATE` })));
    const hasPrivate = this.algorithms.some((a) => a.private);
    fill(sel, hasPrivate ? group('Differentially private', true) : null, group('Not private', false));
    // A sampler the user picked stays picked across files; the default is
    // recomputed for the new file.
    this.recommended = null;
    sel.value = this.algorithmChosen && this.algorithms.some((a) => a.name === prev) ? prev : '';
    this.recommendAlgorithm();
  }

  /**
   * The default sampler: the engine's choice for the declared model, n and
   * the number of parameters (the command-line tool's --algorithm auto:
   * noise-aware for a private regression). It follows the declaration until
   * the user picks a sampler.
   */
  recommendAlgorithm() {
    const hasPrivate = this.algorithms.some((a) => a.private);
    const d = this.predictors().length + 1;
    const rec = this.api.recommend(this.info.rows, d, hasPrivate, this.family());
    if (rec === this.recommended) return;
    this.recommended = rec;
    // The list says which one it is, not only the default selection (a
    // review: 14 private samplers in alphabetical order, none marked).
    for (const o of $('algorithm-select').options) {
      const base = o.textContent.replace(/ \(recommended\)$/, '');
      o.textContent = o.value === rec ? `${base} (recommended)` : base;
    }
    if (!this.algorithmChosen) $('algorithm-select').value = rec;
  }

  /**
   * Disables the warmup input for a sampler that runs none (the engine's
   * warmup_note: noise-aware's draws are iid, each ops draw is its own
   * release) and says why; its value is kept for the other samplers.
   */
  renderWarmup(algo) {
    const note = algo?.warmup_note ?? '';
    const input = $('warmup-input');
    if (note && !input.disabled) {
      input.dataset.kept = input.value;
      input.value = '0';
    } else if (!note && input.disabled) {
      input.value = input.dataset.kept ?? input.value;
    }
    input.disabled = Boolean(note);
    input.title = note ? `${algo.name}: ${note}` : '';
    $('warmup-note').hidden = !note;
    $('warmup-note').textContent = note ? `Warmup per chain: none for ${algo.name} (${note}).` : '';
  }

  selectedAlgorithm() {
    return this.algorithms.find((a) => a.name === $('algorithm-select').value);
  }

  /**
   * The declared values for the predictors' missing cells, {col: number},
   * or null when the option is off. Every used predictor's value is
   * included once typed, missing cells or not (the config must not tell
   * which columns have them).
   */
  imputeValues(preds) {
    if (!$('impute-toggle').checked) return null;
    const out = {};
    for (const c of preds) {
      const v = this.impute[c] ?? '';
      if (v !== '' && Number.isFinite(decimal(v))) out[c] = decimal(v);
    }
    return Object.keys(out).length ? out : null;
  }

  /**
   * Why the file's missing cells stop a run (local: the counts stay on
   * this screen), or ''. A missing outcome cannot be replaced; a missing
   * predictor needs the option and a value for every predictor.
   */
  missingBlocker(outcome, preds) {
    const miss = this.info.missing ?? {};
    const note = $('missing-note');
    const withMissing = preds.filter((c) => miss[c] > 0);
    note.hidden = withMissing.length === 0 || $('impute-toggle').checked;
    const line = (c) => (this.info.missing_line?.[c] ? `, ${miss[c] === 1 ? '' : 'the first '}on line ${fmtInt(this.info.missing_line[c])}` : '');
    note.textContent = note.hidden ? '' : `Missing cells in ${withMissing.map((c) => `${c} (${fmtInt(miss[c])}${line(c)})`).join(', ')} (counted on this device, never exported): tick "Replace missing values" above and type a value for each predictor, or untick those predictors.`;
    if (miss[outcome] > 0) return `The outcome ${outcome} has ${fmtInt(miss[outcome])} missing ${miss[outcome] === 1 ? 'cell' : 'cells'} (counted on this device, never exported${line(outcome)}): remove those rows before loading the file. A made-up outcome would be fitted as if it had been observed.`;
    // Ticked, the box needs a value for every predictor, whatever the file
    // holds: what a run and its exports need must not depend on which
    // cells are missing.
    if ($('impute-toggle').checked) {
      const untyped = preds.filter((c) => !((this.impute[c] ?? '') !== '' && Number.isFinite(decimal(this.impute[c]))));
      if (untyped.length) return `Type the value for missing cells of every predictor (step 3; not typed yet: ${untyped.join(', ')}): a typical value from public knowledge, within its bound. Every predictor gets one, so that the configuration does not tell which columns have missing cells.`;
      return '';
    }
    if (withMissing.length === 0) return '';
    return `${withMissing.join(', ')} ${withMissing.length === 1 ? 'has' : 'have'} missing cells (step 3): tick "Replace missing values" and type a public value for each predictor, or untick ${withMissing.length === 1 ? 'it' : 'them'} in step 2.`;
  }

  // ---- config and plan --------------------------------------------------

  /** The run config (public settings only), as core/run.Config JSON. */
  config() {
    const algo = this.selectedAlgorithm();
    const outcome = $('outcome-select').value;
    const preds = this.predictors();
    const bounds = {};
    for (const c of [outcome, ...preds]) {
      const b = boundPair(this.boundOf(c));
      if (b) bounds[c] = b;
    }
    const settings = {};
    for (const e of document.querySelectorAll('[data-setting]')) {
      const k = e.dataset.setting;
      if (e.type === 'checkbox') {
        if (e.checked) settings[k] = true;
      } else if (e.tagName === 'SELECT') {
        if (e.value) settings[k] = e.value;
      } else {
        const v = decimal(e.value);
        const ints = ['leapfrog', 'inner_iterations', 'batch', 'batch_cap'];
        if (e.value !== '' && Number.isFinite(v) && v !== 0) settings[k] = ints.includes(k) ? Math.round(v) : v;
      }
    }
    const cfg = {
      model: { model: $('model-select').value, outcome, predictors: preds },
      data: this.decimalComma ? { decimal_comma: true } : {},
      algorithm: algo?.name ?? '',
      chains: intOf('chains-input'),
      // None for a sampler without warmup (renderWarmup): the plan then
      // says "no warmup".
      warmup: algo?.warmup_note ? 0 : intOf('warmup-input'),
      draws: intOf('draws-input'),
      seed: intOf('seed-input'),
    };
    const prior = decimal($('prior-input').value);
    // Empty: the engine's default (20 on the scaled predictors of a private
    // run, 10 in the user's units otherwise).
    if ($('prior-input').value !== '' && Number.isFinite(prior) && prior > 0) cfg.model.prior_sd = prior;
    // The linear model's known noise sd (public, typed): no default.
    const noiseSD = decimal($('noise-sd-input').value);
    if (this.family() === 'linear' && $('noise-sd-input').value !== '' && Number.isFinite(noiseSD) && noiseSD > 0) cfg.model.options = { 'noise-sd': String(noiseSD) };
    const temper = decimal($('temper-input').value);
    if (Number.isFinite(temper) && temper > 0 && temper !== 1) cfg.model.temper = temper;
    const init = $('init-select').value;
    if (init) {
      cfg.init = { kind: init };
      const share = decimal($('init-share-input').value);
      if (init === 'dp-map' && Number.isFinite(share) && share > 0) cfg.init.share = share;
    }
    if (Object.keys(bounds).length) cfg.data.bounds = bounds;
    const impute = this.imputeValues(preds);
    if (impute) cfg.data.impute = impute;
    const categories = {};
    for (const c of [outcome, ...preds]) {
      const m = parseCoding(this.coding[c] ?? '')?.map;
      if (m) categories[c] = m;
    }
    if (Object.keys(categories).length) cfg.data.categories = categories;
    // A non-private regression run may sample on the predictors scaled by
    // their public bounds with the prior kept in the user's units (scale
    // auto: the same posterior, far better conditioned for raw
    // measurements); a private run always samples there.
    if (algo && !algo.private && this.family() && $('scale-select').value === 'auto') cfg.model.scale = 'auto';
    if (Object.keys(settings).length) cfg.settings = settings;
    if (algo?.private) cfg.privacy = { epsilon: decimal($('epsilon-input').value), delta: decimal($('delta-input').value) };
    return cfg;
  }

  /** Re-renders what depends on the controls and says why a run cannot start. */
  update() {
    if (!this.info || this.info.error) return;
    const outcome = $('outcome-select').value;
    const preds = this.predictors();
    const used = [outcome, ...preds];
    this.renderDeclaration();
    this.renderBounds(used);
    this.syncBounds();
    this.recommendAlgorithm();
    const algo = this.selectedAlgorithm();
    // Before the outcome's type is declared there is no model to choose
    // for: the default is provisional, and says so.
    let why = '';
    if (algo?.name === this.recommended) {
      why = this.family()
        ? ' Recommended for these data (chosen from the declared model, n and the number of parameters, as dpmcmc sample --algorithm auto chooses).'
        : ' The default until the outcome\'s type is declared in step 2: the recommended sampler depends on the model (noise-aware for a private regression).';
    }
    $('algorithm-doc').textContent = algo ? `${algo.name}: ${algo.doc}.${why}` : '';
    $('not-private-warning').hidden = !algo || algo.private;
    this.renderWarmup(algo);
    document.getElementById('budget').classList.toggle('inactive', !algo?.private);
    const cfg = this.config();
    const eps = cfg.privacy?.epsilon;
    const delta = cfg.privacy?.delta;
    // Everything that stops a run, in the order of the steps: the first
    // is shown beside the Run button, the others under it, so that a
    // user fixes them in one pass instead of discovering them one by one.
    const blockers = [];
    // A decimal comma: a number field would have dropped it silently (ε
    // "0,5" read as 5); these fields are text and say so instead.
    const comma = [...document.querySelectorAll('input[inputmode="decimal"]')].filter((e) => !e.disabled && !e.closest('[hidden]') && e.value.includes(','));
    if (comma.length) {
      blockers.push(`Use a point for decimals: ${comma.map((e) => `${fieldName(e)} "${e.value}"`).join(', ')} ${comma.length === 1 ? 'has' : 'have'} a comma (write 0.5, not 0,5; no thousands separators).`);
    }
    // Any other text that is not a number ("0.05x", "200 mg/dL", "1/100000"):
    // named here, not read as the default or described as a missing value.
    const notNumber = [...document.querySelectorAll('input[inputmode="decimal"]')].filter((e) => !e.disabled && !e.closest('[hidden]') && e.value.trim() !== '' && !e.value.includes(',') && Number.isNaN(decimal(e.value)));
    if (notNumber.length) {
      blockers.push(`Not a number: ${notNumber.map((e) => `${fieldName(e)} "${e.value}"`).join(', ')} (write digits with a point, e.g. 0.05, 200 or 1e-5; units go in your notes, not in the field).`);
    }
    const textIn = (testid) => notNumber.some((e) => e.dataset.testid === testid);
    const family = this.family();
    const missingBlock = this.missingBlocker(outcome, preds);
    if (!family) blockers.push(`Declare what the outcome "${outcome}" is (step 2): 0/1, a count 0…K or a number LO…HI.`);
    if (preds.length === 0) blockers.push('Choose at least one predictor.');
    if (family === 'linear' && !cfg.model.options?.['noise-sd']) blockers.push(`Type the noise sd of ${outcome} (step 2), a positive number in its units: the linear model treats it as known, and every interval's width depends on it. Take it from what is publicly known, not from these data: the residual sd of ${outcome} around its prediction in published models of it (usually larger than the instrument's measurement error alone).`);
    // A number column with a word past its first cells ("forty" on line 8):
    // the file loaded without it (wasm inspect's column error); a run
    // that uses it would stop at that line. The loader's own message is
    // the page's error while a used column has one, as for a file that
    // does not load, and goes once no used column has.
    const wordErrors = used.map((c) => [c, this.info.columns.find((x) => x.name === c)?.error]).filter(([, e]) => e);
    for (const [c, e] of wordErrors) {
      const cell = /\): (.*? is not a number)/.exec(e.message)?.[1] ?? e.message;
      blockers.push(`${c} holds a cell that is not a number (local check, on this screen only: line ${e.line}, ${cell}): correct it in the file and load the file again, or ${c === outcome ? 'choose another outcome' : `untick ${c} among the predictors`}.`);
    }
    const wordError = wordErrors.length ? `${this.file?.name ?? 'the file'}: ${wordErrors[0][1].message}` : '';
    if (wordError && ($('error').hidden || $('error').textContent !== wordError)) {
      this.showError(wordError); // set once: the alert is not read again on every keystroke
      $('error').dataset.kind = 'column';
      $('error').dataset.line = wordErrors[0][1].line ?? '';
      $('error').dataset.column = wordErrors[0][0];
    } else if (!wordError && $('error').dataset.kind === 'column') {
      this.showError('');
    }
    const badCoding = used.filter((x) => parseCoding(this.coding[x] ?? '')?.error);
    for (const c of badCoding) {
      blockers.push(`The text coding of ${c} (step 3): ${parseCoding(this.coding[c]).error}.`);
    }
    // A column of text values (a local check on the rows previewed) runs
    // only once its coding is typed. A number column with a stray word in
    // its first row is left to the engine, whose error names the row (one
    // further down is the column error above).
    const uncoded = used.filter((c) => this.textValued(c) && !parseCoding(this.coding[c] ?? ''));
    if (uncoded.length) {
      const them = uncoded.length === 1 ? `${uncoded[0]} holds` : `${uncoded.slice(0, -1).join(', ')} and ${uncoded.at(-1)} hold`;
      blockers.push(`${them} text (local check: the values read on this device are not numbers): type the text coding in step 3, e.g. ${uncoded.includes(outcome) ? 'no=0, yes=1' : 'F=0, M=1'}; the coding also gives the bound.`);
    }
    // A text column's bound comes with its coding: no half-typed bound
    // blocker for it.
    const partial = used.filter((c) => this.partialBound(c) && !uncoded.includes(c) && !textIn(`bound-lo-${c}`) && !textIn(`bound-hi-${c}`));
    // Bounds still to type, leaving out those another blocker already
    // covers (an undeclared outcome's comes with its declaration, a text
    // column's with its coding).
    const missing = used.filter((c) => boundPair(this.boundOf(c)) === null && !partial.includes(c) && !textIn(`bound-lo-${c}`) && !textIn(`bound-hi-${c}`) && (family || c !== outcome) && !uncoded.includes(c) && !badCoding.includes(c));
    if (missingBlock) blockers.push(missingBlock);
    if ($('prior-input').value !== '' && !textIn('prior-input') && !(decimal($('prior-input').value) > 0 && Number.isFinite(decimal($('prior-input').value)))) blockers.push('The prior scale must be a positive number (or empty for the default).');
    if (!(cfg.chains >= 1 && cfg.chains <= POOL_SIZE)) blockers.push(`Chains must be between 1 and ${POOL_SIZE}.`);
    if (!(cfg.warmup >= 0) || !(cfg.draws >= 1)) blockers.push('Warmup must be ≥ 0 and draws ≥ 1.');
    if (!(cfg.seed >= 1)) blockers.push('The public seed must be a whole number ≥ 1.');
    if (partial.length) {
      const reversed = partial.filter((c) => { const b = this.boundOf(c); return b.lo !== '' && b.hi !== '' && Number.isFinite(decimal(b.lo)) && Number.isFinite(decimal(b.hi)); });
      blockers.push(reversed.length
        ? `The lower bound must be below the upper one (${reversed.join(', ')}).`
        : `Each bound needs both a lower and an upper value, lower below upper (${partial.join(', ')}).`);
    }
    if (algo?.private && missing.length) blockers.push(`Fill in every public bound to run a private sampler (missing: ${missing.join(', ')}).`);
    if (algo?.private && !(eps > 0 && Number.isFinite(eps)) && !textIn('epsilon-input')) blockers.push('ε must be a positive number.');
    if (algo?.private && !(delta > 0 && delta < 1 / this.info.rows) && !textIn('delta-input')) blockers.push(`δ must be positive and below 1/n = ${fmt(1 / this.info.rows)}.`);
    const blocker = blockers[0] ?? '';
    this.moreBlockers = blockers.slice(1);
    this.blocker = blocker;
    // Results on screen from settings that have changed since are marked.
    const shown = this.results.run;
    const stale = Boolean(shown && !shown.active && (shown.cfgJSON !== JSON.stringify(cfg) || shown.file !== this.file));
    $('results-stale').hidden = !stale;
    $('results-stale').textContent = stale ? 'These results are from the last run: the file or the settings above have changed since.' : '';
    const sessionNote = blocker || !algo?.private ? '' : this.sessionText(cfg);
    $('session-budget').hidden = !sessionNote;
    $('session-budget').textContent = sessionNote;
    if (blocker) {
      this.planned = null;
      $('plan').textContent = '';
      $('plan-announce').textContent = '';
      showForecast(null);
      showClipped(null);
      this.showRunState();
      return;
    }
    const cfgJSON = JSON.stringify(cfg);
    if (this.planned?.cfgJSON === cfgJSON) {
      if (!this.planned.pending) this.announcePlan(); // the session note may have changed
      this.showRunState();
      return;
    }
    // Plan in worker 0 exactly as the chains will prepare the run.
    this.planned = { cfgJSON, pending: true };
    $('plan').textContent = 'Planning…';
    showForecast(null);
    showClipped(null);
    this.showRunState();
    clearTimeout(this.planTimer);
    this.planTimer = setTimeout(async () => {
      const res = await this.pool.plan(cfgJSON);
      if (this.planned?.cfgJSON !== cfgJSON) return; // stale
      this.planned = { cfgJSON, error: res.error?.message, plan: res.plan, resolvedJSON: res.config ? JSON.stringify(res.config) : null };
      $('plan').textContent = res.error ? '' : planText(res.plan, Boolean(this.algorithms.find((a) => a.name === res.plan?.algorithm)?.shared_release), Number(cfg.privacy?.epsilon ?? Infinity));
      showForecast(res.error ? null : res.plan?.forecast);
      showClipped(res.error ? null : res.clipped, cfg);
      this.announcePlan();
      this.showRunState();
    }, 150);
  }

  /**
   * Announces the current plan (plan-announce, always rendered). The clip
   * and session notes appear by unhiding, which screen readers do not
   * reliably announce from a region that was not rendered: their first
   * sentence joins the announcement. Unchanged text is not set again (it
   * would be read again).
   */
  announcePlan() {
    const p = this.planned;
    const text = !p || p.pending || p.error ? '' : [planAnnouncement(p.plan),
      ...['clip-note', 'session-budget'].filter((id) => !$(id).hidden).map((id) => firstSentence($(id).textContent))].join(' ');
    if ($('plan-announce').textContent !== text) $('plan-announce').textContent = text;
  }

  /** Enables the run button when the current config has a plan and no run is active. */
  showRunState() {
    const p = this.planned;
    let why = this.blocker;
    if (!why && p?.error) why = `Cannot run: ${pageTerms(p.error)}`;
    const active = Boolean(this.run?.active);
    $('run-blocker').textContent = active ? '' : why;
    const more = active || !this.blocker ? [] : this.moreBlockers ?? [];
    $('run-blockers-more').hidden = more.length === 0;
    $('run-blockers-more').replaceChildren(...more.map((t) => Object.assign(document.createElement('li'), { textContent: t })));
    // A private run whose forecast says its chains cannot converge would
    // spend the budget on draws that are not a posterior sample: the
    // warning is repeated beside the Run button, where it is read last.
    const fc = !why && p && !p.pending && !p.error && p.plan?.private ? p.plan.forecast : null;
    const wontMix = fc?.will_mix === false;
    // The budget allows convergence only for predictors spread over their
    // whole public ranges: for typical data the chains will probably not.
    const probablyNot = fc?.will_mix === true && fc.will_mix_typical === false;
    // noise-aware mixes at any ε, but its preview can say the release will
    // tell nothing a clinician can act on.
    const weak = fc?.will_mix === true && fc.weak_release === true;
    $('run-forecast-warning').hidden = !(wontMix || probablyNot || weak) || active;
    const better = this.recommended && this.recommended !== p?.plan?.algorithm ? `The recommended sampler, ${this.recommended}, does not have this limit (step 5); ` : '';
    // The remedy: after the recommended sampler's clause, or as a sentence.
    const remedy = (text) => (better ? better + text : text[0].toUpperCase() + text.slice(1));
    const spend = fc ? fmtEpsilonUp(p.plan.epsilon, decimal($('epsilon-input').value)) : '';
    let warning = '';
    if (wontMix && fc.kind === 'too-few-draws') {
      // The forecast's own words carry the remedy: a larger ε for a
      // per-iteration sampler, more (free) draws for noise-aware.
      warning = `Before you run: the forecast (step 4) says ${fc.text}. This run would spend ε = ${spend} on draws that cannot be shown to be a posterior sample.`;
    } else if (wontMix) {
      warning = `Before you run: the forecast (step 4) says these chains cannot converge, so this run would spend ε = ${spend} on draws that are not a posterior sample. ${remedy('the forecast names the ε at which they could.')}`;
    } else if (weak) {
      warning = `Before you run: the forecast (step 4) says that at this budget the 95% intervals will not tell the direction even of a strong effect, so this run would spend ε = ${spend} on a posterior close to the prior. The forecast names the remedies (a larger ε, more rows, fewer predictors).`;
    } else if (probablyNot) {
      warning = `Before you run: the forecast (step 4) says these chains can converge only if the predictors spread over most of their public ranges; for typical data they will probably not, and this run would then spend ε = ${spend} on draws that are not a posterior sample. ${remedy('the forecast names the ε that typical data would need.')}`;
    }
    $('run-forecast-warning').textContent = warning;
    $('run-button').disabled = active || Boolean(why) || !p || p.pending;
    // The pre-run exports: the config whenever it is complete (it is made
    // from the controls only), the planned report once the plan exists.
    $('export-config').disabled = Boolean(this.blocker) || !p;
    const planned = Boolean(p && !p.pending && !p.error && p.plan?.private && p.resolvedJSON);
    $('export-planned-report').disabled = !planned;
    $('export-planned-report').title = planned ? '' : this.selectedAlgorithm()?.private ? 'Available once the run is planned.' : 'A non-private run has no privacy report.';
  }

  // ---- exports before running ------------------------------------------

  /**
   * The privacy report of the planned run, as a run that completes every
   * planned iteration will carry it (JSON text), or null. It is made by the
   * engine from the resolved config, n and d, as after a run.
   */
  plannedReport() {
    const p = this.planned;
    if (!p || p.pending || p.error || !p.plan?.private || !p.resolvedJSON) return null;
    const its = Array.from({ length: p.plan.chains }, () => p.plan.warmup_per_chain + p.plan.draws_per_chain);
    return this.api.report(p.resolvedJSON, p.plan.n, p.plan.dim, JSON.stringify(its), false);
  }

  /** Downloads the run config as the page will run it (dpmcmc sample --config). */
  exportConfig() {
    if (this.blocker || !this.planned) return;
    download('config.json', `${JSON.stringify(this.config(), null, 2)}\n`, 'application/json');
  }

  exportPlannedReport() {
    const text = this.plannedReport();
    if (!text) return;
    const err = text.startsWith('{"error"') ? JSON.parse(text).error : null;
    if (err) this.showError(`The planned privacy report could not be computed: ${err.message}`);
    else download('privacy-planned.json', text, 'application/json');
  }

  // ---- 6. run -----------------------------------------------------------

  startRun() {
    const cfg = this.config();
    if (this.blocker || this.run?.active || this.planned?.cfgJSON !== JSON.stringify(cfg) || this.planned.error) return;
    const algo = this.selectedAlgorithm();
    const id = ++this.runSeq;
    this.showError('');
    this.run = {
      id, cfg, cfgJSON: JSON.stringify(cfg), file: this.file, session: this.session, private: algo.private, n: this.info.rows, sharedRelease: Boolean(algo.shared_release),
      active: true, names: null, dim: 0, t0: performance.now(), failed: null,
      chains: Array.from({ length: cfg.chains }, () => ({ positions: null, n: 0, dim: 0, total: 0, warmup: 0, accepted: 0, iterations: 0, ended: false, cancelled: false, posted: false })),
    };
    $('run-button').disabled = true;
    $('cancel-button').disabled = false;
    // The Run button is now disabled: focus goes to Cancel, not to the
    // page's body, and the start is announced.
    if (document.activeElement === $('run-button')) $('cancel-button').focus();
    $('run-announce').textContent = `Run started: ${cfg.chains} ${cfg.chains === 1 ? 'chain' : 'chains'} of ${algo.name}.`;
    $('run-blocker').textContent = '';
    $('chain-error').hidden = true;
    $('chain-error').textContent = '';
    document.getElementById('results').hidden = true;
    this.results.clear();
    this.live?.destroy();
    this.live = null;
    fill($('live-trace'));
    $('local-diagnostics').hidden = true;
    const prog = $('progress');
    prog.dataset.state = 'running';
    fill(prog, ...this.run.chains.map((_, c) => el('div', { class: 'chain' },
      el('label', { for: `progress-${c + 1}`, text: `Chain ${c + 1}` }),
      el('progress', { id: `progress-${c + 1}`, testid: `progress-chain-${c + 1}`, max: 1, value: 0 }),
      el('span', { testid: `progress-text-${c + 1}`, text: 'starting…' }))));
    $('budget-meter-box').hidden = !this.run.private;
    $('budget-meter').value = 0;
    $('budget-text').textContent = '';
    // A shared release (noise-aware): chain 0 makes the run's one release
    // with its worker's key and hands it on when it starts (info.release);
    // the other chains start then, from that release.
    const first = this.run.sharedRelease ? 1 : cfg.chains;
    for (let c = 0; c < first; c++) this.startChain(this.run, c);
  }

  startChain(run, c, release) {
    run.chains[c].posted = true;
    this.pool.startChain(run.id, c, this.file, run.cfgJSON, release);
  }

  /**
   * Ends the chains never started (a shared-release run stopped before
   * chain 0 handed its release on): they ran no iteration.
   */
  endUnstarted(run) {
    for (const ch of run.chains) {
      if (ch.posted || ch.ended) continue;
      ch.ended = true;
      ch.cancelled = true;
      ch.positions = new Float64Array(0);
    }
  }

  cancelRun() {
    if (!this.run?.active) return;
    $('cancel-button').disabled = true;
    $('progress').dataset.state = 'cancelling';
    this.run.cancelling = true;
    this.endUnstarted(this.run);
    this.pool.cancel(this.run.id);
  }

  onChainMessage(msg) {
    const run = this.run;
    if (msg.type === 'crashed') {
      // Chain c runs on worker c. Its iterations beyond the last report are
      // unknown, so the report charges every planned iteration of it.
      const ch = run?.active ? run.chains[msg.worker] : null;
      if (!ch || ch.ended) return;
      ch.ended = true;
      ch.iterations = ch.total ?? 0;
      run.failed = `the worker of chain ${msg.worker + 1} stopped (${msg.error.message}); its planned iterations are counted in the privacy report. Reload the page to run again.`;
      this.endUnstarted(run);
      this.pool.cancel(run.id);
      if (run.chains.every((c) => c.ended)) this.finish(run);
      return;
    }
    if (!run || msg.runId !== run.id) return;
    const ch = run.chains[msg.chain];
    switch (msg.type) {
      case 'started': {
        const { info } = msg;
        ch.dim = info.dim;
        ch.total = info.total;
        ch.warmup = info.warmup;
        ch.positions = new Float64Array(info.total * info.dim);
        if (!run.names) {
          // The resolved config (private settings derived from public
          // inputs) is what the report and the exports are made from.
          run.resolvedJSON = JSON.stringify(info.config);
          run.names = info.names;
          run.dim = info.dim;
          run.warmup = info.warmup;
          run.rows = info.rows;
          this.startLive(run);
        } else if (JSON.stringify(info.config) !== run.resolvedJSON) {
          run.failed = 'the chains derived different settings';
          this.pool.cancel(run.id);
        }
        if (run.sharedRelease && msg.chain === 0) {
          // The release is the mechanism's output (public once made); the
          // key that made it stays in worker 0.
          if (!info.release) {
            run.failed = 'chain 1 made no release to share';
            this.pool.cancel(run.id);
          } else {
            // Kept for the report, which checks it is this run's.
            run.release = info.release;
            if (!run.cancelling) for (let c = 1; c < run.chains.length; c++) this.startChain(run, c, info.release);
          }
          this.endUnstarted(run);
        }
        break;
      }
      case 'draws':
        ch.positions.set(msg.draws, ch.n * ch.dim);
        ch.n += msg.draws.length / ch.dim;
        ch.accepted = msg.accepted;
        this.progress(run, msg.chain);
        this.scheduleLive();
        break;
      case 'end':
        ch.ended = true;
        ch.iterations = msg.iterations;
        ch.cancelled = msg.cancelled;
        ch.aborted = msg.aborted ?? null;
        ch.ms = msg.ms;
        ch.local = msg.local;
        if (ch.aborted && !run.aborted) {
          // As the command-line tool: the first chain whose state became
          // non-finite stops the run; the others stop after their slice,
          // and the report charges every iteration that ran.
          run.aborted = ch.aborted;
          this.endUnstarted(run);
          this.pool.cancel(run.id);
        }
        this.progress(run, msg.chain);
        if (run.chains.every((c) => c.ended)) this.finish(run);
        break;
      case 'error':
        // A chain that started may have run beyond its last report before
        // it failed: as for a crashed worker, the report charges every
        // planned iteration of it (the engine also never charges fewer than
        // the draws it holds).
        ch.ended = true;
        ch.iterations = Math.max(ch.iterations, ch.total ?? 0, ch.n);
        run.failed = msg.error?.message ?? 'unknown error';
        this.endUnstarted(run);
        this.pool.cancel(run.id);
        if (run.chains.every((c) => c.ended)) this.finish(run);
        break;
      default:
    }
  }

  progress(run, c) {
    const ch = run.chains[c];
    const bar = $(`progress-chain-${c + 1}`);
    if (!bar || !ch.total) return;
    bar.max = ch.total;
    bar.value = ch.n;
    const phase = ch.ended ? (ch.aborted ? 'stopped: non-finite state' : ch.cancelled ? 'cancelled' : 'done') : ch.n < ch.warmup ? 'warmup' : 'sampling';
    $(`progress-text-${c + 1}`).textContent = `${fmtInt(ch.n)} / ${fmtInt(ch.total)} (${phase})`;
    this.scheduleBudget();
  }

  scheduleBudget() {
    const run = this.run;
    if (!run?.private || this.budgetTimer) return;
    this.budgetTimer = setTimeout(() => {
      this.budgetTimer = null;
      this.updateBudget(run);
    }, 250);
  }

  /** Shows the ε spent by the iterations that ran so far. */
  updateBudget(run) {
    // An ended chain's count is the engine's (a chain stopped on a
    // non-finite state ran one iteration more than the draws it stored).
    const its = run.chains.map((c) => (c.ended ? c.iterations : c.n));
    if (!run.private || !run.resolvedJSON) return;
    // While a chain runs, its worker is up to one post ahead of the draws
    // counted here: the engine then spells the figure as a lower bound.
    const running = run.chains.some((c) => !c.ended);
    const r = JSON.parse(this.api.budget(run.resolvedJSON, run.rows, run.dim, JSON.stringify(its), running));
    if (r.error) return;
    $('budget-meter').value = r.fraction;
    $('budget-text').textContent = r.text; // spelled by the engine (core/report), as in the results
  }

  startLive(run) {
    const sel = $('live-param');
    fill(sel, ...run.names.map((n, j) => el('option', { value: String(j), text: n })));
    sel.value = String(run.names.length > 1 ? 1 : 0);
    $('live-bar').hidden = false;
    this.redrawLive();
  }

  redrawLive() {
    const run = this.run;
    if (!run?.names) return;
    const j = Number($('live-param').value);
    this.live?.destroy();
    this.live = traceChart($('live-trace'), run.chains.length, run.names[j]);
    this.drawLive();
  }

  scheduleLive() {
    if (this.liveFrame) return;
    this.liveFrame = requestAnimationFrame(() => {
      this.liveFrame = null;
      this.drawLive();
    });
  }

  drawLive() {
    const run = this.run;
    if (!run?.names || !this.live) return;
    this.live.setData(traceData(run.chains, Number($('live-param').value)));
  }

  finish(run) {
    run.active = false;
    $('cancel-button').disabled = true;
    // The meter's last refresh may still be pending: show the final ε now.
    clearTimeout(this.budgetTimer);
    this.budgetTimer = null;
    this.updateBudget(run);
    const cancelled = run.chains.some((c) => c.cancelled);
    const prog = $('progress');
    prog.dataset.state = run.failed || run.aborted ? 'failed' : cancelled ? 'cancelled' : 'done';
    this.drawLive();
    this.update();
    if (run.aborted) {
      // The engine's message, as dpmcmc sample prints it (chain, iteration,
      // the setting to change), and where that setting is on this page.
      const e = $('chain-error');
      e.textContent = `The run stopped: ${run.aborted.message}.${run.aborted.step > 0 ? ' On this page, --step is "Step size" in the advanced sampler settings.' : ''} The results below are not a posterior sample.`;
      e.hidden = false;
    }
    if (run.failed) {
      this.showError(`The run stopped: ${run.failed}`);
      if (!run.names) return;
    }
    run.cancelled = cancelled;
    this.results.show(run);
    this.addToSession(run);
    this.update(); // the session note and the stale marker see this run
    // One short announcement of how the run ended, and focus on the
    // results when it would otherwise be lost (Cancel is now disabled).
    // The verdict's first phrase ("Converged", "Not converged"), and the
    // caveat of a converged private run that determines no direction,
    // which the verdict's colour says to sighted users.
    const full = $('verdict').textContent;
    const cut = full.search(/[.:]\s/);
    const but = /But no predictor[^.]*\./.exec(full)?.[0].replace(/ \([^)]*\)/, '') ?? '';
    const verdict = [cut >= 0 ? `${full.slice(0, cut)}.` : full, but].filter(Boolean).join(' ');
    $('run-announce').textContent = `${run.aborted ? 'Run stopped' : cancelled ? 'Run cancelled' : 'Run finished'}. ${verdict} See step 7, Results.`;
    if (document.activeElement === $('cancel-button') || document.activeElement === document.body) {
      const h = document.getElementById('results-h');
      h.tabIndex = -1;
      h.focus();
    }
  }

  /**
   * Adds a private run's spent ε and δ (its privacy report, spelled by the
   * engine) to what this tab has spent on the loaded file, and says so under
   * the results and before the next run: each report covers its own run,
   * while every analysis of the same rows adds to the loss (basic
   * composition: the ε and δ add up).
   */
  addToSession(run) {
    if (!run.private || !this.results.reportText || !run.session) return;
    let rep;
    try {
      rep = JSON.parse(this.results.reportText);
    } catch {
      return;
    }
    if (!(rep.epsilon_spent >= 0) || !(rep.delta >= 0)) return;
    // The rows the run used, even if another file was loaded since.
    const s = run.session;
    s.runs += 1;
    s.epsilon = addLoss(s.epsilon, rep.epsilon_spent);
    s.delta = addLoss(s.delta, rep.delta);
    const e = $('session-spent');
    e.hidden = s.runs < 2;
    e.textContent = s.runs < 2 ? '' : `This is the ${ordinal(s.runs)} private run on these rows in this tab: together the runs have spent ε = ${fmtEpsilonUp(s.epsilon)} at δ = ${fmtDelta(s.delta)} (privacy losses of analyses of the same data add up; this run's statement covers this run only).`;
  }

  /** Before a private run, what earlier runs of this tab spent on the file. */
  sessionText(cfg) {
    const s = this.session;
    if (!s || s.runs === 0 || !cfg.privacy) return '';
    const eps = addLoss(s.epsilon, cfg.privacy.epsilon);
    const delta = addLoss(s.delta, cfg.privacy.delta);
    return `Earlier private run${s.runs > 1 ? 's' : ''} in this tab (${s.runs}) spent ε = ${fmtEpsilonUp(s.epsilon)} at δ = ${fmtDelta(s.delta)} on these rows; this run would bring the total to ε = ${fmtEpsilonUp(eps)} at δ = ${fmtDelta(delta)}. Privacy losses of analyses of the same data add up: re-running until an answer looks right spends more of the people's privacy, and the result of the first run is as valid as any later one.`;
  }
}

/**
 * The key of a file's rows in the tab's tally of private runs: the SHA-256
 * of its size and bytes (of its size and first and last 8 MB above 64 MB),
 * or its size alone without crypto.subtle (a page opened from file://).
 * Computed here and kept in memory only, never shown or exported. Identical
 * copies share a key, so reloading the same rows does not reset the tally; a
 * collision can only make the tally larger.
 */
async function fileKey(file) {
  const LIMIT = 64 * 1024 * 1024;
  const PART = 8 * 1024 * 1024;
  if (!globalThis.crypto?.subtle) return `size:${file.size}`;
  const parts = file.size <= LIMIT ? [file] : [file.slice(0, PART), file.slice(file.size - PART)];
  const bytes = await new Blob([`${file.size}\n`, ...parts]).arrayBuffer();
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** 2 → "2nd", 3 → "3rd", 11 → "11th". */
function ordinal(k) {
  const t = k % 100;
  const suffix = t >= 11 && t <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][k % 10] ?? 'th';
  return `${k}${suffix}`;
}

/**
 * The number typed in a decimal field: digits with an optional point and
 * exponent ("0.5", ".5", "1e-5", "-3"), surrounding spaces ignored; ""
 * is 0, as Number(""). Anything else is NaN: spaces alone (callers test
 * the raw value against "", so a space must not read as 0), a decimal
 * comma ("0,5"), "0x10", "Infinity", "1_000".
 */
export function decimal(s) {
  if (s === '') return 0;
  const t = String(s).trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) ? Number(t) : NaN;
}

/**
 * The engine's message in the page's terms: a CLI flag (--box, --tau,
 * --warmup) becomes the name of the field that sets it (the one whose
 * data-setting, or testid, it is), "mcmc: " goes, and the advice to leave
 * the iterations unset, which the page's fields cannot be, becomes to
 * lower them.
 */
export function pageTerms(message) {
  let m = String(message).replace(/^mcmc: /, '').replace(/\bmcmc: /g, '');
  m = m.replace(/lower the iterations or leave them unset to have them planned/g, 'lower the warmup and draws (step 5)');
  return m.replace(/--([a-z][a-z-]*)/g, (flag, name) => {
    const e = document.querySelector(`[data-setting="${name.replace(/-/g, '_')}"]`) ?? document.querySelector(`[data-testid="${name}-input"]`);
    return e ? `"${fieldName(e)}"` : flag;
  });
}

/** A field's name for a message: its aria-label, or its label's first words. */
function fieldName(e) {
  const own = e.getAttribute('aria-label');
  if (own) return own;
  const label = e.closest('label');
  const first = label ? [...label.childNodes].find((n) => n.nodeType === Node.TEXT_NODE || n.tagName === 'SPAN') : null;
  return (first?.textContent ?? e.dataset.testid ?? 'a field').trim().replace(/:.*$/, '');
}

function intOf(id) {
  const v = Number($(id).value);
  return Number.isInteger(v) ? v : NaN;
}

/** [lo, hi] when both are numbers with lo < hi, else null. */
function boundPair(b) {
  if (!b || b.lo === '' || b.hi === '') return null;
  const lo = decimal(b.lo);
  const hi = decimal(b.hi);
  return Number.isFinite(lo) && Number.isFinite(hi) && lo < hi ? [lo, hi] : null;
}

/** δ defaults to a power of ten at most 1/(10 n). */
export function defaultDelta(n) {
  return Number((10 ** Math.floor(Math.log10(0.1 / Math.max(1, n)))).toPrecision(1));
}

function delimName(d) {
  return { ',': 'comma', ';': 'semicolon', '\t': 'tab' }[d] ?? `"${d}"`;
}

/**
 * Shows the engine's mixing forecast of the plan (its text as the engine
 * spells it), marked as a warning when it says the chains will not mix or
 * (noise-aware) that the release will not tell even a strong effect's
 * direction.
 */
/**
 * One short line for screen readers once a plan is made (the plan and the
 * forecast themselves are long and are not live regions: they would be
 * read out in full on every keystroke in ε).
 */
/** The number columns with a cell that is not a number, and its line, for the file line: " A cell that is not a number in age (line 8): …". */
function wordText(cols) {
  const bad = cols.filter((c) => c.error);
  return bad.length ? ` A cell that is not a number in ${bad.map((c) => `${c.name} (line ${c.error.line})`).join(', ')}: a run cannot use ${bad.length === 1 ? 'that column' : 'those columns'} until it is corrected.` : '';
}

/** The first sentence of text (up to its first ". "), with its period. */
function firstSentence(text) {
  const i = text.indexOf('. ');
  return i < 0 ? text : text.slice(0, i + 1);
}

function planAnnouncement(plan) {
  if (!plan) return '';
  if (!plan.private) return 'Planned: a non-private run.';
  const f = plan.forecast;
  let what = '';
  if (f?.will_mix === false) what = '; the forecast says the chains will not converge';
  else if (f?.will_mix_typical === false) what = '; the forecast says the chains will probably not converge';
  else if (f?.weak_release || f?.weak_if_low_mean) what = '; the forecast warns that the release will tell little';
  return `Planned: ε = ${fmt(plan.epsilon)}${what}.`;
}

function showForecast(f) {
  const e = $('forecast');
  e.hidden = !f?.text;
  // noise-aware's draws are iid (kind "exact"): nothing to mix, only what the release can tell.
  const label = f?.kind === 'exact' ? 'Forecast' : 'Mixing forecast';
  e.textContent = f?.text ? `${label}: ${f.text}${/[.!?]$/.test(f.text) ? '' : '.'}` : '';
  e.classList.toggle('warn', Boolean(f?.text) && (!f.will_mix || f.will_mix_typical === false || Boolean(f.weak_release) || Boolean(f.weak_if_low_mean)));
  e.dataset.willMix = f ? String(Boolean(f.will_mix)) : '';
  // noise-aware's measured calibration, said before the run as its summary says it after.
  const c = $('forecast-calibration');
  c.textContent = f?.calibration ?? '';
  c.hidden = !f?.calibration;
}

/**
 * Shows how many values each public bound clipped (the plan's local counts:
 * not private, on this screen only, never in an export), or hides the note.
 * cfg is the planned config (its bounds, outcome and model).
 */
function showClipped(clipped, cfg = {}) {
  const e = $('clip-note');
  const cols = Object.keys(clipped ?? {}).sort();
  e.hidden = cols.length === 0;
  const binary = cfg.model?.model === 'logistic' ? cfg.model.outcome : null;
  // A clipped 0/1 outcome is most likely a coding to fix: a warning.
  e.classList.toggle('warn', Boolean(binary) && cols.includes(binary));
  if (e.hidden) {
    e.textContent = '';
    return;
  }
  const parts = cols.map((c) => {
    const n = clipped[c];
    const [lo, hi] = cfg.data?.bounds?.[c] ?? ['its lower bound', 'its upper bound'];
    const sides = [];
    if (n.above > 0) sides.push(`${fmtInt(n.above)} above ${hi}`);
    if (n.below > 0) sides.push(`${fmtInt(n.below)} below ${lo}`);
    const why = c === binary ? ` (fitted as the nearest of 0 and 1: if ${c} is coded otherwise, e.g. 1/2, type its text coding above: 1=0, 2=1)` : '';
    return `${c} ${sides.join(' and ')}${why}`;
  });
  e.textContent = `Values outside their public bounds, clipped to them (counted on this device, never exported): ${parts.join('; ')}. ` +
    'Clipping is what keeps each row\'s influence within the bounds, so outliers and entry errors need no other care. Keep bounds that ' +
    'come from what each column can take; correct one only if it was mistyped or in other units, not to fit these counts.';
}

/** The plan in words; sharedRelease: one release for the run (noise-aware), not a cost per iteration. */
function planText(p, sharedRelease, budget) {
  const per = p.warmup_per_chain + p.draws_per_chain;
  let t = `Plan: ${p.chains} chain${p.chains > 1 ? 's' : ''} × ${fmtInt(per)} iterations (${fmtInt(p.warmup_per_chain)} warmup + ${fmtInt(p.draws_per_chain)} draws)`;
  if (!p.private) return `${t}. Not private: no privacy budget is spent and none is protected.${(p.notes ?? []).map((n) => ` Note: ${n}.`).join('')}`;
  t += `; planned ε = ${fmtEpsilonUp(p.epsilon, budget)} at δ = ${fmtDelta(p.delta)} (${p.accountant} accountant)`;
  const s = p.settings ?? {};
  const noise = [['tau', 'noise τ'], ['tau_grad', 'gradient noise τ_g'], ['clip', 'clip'], ['grad_clip', 'gradient clip']]
    .filter(([k]) => s[k] > 0).map(([k, name]) => `${name} = ${fmt(s[k])}`);
  if (noise.length) t += `; ${noise.join(', ')}`;
  t += sharedRelease ? '. The budget is spent once, by the release; every draw after it is free.' : '. Every iteration counts, warmup included.';
  // Each release's sensitivity and noise (noise-aware: one note per block)
  // are in the planned privacy report; the plan says how many there are.
  const notes = p.notes ?? [];
  const releases = notes.filter((n) => n.startsWith('release: '));
  for (const n of notes.filter((x) => !x.startsWith('release: '))) t += ` Note: ${n}.`;
  if (releases.length) t += ` Note: ${releases.length} released blocks; each one's sensitivity, noise sd and μ are in the planned privacy report (privacy-planned.json).`;
  return t;
}

/** The file line's note of missing cells (local only), or ''. */
function missingText(missing) {
  const cols = Object.keys(missing ?? {});
  if (!cols.length) return '';
  return ` Missing cells (counted on this device, never exported): ${cols.map((c) => `${c} ${fmtInt(missing[c])}`).join(', ')}.`;
}

/**
 * Parses a typed coding of text values, "F=0, M=1" (pairs separated by
 * commas or semicolons, "=" or ":" between value and number): {map} with
 * at least two values, {error} saying what is wrong, or null when empty.
 */
export function parseCoding(text) {
  const t = text.trim();
  if (!t) return null;
  const map = {};
  for (const part of t.split(/[,;]/)) {
    if (!part.trim()) continue;
    const m = /^\s*(.+?)\s*[=:]\s*(\S+)\s*$/.exec(part);
    if (!m) return { error: `write value=number pairs separated by commas, e.g. F=0, M=1 (got "${part.trim()}")` };
    const v = Number(m[2]);
    if (!Number.isFinite(v) || m[2] === '') return { error: `"${m[2]}" is not a number (in "${part.trim()}")` };
    if (Object.hasOwn(map, m[1])) return { error: `"${m[1]}" is coded twice` };
    map[m[1]] = v;
  }
  if (Object.keys(map).length < 2) return { error: 'give every value the column can take, at least two (e.g. F=0, M=1)' };
  return { map };
}
