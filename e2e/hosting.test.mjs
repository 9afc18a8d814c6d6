// Hosting end-to-end tests in headless Chromium, against `dpmcmc serve`:
//   - the example documentation page (docs/embed-example.html, served from
//     another origin) embeds two demos (an iframe and <dp-sampler>); both
//     run, with no request after they are ready and no CSP violation;
//     screenshot e2e/screenshots/embed-example.png (UPDATE_DOCS_IMG=1 also
//     writes docs/img/embed.png);
//   - embed.html is frameable by the configured documentation origin only,
//     the app never;
//   - offline: after a first load, embed.html reloads and runs with the
//     network off (the service worker, site/sw.js), also for two
//     deployments under sub-paths of one origin on a host that redirects
//     x.html to x (as Cloudflare Pages does).
//
// Needs make build (bin/dpmcmc, build/site) and Chromium: node --test e2e/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, copyFileSync, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import {
  root, siteDir, startServe, stopChild, startPages, launch, recordedContext, violations, runEmbed, assertNoErrors,
} from './hosting-helpers.mjs';

const shots = path.join(root, 'e2e', 'screenshots');
let app; // {child, url}
let docs; // {server, url}
let browser;
const pages = {};

before(async () => {
  docs = await startPages(pages);
  const docsOrigin = new URL(docs.url).origin;
  app = await startServe(['--dir', siteDir, '--frame-ancestors', docsOrigin]);
  const appOrigin = new URL(app.url).origin;
  pages['/embed-example.html'] = readFileSync(path.join(root, 'docs', 'embed-example.html'), 'utf8')
    .replaceAll('http://127.0.0.1:8080', appOrigin);
  pages['/frame-app.html'] = `<!doctype html><title>framing</title><iframe src="${app.url}"></iframe><iframe src="${app.url}embed.html?demo=gaussian"></iframe>`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await stopChild(app?.child);
  docs?.server.close();
});

const frameOf = (page, algorithm) => page.frames().find((f) => f.url().includes('embed.html?') && f.url().includes(`algorithm=${algorithm}`));

test('the example documentation page runs two embedded demos, no requests after ready, no CSP violations', { timeout: 150000 }, async () => {
  const { context, rec } = await recordedContext(browser);
  try {
    const page = await context.newPage();
    await page.goto(`${docs.url}embed-example.html`);
    await page.waitForFunction(() => document.querySelectorAll('iframe').length === 2);
    await page.waitForFunction(() => [...document.querySelectorAll('iframe')].every((f) => f.src.includes('embed.html')));
    let banana;
    let gaussian; // (the DP-HMC frame)
    await assert.doesNotReject(async () => {
      for (let i = 0; i < 100 && !(banana && gaussian); i++) {
        banana = frameOf(page, 'auto');
        gaussian = frameOf(page, 'dp-hmc');
        if (!(banana && gaussian)) await page.waitForTimeout(100);
      }
    });
    assert.ok(banana && gaussian, `frames: ${page.frames().map((f) => f.url())}`);
    assert.match(gaussian.url(), /demo=banana/);
    assert.match(gaussian.url(), /epsilon=4/);
    await banana.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    await gaussian.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    rec.mark();
    assert.equal(await banana.locator('[data-testid="algorithm-select"]').inputValue(), 'auto');
    assert.equal(await gaussian.locator('[data-testid="algorithm-select"]').inputValue(), 'dp-hmc');
    assert.equal(await gaussian.locator('[data-testid="epsilon-value"]').textContent(), '4.0');
    // One after the other: on two shared cores, two frames' chains at once
    // (after both frames' start-up plans) once missed the 90 s limit.
    const b = await runEmbed(banana);
    const g = await runEmbed(gaussian);
    assert.equal(b.state, 'done', b.text);
    assert.equal(g.state, 'done', g.text);
    assert.match(b.text, /auto: noise-aware · 1000 \/ 1000 draws · ε = 2/);
    assert.match(g.text, /400 \/ 400 iterations · ε = 4/);
    for (const f of [banana, gaussian]) {
      assert.equal(await f.locator('[data-testid="trace-plot"] canvas').count(), 1);
      assert.equal(await f.locator('[data-testid="pair-plot"] canvas').count(), 1);
    }
    assert.deepEqual(rec.since(), [], 'requests after the demos were ready');
    assert.deepEqual(await violations(page), [], 'CSP violations');
    assertNoErrors(rec);
    const appOrigin = new URL(app.url).origin;
    const docsOrigin = new URL(docs.url).origin;
    const offsite = rec.requests.filter((r) => ![appOrigin, docsOrigin].includes(new URL(r.url).origin));
    assert.deepEqual(offsite, [], 'requests to other origins');
    mkdirSync(shots, { recursive: true });
    await page.setViewportSize({ width: 1000, height: 1150 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, 'embed-example.png'), fullPage: true });
    if (process.env.UPDATE_DOCS_IMG === '1') copyFileSync(path.join(shots, 'embed-example.png'), path.join(root, 'docs', 'img', 'embed.png'));
  } finally {
    await context.close();
  }
});

test('embed.html is frameable by the documentation origin only; the app never', { timeout: 60000 }, async () => {
  const docsOrigin = new URL(docs.url).origin;
  const embed = await fetch(`${app.url}embed.html`);
  assert.match(embed.headers.get('content-security-policy'), new RegExp(`; frame-ancestors ${docsOrigin}$`));
  assert.equal(embed.headers.get('x-frame-options'), null);
  const index = await fetch(app.url);
  assert.match(index.headers.get('content-security-policy'), /; frame-ancestors 'none'$/);
  assert.equal(index.headers.get('x-frame-options'), 'DENY');

  const { context } = await recordedContext(browser, { serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    await page.goto(`${docs.url}frame-app.html`);
    const embedFrame = () => page.frames().find((f) => f.url().includes('embed.html'));
    await page.waitForFunction(() => true);
    for (let i = 0; i < 100 && !embedFrame(); i++) await page.waitForTimeout(100);
    await embedFrame().waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    // The app's frame is blocked: Chromium shows its error page instead.
    const appFrame = page.frames().find((f) => f !== page.mainFrame() && !f.url().includes('embed.html'));
    const blocked = await appFrame.evaluate(() => document.querySelector('[data-testid="status"]') === null).catch(() => true);
    assert.ok(blocked, `the app loaded in a frame: ${appFrame.url()}`);
  } finally {
    await context.close();
  }
});

test('offline: embed.html reloads and runs with the network off after a first load', { timeout: 120000 }, async () => {
  const { context, rec } = await recordedContext(browser);
  try {
    const page = await context.newPage();
    const url = `${app.url}embed.html?demo=gaussian&algorithm=dp-penalty&epsilon=3`;
    await page.goto(url);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.offline), 'ready', 'service worker installed');
    rec.mark();
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    const r = await runEmbed(page.mainFrame());
    assert.equal(r.state, 'done', r.text);
    assert.match(r.text, /800 \/ 800 iterations · ε = 3/);
    // Every request of the reload was answered by the service worker.
    const reached = await page.evaluate(() => performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))
      .map((e) => ({ name: e.name, sw: e.workerStart > 0 })));
    assert.ok(reached.length > 5, `resources: ${JSON.stringify(reached)}`);
    assert.deepEqual(await violations(page), [], 'CSP violations');
    assertNoErrors(rec);
  } finally {
    await context.close();
  }
});

test('offline: the app reloads with the network off after a first load, and runs the demo', { timeout: 120000 }, async () => {
  const { context, rec } = await recordedContext(browser);
  try {
    const page = await context.newPage();
    await page.goto(app.url);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.offline), 'ready', 'service worker installed');
    rec.mark();
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    await page.getByTestId('demo-button').click();
    await page.getByTestId('algorithm-select').selectOption('hmc');
    await page.getByTestId('chains-input').fill('2');
    await page.getByTestId('run-button').click();
    await page.waitForSelector('[data-testid="summary-table"] tbody tr', { timeout: 90000 });
    assert.deepEqual(await violations(page), [], 'CSP violations');
    assertNoErrors(rec);
  } finally {
    await context.close();
  }
});

/**
 * A static host that serves the site under /a/ and /b/ and drops ".html" as
 * Cloudflare Pages does: x.html answers 308 to x, x serves x.html, and
 * index.html answers 308 to its directory.
 */
function startPrettyHost() {
  const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.csv': 'text/csv', '.wasm': 'application/wasm' };
  const server = createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const m = /^\/(a|b)(\/.*)$/.exec(decodeURIComponent(u.pathname));
    if (!m) return res.writeHead(404).end();
    const [, site, p] = m;
    if (p.endsWith('.html')) {
      res.writeHead(308, { Location: `/${site}${p.endsWith('/index.html') ? p.slice(0, -10) : p.slice(0, -5)}${u.search}` }).end();
      return;
    }
    let f = path.join(siteDir, p);
    if (p.endsWith('/')) f = path.join(f, 'index.html');
    else if (!path.extname(p) && existsSync(`${f}.html`)) f += '.html';
    if (!f.startsWith(siteDir) || !existsSync(f) || statSync(f).isDirectory()) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': types[path.extname(f)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' }).end(readFileSync(f));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

test('offline: two deployments under sub-paths of one origin, on a host that drops ".html", both reload with the network off', { timeout: 150000 }, async () => {
  const host = await startPrettyHost();
  const { context, rec } = await recordedContext(browser);
  try {
    const page = await context.newPage();
    for (const site of ['a', 'b']) {
      await page.goto(`${host.url}/${site}/embed.html?demo=gaussian&algorithm=dp-penalty`);
      assert.equal(new URL(page.url()).pathname, `/${site}/embed`, 'the host dropped .html');
      await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
      assert.equal(await page.evaluate(() => document.documentElement.dataset.offline), 'ready', `/${site}/: service worker installed`);
    }
    // One cache per deployment: installing /b/ kept /a/'s.
    const names = await page.evaluate(async () => (await caches.keys()).sort());
    assert.equal(names.length, 2, `caches: ${names}`);
    await context.setOffline(true);
    for (const u of ['/a/embed?demo=gaussian&algorithm=dp-penalty', '/a/embed.html?demo=gaussian', '/b/embed?demo=gaussian', '/a/', '/b/']) {
      await page.goto(`${host.url}${u}`);
      await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    }
    await page.goto(`${host.url}/a/embed?demo=gaussian&algorithm=dp-penalty&epsilon=3`);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 60000 });
    const r = await runEmbed(page.mainFrame());
    assert.equal(r.state, 'done', r.text);
    assert.deepEqual(await violations(page), [], 'CSP violations');
    assertNoErrors(rec);
  } finally {
    await context.close();
    host.server.close();
  }
});
