// The library page at the library's scale: 968 devices (52 described by
// hand, 916 generated) in 26 categories, with their counts, the search and
// the pages; the first load's bytes, requests and time; a generated
// device's card drawn on demand, then the device drawn when it is opened
// and played in static and live modes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, gotoRoute, SHOTS, DESKTOP, PHONE } from './support.mjs';
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
  const pictures = resources.filter((r) => /\/data\/devices\//.test(r.name));
  assert.ok(pictures.length > 0 && pictures.length <= onPage.length, `${pictures.length} device files fetched`);
  for (const p of pictures) {
    const m = new URL(p.name).pathname.match(/\/data\/devices\/([^/]+)\/(.+)$/);
    assert.ok(onPage.includes(m[1]) && m[2] === 'views/front.png', p.name);
  }
  await page.screenshot({ path: `${SHOTS}library-desktop.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test('search and pages narrow the 968 cards; a generated card draws its front view', async () => {
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
  // Its front view is drawn in the page, on demand.
  await card.locator('img[data-testid="thumbnail"]').waitFor({ timeout: 60_000 });
  assert.match(await card.locator('img').getAttribute('src'), /^data:image\/png;base64,/);

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

for (const mode of ['static', 'live']) {
  test(`a generated device opens from its card, is drawn, and plays in ${mode} mode`, async () => {
    const { page, errors } = await openPage(browser, DESKTOP);
    const drew = [];
    page.on('console', (m) => { if (/drew the device/.test(m.text())) drew.push(m.text()); });
    // The status line is up while the main thread draws, when the test
    // cannot look: a mutation observer notes it the moment it appears.
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const status = document.querySelector('[data-testid="loading"]');
        if (status && /Drawing the device/.test(status.textContent)) window.sawDrawing = status.textContent;
      }).observe(document, { childList: true, subtree: true, characterData: true });
    });
    const id = 'microwave-g0003';
    const entry = devices.find((d) => d.id === id);
    await gotoRoute(page, `#/play?bundle=${id}&render=${mode}`);
    await page.getByTestId('player').waitFor({ timeout: 120_000 });
    assert.match(await page.evaluate(() => window.sawDrawing), new RegExp(`Drawing the device ${id}`));
    console.log(drew.join('\n'));
    assert.equal(drew.length, 1);
    assert.equal(await page.locator('.stage').getAttribute('data-render'), mode);
    const task = await page.evaluate(() => window.knoblab.trajectory().task_id);
    assert.ok(entry.single + entry.multi > 0);
    const path = await optimal(page, task);
    const step = path.find((s) => !s.action.startsWith('Switch_view')) ?? path[0];
    for (const s of path.slice(0, path.indexOf(step))) await actByClicking(page, s.action);
    await actByClicking(page, step.action);
    const feedback = page.getByTestId('feedback-entry').first();
    assert.ok((await feedback.textContent()).trim().length > 0);
    if (mode === 'static') await page.screenshot({ path: `${SHOTS}library-generated-playing.png` });
    else await page.screenshot({ path: `${SHOTS}library-generated-live.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
