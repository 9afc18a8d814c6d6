// End-to-end tests of the served page in headless Chromium.
//
// Needs the built binary and site (make build) and Debian's Chromium
// (/usr/bin/chromium); `make test-e2e` arranges both. Run alone with
//   node --test e2e/
// Environment: DPMCMC_BIN (default bin/dpmcmc), DPMCMC_SITE (default
// build/site), CHROMIUM (default /usr/bin/chromium).
//
// What it proves: the page loads the Go engine under the strict CSP and
// shows its version; it requests only its own assets, and nothing at all
// once ready; no CSP violation, console error or page error happens; the
// CSP really blocks fetch, inline script and eval (so the violation
// listener is known to work); every response carries the security headers.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = process.env.DPMCMC_BIN ?? path.join(root, 'bin', 'dpmcmc');
const siteDir = process.env.DPMCMC_SITE ?? path.join(root, 'build', 'site');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const shotsDir = path.join(root, 'e2e', 'screenshots');

// Flags known to work on this machine kind (shared/TOOLCHAIN.md); Playwright
// adds --headless and a fresh --user-data-dir itself.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const EXPECTED_CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
  "style-src 'self'; img-src 'self' blob: data:; connect-src 'none'; base-uri 'none'; " +
  "form-action 'none'; object-src 'none'; frame-ancestors 'none'";

const QUIET_MS = 1500; // how long the ready page is watched for requests

let server; // child process
let baseURL; // http://127.0.0.1:PORT/
let browser;
let version; // as printed by `dpmcmc version`

/** Starts `dpmcmc serve` on a free loopback port and resolves with its URL. */
function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--dir', siteDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server printed no URL in 15 s: ${out} ${err}`)), 15000);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^Serving on (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before serving: ${out} ${err}`));
    });
  });
}

/** Lists the files the site serves, as URL paths (precompressed variants left out). */
function siteAssets(dir = siteDir, prefix = '') {
  const out = [];
  for (const e of readdirSync(dir)) {
    if (e.startsWith('.') || e.endsWith('.gz') || e.endsWith('.br')) continue;
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out.push(...siteAssets(p, `${prefix}${e}/`));
    else out.push(`/${prefix}${e}`);
  }
  return out;
}

/** Opens the page in a fresh context and records everything it does. */
async function openPage(viewport) {
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
  const rec = { requests: [], responses: [], failed: [], offsite: [], console: [], pageErrors: [], websockets: [] };
  const origin = new URL(baseURL).origin;
  // Nothing may leave the machine: requests to any other origin are recorded and aborted.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    rec.offsite.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push({
        directive: e.effectiveDirective,
        blocked: e.blockedURI,
        source: e.sourceFile,
        line: e.lineNumber,
        sample: e.sample,
      });
    });
  });
  page.on('request', (r) => rec.requests.push({ url: r.url(), method: r.method(), type: r.resourceType(), at: Date.now() }));
  page.on('response', (r) => rec.responses.push(r));
  page.on('console', (m) => {
    // Service workers are blocked here on purpose (hosting.test.mjs tests
    // offline use); Playwright then logs this one warning.
    if (m.text() === 'Service Worker registration blocked by Playwright') return;
    if (m.type() === 'error' || m.type() === 'warning') rec.console.push(`${m.type()}: ${m.text()}`);
  });
  page.on('requestfailed', (r) => rec.failed.push({ url: r.url(), error: r.failure()?.errorText }));
  page.on('pageerror', (e) => rec.pageErrors.push(String(e)));
  page.on('websocket', (ws) => rec.websockets.push(ws.url()));
  return { context, page, rec };
}

/** Loads the page and waits until the engine reports ready (or failed). */
async function loadUntilReady(page) {
  await page.goto(baseURL, { waitUntil: 'load' });
  const status = page.getByTestId('status');
  await page.waitForFunction(
    () => {
      const s = document.querySelector('[data-testid="status"]');
      return s && (s.classList.contains('ready') || s.classList.contains('error'));
    },
    null,
    { timeout: 30000 },
  );
  return (await status.textContent()).trim();
}

before(async () => {
  for (const [what, p] of [['binary', bin], ['site', path.join(siteDir, 'index.html')], ['Chromium', chromiumPath]]) {
    if (!existsSync(p)) throw new Error(`missing ${what} ${p}: run make build (and make deps) first`);
  }
  version = execFileSync(bin, ['version'], { encoding: 'utf8' }).trim().replace(/^dpmcmc /, '');
  ({ child: server, url: baseURL } = await startServer());
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    chromiumSandbox: false,
  });
  mkdirSync(shotsDir, { recursive: true });
});

after(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
    server.kill('SIGTERM');
    const { code } = await exited;
    assert.equal(code, 0, 'dpmcmc serve should exit 0 on SIGTERM');
  }
});

test('page loads the wasm engine and shows its version (1280x800)', { timeout: 60000 }, async () => {
  const { context, page, rec } = await openPage({ width: 1280, height: 800 });
  try {
    const text = await loadUntilReady(page);
    assert.equal(text, `dpmcmc ${version} ready`);
    const nReady = rec.requests.length;

    // The API works from the page, and the page stays silent afterwards.
    assert.equal(await page.evaluate(() => globalThis.dpmcmc.selfTest()), 500500);
    assert.equal(await page.evaluate(() => globalThis.dpmcmc.version), version);
    assert.match(await page.getByTestId('selftest').textContent(), /= 500500, computed in Go/);
    await page.waitForTimeout(QUIET_MS);
    // Chromium's favicon loader fetches the declared icon on its own schedule
    // (type "other"), sometimes after the engine is ready: that one request
    // for the page's own asset is allowed; nothing else is.
    const icon = await page.evaluate(() => document.querySelector('link[rel="icon"]')?.href);
    const isIconFetch = (r) => r.type === 'other' && r.url === icon;
    const late = rec.requests.slice(nReady).filter((r) => !isIconFetch(r));
    assert.deepEqual(late, [], 'no request after the engine is ready');

    // Only the site's own assets were requested, each once, all GET, all 200.
    const origin = new URL(baseURL).origin;
    assert.deepEqual(rec.offsite, [], 'no request to another origin');
    assert.deepEqual(rec.failed, [], 'failed requests');
    assert.deepEqual(rec.websockets, [], 'no WebSocket');
    const assets = new Set(siteAssets());
    for (const r of rec.requests) {
      const u = new URL(r.url);
      assert.equal(u.origin, origin, r.url);
      assert.equal(r.method, 'GET', r.url);
      assert.ok(u.pathname === '/' || assets.has(u.pathname), `unexpected request ${r.url}`);
    }
    const paths = rec.requests.filter((r) => !isIconFetch(r)).map((r) => new URL(r.url).pathname);
    // Each worker of the engine pool (js/pool.js) loads the worker's module
    // graph once, all before the page is ready; nothing else is loaded twice.
    const workerGraph = /^\/js\/(worker|wasm|wasm_exec)\.[0-9a-f]{12}\.js$/;
    const once = paths.filter((p) => !workerGraph.test(p));
    assert.equal(new Set(once).size, once.length, `an asset was requested twice: ${JSON.stringify(rec.requests)}`);
    for (const p of new Set(paths.filter((q) => workerGraph.test(q)))) {
      assert.ok(paths.filter((q) => q === p).length <= 5, `${p} requested more than once per worker`);
    }
    for (const re of [/^\/$/, /^\/css\/app\.[0-9a-f]{12}\.css$/, /^\/js\/main\.[0-9a-f]{12}\.js$/,
      /^\/js\/wasm_exec\.[0-9a-f]{12}\.js$/, /^\/js\/app\.wasm\.[0-9a-f]{12}\.js$/]) {
      assert.ok(paths.some((p) => re.test(p)), `no request matched ${re}: ${paths}`);
    }
    for (const r of rec.responses) {
      assert.equal(r.status(), 200, r.url());
      const h = await r.allHeaders();
      assert.equal(h['content-security-policy'], EXPECTED_CSP, r.url());
      assert.equal(h['x-content-type-options'], 'nosniff', r.url());
    }
    const wasmResp = rec.responses.find((r) => /app\.wasm\.[0-9a-f]{12}\.js$/.test(r.url()));
    const wasmHeaders = await wasmResp.allHeaders();
    assert.match(wasmHeaders['content-encoding'] ?? '', /^(br|gzip)$/, 'the engine asset is served precompressed');
    assert.match(wasmHeaders['cache-control'], /immutable/);

    // Nothing was blocked and nothing complained.
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'CSP violations');
    assert.deepEqual(rec.console, [], 'console errors and warnings');
    assert.deepEqual(rec.pageErrors, [], 'uncaught page errors');

    await page.screenshot({ path: path.join(shotsDir, 'app-1280x800.png') });
  } finally {
    await context.close();
  }
});

test('page fits a phone screen (390x844)', { timeout: 60000 }, async () => {
  const { context, page, rec } = await openPage({ width: 390, height: 844 });
  try {
    assert.equal(await loadUntilReady(page), `dpmcmc ${version} ready`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
    assert.deepEqual(rec.console, []);
    assert.deepEqual(rec.pageErrors, []);
    await page.screenshot({ path: path.join(shotsDir, 'app-390x844.png') });
  } finally {
    await context.close();
  }
});

test('the policy blocks fetch, inline script and style, offsite images, and violations are seen', { timeout: 60000 }, async () => {
  const { context, page, rec } = await openPage({ width: 800, height: 600 });
  try {
    assert.match(await loadUntilReady(page), / ready$/);
    const n = rec.requests.length;
    const got = await page.evaluate(async () => {
      const r = {};
      try {
        await fetch('/index.html');
        r.fetch = 'allowed';
      } catch {
        r.fetch = 'blocked';
      }
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true;';
      document.head.append(s);
      r.inline = window.__inlineRan === true ? 'ran' : 'blocked';
      const st = document.createElement('style');
      st.textContent = 'body { outline: 3px solid red; }';
      document.head.append(st);
      r.style = getComputedStyle(document.body).outlineStyle === 'solid' ? 'applied' : 'blocked';
      const img = new Image();
      r.image = await new Promise((done) => {
        img.onload = () => done('loaded');
        img.onerror = () => done('blocked');
        img.src = 'http://127.0.0.2:9/pixel.png'; // another origin
      });
      await new Promise((done) => setTimeout(done, 200)); // violation events are queued
      r.directives = window.__cspViolations.map((v) => v.directive).sort();
      return r;
    });
    assert.equal(got.fetch, 'blocked');
    assert.equal(got.inline, 'blocked');
    assert.equal(got.style, 'blocked');
    assert.equal(got.image, 'blocked');
    for (const d of ['connect-src', 'script-src-elem', 'style-src-elem', 'img-src']) {
      assert.ok(got.directives.includes(d), `no ${d} violation seen: ${got.directives}`);
    }
    // Chromium reports the blocked image as a request that failed with
    // reason "csp"; it never reached the network (nor our router).
    const after = rec.requests.slice(n).map((r) => r.url);
    assert.deepEqual(after, ['http://127.0.0.2:9/pixel.png'], 'requests after the probe');
    assert.deepEqual(rec.failed, [{ url: 'http://127.0.0.2:9/pixel.png', error: 'csp' }]);
    assert.deepEqual(rec.offsite, [], 'the offsite image was blocked before any request');
  } finally {
    await context.close();
  }
});

test('the served binary sends the security headers on every asset', { timeout: 30000 }, async () => {
  for (const p of ['/', ...siteAssets(), '/no-such-file']) {
    const res = await fetch(new URL(p, baseURL), { headers: { 'accept-encoding': 'gzip' } });
    await res.arrayBuffer();
    assert.equal(res.status, p === '/no-such-file' ? 404 : 200, p);
    // The service worker caches the app's own assets when it installs, so its
    // own policy (not the page's) allows fetching this origin: 'self'.
    const csp = p === '/sw.js' ? EXPECTED_CSP.replace("connect-src 'none'", "connect-src 'self'") : EXPECTED_CSP;
    assert.equal(res.headers.get('content-security-policy'), csp, p);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', p);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', p);
    assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin', p);
    assert.match(res.headers.get('permissions-policy'), /camera=\(\).*microphone=\(\)/, p);
    if (p.endsWith('.html') || p === '/') assert.equal(res.headers.get('cache-control'), 'no-cache', p);
    if (/\.[0-9a-f]{12}\.\w+$/.test(p)) assert.match(res.headers.get('cache-control'), /immutable/, p);
  }
});
