// The Agent page runs batches with generated devices in them (issue #19):
// the plan comes from the generated devices' task list
// (data/generated-tasks.json) without drawing anything, each device is
// opened when the run reaches it (a generated one drawn then), every
// episode records the library's version and content hash
// (data/library-version.json), and a batch resumes after a reload. Against
// the mock model server; screenshots at 1440 px and 390 px with a
// generated device chosen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, SHOTS, PHONE } from './support.mjs';
import { startMock } from './mock/server.mjs';
import {
  KEY, openAgent, chooseModel, chooseDevices, chooseTasks, dataJson, progressCounts, waitForDone,
  download, summaryIs, assertKeyOnlySentTo, assertNoUnexpectedErrors,
} from './agent-support.mjs';

const WIDE = { width: 1440, height: 900 };
// Drawing a generated device in the page takes seconds (more under load).
const SLOW = 240_000;

let browser;
let version;
let hand;
let made;
before(async () => {
  browser = await launch();
  version = await dataJson('library-version.json');
  const index = await dataJson('library.json');
  const tasks = await dataJson('generated-tasks.json');
  const entry = index.devices.find((d) => d.category === 'Lamp');
  hand = { id: entry.id, tasks: (await dataJson(`${entry.path}/tasks.json`)).tasks };
  // The first generated lamp, with its task ids as the list gives them.
  made = tasks.devices.find((d) => d.id.startsWith('lamp-g'));
});
after(async () => { await browser?.close(); });

/** The items a batch of these devices and task ids plans, as keys. */
function planned(devices, ids) {
  return devices.flatMap((d) => d.tasks.filter((t) => ids.includes(t.id)).map((t) => `${d.id}/${t.id}#0`));
}

/** Every export line records the library as its version file says. */
function assertStamped(lines) {
  for (const l of lines) {
    assert.deepEqual(l.settings.library, { version: version.version, hash: version.hash }, l.item);
  }
}

test('a batch of a hand device and a generated one runs to its end, each episode stamped with the library', async () => {
  const mock = await startMock({ flavour: 'openai', key: KEY });
  const agent = await openAgent(browser, WIDE);
  const { page } = agent;
  try {
    await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm' });
    await chooseDevices(page, [hand.id, made.id]);
    // One single-turn task of each (ids that may be shared count on both).
    const ids = [...new Set([hand.tasks[0].id, made.tasks[0].id])];
    await chooseTasks(page, ids);
    const items = planned([hand, made], ids);
    await summaryIs(page, `2 devices picked, tasks ${ids.join(', ')}: 2 devices, ${items.length} episodes`);
    assert.equal(await page.getByTestId('agent-summary-note').textContent(),
      '1 of these devices are generated: each is drawn in this page when the run reaches it (a few seconds each).');
    await page.screenshot({ path: `${SHOTS}agent-generated-desktop-1440.png`, fullPage: true });

    await page.getByTestId('agent-run-batch').click();
    await page.getByTestId('agent-done').waitFor();
    // Planned at once, nothing drawn yet: the total is the task list's.
    assert.equal((await progressCounts(page))[1], items.length);
    await waitForDone(page, items.length, SLOW);
    await page.getByTestId('agent-run-batch').waitFor({ timeout: SLOW });
    await page.getByTestId('agent-watched').waitFor();
    await page.screenshot({ path: `${SHOTS}agent-generated-done-1440.png`, fullPage: true });

    const lines = (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.item).sort(), [...items].sort());
    assert.ok(lines.every((l) => l.status === 'finished'), 'every episode ran to its end');
    assert.ok(lines.some((l) => l.bundle_id === made.id) && lines.some((l) => l.bundle_id === hand.id));
    assertStamped(lines);
    // The metrics score both devices' episodes.
    assert.match(await page.getByTestId('agent-report-counts').textContent(),
      new RegExp(`^${items.length} episodes scored; 0 ended as api_error`));
    assert.deepEqual(mock.violations, []);
    assertKeyOnlySentTo(agent, mock.baseUrl);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});

test('a batch with a generated device resumes after a reload, every episode once', async () => {
  // Slow replies, so that the reload lands while episodes are running.
  const mock = await startMock({ flavour: 'openai', key: KEY, delayMs: 250 });
  const agent = await openAgent(browser, WIDE);
  const { page } = agent;
  try {
    await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm' });
    await chooseDevices(page, [made.id]);
    const ids = made.tasks.slice(0, 2).map((t) => t.id);
    await chooseTasks(page, ids);
    await page.getByTestId('agent-repeats').fill('2');
    await page.getByTestId('agent-run-batch').click();
    await page.getByTestId('agent-done').waitFor();
    const [, total] = await progressCounts(page);
    assert.equal(total, 4);
    await waitForDone(page, 1, SLOW);

    await page.reload();
    await page.getByTestId('agent-resume-banner').waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid=agent-resume-banner]')?.textContent.includes('Chosen:'));
    await page.getByTestId('agent-key').fill(KEY);
    await page.getByTestId('agent-resume').click();
    await waitForDone(page, total, SLOW);
    await page.getByTestId('agent-run-batch').waitFor({ timeout: SLOW });
    const lines = (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
    const items = lines.map((l) => l.item);
    assert.equal(new Set(items).size, total, `every item once: ${items}`);
    assert.deepEqual([...items].sort(), [0, 1].flatMap((r) => ids.map((t) => `${made.id}/${t}#${r}`)).sort());
    assertStamped(lines);
    assert.deepEqual(mock.violations, []);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});

test('on a 390 px phone, a generated device chosen: stacked, nothing wider than the screen', async () => {
  const agent = await openAgent(browser, PHONE);
  const { page } = agent;
  try {
    await page.getByTestId('agent-source').selectOption({ label: 'Oracle (no model)' });
    await chooseDevices(page, [made.id]);
    await page.getByTestId('agent-summary-note').waitFor();
    await page.getByTestId('agent-run-one').click();
    await page.getByTestId('agent-step').first().waitFor({ timeout: SLOW });
    await page.getByTestId('agent-run-batch').waitFor({ timeout: SLOW });
    await page.screenshot({ path: `${SHOTS}agent-generated-phone-390.png`, fullPage: true });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `the page is ${width} px wide on a ${PHONE.width} px screen`);
    const [line] = (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(line.bundle_id, made.id);
    assert.ok(line.terminated, 'the oracle solved it');
    assertStamped([line]);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
  }
});
