// A batch survives a reload (issues #10 and #12): every finished episode is
// in IndexedDB the moment it ends, the page offers to resume, and the
// resumed batch ends with every item exactly once. Also: the key is
// remembered only when asked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, SHOTS, DESKTOP } from './support.mjs';
import { startMock } from './mock/server.mjs';
import {
  KEY, openAgent, chooseModel, chooseFirstDevice, progressCounts, waitForDone, download,
  assertKeyOnlySentTo, assertNoUnexpectedErrors, storedText,
} from './agent-support.mjs';

let browser;

/** Polls a condition of the mock (the page cannot see it) for up to 20 s. */
async function until(condition, what) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(condition(), `never: ${what}`);
}
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('reload mid-batch, resume, and every episode is there exactly once', async () => {
  // Slow replies, so that the reload lands while episodes are running.
  const mock = await startMock({ flavour: 'openai', key: KEY, delayMs: 250 });
  const agent = await openAgent(browser, DESKTOP);
  const { page } = agent;
  try {
    await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm' });
    const device = await chooseFirstDevice(page);
    await page.getByTestId('agent-repeats').fill('3');
    await page.getByTestId('agent-run-batch').click();
    await page.getByTestId('agent-done').waitFor();
    const [, total] = await progressCounts(page);
    assert.ok(total >= 3, `a batch of ${total}`);
    await waitForDone(page, 2);

    await page.reload();
    await page.getByTestId('agent-resume-banner').waitFor();
    // The banner names the choice once the library is read (it may show
    // before the catalogue arrives): wait for that part, then read it.
    await page.waitForFunction(() => document.querySelector('[data-testid=agent-resume-banner]')?.textContent.includes('Chosen:'));
    const banner = await page.getByTestId('agent-resume-banner').textContent();
    const done = Number(banner.match(/(\d+) of (\d+) episodes are done/)[1]);
    assert.ok(done >= 2 && done < total, banner);
    assert.match(banner, new RegExp(`of ${total} episodes`));
    // The stored batch says what was chosen, and the chooser shows it again.
    assert.match(banner, new RegExp(`Chosen: ${device.id}: 1 device, ${total / 3} episodes, each 3 times: ${total} runs\\.`));
    assert.equal(await page.getByTestId('agent-by-all').isChecked(), true, 'a fresh page chooses all');
    await page.screenshot({ path: `${SHOTS}agent-resume-desktop.png` });

    // The key was not remembered: resuming asks for it.
    assert.equal(await page.getByTestId('agent-key').inputValue(), '');
    await page.getByTestId('agent-resume').click();
    await page.getByTestId('agent-problems').getByText(/enter the API key/).waitFor();
    await page.getByTestId('agent-key').fill(KEY);
    await page.getByTestId('agent-resume').click();
    await page.getByTestId('agent-picked').getByText(device.id).waitFor();
    assert.equal(await page.getByTestId('agent-repeats').inputValue(), '3');
    await waitForDone(page, total);
    await page.getByTestId('agent-run-batch').waitFor();
    assert.deepEqual(await progressCounts(page), [total, total]);

    const lines = (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
    const items = lines.map((l) => l.item);
    assert.equal(lines.length, total);
    assert.equal(new Set(items).size, total, `duplicates in ${items}`);
    assert.ok(lines.every((l) => l.status === 'finished'));
    // After a reload nothing is offered again: the batch is done.
    await page.reload();
    await page.getByTestId('agent-page').waitFor();
    await page.waitForTimeout(500);
    assert.equal(await page.getByTestId('agent-resume-banner').count(), 0);
    assert.ok(!(await storedText(page)).includes(KEY));
    assert.deepEqual(mock.violations, []);
    assertKeyOnlySentTo(agent, mock.baseUrl);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});

test('pause holds a batch of two workers between steps, cancel stops it for good', async () => {
  const mock = await startMock({ flavour: 'openai', key: KEY, delayMs: 200 });
  const agent = await openAgent(browser, DESKTOP);
  const { page } = agent;
  try {
    await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm' });
    await page.getByTestId('agent-concurrency').fill('2');
    await chooseFirstDevice(page);
    await page.getByTestId('agent-repeats').fill('5');
    await page.getByTestId('agent-run-batch').click();
    await waitForDone(page, 1);
    await page.getByTestId('agent-pause').click();
    await page.getByTestId('agent-status').getByText(/Paused/).waitFor();
    // The request in flight may finish; after that, nothing is sent while paused.
    await page.waitForTimeout(800);
    const held = mock.requests.length;
    await page.waitForTimeout(1200);
    assert.equal(mock.requests.length, held, 'requests were sent while paused');
    await page.getByTestId('agent-pause').click();
    await until(() => mock.requests.length > held, 'a request after resuming');

    await page.getByTestId('agent-cancel').click();
    await page.getByTestId('agent-run-batch').waitFor();
    const [done, total] = await progressCounts(page);
    assert.ok(done < total, `${done} of ${total} done before the cancel`);
    const sent = mock.requests.length;
    await page.waitForTimeout(800);
    assert.equal(mock.requests.length, sent, 'requests after the cancel');
    // A cancelled batch is not offered for resuming.
    await page.reload();
    await page.getByTestId('agent-page').waitFor();
    await page.waitForTimeout(500);
    assert.equal(await page.getByTestId('agent-resume-banner').count(), 0);
    assert.deepEqual(mock.violations, []);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});

test('the key is kept on the device only while "remember" is ticked', async () => {
  const { page, errors } = await openAgent(browser, DESKTOP);
  try {
    await page.getByTestId('agent-key').fill(KEY);
    await page.reload();
    await page.getByTestId('agent-page').waitFor();
    assert.equal(await page.getByTestId('agent-key').inputValue(), '');

    await page.getByTestId('agent-key').fill(KEY);
    await page.getByTestId('agent-remember').check();
    await page.reload();
    await page.getByTestId('agent-page').waitFor();
    assert.equal(await page.getByTestId('agent-key').inputValue(), KEY);

    await page.getByTestId('agent-remember').uncheck();
    assert.equal(await page.evaluate(() => JSON.stringify({ ...localStorage }).includes('SECRET')), false);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
