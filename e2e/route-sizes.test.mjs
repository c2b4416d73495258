// Each route loads what it uses (issue #46). The page's main module holds
// no scorer and no device generator: the scorers are chunks of it that only
// the Score page's workers run (split_score_job with EPIC-Bench's, and one
// chunk for each other benchmark's: split_score_finestate, split_score_switch,
// split_score_trajectories), the generator a chunk that the device drawer
// runs (split_draw_device; the Score and Leaderboard workers fetch it only
// for a file played on a generated device: e2e/score.test.mjs), and the
// leaderboard's computation one that only the Leaderboard's worker runs
// (split_board). The library and a
// hand-made device's player request none of them, a generated device's
// player the generator's alone; the service worker keeps them in the background (not counted
// here: it is not the page's). Deterministic: which files a route
// requests, and their sizes on the wire (gzipped by e2e/serve.mjs), not how
// long anything took.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, BASE_URL, DESKTOP } from './support.mjs';
import { deviceOf, fetchJson } from './player-support.mjs';
import { dropEpic, dropFinestate, dropSwitch } from './score-drops.mjs';

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
const SCORER = /\.split_(board|score_(job|finestate|switch|trajectories))\.wasm$/;
const GENERATOR = /\.split_draw_device\.wasm$/;
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

/** What the server sent since `__bytes/reset`, by its counters
 * (e2e/serve.mjs): the wasm + JS + CSS files, their sum and a listing. */
async function codeSent() {
  const sent = await (await fetch(new URL('__bytes', new URL('/', BASE_URL)))).json();
  const code = Object.entries(sent.files).filter(([path]) => /\.(wasm|js|css)$/.test(path));
  const total = code.reduce((sum, [, bytes]) => sum + bytes, 0);
  return { code, total, listing: code.map(([path, bytes]) => `${path} ${bytes}`).join('\n') };
}

/** The bound for every route: the 1.27 MiB the whole page weighed
 * before it was split (wasm + JS + CSS, gzipped). A generated device's
 * route: 1,783 KiB when the generator was a module of its own, 1,396 KiB
 * as a chunk of the page's module with resvg's text engine, 1,022 KiB
 * with labels drawn as the font's outlines (scripts/page_sizes.mjs;
 * docs/performance.md, "What each route downloads"). */
const ROUTE_BOUND = 1.27 * 1024 * 1024;

test("a generated device's player loads the generator's chunk once, no scorer, and at most 1.27 MiB", async () => {
  const id = (await fetchJson('generated.json')).devices[0].id;
  // Counted by the server: the device worker's requests are not the page's.
  const context = await browser.newContext({ viewport: DESKTOP, serviceWorkers: 'block' });
  const page = await context.newPage();
  const requested = [];
  context.on('request', (r) => requested.push(r.url()));
  await fetch(new URL('__bytes/reset', new URL('/', BASE_URL)));
  await page.goto(new URL(`#/play?bundle=${encodeURIComponent(id)}`, BASE_URL).href);
  await page.getByTestId('player').waitFor({ timeout: 300_000 });
  const { code, total, listing } = await codeSent();
  await context.close();
  // The generator's chunk was counted, once: the sum is of the real files.
  const generator = code.filter(([path]) => GENERATOR.test(path));
  assert.equal(generator.length, 1, listing);
  assert.equal(requested.filter((u) => GENERATOR.test(u)).length, 1, requested.join('\n'));
  assert.deepEqual(requested.filter((u) => SCORER.test(u)), []);
  assert.ok(total <= ROUTE_BOUND, `${total} bytes of wasm + JS + CSS for a generated device, over ${ROUTE_BOUND}:\n${listing}`);
});

/** The Score page's route with an EPIC-Bench file and its ground truth, as
 * the issue's table measures it: what the page and its workers download
 * until the report shows, read from the server's counters (e2e/serve.mjs),
 * since a page's DevTools protocol does not see its workers' requests.
 * At most the issue's 1.27 MiB of wasm + JS + CSS, as every route (1,156
 * KiB with the scorers' patterns searched by knoblab_score::pattern, 1,266
 * KiB with the `regex` crate's engines; 2,596 KiB when the scorers were a
 * module of their own: docs/performance.md, "What each route downloads").
 * It fails if each worker downloads the job's chunk (0.5 MB more) or the
 * scorers' own module comes back; that no other benchmark's scorer is
 * fetched is checked by name. */
const SCORE_BUDGET = ROUTE_BOUND;

test("the Score page scores an EPIC file with its scorers' chunk fetched once, by the page, for all its workers", async () => {
  const server = new URL('/', BASE_URL);
  const context = await browser.newContext({ viewport: DESKTOP, serviceWorkers: 'block' });
  const page = await context.newPage();
  const requested = [];
  context.on('request', (r) => requested.push(r.url()));
  await fetch(new URL('__bytes/reset', server));
  await page.goto(new URL('#/score', BASE_URL).href);
  await page.getByTestId('drop-zone').waitFor();
  await dropEpic(page);
  await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
  const { code, total, listing } = await codeSent();
  await context.close();
  // The scorers' chunk was counted, once: the sum is of the real files.
  const job = code.filter(([path]) => /\.split_score_job\.wasm$/.test(path));
  assert.equal(job.length, 1, listing);
  assert.ok(job[0][1] > 100 * 1024, listing);
  assert.equal(requested.filter((u) => /\.split_score_job\.wasm$/.test(u)).length, 1, requested.join('\n'));
  // No other benchmark's file was dropped: their scorers (and the
  // trajectories' generator) are not downloaded, nor any worker's own module.
  assert.deepEqual(requested.filter((u) => /split_score_(finestate|switch|trajectories)|split_draw_device|split_board/.test(u)), []);
  assert.ok(total <= SCORE_BUDGET, `${total} bytes of wasm + JS + CSS for the Score route, over ${SCORE_BUDGET}:\n${listing}`);
});

/** The Score route with a FineState-Bench or a SWITCH file: the page and
 * its workers download that benchmark's scorer once, no other benchmark's,
 * and at most 1.27 MiB of wasm + JS + CSS in all until the report shows
 * (1,229 and 1,289 KiB measured when this was set; 1,339 and 1,396 KiB
 * with the `regex` crate's engines, which its lazy DFA and literal
 * prefilters made the largest shared chunk of the scorers). */
const OTHER_BENCHMARKS = [['FineState-Bench', 'finestate', dropFinestate], ['SWITCH', 'switch', dropSwitch]];

for (const [benchmark, chunk, drop] of OTHER_BENCHMARKS) {
  test(`the Score page scores a ${benchmark} file with its own scorer's chunk, within 1.27 MiB`, async () => {
    const context = await browser.newContext({ viewport: DESKTOP, serviceWorkers: 'block' });
    const page = await context.newPage();
    const requested = [];
    context.on('request', (r) => requested.push(r.url()));
    await fetch(new URL('__bytes/reset', new URL('/', BASE_URL)));
    await page.goto(new URL('#/score', BASE_URL).href);
    await page.getByTestId('drop-zone').waitFor();
    await drop(page);
    await page.getByTestId('score-report').first().waitFor({ timeout: 120_000 });
    const { code, total, listing } = await codeSent();
    await context.close();
    const own = new RegExp(`\\.split_score_${chunk}\\.wasm$`);
    assert.equal(code.filter(([path]) => own.test(path)).length, 1, listing);
    assert.equal(requested.filter((u) => own.test(u)).length, 1, requested.join('\n'));
    const others = requested.filter((u) => SCORER.test(u) && !own.test(u) && !/split_score_job/.test(u));
    assert.deepEqual(others, [], `a ${benchmark} file fetched another benchmark's scorer`);
    assert.ok(total <= ROUTE_BOUND, `${total} bytes of wasm + JS + CSS for the Score route with a ${benchmark} file, over ${ROUTE_BOUND}:\n${listing}`);
  });
}

test("a Score job whose scorers' chunk cannot be fetched says so, and scores once it can", async () => {
  const context = await browser.newContext({ viewport: DESKTOP, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  let blocked = true;
  await context.route(/\.split_score_job\.wasm$/, (route) => (blocked ? route.abort('internetdisconnected') : route.continue()));
  const drop = async () => {
    await page.getByTestId('drop-zone').waitFor();
    await dropEpic(page);
  };
  await page.goto(new URL('#/score', BASE_URL).href);
  await drop();
  const failed = page.getByTestId('job-error');
  await failed.waitFor({ timeout: 60_000 });
  assert.match(await failed.textContent(), /the scorers' code could not be downloaded.*reload/s);
  blocked = false;
  await page.reload();
  await drop();
  await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
  assert.deepEqual(errors, []);
  await context.close();
});
