// Shared pieces of the hosting tests (hosting.test.mjs, worker.test.mjs):
// servers on free loopback ports, a static server for documentation pages,
// and a recorder of requests, CSP violations and errors in every frame.

import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import assert from 'node:assert/strict';
import { root, bin, chromiumPath, CHROMIUM_ARGS } from './helpers.mjs';
import { chromium } from 'playwright-core';

export { root, bin };
export const siteDir = process.env.DPMCMC_SITE ?? path.join(root, 'build', 'site');

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts `dpmcmc serve` with args; resolves with {child, url}. */
export function startServe(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`dpmcmc serve printed no URL: ${out}`)), 15000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^Serving on (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on('error', reject);
  });
}

/** Stops a child process started by these tests and waits for its exit. */
export async function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(t);
}

/** Serves fixed pages {path: html} on a free port; resolves with {server, url}. */
export function startPages(pages) {
  const server = createServer((req, res) => {
    const body = pages[new URL(req.url, 'http://x').pathname];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

export function launch() {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, chromiumSandbox: false });
}

/**
 * A new context recording every request (pages, frames, workers, service
 * workers), CSP violations in every frame, page errors and console errors.
 */
export async function recordedContext(browser, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...opts });
  const rec = { requests: [], console: [], pageErrors: [] };
  context.on('request', (r) => rec.requests.push({ url: r.url(), type: r.resourceType(), sw: Boolean(r.serviceWorker()) }));
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI });
    });
  });
  context.on('page', (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') rec.console.push(m.text());
    });
    page.on('pageerror', (e) => rec.pageErrors.push(String(e)));
  });
  rec.mark = () => { rec.at = rec.requests.length; };
  rec.since = () => rec.requests.slice(rec.at).filter((r) => !(r.type === 'other' && /favicon/.test(r.url)));
  return { context, rec };
}

/** CSP violations recorded in every frame of page. */
export async function violations(page) {
  const out = [];
  for (const f of page.frames()) {
    out.push(...await f.evaluate(() => window.__cspViolations ?? []).catch(() => []));
  }
  return out;
}

/** Waits until an embed frame is ready, runs its demo to the end, returns the final state. */
export async function runEmbed(frame, timeout = 90000) {
  await frame.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
  await frame.waitForFunction(() => !document.querySelector('[data-testid="run-button"]').disabled, null, { timeout: 10000 });
  await frame.click('[data-testid="run-button"]');
  const h = await frame.waitForSelector('[data-testid="progress"]:is([data-state="done"],[data-state="cancelled"],[data-state="failed"])', { timeout });
  return { state: await h.getAttribute('data-state'), text: await h.textContent() };
}

export function assertNoErrors(rec) {
  assert.deepEqual(rec.pageErrors, [], 'uncaught page errors');
  assert.deepEqual(rec.console, [], 'console errors');
}
