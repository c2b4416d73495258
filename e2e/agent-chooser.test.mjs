// The Agent page's chooser at the library's scale (issue #19): all 968
// devices, each of the 26 categories with its device and episode count,
// single- and multi-turn tasks, search by id or name, repeats; every
// figure checked against the shipped files (the index, the generated
// manifest, the generated devices' task list and the hand devices' task
// files). A batch of all 968 plans at once from those lists, opening no
// device (agent-generated.test.mjs runs generated devices). The layout:
// three columns on a 1440 px screen, one on a 390 px phone with nothing
// wider than the screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, SHOTS, PHONE } from './support.mjs';
import {
  openAgent, shippedLibrary, dataJson, grouped, summary, summaryIs, chooseDevices, runAndWait,
  progressCounts, assertNoUnexpectedErrors,
} from './agent-support.mjs';

const WIDE = { width: 1440, height: 900 };

let browser;
let library;
before(async () => {
  browser = await launch();
  library = await shippedLibrary();
});
after(async () => { await browser?.close(); });

const episodes = (devices, kind = 'all') => devices.reduce((n, d) =>
  n + (kind === 'single' ? d.single : kind === 'multi' ? d.multi : d.single + d.multi), 0);

/** The categories of the shipped library with their devices, by name. */
function categories() {
  const by = new Map();
  for (const d of library.devices) by.set(d.category, [...(by.get(d.category) ?? []), d]);
  return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

test('all, by category and by kind: the counts are the shipped library\'s', async () => {
  const agent = await openAgent(browser, WIDE);
  const { page } = agent;
  try {
    const all = library.devices;
    assert.equal(all.length, 968);
    const generated = all.filter((d) => d.generated).length;
    await summaryIs(page, `all: ${grouped(all.length)} devices, ${grouped(episodes(all))} episodes`);
    assert.equal(await page.getByTestId('agent-summary-note').textContent(),
      `${grouped(generated)} of these devices are generated: each is drawn in this page when the run reaches it (a few seconds each).`);

    // Every category with its figures, in a list (26 rows, not 968 boxes).
    await page.getByTestId('agent-by-category').check();
    const cats = categories();
    assert.equal(cats.length, 26);
    for (const [name, devices] of cats) {
      const row = page.getByTestId(`agent-category-${name}`);
      assert.equal(await row.locator('.count').textContent(),
        `${grouped(devices.length)} devices · ${grouped(episodes(devices))} episodes`, name);
    }
    assert.equal(await page.locator('[data-testid^="agent-device-"]').count(), 0, 'no device list by default');
    const microwaves = all.filter((d) => d.category === 'Microwave');
    await page.getByTestId('agent-category-Microwave').click();
    await summaryIs(page, `Microwave: ${microwaves.length} devices, ${grouped(episodes(microwaves))} episodes`);
    await page.getByTestId('agent-repeats').fill('3');
    await summaryIs(page, `Microwave: ${microwaves.length} devices, ${grouped(episodes(microwaves))} episodes, `
      + `each 3 times: ${grouped(3 * episodes(microwaves))} runs`);
    await page.getByTestId('agent-kind-single').check();
    // Hand devices' kinds come from their task files, read after the index:
    // the line settles on the full count.
    const single = episodes(microwaves, 'single');
    await summaryIs(page, `Microwave, single-turn tasks: ${microwaves.length} devices, ${grouped(single)} episodes, `
      + `each 3 times: ${grouped(3 * single)} runs`);
    await page.screenshot({ path: `${SHOTS}agent-category-desktop.png` });
    await page.getByTestId('agent-repeats').fill('1');
    await page.getByTestId('agent-by-all').check();
    await page.getByTestId('agent-kind-multi').check();
    await summaryIs(page, `all, multi-turn tasks: ${grouped(all.length)} devices, ${grouped(episodes(all, 'multi'))} episodes`);

    // A batch of every device's multi-turn tasks, generated ones included,
    // is planned at once from the task lists (nothing drawn), then cancelled.
    await page.getByTestId('agent-source').selectOption({ label: 'Oracle (no model)' });
    await page.getByTestId('agent-run-batch').click();
    await page.getByTestId('agent-done').waitFor();
    const [, total] = await progressCounts(page);
    assert.equal(total, episodes(all, 'multi'));
    await page.getByTestId('agent-cancel').click();
    await page.getByTestId('agent-run-batch').waitFor();
    assert.equal(await page.getByTestId('agent-problems').count(), 0);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
  }
});

test('by device: search by id or name, pick, count, take out; a run beside the settings on a wide screen', async () => {
  const agent = await openAgent(browser, WIDE);
  const { page } = agent;
  try {
    await page.getByTestId('agent-by-device').check();
    const search = page.getByTestId('agent-device-search');
    await search.fill('microwave');
    const found = library.devices.filter((d) => d.id.includes('microwave'));
    assert.ok(found.length > 12);
    assert.equal(await page.getByTestId('agent-found').locator('input').count(), 12, 'twelve listed at once');
    await page.getByText(`and ${found.length - 12} more: type more to narrow`).waitFor();
    const hand = library.devices.filter((d) => !d.generated && d.category === 'Microwave');
    const made = library.devices.find((d) => d.generated && d.category === 'Microwave');
    await chooseDevices(page, [hand[0].id, made.id]);
    await summaryIs(page, `2 devices picked: 2 devices, ${episodes([hand[0], made])} episodes`);
    // By task id: counted on both, the hand device's from its file and the
    // generated one's from the task list.
    const { tasks } = await dataJson(`${library.index.devices.find((d) => d.id === hand[0].id).path}/tasks.json`);
    const madeTasks = (await dataJson('generated-tasks.json')).devices.find((d) => d.id === made.id).tasks;
    const id = tasks[0].id;
    const onMade = madeTasks.some((t) => t.id === id) ? 1 : 0;
    await page.getByTestId('agent-kind-ids').check();
    await page.getByTestId('agent-tasks').fill(`${id}, no-such-task`);
    await summaryIs(page, `2 devices picked, tasks ${id}, no-such-task: ${1 + onMade} device${onMade ? 's' : ''}, `
      + `${1 + onMade} episode${onMade ? 's' : ''}`);
    await page.getByTestId('agent-tasks').fill(madeTasks.at(-1).id);
    const onHand = tasks.some((t) => t.id === madeTasks.at(-1).id) ? 1 : 0;
    await summaryIs(page, `2 devices picked, tasks ${madeTasks.at(-1).id}: ${1 + onHand} device${onHand ? 's' : ''}, `
      + `${1 + onHand} episode${onHand ? 's' : ''}`);
    await page.getByTestId('agent-kind-every').check();
    await page.getByTestId(`agent-unpick-${made.id}`).click();
    await summaryIs(page, `${hand[0].id}: 1 device, ${episodes([hand[0]])} episodes`);

    // The oracle runs it: the episode is watched in the third column.
    await page.getByTestId('agent-source').selectOption({ label: 'Oracle (no model)' });
    assert.equal(await runAndWait(page, 'agent-run-one'), 1);
    await page.getByTestId('agent-step').first().waitFor();
    const box = async (id) => page.getByTestId(id).boundingBox();
    const [form, chooser, run] = [await box('agent-form'), await box('agent-chooser'), await box('agent-run')];
    assert.ok(form.x + form.width <= chooser.x && chooser.x + chooser.width <= run.x,
      `settings, chooser and run side by side: ${JSON.stringify([form, chooser, run])}`);
    assert.ok(Math.abs(form.y - run.y) < 40, 'the three columns start together');
    assert.ok(run.x + run.width <= WIDE.width, 'nothing past the screen');
    await page.screenshot({ path: `${SHOTS}agent-desktop-1440.png` });
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
  }
});

test('on a 390 px phone the page stacks: no horizontal scroll, nothing cut off', async () => {
  const agent = await openAgent(browser, PHONE);
  const { page } = agent;
  try {
    await summary(page);
    await page.getByTestId('agent-by-category').check();
    await page.getByTestId('agent-category-WashingMachine').click();
    await page.getByTestId('agent-source').selectOption({ label: 'Oracle (no model)' });
    await page.getByTestId('agent-by-device').check();
    const [first] = library.index.devices;
    await chooseDevices(page, [first.id]);
    assert.equal(await runAndWait(page, 'agent-run-one'), 1);
    await page.screenshot({ path: `${SHOTS}agent-phone-390.png`, fullPage: true });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `the page is ${width} px wide on a ${PHONE.width} px screen`);
    // Every control and the watched picture lie inside the screen's width.
    const outside = await page.evaluate((w) => [...document.querySelectorAll(
      '.agent input, .agent select, .agent button, .agent .summary, .agent .shot img, .agent .category-row')]
      .map((e) => [e.dataset.testid ?? e.className ?? e.tagName, e.getBoundingClientRect()])
      .filter(([, r]) => r.width > 0 && (r.left < 0 || r.right > w + 0.5))
      .map(([name, r]) => `${name}: ${r.left.toFixed(0)}–${r.right.toFixed(0)}`), PHONE.width);
    assert.deepEqual(outside, []);
    const [form, chooser, run] = await Promise.all(['agent-form', 'agent-chooser', 'agent-run']
      .map((id) => page.getByTestId(id).boundingBox()));
    assert.ok(form.y < chooser.y && chooser.y < run.y, 'settings, then what to run, then the run');
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
  }
});
