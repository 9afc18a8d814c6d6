// The service worker: the app works offline after its first load.
//
// While it installs, it caches every asset of this build (the list below
// is filled in by server/sitebuild: content-hashed names, so a new build is
// a new list, a new cache and a new service worker). Then:
//   - page loads (navigations) go to the network first, so a new build is
//     seen at once, and fall back to the cached page when offline;
//   - every other request of this origin is answered from the cache
//     (hashed names never change content), else from the network.
// It never touches other origins. Its policy (the Content-Security-Policy
// served with this file) allows it to fetch this origin only.

const ASSETS = [/* sitebuild:assets */];

function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

// Cache Storage is shared by the whole origin: the cache's name carries
// this deployment's scope, so that two deployments under different paths
// of one origin (/v1/, /v2/) never delete each other's cache.
const PREFIX = `dpmcmc-${hash(self.registration.scope)}-`;
const CACHE = PREFIX + hash(ASSETS.join('\n'));
// Caches of builds before the scope was in the name: dpmcmc-<8 hex>.
const LEGACY = /^dpmcmc-[0-9a-f]{8}$/;

/**
 * A response fit to answer a page load: a host that redirects x.html to x
 * (Cloudflare Pages does) gives a response marked redirected, which the
 * browser refuses for a navigation; its body and headers are copied into
 * a fresh response.
 */
async function storable(res) {
  if (!res.redirected) return res;
  return new Response(await res.blob(), { status: res.status, statusText: res.statusText, headers: res.headers });
}

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await Promise.all(ASSETS.map(async (a) => {
      const res = await fetch(a);
      if (!res.ok) throw new Error(`${a}: HTTP ${res.status}`);
      await cache.put(a, await storable(res));
    }));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      else if (LEGACY.test(name)) {
        // A scope-less cache is this deployment's only if its assets are
        // under this scope (another deployment's old worker still uses its own).
        const first = (await (await caches.open(name)).keys())[0];
        if (first?.url.startsWith(self.registration.scope)) await caches.delete(name);
      }
    }
    await self.clients.claim();
  })());
});

/** The cache key of a request: its path, with directories mapped to index.html. */
function key(url) {
  const u = new URL(url);
  if (u.pathname.endsWith('/')) u.pathname += 'index.html';
  u.search = '';
  u.hash = '';
  return u.href;
}

/**
 * The cached response for a request, also for the extension-less address a
 * host that drops ".html" shows (/embed for embed.html).
 */
async function fromCache(request) {
  const cache = await caches.open(CACHE);
  const k = key(request.url);
  const hit = await cache.match(k, { ignoreVary: true });
  if (hit || /\.[^/]*$/.test(new URL(k).pathname)) return hit;
  return cache.match(`${k}.html`, { ignoreVary: true });
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(fetch(request).catch(async (err) => (await fromCache(request)) ?? Promise.reject(err)));
    return;
  }
  event.respondWith((async () => (await fromCache(request)) ?? fetch(request))());
});
