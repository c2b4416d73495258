// The library page at the library's scale: 968 devices (52 described by
// hand, 916 generated) in 26 categories, with their counts, the search and
// the pages; the first load's bytes, requests and time; a generated
// device's card, a file of the library (no generator loads to browse),
// then the device drawn when it is opened and played to its goal in static
// and live modes; the page API and embed mode on generated devices.
// Generated devices are drawn in the device worker: the page stays
// responsive meanwhile (no long task of the main thread over LONG_TASK_MS,
// and clicks are handled), and a drawing stops when the page that asked
// for it is left.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, gotoRoute, BASE_URL, SHOTS, DESKTOP, PHONE } from './support.mjs';
import { fetchJson, actByClicking, optimal } from './player-support.mjs';

let browser;
let devices;
before(async () => {
  browser = await launch();
  const [hand, generated] = await Promise.all([fetchJson('library.json'), fetchJson('generated.json')]);
  devices = [
    ...hand.devices.map((d) => ({ ...d, generated: false })),
    ...generated.devices.map((d) => ({ ...d, generated: true })),
  ];
});
after(async () => { await browser?.close(); });

const cardCount = (page) => page.getByTestId('device-card').count();

/** The main thread's longest acceptable task while a device or a card is drawn. */
const LONG_TASK_MS = 200;

/**
 * Before the page loads: every long task of its main thread (over 50 ms,
 * the browser's definition), with when it started, in `window.longTasks`.
 */
async function watchLongTasks(page) {
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** The long tasks that started at or after `since` (the page's clock). */
const longTasksSince = (page, since) =>
  page.evaluate((t) => window.longTasks.filter((l) => l.start + l.ms >= t), since);

test('the first load lists 968 devices by category and fetches only the visible thumbnails', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  const started = Date.now();
  await gotoRoute(page, '#/library');
  await page.getByTestId('device-card').first().waitFor();
  await page.waitForLoadState('networkidle');
  const loadMs = Date.now() - started;
  const resources = await page.evaluate(() => performance.getEntriesByType('resource')
    .map((r) => ({ name: r.name, bytes: r.transferSize })));
  const nav = await page.evaluate(() => performance.getEntriesByType('navigation')[0].transferSize);
  const bytes = resources.reduce((sum, r) => sum + r.bytes, nav);
  console.log(`library first load: ${resources.length + 1} requests, ${(bytes / 1024).toFixed(0)} KiB transferred, ${loadMs} ms to idle`);
  for (const r of resources) console.log(`  ${(r.bytes / 1024).toFixed(1)} KiB ${new URL(r.name).pathname}`);

  assert.equal(devices.length, 968);
  assert.equal(await page.getByTestId('category').count(), 27);
  const all = page.locator('[data-testid="category"][data-category=""]');
  assert.equal(await all.getAttribute('data-count'), '968');
  const expected = {};
  for (const d of devices) expected[d.category] = (expected[d.category] ?? 0) + 1;
  assert.equal(Object.keys(expected).length, 26);
  const shown = await page.locator('[data-testid="category"]:not([data-category=""])').evaluateAll(
    (bs) => Object.fromEntries(bs.map((b) => [b.dataset.category, Number(b.dataset.count)])));
  assert.deepEqual(shown, expected);
  assert.match(await page.getByTestId('device-count').textContent(), /^1–24 of 968 devices/);
  assert.equal(await cardCount(page), 24);

  // Device pictures fetched: only thumbnails of cards on this page (lazy
  // images: those in sight), never a view a card does not show.
  const onPage = await page.getByTestId('device-card').evaluateAll((cs) => cs.map((c) => c.dataset.id));
  const pictures = resources.filter((r) => /\/data\/(devices|generated)\//.test(r.name));
  assert.ok(pictures.length > 0 && pictures.length <= onPage.length, `${pictures.length} device files fetched`);
  for (const p of pictures) {
    const m = new URL(p.name).pathname.match(/\/data\/(?:devices|generated)\/([^/]+)\/(.+)$/);
    assert.ok(onPage.includes(m[1]) && m[2] === 'views/front.png', p.name);
  }
  // No generator: a generated card's picture is a file of the library.
  assert.deepEqual(resources.filter((r) => /device-worker|split_draw_device/.test(r.name)).map((r) => r.name), []);
  await page.screenshot({ path: `${SHOTS}library-desktop.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('search and pages narrow the 968 cards; a generated card shows its front view', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  await gotoRoute(page, '#/library');
  await page.getByTestId('device-card').first().waitFor();

  // Pages: next shows the following 24, the pager says where it is.
  const first = await page.getByTestId('device-card').first().getAttribute('data-id');
  await page.getByTestId('page-next').click();
  assert.equal(await page.getByTestId('page-number').textContent(), `page 2 of ${Math.ceil(968 / 24)}`);
  assert.notEqual(await page.getByTestId('device-card').first().getAttribute('data-id'), first);
  await page.getByTestId('page-previous').click();
  assert.equal(await page.getByTestId('page-number').textContent(), `page 1 of ${Math.ceil(968 / 24)}`);

  // A category, then a search inside it.
  await page.locator('[data-testid="category"][data-category="Microwave"]').click();
  const microwaves = devices.filter((d) => d.category === 'Microwave');
  assert.match(await page.getByTestId('device-count').textContent(), new RegExp(`of ${microwaves.length} devices`));
  await page.getByTestId('search').fill('g0003');
  assert.equal(await cardCount(page), 1);
  const card = page.locator('[data-testid="device-card"][data-id="microwave-g0003"]');
  assert.equal(await card.getAttribute('data-generated'), 'true');
  // Its front view, drawn when the library was made, from the library's files.
  const img = card.locator('img[data-testid="thumbnail"]');
  assert.match(await img.getAttribute('src'), /data\/generated\/microwave-g0003\/views\/front\.png$/);
  await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
  assert.deepEqual(await img.evaluate((i) => [i.naturalWidth, i.naturalHeight]), [320, 240]);

  // A search over all categories, by words of a generated device's name.
  await page.locator('[data-testid="category"][data-category=""]').click();
  await page.getByTestId('search').fill('microwave');
  const matching = devices.filter((d) => `${d.name} ${d.id} ${d.category}`.toLowerCase().includes('microwave')).length;
  assert.match(await page.getByTestId('device-count').textContent(), new RegExp(`of ${matching} devices`));
  await page.screenshot({ path: `${SHOTS}library-search-desktop.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the library at 390 px', async () => {
  const { page, errors } = await openPage(browser, PHONE);
  await gotoRoute(page, '#/library');
  await page.getByTestId('device-card').first().waitFor();
  await page.locator('[data-testid="category"][data-category="Lamp"]').click();
  await page.locator('[data-testid="device-card"][data-generated="true"] img').first().waitFor({ timeout: 60_000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the phone`);
  await page.screenshot({ path: `${SHOTS}library-phone.png`, fullPage: false });
  assert.deepEqual(errors, []);
  await page.close();
});

test('browsing generated cards loads no generator: their front views are files of the library', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  const requested = [];
  page.on('request', (r) => requested.push(r.url()));
  await gotoRoute(page, '#/library');
  await page.getByTestId('device-card').first().waitFor();
  // Lamp: 46 devices, two pages of cards, most of them generated.
  await page.locator('[data-testid="category"][data-category="Lamp"]').click();
  const first = await page.getByTestId('device-card').first().getAttribute('data-id');
  await page.getByTestId('page-next').click();
  await page.getByTestId('page-number').filter({ hasText: /^page 2 of 2$/ }).waitFor();
  assert.notEqual(await page.getByTestId('device-card').first().getAttribute('data-id'), first);
  const generatedCards = page.locator('[data-testid="device-card"][data-generated="true"]');
  const generated = await generatedCards.count();
  assert.ok(generated > 0);
  // Every generated card's picture is its file under data/generated/, loaded.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-generated="true"] img')]
    .every((i) => i.complete && i.naturalWidth > 0), null, { timeout: 60_000 });
  const shown = await generatedCards.evaluateAll((cs) => cs.map((c) => [c.dataset.id, c.querySelector('img').src]));
  for (const [id, src] of shown) assert.match(src, new RegExp(`/data/generated/${id}/views/front\\.png$`));
  // Nothing of the generator was asked for.
  assert.deepEqual(requested.filter((u) => /device-worker|split_draw_device/.test(u)), []);
  console.log(`library: ${generated} generated cards shown from the library's files, no generator loaded`);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const mode of ['static', 'live']) {
  test(`a generated device is drawn in the worker, the page answering meanwhile, and played to its goal in ${mode} mode`, async () => {
    const { page, errors } = await openPage(browser, DESKTOP);
    const drew = [];
    page.on('console', (m) => { if (/drew the device/.test(m.text())) drew.push(m.text()); });
    await watchLongTasks(page);
    // On the page's clock: when the status line appears (the drawing
    // starts), when it goes (the device is drawn and checked), and when the
    // player shows (the episode has started).
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const status = document.querySelector('[data-testid="loading"]');
        if (status && /Drawing the device/.test(status.textContent) && !window.drawingAt) {
          window.sawDrawing = status.textContent;
          window.drawingAt = performance.now();
        }
        if (!status && window.drawingAt && !window.drawnAt) window.drawnAt = performance.now();
        if (document.querySelector('[data-testid="player"]') && !window.playerAt) window.playerAt = performance.now();
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    const id = 'microwave-g0003';
    const entry = devices.find((d) => d.id === id);
    await gotoRoute(page, `#/play?bundle=${id}&render=${mode}`);
    await page.waitForFunction(() => window.sawDrawing);
    assert.match(await page.evaluate(() => window.sawDrawing), new RegExp(`Drawing the device ${id}`));
    // A click on another page's link while the device is drawn is handled
    // at once: the About page shows before the drawing has ended, and
    // leaving the play page stops it (it never reports).
    await page.getByTestId('nav-about').click();
    await page.getByTestId('about').waitFor();
    assert.deepEqual(drew, [], 'the click waited for the drawing');
    // Back on the play page the device is drawn again, from the start.
    await page.evaluate(() => { window.drawingAt = undefined; window.drawnAt = undefined; window.playerAt = undefined; });
    await page.goBack();
    await page.getByTestId('player').waitFor({ timeout: 120_000 });
    await page.waitForFunction(() => window.playerAt && window.drawnAt && window.drawingAt);
    console.log(drew.join('\n'));
    assert.equal(drew.length, 1, 'the drawing of the page that was left reported');
    assert.match(drew[0], new RegExp(`drew the device ${id} in \\d+ ms \\(in the device worker\\)`));
    const [drawingAt, drawnAt, playerAt] = await page.evaluate(() => [window.drawingAt, window.drawnAt, window.playerAt]);
    const long = await longTasksSince(page, drawingAt);
    const whileDrawn = long.filter((l) => l.start < drawnAt);
    console.log(`play (${mode}): ${Math.round(drawnAt - drawingAt)} ms from the status line to the device drawn and checked, ` +
      `${Math.round(playerAt - drawnAt)} ms more to the player; main-thread long tasks: ${JSON.stringify(whileDrawn.map((l) => Math.round(l.ms)))} ` +
      `while drawn, ${JSON.stringify(long.filter((l) => l.start >= drawnAt).map((l) => Math.round(l.ms)))} after`);
    assert.ok(whileDrawn.every((l) => l.ms <= LONG_TASK_MS), `a long task of the main thread: ${JSON.stringify(whileDrawn)}`);
    // A static episode starts with the device's own picture: the whole way
    // to the player stays responsive. (A live one first decodes and composes
    // its picture on the main thread, the live renderer's cost for any device.)
    if (mode === 'static') assert.ok(long.every((l) => l.ms <= LONG_TASK_MS), `a long task of the main thread: ${JSON.stringify(long)}`);

    assert.equal(await page.locator('.stage').getAttribute('data-render'), mode);
    const task = await page.evaluate(() => window.knoblab.trajectory().task_id);
    assert.ok(entry.single + entry.multi > 0);
    // The optimal path, played with the mouse, reaches the task's goal.
    const path = await optimal(page, task);
    assert.ok(path.length > 0);
    for (const s of path) await actByClicking(page, s.action);
    assert.match(await page.getByTestId('goal').textContent(), /^(Goal reached|All \d+ goals reached)$/);
    const trajectory = await page.evaluate(() => window.knoblab.trajectory());
    assert.equal(trajectory.terminated, true);
    assert.equal(trajectory.goals_reached, trajectory.goals_total);
    const feedback = page.getByTestId('feedback-entry').first();
    assert.ok((await feedback.textContent()).trim().length > 0);
    if (mode === 'static') await page.screenshot({ path: `${SHOTS}library-generated-playing.png` });
    else await page.screenshot({ path: `${SHOTS}library-generated-live.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a generated device in embed mode and through window.knoblab is drawn in the worker', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  const drew = [];
  page.on('console', (m) => { if (/drew the device/.test(m.text())) drew.push(m.text()); });
  const [embedded, loaded] = devices.filter((d) => d.generated && d.category === 'Lamp').slice(0, 2);
  // The embed page has no site header (no brand to wait for): the player alone.
  await page.goto(new URL(`#/embed?bundle=${embedded.id}`, BASE_URL).href);
  await page.getByTestId('player').waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('brand').count(), 0);
  assert.equal(await page.evaluate(() => window.knoblab.trajectory().bundle_id), embedded.id);

  // The page API: load a generated id, reset its first task, play the
  // optimal path to the end.
  const device = await page.evaluate((id) => window.knoblab.load(id), loaded.id);
  assert.equal(device.id, loaded.id);
  assert.equal(device.tasks.length, loaded.single + loaded.multi);
  await page.evaluate((t) => window.knoblab.reset(t), device.tasks[0]);
  const path = await optimal(page, device.tasks[0]);
  const steps = await page.evaluate((actions) => actions.map((a) => window.knoblab.step(a)), path.map((s) => s.action));
  assert.equal(steps.at(-1).terminated, true);
  assert.equal(await page.evaluate(() => window.knoblab.metrics().sr), 1);

  console.log(drew.join('\n'));
  assert.equal(drew.length, 2);
  for (const [line, d] of [[drew[0], embedded], [drew[1], loaded]]) {
    assert.match(line, new RegExp(`drew the device ${d.id} in \\d+ ms \\(in the device worker\\)`));
  }
  assert.deepEqual(errors, []);
  await page.close();
});
