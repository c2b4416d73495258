// The player: the library, solving a kettle task by clicking and by
// keyboard, unlocking a dashboard, running out of budget, a broken bundle,
// window.knoblab, and a share link that replays an episode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, gotoRoute, BASE_URL, SHOTS, DESKTOP, PHONE } from './support.mjs';
import {
  deviceOf, deviceWithDashboard, singleJson, openPlay, optimal, actByClicking, actByKeyboard,
  clickPicture, shownPoint, logLength, fetchJson,
} from './player-support.mjs';

let browser;
let kettle;
let panel;
/** What an episode on a library device records (data/library-version.json). */
let libraryStamp;
before(async () => {
  browser = await launch();
  kettle = await deviceOf('ElectricKettle');
  panel = await deviceWithDashboard();
  const version = await fetchJson('library-version.json');
  libraryStamp = { version: version.version, hash: version.hash };
});
after(async () => { await browser?.close(); });

/** The kettle's first task. */
const firstTask = () => kettle.tasks[0].id;

// The library page at scale (968 cards, counts, paging, generated devices)
// has its own file, library.test.mjs; here, a hand-described card opens.
test('the library finds a hand-described device by category and search, and its card opens it', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/library');
  await page.getByTestId('device-card').first().waitFor();
  await page.locator(`[data-testid="category"][data-category="${kettle.entry.category}"]`).click();
  const categories = await page.getByTestId('device-card').evaluateAll((cs) => cs.map((c) => c.dataset.category));
  assert.ok(categories.length > 0 && categories.every((c) => c === kettle.entry.category));
  await page.getByTestId('search').fill(kettle.entry.id.toUpperCase());
  const card = page.locator(`[data-testid="device-card"][data-id="${kettle.entry.id}"]`);
  assert.equal(await page.getByTestId('device-card').count(), 1);
  assert.match(await card.textContent(), new RegExp(`${kettle.entry.tasks} tasks?`));
  assert.match(await card.textContent(), /ElectricKettle/);
  await page.getByTestId('search').fill('no device is called this');
  assert.equal(await page.getByTestId('device-card').count(), 0);
  assert.match(await page.getByTestId('device-count').textContent(), /^no device matches/);
  await page.getByTestId('search').fill(kettle.entry.id);
  await card.click();
  await page.getByTestId('player').waitFor();
  assert.equal(await page.getByTestId('device-name').textContent(), kettle.entry.name);
  assert.deepEqual(errors, []);
});

test('a kettle task is solved by clicking on the picture, and the end shows metrics beside the optimal path', async () => {
  const { page, errors } = await openPage(browser);
  const task = firstTask();
  await openPlay(page, kettle.entry.id, task);
  const path = await optimal(page, task);
  assert.ok(path.length > 0);
  assert.match(await page.getByTestId('goal').textContent(), /^Goal 1 of \d+$/);
  assert.equal(await page.getByTestId('instruction-text').textContent(), kettle.tasks[0].goals[0].instruction);
  // The pointer's coordinate is shown while it moves over the picture.
  const img = await page.getByTestId('picture-img').boundingBox();
  await page.mouse.move(img.x + img.width / 4, img.y + img.height / 2);
  assert.match(await page.getByTestId('pointer').textContent(), /Pointer \((24\d|25\d), (49\d|50\d)\)/);
  const globalBefore = await page.getByTestId('budget-global').textContent();

  for (const step of path) await actByClicking(page, step.action);

  await page.getByTestId('end-panel').waitFor();
  assert.match(await page.getByTestId('goal').textContent(), /^(Goal reached|All \d+ goals reached)$/);
  const table = await page.getByTestId('end-metrics').textContent();
  assert.match(table, /SR \(success\)100\.0100\.0/);
  assert.match(table, /SPL \(path efficiency\)100\.0100\.0/);
  assert.notEqual(await page.getByTestId('budget-global').textContent(), globalBefore);
  assert.equal(await logLength(page), path.length);
  await page.screenshot({ path: `${SHOTS}player-end-desktop.png`, fullPage: true });

  // The optimal path, step by step on the pictures.
  assert.equal(await page.getByTestId('optimal-position').textContent(), `Step 1 of ${path.length}`);
  assert.equal(await page.getByTestId('optimal-action').textContent(), path[0].action);
  if (path.length > 1) {
    await page.getByTestId('optimal-next').click();
    assert.equal(await page.getByTestId('optimal-action').textContent(), path[1].action);
  }
  // The trajectory as JSON Lines.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-trajectory').click()]);
  assert.match(download.suggestedFilename(), /\.jsonl$/);
  const text = await (await download.createReadStream()).toArray();
  const lines = Buffer.concat(text).toString().trim().split('\n');
  assert.equal(lines.length, 1);
  const line = JSON.parse(lines[0]);
  assert.equal(line.task_id, task);
  assert.equal(line.terminated, true);
  assert.equal(line.steps.length, path.length);
  assert.equal(line.settings.agent, 'human');
  // The page reads the library's version beside its index (it is not in
  // the page's module): a library device's episode records it.
  assert.deepEqual(line.settings.library, libraryStamp);
  assert.deepEqual(errors, []);
});

test('a kettle task is solved with the keyboard only', async () => {
  const { page, errors } = await openPage(browser, PHONE);
  const task = kettle.tasks.at(-1).id;
  await openPlay(page, kettle.entry.id, task);
  const path = await optimal(page, task);
  await page.keyboard.press('?');
  await page.getByTestId('key-help').waitFor();
  await page.screenshot({ path: `${SHOTS}player-keys-phone.png` });
  await page.keyboard.press('?');
  assert.equal(await page.getByTestId('key-help').count(), 0);

  for (const step of path) await actByKeyboard(page, step.action);

  await page.getByTestId('end-panel').waitFor();
  assert.match(await page.getByTestId('goal').textContent(), /^(Goal reached|All \d+ goals reached)$/);
  assert.match(await page.getByTestId('end-metrics').textContent(), /SR \(success\)100\.0/);
  await page.screenshot({ path: `${SHOTS}player-end-phone.png`, fullPage: true });
  assert.deepEqual(errors, []);
});

test('the dashboard is shown locked, and looking closer at its panel unlocks it', async () => {
  const { page, errors } = await openPage(browser);
  const [name, dashboard] = Object.entries(panel.views).find(([, v]) => v.kind === 'dashboard');
  const task = panel.tasks.find((t) => (t.initial_view ?? 'front') === dashboard.parent) ?? panel.tasks[0];
  await openPlay(page, panel.entry.id, task.id);
  if ((await page.locator('[data-testid^="view-"][aria-current="true"]').getAttribute('data-testid')) !== `view-${dashboard.parent}`) {
    await actByClicking(page, `Switch_view(params=[${dashboard.parent}])`);
  }
  const tab = page.getByTestId(`view-${name}`);
  assert.equal(await tab.isDisabled(), true);
  assert.match(await tab.textContent(), /locked/);
  await page.screenshot({ path: `${SHOTS}player-play-desktop.png` });

  // The region's centre, on the parent picture's 0–1000 scale, from views.json and the picture's size.
  const { w, h } = await page.getByTestId('picture-img').evaluate((img) => ({ w: img.naturalWidth, h: img.naturalHeight }));
  const [x, y, rw, rh] = dashboard.region;
  const centre = { x: Math.round(((x + rw / 2) / w) * 1000), y: Math.round(((y + rh / 2) / h) * 1000) };
  await page.getByTestId('tool-look-closer').click();
  await clickPicture(page, centre);
  assert.ok(await shownPoint(page));
  await page.getByTestId('act').click();
  await page.waitForFunction((n) => document.querySelector(`[data-testid="view-${n}"]`)?.getAttribute('aria-current') === 'true', name);
  assert.equal(await tab.isDisabled(), false);
  assert.doesNotMatch(await tab.textContent(), /locked/);
  assert.match(await page.getByTestId('feedback-entry').first().getAttribute('class'), /outcome-unlock/);
  await page.screenshot({ path: `${SHOTS}player-dashboard-desktop.png` });
  assert.deepEqual(errors, []);
});

test('waiting out the budget ends the episode as out of budget; practice reveals parts and undoes', async () => {
  const { page, errors } = await openPage(browser, PHONE);
  const task = firstTask();
  await openPlay(page, kettle.entry.id, task, '&mode=practice');
  await page.getByTestId('reveal').click();
  assert.ok(await page.getByTestId('part-box').count() > 0);
  await page.screenshot({ path: `${SHOTS}player-practice-phone.png`, fullPage: true });
  await page.getByTestId('tool-wait').click();
  await page.getByTestId('act').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="feedback-entry"]').length === 1);
  await page.getByTestId('undo').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="feedback-entry"]').length === 0);

  for (let i = 0; i < 500 && (await page.getByTestId('end-panel').count()) === 0; i += 1) {
    await page.getByTestId('act').click();
  }
  await page.getByTestId('end-panel').waitFor();
  assert.match(await page.getByTestId('goal').textContent(), /^Out of budget: 0 of \d+ goals reached$/);
  assert.match(await page.getByTestId('end-metrics').textContent(), /SR \(success\)0\.0100\.0/);
  assert.equal(await page.getByTestId('practice-badge').textContent(), 'practice');
  assert.equal(await page.getByTestId('act').isDisabled(), true);
  const left = await page.getByTestId('budget-global').textContent();
  const local = await page.getByTestId('budget-local').textContent();
  assert.ok(/\D0 of \d+ steps left/.test(left) || /\D0 of \d+ steps left/.test(local), `${left} | ${local}`);
  assert.deepEqual(errors, []);
});

test('a broken bundle shows its problems as a list, and the page keeps working', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/library');
  const bundle = await singleJson(kettle.entry);
  const [state] = Object.keys(bundle.ssm.states);
  const component = Object.keys(bundle.ssm.states[state].on).find((k) => k !== 'immediate' && k !== 'timed_wait');
  bundle.ssm.states[state].on[component][0].next_state = 'NoSuchState';
  bundle.ssm.states[state].on[component][0].atomic_action = 'lick';
  await page.getByTestId('file-input').setInputFiles({
    name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bundle)),
  });
  await page.getByTestId('problems').waitFor();
  const problems = await page.getByTestId('problem').allTextContents();
  assert.ok(problems.length >= 2, problems.join('\n'));
  assert.ok(problems.some((p) => /NoSuchState/.test(p)), problems.join('\n'));
  assert.ok(problems.some((p) => /lick/.test(p)), problems.join('\n'));
  assert.match(await page.getByTestId('problems').textContent(), /broken\.json was not opened/);
  await page.screenshot({ path: `${SHOTS}player-problems-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${SHOTS}player-problems-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);

  // Dropped on the drop zone, the same file gets the same list.
  await page.evaluate((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    document.querySelector('[data-testid="drop-zone"]').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, JSON.stringify(bundle));
  await page.waitForFunction(() => /dropped\.json was not opened/.test(document.querySelector('[data-testid="problems"]')?.textContent ?? ''));
  assert.equal(await page.getByTestId('problem').count(), problems.length);

  // Not a bundle at all: a readable message, no crash.
  await page.getByTestId('file-input').setInputFiles({ name: 'junk.zip', mimeType: 'application/zip', buffer: Buffer.from('PK\x03\x04 not really a zip') });
  await page.waitForFunction(() => /junk\.zip/.test(document.querySelector('[data-testid="problems"]')?.textContent ?? ''));
  // The valid single JSON opens and plays.
  const good = await singleJson(kettle.entry);
  await page.getByTestId('file-input').setInputFiles({ name: 'kettle.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(good)) });
  await page.getByTestId('player').waitFor();
  assert.equal(await page.getByTestId('device-name').textContent(), good.manifest.name);
  assert.deepEqual(errors, []);
});

test('a bundle folder chosen with the folder picker opens and plays', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/library');
  const folder = new URL(`../data/${kettle.entry.path}`, import.meta.url).pathname;
  await page.getByTestId('folder-input').setInputFiles(folder);
  await page.getByTestId('player').waitFor();
  assert.equal(await page.getByTestId('device-name').textContent(), kettle.entry.name);
  assert.equal(await page.getByTestId('instruction-text').textContent(), kettle.tasks[0].goals[0].instruction);
  // Opened from a file, the device cannot be named by a link: the end panel says so.
  await page.evaluate((t) => window.knoblab.optimal(t).forEach((s) => window.knoblab.step(s.action)), kettle.tasks[0].id);
  await page.getByTestId('end-panel').waitFor();
  assert.equal(await page.getByTestId('share-link').count(), 0);
  assert.match(await page.getByTestId('share').textContent(), /opened from a file/);
  assert.deepEqual(errors, []);
});

test('a bundle URL typed in the library opens on the play page; a missing one says why', async () => {
  const { page, errors } = await openPage(browser);
  const good = await singleJson(kettle.entry);
  const url = new URL('test-bundles/typed.json', BASE_URL).href;
  const missing = new URL('test-bundles/missing.json', BASE_URL).href;
  await page.route(url, (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(good) }));
  await gotoRoute(page, '#/library');
  await page.getByTestId('url-input').fill(missing);
  await page.getByTestId('url-open').click();
  await page.getByTestId('problems').waitFor();
  assert.match(await page.getByTestId('problems').textContent(), /missing\.json: the server answered 404/);
  await gotoRoute(page, '#/library');
  await page.getByTestId('url-input').fill(url);
  await page.getByTestId('url-open').click();
  await page.getByTestId('player').waitFor();
  assert.equal(await page.getByTestId('device-name').textContent(), good.manifest.name);
  assert.match(page.url(), /#\/play\?bundle=http/);
  // The 404 of the missing bundle is the console error the browser logs for it; nothing else.
  assert.ok(errors.every((e) => /404/.test(e)), errors.join('\n'));
});

test('window.knoblab drives an episode: load, tasks, reset, step, image, trajectory', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/play');
  const result = await page.evaluate(async ({ id }) => {
    const k = window.knoblab;
    const loaded = await k.load(id);
    const tasks = k.tasks();
    const start = k.reset(tasks[0].id);
    const path = k.optimal(tasks[0].id);
    const steps = path.map((s) => k.step(s.action));
    let error = null;
    try { k.step('Timed_wait()'); } catch (e) { error = e.message; }
    let badLoad = null;
    try { await k.load('no-such-device'); } catch (e) { badLoad = e.message; }
    return { loaded, tasks, start, steps, image: k.image(), trajectory: k.trajectory(), metrics: k.metrics(), error, badLoad };
  }, { id: kettle.entry.id });
  assert.equal(result.loaded.id, kettle.entry.id);
  assert.deepEqual(result.tasks.map((t) => t.id), kettle.tasks.map((t) => t.id));
  assert.equal(result.start.observation.instruction, kettle.tasks[0].goals[0].instruction);
  assert.equal(result.start.info.steps, 0);
  const last = result.steps.at(-1);
  assert.equal(last.terminated, true);
  assert.equal(last.truncated, false);
  assert.equal(typeof last.feedback, 'string');
  assert.ok(result.steps.slice(0, -1).every((s) => !s.terminated));
  assert.match(result.image, /^data:image\/png;base64,/);
  assert.equal(result.trajectory.steps.length, result.steps.length);
  assert.equal(result.trajectory.terminated, true);
  assert.deepEqual(result.trajectory.settings.library, libraryStamp);
  assert.equal(result.metrics.sr, 1);
  assert.match(result.error, /episode is over/);
  assert.match(result.badLoad, /no-such-device/);
  // The page shows what the script did.
  await page.getByTestId('end-panel').waitFor();
  assert.equal(await logLength(page), result.steps.length);
  // The same device given as one JSON text is still the library's device.
  const fromJson = await page.evaluate(async (json) => {
    const k = window.knoblab;
    const { tasks } = await k.load(json);
    k.reset(tasks[0]);
    return k.trajectory().settings.library;
  }, await singleJson(kettle.entry));
  assert.deepEqual(fromJson, libraryStamp);
  assert.deepEqual(errors, []);
});

test('a share link replays the same episode from the URL alone', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const task = firstTask();
  await openPlay(page, kettle.entry.id, task);
  const path = await optimal(page, task);
  await actByClicking(page, 'Timed_wait()');
  for (const step of path) await actByClicking(page, step.action);
  await page.getByTestId('end-panel').waitFor();
  const link = await page.getByTestId('share-link').inputValue();
  const log = await page.getByTestId('feedback-log').textContent();
  const table = await page.getByTestId('end-metrics').textContent();
  await context.close();

  const { page: fresh, errors } = await openPage(browser);
  await fresh.goto(link);
  await fresh.getByTestId('end-panel').waitFor();
  assert.equal(await fresh.getByTestId('feedback-log').textContent(), log);
  assert.equal(await fresh.getByTestId('end-metrics').textContent(), table);
  assert.equal(await logLength(fresh), path.length + 1);
  assert.deepEqual(errors, []);
});
