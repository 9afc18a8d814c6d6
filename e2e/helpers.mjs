// Shared harness of the app's end-to-end tests: a `dpmcmc serve` on a free
// loopback port, headless Chromium (playwright-core driving
// /usr/bin/chromium), and pages whose every request (page and workers),
// CSP violation, console error, dialog and download is recorded.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bin = process.env.DPMCMC_BIN ?? path.join(root, 'bin', 'dpmcmc');
export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const shotsDir = path.join(root, 'e2e', 'screenshots');

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Starts `dpmcmc serve` for dir and resolves with {child, url}. */
export function startServer(dir, binary = bin) {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['serve', '--addr', '127.0.0.1:0', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server printed no URL in 15 s: ${out}`)), 15000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^Serving on (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

export class Harness {
  async start(siteDir, binary = bin) {
    ({ child: this.server, url: this.url } = await startServer(siteDir, binary));
    this.browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, chromiumSandbox: false });
    mkdirSync(shotsDir, { recursive: true });
  }

  async stop() {
    await this.browser?.close();
    if (this.server && this.server.exitCode === null) {
      const exited = new Promise((resolve) => this.server.once('exit', resolve));
      this.server.kill('SIGTERM');
      await exited;
    }
  }

  /**
   * Opens the app and waits until it is ready; rec.afterReady() lists later
   * requests. With intercept false (the start-up benchmark) requests are
   * only recorded, not routed through Playwright: routing holds every
   * request for a round trip to this process, which is not what a user's
   * browser pays. Off-site requests are then recorded but not blocked.
   */
  async open(viewport = DESKTOP, { intercept = true, initScript = null } = {}) {
    const context = await this.browser.newContext({ viewport, serviceWorkers: 'block', acceptDownloads: true });
    const origin = new URL(this.url).origin;
    const rec = { requests: [], offsite: [], console: [], pageErrors: [], dialogs: [], readyAt: -1 };
    if (!intercept) {
      context.on('request', (r) => {
        if (new URL(r.url()).origin !== origin) rec.offsite.push(r.url());
      });
    } else await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      rec.offsite.push(url);
      return route.abort();
    });
    // Context-level events include the requests of workers.
    context.on('request', (r) => rec.requests.push({ url: r.url(), type: r.resourceType() }));
    const page = await context.newPage();
    await page.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => {
        window.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample });
      });
    });
    if (initScript) await page.addInitScript(initScript);
    page.on('console', (m) => {
      // These contexts block service workers on purpose (the offline test in
      // hosting.test.mjs covers them); Playwright then logs this one warning.
      if (m.text() === 'Service Worker registration blocked by Playwright') return;
      if (m.type() === 'error' || m.type() === 'warning') rec.console.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => rec.pageErrors.push(String(e)));
    page.on('dialog', (d) => {
      rec.dialogs.push(d.message());
      d.dismiss();
    });
    page.on('worker', (w) => w.on('console', (m) => {
      if (m.type() === 'error') rec.console.push(`worker error: ${m.text()}`);
    }));
    await page.goto(this.url, { waitUntil: 'load' });
    await page.waitForSelector('html[data-ready="true"]', { timeout: 30000 });
    rec.readyAt = rec.requests.length;
    const icon = await page.evaluate(() => document.querySelector('link[rel="icon"]')?.href);
    // Chromium's favicon loader may fetch the declared icon late (type "other").
    rec.afterReady = () => rec.requests.slice(rec.readyAt).filter((r) => !(r.type === 'other' && r.url === icon));
    return { context, page, rec };
  }
}

/** Asserts the page made no request since it was ready and broke no rule. */
export async function assertClean(page, rec) {
  assert.deepEqual(rec.afterReady(), [], 'requests after the page was ready (page or workers)');
  assert.deepEqual(rec.offsite, [], 'requests to another origin');
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'CSP violations');
  assert.deepEqual(rec.pageErrors, [], 'uncaught page errors');
  assert.deepEqual(rec.console, [], 'console errors and warnings');
  assert.deepEqual(rec.dialogs, [], 'dialogs');
}

/** Screenshot of the viewport with section id scrolled to the top. */
export async function shot(page, name, section) {
  if (section) {
    await page.evaluate((id) => document.getElementById(id).scrollIntoView({ block: 'start' }), section);
  } else {
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  await page.waitForTimeout(50);
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`) });
}

/** Sets the run controls for a short run. */
export async function setRun(page, { algorithm, chains = 2, warmup = 100, draws = 150, seed } = {}) {
  if (algorithm) await page.getByTestId('algorithm-select').selectOption(algorithm);
  await page.getByTestId('chains-input').fill(String(chains));
  // Disabled for a sampler without warmup (noise-aware, ops): it runs none.
  if (await page.getByTestId('warmup-input').isEnabled()) await page.getByTestId('warmup-input').fill(String(warmup));
  await page.getByTestId('draws-input').fill(String(draws));
  if (seed !== undefined) {
    // Open the advanced settings idempotently: a click on the summary
    // toggles, so it would close a panel that is already open (seen once
    // under load in CI: seed-input never became visible).
    await page.locator('details.advanced').evaluate((d) => { d.open = true; });
    await page.getByTestId('seed-input').fill(String(seed));
  }
}

/** Waits until the Run button is enabled (the plan is made). */
export async function readyToRun(page, timeout = 10000) {
  await page.waitForFunction(() => !document.querySelector('[data-testid="run-button"]').disabled, null, { timeout });
}

/** Clicks run and waits until the run has ended; returns the final state. */
export async function runToEnd(page, timeout = 120000) {
  await readyToRun(page);
  await page.getByTestId('run-button').click();
  await page.waitForSelector('[data-testid="progress"][data-state="running"]', { timeout: 5000 }).catch(() => {});
  const h = await page.waitForSelector('[data-testid="progress"]:is([data-state="done"],[data-state="cancelled"],[data-state="failed"])', { timeout });
  return h.getAttribute('data-state');
}

/** Clicks an export button and returns the downloaded files' {name, text}. */
export async function downloads(page, testid, count = 1) {
  const got = [];
  const done = new Promise((resolve) => {
    const on = async (d) => {
      got.push({ name: d.suggestedFilename(), text: readFileSync(await d.path(), 'utf8') });
      if (got.length === count) {
        page.off('download', on);
        resolve();
      }
    };
    page.on('download', on);
  });
  await page.getByTestId(testid).click();
  await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`${testid}: ${got.length} of ${count} downloads`)), 15000))]);
  return got.sort((a, b) => a.name.localeCompare(b.name));
}

/** Summary table rows as arrays of cell texts (body rows only). */
export async function summaryRows(page) {
  return page.getByTestId('summary-table').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
}
