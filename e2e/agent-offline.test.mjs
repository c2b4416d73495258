// Without a key: the oracle and random agents, and the replay provider
// answering from an exported trajectory file, so the page can be shown
// offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, SHOTS, DESKTOP, PHONE } from './support.mjs';
import {
  openAgent, chooseFirstDevice, runAndWait, download, metricsCell, assertNoUnexpectedErrors,
} from './agent-support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the oracle solves a device; its export replayed reproduces it; the random agent runs', async () => {
  const agent = await openAgent(browser, DESKTOP);
  const { page } = agent;
  try {
    await page.getByTestId('agent-source').selectOption({ label: 'Oracle (no model)' });
    await chooseFirstDevice(page);
    const total = await runAndWait(page);
    assert.ok(total >= 1);
    assert.equal(await metricsCell(page, 'SR'), '100.0');
    assert.equal(await metricsCell(page, 'SPL'), '100.0');
    assert.equal(await page.getByTestId('agent-cost').textContent(), 'no price set');
    await page.screenshot({ path: `${SHOTS}agent-oracle-desktop.png`, fullPage: true });
    const text = await download(page, 'agent-export-jsonl');
    const oracle = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(oracle.every((l) => l.settings.agent === 'oracle' && l.terminated));

    // Replay the oracle's file through the model agent's prompt and parser.
    const file = join(mkdtempSync(join(tmpdir(), 'knoblab-')), 'oracle.jsonl');
    writeFileSync(file, text);
    await page.getByTestId('agent-source').selectOption({ label: 'Replay a trajectory file' });
    await page.getByTestId('agent-replay-file').setInputFiles(file);
    await page.getByText(`${total} recorded episodes`).waitFor();
    assert.equal(await runAndWait(page), total);
    assert.equal(await metricsCell(page, 'SR'), '100.0');
    const replayed = (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(replayed.map((l) => l.steps.map((s) => s.action)), oracle.map((l) => l.steps.map((s) => s.action)));
    assert.ok(replayed.every((l) => l.settings.agent === 'replay' && l.turns.length === l.steps.length));

    await page.getByTestId('agent-source').selectOption({ label: 'Random agent (no model)' });
    await page.getByTestId('agent-lambda').fill('1');
    assert.equal(await runAndWait(page, 'agent-run-one'), 1);
    assert.ok(await page.getByTestId('agent-step').count() >= 1);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
  }
});

test('the empty page on a phone', async () => {
  const { page, errors } = await openAgent(browser, PHONE);
  try {
    await page.getByTestId('agent-summary').getByText(/^all: /).waitFor();
    await page.screenshot({ path: `${SHOTS}agent-form-phone.png`, fullPage: true });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen`);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
