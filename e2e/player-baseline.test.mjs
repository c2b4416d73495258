// Issue #12: close the tab in the middle of a human baseline run, reopen,
// resume: every finished episode is still there exactly once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, gotoRoute, SHOTS, DESKTOP, PHONE } from './support.mjs';
import { deviceOf, optimal } from './player-support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const saved = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('knoblab.baseline')));
const solve = (page, actions) => page.evaluate((list) => list.map((a) => window.knoblab.step(a)), actions);

test('a baseline run survives closing the tab, and records each episode exactly once', async () => {
  const { entry, tasks } = await deviceOf('ElectricKettle');
  assert.ok(tasks.length >= 2, 'the test needs a device with two tasks');
  const chosen = tasks.slice(0, 2).map((t) => t.id);
  const context = await browser.newContext({ viewport: DESKTOP });
  const errors = [];
  const watch = (page) => page.on('pageerror', (e) => errors.push(String(e)));

  let page = await context.newPage();
  watch(page);
  await gotoRoute(page, `#/play?bundle=${encodeURIComponent(entry.id)}&mode=baseline`);
  await page.getByTestId('baseline-setup').waitFor();
  for (const t of tasks.slice(2)) await page.getByTestId(`baseline-task-${t.id}`).uncheck();
  await page.getByTestId('baseline-start').click();
  await page.getByTestId('player').waitFor();
  // A baseline run has no part boxes and no undo.
  assert.equal(await page.getByTestId('reveal').count(), 0);
  assert.equal(await page.getByTestId('undo').count(), 0);

  await solve(page, (await optimal(page, chosen[0])).map((s) => s.action));
  await page.getByTestId('baseline-next').waitFor();
  assert.match(await page.getByTestId('baseline-count').textContent(), /1 of 2 episodes recorded/);
  const first = (await saved(page)).finished[0];
  assert.equal(first.task_id, chosen[0]);
  assert.equal(first.settings.mode, 'baseline');

  await page.getByTestId('baseline-next').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="feedback-entry"]').length === 0);
  await solve(page, ['Timed_wait()']);
  assert.deepEqual((await saved(page)).current, ['Timed_wait()']);
  await page.close(); // the tab closes in the middle of episode 2

  page = await context.newPage();
  watch(page);
  await gotoRoute(page, '#/play?mode=baseline');
  await page.getByTestId('baseline-resume').waitFor();
  assert.match(await page.getByTestId('baseline-resume').textContent(), /1 of 2 episodes finished/);
  await page.getByTestId('baseline-resume-button').click();
  await page.getByTestId('player').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="feedback-entry"]').length === 1);

  await solve(page, (await optimal(page, chosen[1])).map((s) => s.action));
  await page.getByTestId('run-table').waitFor();
  const run = await saved(page);
  assert.deepEqual(run.finished.map((t) => t.task_id), chosen);
  assert.deepEqual(run.finished[0], first);
  assert.equal(run.finished[1].steps[0].action, 'Timed_wait()');
  assert.equal(run.finished[1].terminated, true);
  assert.equal(await page.getByTestId('run-row').count(), 2);
  assert.deepEqual(
    await page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.cells[0].textContent)), chosen);
  await page.screenshot({ path: `${SHOTS}player-baseline-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.getByTestId('baseline').screenshot({ path: `${SHOTS}player-baseline-phone.png` });
  await page.setViewportSize(DESKTOP);

  // A reload after the end shows the same run, still two episodes.
  await page.reload();
  await page.getByTestId('baseline-resume-button').click();
  await page.getByTestId('run-table').waitFor();
  assert.equal(await page.getByTestId('run-row').count(), 2);
  assert.equal((await saved(page)).finished.length, 2);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('baseline-export').click()]);
  const text = Buffer.concat(await (await download.createReadStream()).toArray()).toString();
  assert.deepEqual(text.trim().split('\n').map((l) => JSON.parse(l).task_id), chosen);

  // Starting over forgets the run: nothing left to resume.
  await page.getByTestId('baseline-forget').click();
  await page.getByTestId('baseline-setup').waitFor();
  assert.equal(await page.getByTestId('baseline-resume').count(), 0);
  assert.equal(await saved(page), null);
  assert.deepEqual(errors, []);
  await context.close();
});
