// One build at any path, embedded from another site, offline after one
// visit (issue #46). scripts/dev.sh e2e serves dist/ under a nested
// sub-path (e2e/serve.mjs: BASE_URL such as http://127.0.0.1:PORT/a/b/c/,
// nothing at the host's root) and a second origin (HOST_URL) for a project
// page that frames it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, until, BASE_URL, SHOTS, DESKTOP } from './support.mjs';
import { deviceOf, fetchJson, optimal } from './player-support.mjs';

const HOST_URL = process.env.HOST_URL;
const ROOT = new URL('..', import.meta.url).pathname;
const OFFICIAL = join(ROOT, 'tests/fixtures/official');
const base = new URL(BASE_URL);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A fresh context's page that records every failed request, every answer
 * of 400 or more, every request outside the copy's folder and every
 * console error or uncaught exception. */
async function watchedPage(contextOptions = {}) {
  const context = await browser.newContext({ viewport: DESKTOP, ...contextOptions });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  page.on('request', (r) => requests.push(r.url()));
  return { context, page, problems, requests };
}

/** Same-origin requests that left the copy's folder (a URL built from the host's root). */
const outside = (requests) => requests.filter((u) => {
  const url = new URL(u);
  return url.origin === base.origin && !url.pathname.startsWith(base.pathname);
});

const handMade = await deviceOf('ElectricKettle');
const generatedId = (await fetchJson('generated.json')).devices[0].id;

test('the copy is served under a nested sub-path, and nothing at the host root', async () => {
  assert.notEqual(base.pathname, '/', 'BASE_URL must name a sub-path (scripts/dev.sh e2e serves /a/b/c/)');
  const root = await fetch(new URL('/index.html', base));
  assert.equal(root.status, 404);
});

/** Each route by deep link, and what shows that it rendered. */
const ROUTES = [
  ['library', '#/library', 'device-card'],
  ['play a hand-made device', `#/play?bundle=${encodeURIComponent(handMade.entry.id)}&task=${encodeURIComponent(handMade.tasks[0].id)}`, 'player'],
  ['play a generated device', `#/play?bundle=${encodeURIComponent(generatedId)}`, 'player'],
  ['score', '#/score', 'drop-zone'],
  ['agent', '#/agent', 'brand'],
  ['about', '#/about', 'offline-status'],
  ['embed', `#/embed?bundle=${encodeURIComponent(handMade.entry.id)}&task=${encodeURIComponent(handMade.tasks[0].id)}`, 'player'],
];

for (const [name, hash, shown] of ROUTES) {
  test(`deep link under ${base.pathname}: ${name}`, async () => {
    const { context, page, problems, requests } = await watchedPage();
    await page.goto(new URL(hash, BASE_URL).href);
    await page.getByTestId(shown).first().waitFor({ timeout: 120_000 });
    await page.waitForLoadState('networkidle');
    if (name === 'library') await page.screenshot({ path: `${SHOTS}deploy-library-subpath.png` });
    assert.deepEqual(outside(requests), []);
    assert.ok(requests.some((u) => u.endsWith('.wasm')), 'the page loaded its wasm');
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('a shared episode link under the sub-path replays the episode', async () => {
  const { context, page, problems, requests } = await watchedPage();
  const task = handMade.tasks[0].id;
  await page.goto(new URL(`#/play?bundle=${encodeURIComponent(handMade.entry.id)}&task=${encodeURIComponent(task)}`, BASE_URL).href);
  await page.getByTestId('player').waitFor();
  const path = await optimal(page, task);
  for (const step of path) await page.evaluate((a) => window.knoblab.step(a), step.action);
  await page.getByTestId('end-panel').waitFor();
  const link = await page.getByTestId('share-link').inputValue();
  assert.ok(link.startsWith(BASE_URL), `the share link ${link} is under ${BASE_URL}`);
  const log = await page.getByTestId('feedback-log').textContent();
  await context.close();

  const fresh = await watchedPage();
  await fresh.page.goto(link);
  await fresh.page.getByTestId('end-panel').waitFor();
  assert.equal(await fresh.page.getByTestId('feedback-log').textContent(), log);
  assert.deepEqual(outside([...requests, ...fresh.requests]), []);
  assert.deepEqual([...problems, ...fresh.problems], []);
  await fresh.context.close();
});

test('a project page on another origin frames the player and drives it through postMessage', async () => {
  assert.ok(HOST_URL, 'HOST_URL (a second origin serving e2e/host/) is set by scripts/dev.sh e2e');
  assert.notEqual(new URL(HOST_URL).origin, base.origin);
  const { context, page, problems, requests } = await watchedPage();
  const task = handMade.tasks[0].id;
  const src = new URL(`#/embed?bundle=${encodeURIComponent(handMade.entry.id)}&task=${encodeURIComponent(task)}`, BASE_URL).href;
  await page.goto(`${new URL('embed.html', HOST_URL).href}?knoblab=${encodeURIComponent(src)}`);
  await page.waitForFunction(() => window.received.some((m) => m.type === 'ready'), null, { timeout: 60_000 });
  const ready = await page.evaluate(() => window.received.find((m) => m.type === 'ready'));
  assert.equal(ready.task, task);
  const frame = page.frames().find((f) => f.url().startsWith(base.origin));
  assert.ok(frame, 'the KnobLab frame');
  const path = await frame.evaluate((t) => window.knoblab.optimal(t), task);
  assert.ok(path.length > 0);
  for (const step of path) await page.evaluate((a) => window.act(a), step.action);
  await page.waitForFunction(() => window.received.some((m) => m.type === 'end'));
  const end = await page.evaluate(() => window.received.find((m) => m.type === 'end'));
  assert.equal(end.metrics.sr, 1);
  assert.equal(end.steps, path.length);
  assert.equal((await page.evaluate(() => window.received.filter((m) => m.type === 'step'))).length, path.length);
  await page.screenshot({ path: `${SHOTS}deploy-embed-cross-origin.png` });
  assert.deepEqual(outside(requests), []);
  assert.deepEqual(problems, []);
  await context.close();
});

/** Waits until a service worker controls the page and has finished installing. */
async function controlled(page) {
  await until(page, async () => {
    const r = await navigator.serviceWorker.getRegistration();
    return Boolean(navigator.serviceWorker.controller && r?.active?.state === 'activated');
  }, null, 'a service worker to control the page');
}

/** Waits until the cache holds every URL of `urls`. */
const allCached = (page, urls) => until(page, async (list) => {
  for (const u of list) if (!(await caches.match(u))) return false;
  return true;
}, urls, `the cache to hold ${urls.join(', ')}`);

test('after one visit the page works offline: a reload, opened devices (hand-made and generated), a dropped results file', async () => {
  const { context, page, problems } = await watchedPage();
  const task = handMade.tasks[0].id;
  const play = new URL(`#/play?bundle=${encodeURIComponent(handMade.entry.id)}&task=${encodeURIComponent(task)}`, BASE_URL).href;
  await page.goto(new URL('#/library', BASE_URL).href);
  await page.getByTestId('device-card').first().waitFor();
  await controlled(page);
  // The device is opened once, online, while the service worker controls the page.
  await page.goto(play);
  await page.getByTestId('player').waitFor();
  // The page asks the service worker to keep the device's files: all of
  // them are in this release's cache before the network goes.
  const files = handMade.entry.files.map((f) => new URL(`data/${handMade.entry.path}/${f}`, BASE_URL).href);
  await allCached(page, files);
  // The scorers' chunks (run by the Score page's workers), the generator's
  // (run by the device drawer) and the leaderboard's (run by its worker),
  // which no route visited here loaded, are kept in the background after
  // the install.
  const kept = (names) => names.map((f) => new URL(f, BASE_URL).href);
  const chunksOf = (meta) => page.evaluate((name) => document.querySelector(`meta[name="${name}"]`)
    .content.split(' ').map((u) => new URL(u, document.baseURI).href), meta);
  const scorers = await chunksOf('knoblab-score-chunks');
  assert.ok(scorers.some((u) => /\.split_score_job\.wasm$/.test(u)), scorers.join('\n'));
  const generator = await chunksOf('knoblab-device-chunks');
  assert.ok(generator.some((u) => /\.split_draw_device\.wasm$/.test(u)), generator.join('\n'));
  const board = await chunksOf('knoblab-board-chunks');
  assert.ok(board.some((u) => /\.split_board\.wasm$/.test(u)), board.join('\n'));
  await allCached(page, [...scorers, ...generator, ...board]);
  // A generated device opened once, online (drawn in the device worker):
  // the generator's font is kept as it is fetched.
  await page.evaluate((id) => window.knoblab.load(id), generatedId);
  await allCached(page, kept(['data/gen/fonts/DejaVuSansCondensed-Bold.ttf']));

  await context.setOffline(true);
  assert.equal(await page.evaluate(() => navigator.onLine), false, 'the network is off');
  await page.goto(play);
  await page.reload();
  await page.getByTestId('player').waitFor({ timeout: 60_000 });
  const path = await optimal(page, task);
  for (const step of path) await page.evaluate((a) => window.knoblab.step(a), step.action);
  await page.getByTestId('end-panel').waitFor();
  assert.equal(await page.evaluate(() => window.knoblab.trajectory().terminated), true);

  // The generated device opened online is drawn again offline.
  await page.goto(new URL(`#/play?bundle=${encodeURIComponent(generatedId)}`, BASE_URL).href);
  await page.getByTestId('player').waitFor({ timeout: 300_000 });
  const generatedTask = await page.evaluate(() => window.knoblab.tasks()[0].id);
  const generatedPath = await optimal(page, generatedTask);
  await page.evaluate(({ task, path }) => {
    window.knoblab.reset(task);
    for (const step of path) window.knoblab.step(step.action);
  }, { task: generatedTask, path: generatedPath });
  assert.equal(await page.evaluate(() => window.knoblab.trajectory().terminated), true);

  // The Score page, reached by its own deep link while offline, scores a
  // dropped EPIC-Bench results file with its ground truth.
  await page.goto(new URL('#/score', BASE_URL).href);
  await page.getByTestId('drop-zone').waitFor();
  await page.getByTestId('folder-input').setInputFiles(join(OFFICIAL, 'epic/dataset'));
  await page.getByTestId('folder-input').setInputFiles(join(OFFICIAL, 'epic/raw/Custom'));
  await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
  const report = page.getByTestId('score-report');
  assert.equal(await report.count(), 1);
  assert.match(await report.getByTestId('report-detected').textContent(), /^detected: EPIC-Bench raw outputs, 184 samples$/);
  await page.screenshot({ path: `${SHOTS}deploy-offline-score.png` });

  // The About page says which release is kept; clearing it unregisters the worker.
  await page.goto(new URL('#/about', BASE_URL).href);
  const release = (await page.getByTestId('release').textContent()).trim();
  assert.match(release, /^[0-9a-f]{12}$/);
  await page.getByTestId('offline-status').filter({ hasText: `release ${release}` }).waitFor();
  await page.screenshot({ path: `${SHOTS}deploy-about-version.png` });
  await page.getByTestId('offline-clear').click();
  await page.getByTestId('offline-cleared').waitFor();
  assert.match(await page.getByTestId('offline-cleared').textContent(), /^Cleared: 1 cache\(s\) deleted/);
  assert.equal(await page.evaluate(async () => (await caches.keys()).length), 0);
  assert.equal(await page.evaluate(async () => Boolean(await navigator.serviceWorker.getRegistration())), false);
  assert.deepEqual(problems, []);
  await context.close();
});
