// The Cloudflare Worker (worker/) run locally with `wrangler dev` (workerd,
// offline on 127.0.0.1): every asset's headers equal those of dpmcmc serve
// for the same site and configuration, and the smoke flow works through it
// (the app and the embed page load, the engine is ready, a demo runs, no
// request after ready, no CSP violation).
//
// Needs make build (bin/dpmcmc, build/site), Chromium, and wrangler
// (e2e/deps.sh installs it into worker/node_modules); skipped with a message
// when wrangler is missing. Builds the worker itself (worker/build.sh).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  root, siteDir, freePort, startServe, stopChild, launch, recordedContext, violations, runEmbed, assertNoErrors,
} from './hosting-helpers.mjs';

const wrangler = path.join(root, 'worker', 'node_modules', '.bin', 'wrangler');
const DOCS = 'https://docs.example.org';
// Headers that legitimately differ between two servers or transports.
const TRANSPORT = new Set(['date', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

const skip = !existsSync(wrangler)
  ? `wrangler is not installed (${wrangler}): run e2e/deps.sh (npm ci --prefix worker) to test the worker`
  : !existsSync(path.join(siteDir, 'index.html')) ? `no built site in ${siteDir} (make build)` : false;
if (skip) console.log(`# worker.test.mjs skipped: ${skip}`);

let worker; // wrangler dev child
let workerURL;
let serve;
let browser;

async function waitUp(url, child, log) {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log()}`);
    try {
      const r = await fetch(url, { method: 'HEAD' });
      if (r.status === 200) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`wrangler dev not ready in 60 s:\n${log()}`);
}

before(async () => {
  if (skip) return;
  const b = spawnSync(path.join(root, 'worker', 'build.sh'), { env: { ...process.env, SITE: siteDir }, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`worker/build.sh failed:\n${b.stdout}\n${b.stderr}`);
  console.log(`# ${b.stdout.trim().split('\n').filter((l) => l.includes('bytes gzip')).join('\n# ')}`);
  const port = await freePort();
  let out = '';
  worker = spawn(wrangler, ['dev', '--ip', '127.0.0.1', '--port', String(port), '--var', `FRAME_ANCESTORS:${DOCS}`, '--show-interactive-dev-session=false'], {
    cwd: path.join(root, 'worker'),
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: workerd is stopped with it
  });
  worker.stdout.on('data', (d) => { out += d; });
  worker.stderr.on('data', (d) => { out += d; });
  workerURL = `http://127.0.0.1:${port}/`;
  await waitUp(workerURL, worker, () => out);
  serve = await startServe(['--dir', siteDir, '--frame-ancestors', DOCS]);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await stopChild(serve?.child);
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    try { process.kill(-worker.pid, 'SIGTERM'); } catch { /* gone */ }
    await exited;
  }
});

/** Every file of the site (not the precompressed siblings, not hidden). */
function siteFiles(dir, prefix = '') {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...siteFiles(p, `${prefix}${name}/`));
    else if (!/\.(br|gz)$/.test(name)) out.push(prefix + name);
  }
  return out;
}

function headers(res) {
  const h = {};
  for (const [k, v] of res.headers) if (!TRANSPORT.has(k)) h[k] = v;
  return h;
}

test('the worker sends the same headers as dpmcmc serve, for every asset and encoding', { skip, timeout: 120000 }, async () => {
  const paths = ['', ...siteFiles(siteDir), 'missing.js', 'js/', 'vendor', '.etags'];
  assert.ok(paths.includes('embed.html') && paths.includes('sw.js'), 'site has the embed page and the service worker');
  let compared = 0;
  for (const p of paths) {
    for (const accept of ['identity', 'br, gzip']) {
      const opts = { method: 'HEAD', headers: { 'Accept-Encoding': accept }, redirect: 'manual' };
      const [a, b] = await Promise.all([fetch(serve.url + p, opts), fetch(workerURL + p, opts)]);
      assert.equal(b.status, a.status, `/${p} (${accept}): status`);
      const [ha, hb] = [headers(a), headers(b)];
      if (a.status >= 300) {
        // The platform compresses small error bodies itself (text/plain).
        delete ha['content-encoding'];
        delete hb['content-encoding'];
      }
      assert.deepEqual(hb, ha, `/${p} (${accept}): headers of wrangler dev vs dpmcmc serve`);
      compared++;
    }
  }
  // The worker's bodies are the site's bytes (the runtime compresses them).
  const r = await fetch(`${workerURL}embed.html`, { headers: { 'Accept-Encoding': 'br' } });
  assert.equal(r.headers.get('content-encoding'), 'br');
  assert.match(await r.text(), /<dp-sampler|data-testid="run-button"/);
  console.log(`# ${compared} responses compared`);
});

test('smoke flow through wrangler dev: app and embed page ready, a demo runs, no requests after ready, no CSP violations', { skip, timeout: 150000 }, async () => {
  const { context, rec } = await recordedContext(browser, { serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    await page.goto(workerURL);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 90000 });
    rec.mark();
    await page.waitForTimeout(500);
    assert.deepEqual(rec.since(), [], 'app: requests after ready');
    assert.deepEqual(await violations(page), [], 'app: CSP violations');

    const embed = await context.newPage();
    await embed.goto(`${workerURL}embed.html?demo=gaussian&algorithm=dp-penalty&epsilon=2`);
    await embed.waitForSelector('html[data-ready="true"]', { timeout: 90000 });
    rec.mark();
    const r = await runEmbed(embed.mainFrame());
    assert.equal(r.state, 'done', r.text);
    assert.deepEqual(rec.since(), [], 'embed: requests after ready');
    assert.deepEqual(await violations(embed), [], 'embed: CSP violations');
    const origin = new URL(workerURL).origin;
    assert.deepEqual(rec.requests.filter((q) => new URL(q.url).origin !== origin), [], 'requests to other origins');
    assertNoErrors(rec);
  } finally {
    await context.close();
  }
});
