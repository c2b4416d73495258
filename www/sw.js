// KnobLab's service worker: the page works offline after one visit.
//
// One cache per release, named after the build's version (a hash of every
// built file, written here by scripts/release.py, Trunk's post_build hook):
// installing a release fills its own cache with the app shell and the
// library's index; activating it deletes the caches of every other release
// of this same copy (same scope), so a visitor never runs a mix of two.
// The page's chunks (the Agent, Score and Leaderboard pages' code, the
// scorers that the Score page's workers run, the generator that the device
// drawer runs and the leaderboard that its worker runs: no route needs them
// before it is usable) are kept after that, in the background, when the page asks
// (www/offline.js, once it runs), so that a dropped file scores offline
// after one visit. The files under data/ that the page fetches later (an
// opened device's bundle, the generator's font, a shipped sample) go into
// the same cache when first fetched: one who opened a device plays it
// offline. Other requests (a model's endpoint, a bundle from another site)
// are left alone.
//
// Registered by www/offline.js with the scope of the page's own folder, so
// copies of KnobLab at two paths of one host keep apart.

const VERSION = '{{KNOBLAB_VERSION}}';
// Paths relative to the scope: './' is the page itself.
const PRECACHE = ['{{KNOBLAB_PRECACHE}}'];
// Kept in the background after the install (the page's chunks).
const BACKGROUND = ['{{KNOBLAB_BACKGROUND}}'];
const SCOPE = new URL(self.registration.scope);
const PREFIX = `knoblab ${SCOPE.pathname} `;
const CACHE = PREFIX + VERSION;
// Kept when first fetched: the device library and the shipped samples.
const RUNTIME = 'data/';

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // The HTTP cache may answer (a revalidation costs a few hundred bytes),
    // so the files the page just loaded are not downloaded twice.
    await cache.addAll(PRECACHE.map((path) => new URL(path, SCOPE).href));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    // The page that registered this worker is controlled at once, so the
    // devices it opens from now on are kept too. It reloads itself when a
    // new release takes over (www/offline.js), never running two at once.
    await self.clients.claim();
  })());
});

self.addEventListener('message', (event) => {
  if (event.data === 'version') event.source?.postMessage({ knoblabVersion: VERSION, cache: CACHE });
  if (event.data === 'background') event.waitUntil(keepBackground());
  // The page names the files of a device it opened: kept if they are not yet.
  if (Array.isArray(event.data?.keep)) event.waitUntil(keep(event.data.keep));
});

/** Keeps each URL under data/ that the cache does not hold yet. */
async function keep(urls) {
  const cache = await caches.open(CACHE);
  for (const href of urls) {
    const url = new URL(href);
    const path = inScope(url);
    if (path === null || !path.startsWith(RUNTIME) || await cache.match(url.href)) continue;
    try {
      const response = await fetch(url.href);
      if (response.ok && response.status === 200) await cache.put(url.href, response);
    } catch {
      // Offline again: it is kept the next time it is fetched.
    }
  }
}

// Files being fetched into the cache, by URL: a second request for one
// waits for the first instead of downloading it again.
const pending = new Map();

/** Fetches `href` into the cache, once at a time. */
function fetchInto(cache, href, request) {
  if (!pending.has(href)) {
    const done = (async () => {
      const response = await fetch(request);
      if (response.ok && response.status === 200 && response.type === 'basic') {
        await cache.put(href, response.clone());
      }
      return response;
    })();
    pending.set(href, done);
    done.finally(() => pending.delete(href)).catch(() => {});
  }
  return pending.get(href);
}

/** Keeps the modules of BACKGROUND that the cache does not hold yet. */
async function keepBackground() {
  const cache = await caches.open(CACHE);
  for (const path of BACKGROUND) {
    const href = new URL(path, SCOPE).href;
    if (pending.has(href) || await cache.match(href)) continue;
    try {
      await fetchInto(cache, href, href);
    } catch {
      // Offline again: kept the next time the page asks.
    }
  }
}

/** The request's path relative to the scope, or null when outside it. */
function inScope(url) {
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  return url.pathname.slice(SCOPE.pathname.length);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  const path = inScope(url);
  if (path === null) return;
  // The page itself, by any of its names: the cached shell.
  if (request.mode === 'navigate' && (path === '' || path === 'index.html')) {
    event.respondWith(fromCache(new URL('./', SCOPE).href, request));
    return;
  }
  const precached = [PRECACHE, BACKGROUND].some((list) => list.includes(path)) && url.search === '';
  if (!precached && !path.startsWith(RUNTIME)) return;
  event.respondWith(fromCache(request, request));
});

/** What the cache holds for `key`, else the network's answer (kept when it
 * is a whole file; one being fetched already is waited for, not fetched again). */
async function fromCache(key, request) {
  const cache = await caches.open(CACHE);
  const href = typeof key === 'string' ? key : key.url;
  if (pending.has(href)) await pending.get(href).catch(() => null);
  const hit = await cache.match(key);
  if (hit) return hit;
  if (pending.has(href)) return (await pending.get(href)).clone();
  return (await fetchInto(cache, href, request)).clone();
}
