// The page's side of working offline (imported by the wasm module: see
// src/browser/offline.rs). Registers www/sw.js beside the page with the
// page's folder as its scope, reloads the page when a new release takes
// over (so one page never runs two releases), and lets the About page say
// which release runs and clear the offline copy.

let registering = null;

/** Registers the service worker; resolves to null, or why it could not be. */
export function knoblab_offline_register() {
  if (!('serviceWorker' in navigator)) return Promise.resolve('this browser has no service workers (or the page is not served over HTTPS or from localhost)');
  if (registering) return registering;
  const hadController = Boolean(navigator.serviceWorker.controller);
  let reloading = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    // A first visit's worker taking control is no new release.
    if (!hadController || reloading) return;
    reloading = true;
    location.reload();
  });
  registering = navigator.serviceWorker
    .register(new URL('sw.js', document.baseURI), { scope: './', updateViaCache: 'none' })
    .then(() => null, (e) => String(e && e.message ? e.message : e));
  // Once a release is installed and active (its shell kept), it keeps the
  // Leaderboard's module and the page's chunks (the scorers among them) in the background: no route waits for them.
  navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage('background'));
  return registering;
}

/** Asks the service worker to keep these files (URLs relative to the
 * page) when it does not already: the files of a device just opened, which
 * the worker may not have seen go by (a request made while it was starting). */
export function knoblab_offline_keep(urls) {
  const worker = 'serviceWorker' in navigator ? navigator.serviceWorker.controller : null;
  if (worker) worker.postMessage({ keep: urls.map((u) => new URL(u, document.baseURI).href) });
}

/** The offline copy: `{state, version}`, state one of `active`, `installing`, `none`. */
export async function knoblab_offline_status() {
  if (!('serviceWorker' in navigator)) return { state: 'unsupported', version: '' };
  const registration = await navigator.serviceWorker.getRegistration(new URL('./', document.baseURI).href);
  if (!registration) return { state: 'none', version: '' };
  const worker = registration.active;
  if (!worker) return { state: 'installing', version: '' };
  const version = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(''), 2000);
    // The worker answers this page (the message's source).
    const hear = (e) => {
      if (e.data?.knoblabVersion === undefined) return;
      clearTimeout(timer);
      navigator.serviceWorker.removeEventListener('message', hear);
      resolve(e.data.knoblabVersion);
    };
    navigator.serviceWorker.addEventListener('message', hear);
    worker.postMessage('version');
  });
  return { state: 'active', version };
}

/** Deletes this copy's caches and unregisters its service worker; resolves to how many caches went. */
export async function knoblab_offline_clear() {
  let removed = 0;
  if ('serviceWorker' in navigator) {
    const registration = await navigator.serviceWorker.getRegistration(new URL('./', document.baseURI).href);
    if (registration) await registration.unregister();
  }
  if ('caches' in self) {
    const prefix = `knoblab ${new URL('./', document.baseURI).pathname} `;
    for (const name of await caches.keys()) {
      if (name.startsWith(prefix) && await caches.delete(name)) removed += 1;
    }
  }
  return removed;
}
