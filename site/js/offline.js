// Offline support: registers the service worker (/sw.js), which caches the
// app's own assets while it installs and then serves them when the network
// is gone. Call registerOffline() during start-up and wait for it before
// reporting the page ready: the service worker's install step fetches the
// assets (the only requests it ever makes, all to this origin, all before
// "ready"), so that no request happens after the page is ready.
//
// The page's policy (connect-src 'none') still forbids the page and its
// workers any connection; the service worker's own policy (served with
// sw.js) allows it to fetch this origin's assets only (connect-src 'self').

/**
 * Registers the service worker and resolves once it is active: 'ready',
 * 'unsupported' (no service workers: e.g. a private window, or blocked by
 * the browser) or 'failed: reason'. It never rejects.
 */
export async function registerOffline() {
  if (!('serviceWorker' in navigator)) return 'unsupported';
  try {
    const reg = await navigator.serviceWorker.register(new URL('../sw.js', import.meta.url));
    const sw = reg.installing ?? reg.waiting ?? reg.active;
    if (!sw) return 'failed: no worker';
    if (sw.state !== 'activated') {
      await new Promise((resolve) => {
        const check = () => {
          if (sw.state === 'activated' || sw.state === 'redundant') {
            sw.removeEventListener('statechange', check);
            resolve();
          }
        };
        sw.addEventListener('statechange', check);
        check();
      });
    }
    return sw.state === 'activated' ? 'ready' : 'failed: install failed';
  } catch (err) {
    return `failed: ${err?.message ?? err}`;
  }
}
