// Each route loads what it uses (issue #46). The page's module holds no
// scorer and no device generator: those are the workers' own modules
// (knoblab-score-worker_bg.wasm, knoblab-device-worker_bg.wasm), which the
// library and a hand-made device's player never request, a generated
// device's player requests the generator's alone, and the service worker
// keeps in the background (not counted here: it is not the page's).
// Deterministic: which files a route requests, and their sizes on the wire
// (gzipped by e2e/serve.mjs), not how long anything took.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, BASE_URL, DESKTOP } from './support.mjs';
import { deviceOf, fetchJson } from './player-support.mjs';

/** wasm + JS + CSS before the library is usable: at most 0.75 MiB (the
 * issue's goal is 1.0 MiB; 660 KiB when this bound was set). Reached with
 * the scorers, the leaderboard's computation, the generator and the regex
 * engine out of the page's module, the module built for size (the `page`
 * profile: opt-level "z", Leptos's `erase_components`), the library's
 * version file fetched instead of compiled in, and the Agent, Score and
 * Leaderboard pages split off into chunks (scripts/split_page.py;
 * docs/performance.md, "What each route downloads"). This bound fails if
 * any of them comes back. */
const BUDGET = 0.75 * 1024 * 1024;
const SCORER = /knoblab-score-worker/;
const GENERATOR = /knoblab-device-worker/;
/** A chunk of the page's module: `knoblab-page-HASH.NAME.wasm`. */
const CHUNK = /knoblab-page-[0-9a-f]+\.([A-Za-z0-9_]+)\.wasm$/;
const chunks = (requested) => requested.map((u) => CHUNK.exec(new URL(u).pathname)?.[1]).filter(Boolean);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Visits `hash` in a fresh context (an empty cache) until `ready` holds,
 * then until the network is idle. Returns the URLs the page and its
 * workers requested, and the wasm + JS + CSS bytes on the wire (Chromium's
 * encodedDataLength, read from the DevTools protocol) finished by the time
 * the route was ready. */
async function visit(hash, ready) {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const requested = [];
  // The page's and its workers' requests; the service worker's own (its
  // install, its background keeping) are not the route's.
  context.on('request', (r) => { if (!r.serviceWorker()) requested.push(r.url()); });
  const session = await context.newCDPSession(page);
  await session.send('Network.enable');
  const urls = new Map();
  let app = 0;
  const files = [];
  session.on('Network.responseReceived', (e) => urls.set(e.requestId, e.response.url));
  session.on('Network.loadingFinished', (e) => {
    const url = urls.get(e.requestId);
    if (url && /\.(wasm|js|css)$/.test(new URL(url).pathname)) {
      app += e.encodedDataLength;
      files.push(`${new URL(url).pathname.split('/').pop()} ${e.encodedDataLength}`);
    }
  });
  await page.goto(new URL(hash, BASE_URL).href);
  await ready(page);
  const atReady = { app, files: [...files] };
  await page.waitForLoadState('networkidle');
  await context.close();
  return { requested, ...atReady };
}

test('the library is usable after at most 1.0 MiB of wasm + JS + CSS, and loads no scorer or generator', async () => {
  const { requested, app, files } = await visit('#/library', (page) => page.getByTestId('device-card').first().waitFor());
  // The page's own module was counted: the sum is of real files.
  assert.ok(files.some((f) => /^knoblab-page-[0-9a-f]+_bg\.wasm /.test(f)), files.join('\n'));
  assert.ok(app > 100 * 1024, `${app} bytes: the page's module was not counted\n${files.join('\n')}`);
  assert.ok(app <= BUDGET, `${app} bytes of wasm + JS + CSS before the library was usable, over ${BUDGET}:\n${files.join('\n')}`);
  assert.deepEqual(requested.filter((u) => SCORER.test(u) || GENERATOR.test(u)), []);
  assert.deepEqual(chunks(requested), [], "the library loaded another page's chunk");
});

test('the Agent, Score and Leaderboard pages each fetch their own chunk, and only on their route', async () => {
  const routes = [['#/agent', 'agent'], ['#/score', 'score'], ['#/leaderboard', 'leaderboard']];
  const own = {};
  for (const [hash, name] of routes) {
    const { requested } = await visit(hash, (page) => page.getByTestId(`${name}-page`).waitFor());
    own[name] = chunks(requested);
    assert.ok(own[name].includes(`split_${name}_page`), `${hash} fetched ${own[name].join(', ') || 'no chunk'}`);
    for (const [, other] of routes) {
      if (other !== name) assert.ok(!own[name].includes(`split_${other}_page`), `${hash} fetched ${other}'s chunk`);
    }
  }
});

test("a page whose chunk cannot be fetched says so, and shows once it can", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let blocked = true;
  await context.route(/split_score_page\.wasm$/, (route) => (blocked ? route.abort('internetdisconnected') : route.continue()));
  await page.goto(new URL('#/score', BASE_URL).href);
  const missing = page.getByTestId('chunk-missing');
  await missing.waitFor();
  assert.match(await missing.textContent(), /Score page's code could not be downloaded.*Reload/s);
  // The rest of the page still works: the header leads to the library.
  await page.getByTestId('nav-library').click();
  await page.getByTestId('device-card').first().waitFor();
  blocked = false;
  await page.goto(new URL('#/score', BASE_URL).href);
  await page.reload();
  await page.getByTestId('score-page').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test("a hand-made device's player loads no scorer or generator", async () => {
  const kettle = await deviceOf('ElectricKettle');
  const hash = `#/play?bundle=${encodeURIComponent(kettle.entry.id)}&task=${encodeURIComponent(kettle.tasks[0].id)}`;
  const { requested } = await visit(hash, (page) => page.getByTestId('player').waitFor());
  assert.ok(requested.some((u) => /knoblab-page-[0-9a-f]+_bg\.wasm$/.test(u)), 'the page loaded');
  assert.deepEqual(requested.filter((u) => SCORER.test(u) || GENERATOR.test(u)), []);
  assert.deepEqual(chunks(requested), [], "the player loaded another page's chunk");
});

test("a generated device's player loads the generator's module, and no scorer", async () => {
  const id = (await fetchJson('generated.json')).devices[0].id;
  const { requested } = await visit(`#/play?bundle=${encodeURIComponent(id)}`,
    (page) => page.getByTestId('player').waitFor({ timeout: 300_000 }));
  assert.equal(requested.filter((u) => /knoblab-device-worker_bg\.wasm$/.test(u)).length, 1, requested.join('\n'));
  assert.deepEqual(requested.filter((u) => SCORER.test(u)), []);
});
