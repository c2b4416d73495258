// The Agent page against local mock APIs (issue #10): a batch against an
// OpenAI-compatible mock and one against an Anthropic mock, retries on 429
// with Retry-After, 500 and a timeout, an api_error reported apart, a CORS
// refusal explained, exports checked, and the key found nowhere but in the
// requests to the endpoint typed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, SHOTS, DESKTOP, PHONE } from './support.mjs';
import { startMock } from './mock/server.mjs';
import {
  KEY, openAgent, chooseModel, chooseFirstDevice, runAndWait, download, metricsCell,
  assertKeyOnlySentTo, assertNoUnexpectedErrors, storedText,
} from './agent-support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a batch against an OpenAI-compatible mock: retries, an api_error apart, exports without the key', async () => {
  // Scripted: a 429 that asks for a 1 s wait, then a reply; later two 500s in
  // a row, which use up the one retry and end that episode as api_error.
  const mock = await startMock({
    flavour: 'openai', key: KEY,
    script: [
      { status: 429, retryAfter: 1 },
      { text: 'Thought: the big button looks like power.\nAction: Press(coord=[500, 500], params=[0])' },
      { status: 500 },
      { status: 500 },
    ],
    reply: (n) => `Thought: waiting, turn ${n}.\nAction: Timed_wait()`,
  });
  const agent = await openAgent(browser, DESKTOP);
  const { page } = agent;
  try {
    await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm', retries: '1', timeout: '5' });
    await page.getByTestId('agent-price-in').fill('2.5');
    await page.getByTestId('agent-price-out').fill('10');
    await chooseFirstDevice(page);
    await page.getByTestId('agent-repeats').fill('2');
    const total = await runAndWait(page);
    assert.ok(total >= 2, `a batch of ${total}`);
    assert.deepEqual(mock.violations, []);

    // The 429 was retried after its Retry-After, the 500s were not enough to pass.
    assert.match(await page.getByTestId('agent-api-errors').textContent(), /^1 api_error$/);
    assert.match(await page.getByTestId('agent-report-counts').textContent(),
      new RegExp(`^${total - 1} episodes scored; 1 ended as api_error`));
    assert.match(await page.getByTestId('agent-api-error-list').textContent(), /HTTP 500: scripted 500/);
    assert.match(await page.getByTestId('agent-cost').textContent(), /^≈ \$\d+\.\d{4}$/);
    await page.screenshot({ path: `${SHOTS}agent-openai-desktop.png`, fullPage: true });

    const lines = (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, total);
    assert.equal(lines.filter((l) => l.status === 'api_error').length, 1);
    assert.equal(new Set(lines.map((l) => l.item)).size, total, 'every item once');
    for (const l of lines) {
      assert.equal(l.settings.model, 'mock-vlm');
      assert.equal(l.settings.endpoint, mock.baseUrl);
      assert.equal(l.settings.lambda, 1);
      assert.equal(l.settings.prompt_version, 'knoblab-prompt/1');
      assert.equal(l.settings.api, 'openai');
      assert.ok(Array.isArray(l.steps) && l.bundle_id && l.logic_hash, 'a trajectory line');
    }
    const first = lines.find((l) => l.turns.some((t) => t.attempts === 2 && t.reply));
    assert.ok(first, 'a turn that needed a retry after the 429');
    const pressed = lines.flatMap((l) => l.turns).find((t) => t.action.startsWith('Press'));
    assert.equal(pressed.reasoning, 'the big button looks like power.');
    const csv = await download(page, 'agent-export-csv');
    const [header, row] = csv.trim().split('\n');
    assert.match(header, /^run,episodes,api_error,SR,SSR,SPL,State-F1,EIR,TIR,EER,PSR,VSPS,GVPE,Avg Dist,Avg W-Dist/);
    assert.match(row, new RegExp(`^mock-vlm,${total - 1},1,`));

    // The key: only in the requests to the typed endpoint, nowhere stored or shown.
    const stored = await storedText(page);
    for (const text of [JSON.stringify(lines), csv, stored]) assert.ok(!text.includes(KEY));
    assertKeyOnlySentTo(agent, mock.baseUrl);
    assert.ok(mock.requests.length >= total + 3);

    // The Score page gets the scored episodes through sessionStorage, and
    // takes them (clearing the key) as it opens: record what is handed over.
    await page.evaluate(() => {
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function (key, value) {
        if (key === 'knoblab.score.handoff') window.__handoff = value;
        return setItem.call(this, key, value);
      };
    });
    await page.getByTestId('agent-open-score').click();
    await page.waitForURL(/#\/score$/);
    const handoff = await page.evaluate(() => window.__handoff);
    assert.equal(handoff.trim().split('\n').length, total - 1);
    assert.ok(!handoff.includes(KEY));
    await page.getByTestId('score-report').first().waitFor({ timeout: 60_000 });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('knoblab.score.handoff')), null);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});

test('an Anthropic mock: browser opt-in header, a timeout retried, a JPEG perturbation, the point drawn; a phone layout', async () => {
  const mock = await startMock({
    flavour: 'anthropic', key: KEY,
    script: [
      { hang: true },
      { text: 'Thought: try the middle.\nAction: Press(coord=[480, 520], params=[0])' },
    ],
  });
  const agent = await openAgent(browser, PHONE);
  const { page } = agent;
  try {
    await chooseModel(page, {
      flavour: 'anthropic', baseUrl: mock.baseUrl, model: 'mock-claude', retries: '1', timeout: '1',
    });
    await page.getByTestId('agent-perturbation').selectOption({ label: 'jpeg:20' });
    await chooseFirstDevice(page);
    const total = await runAndWait(page, 'agent-run-one');
    assert.equal(total, 1);
    assert.deepEqual(mock.violations, []);
    // The perturbed picture went as JPEG, and the record says which perturbation.
    const image = mock.requests.at(-1).body.messages.at(-1).content.find((p) => p.type === 'image');
    assert.equal(image.source.media_type, 'image/jpeg');
    const [line] = (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(line.settings.perturbation, 'jpeg:20');
    assert.equal(line.settings.api, 'anthropic');
    const last = page.getByTestId('agent-step').last();
    assert.match(await last.textContent(), /2 attempts/);
    assert.equal(await last.getByTestId('agent-step-action').textContent(), 'Press(coord=[480, 520], params=[0])');
    assert.equal(await last.locator('.marker').count(), 1);
    const style = await last.locator('.marker').getAttribute('style');
    assert.match(style, /left: 48\.0%; top: 52\.0%/);
    await page.screenshot({ path: `${SHOTS}agent-anthropic-phone.png`, fullPage: true });
    const headers = mock.requests.at(-1).headers;
    assert.equal(headers['anthropic-dangerous-direct-browser-access'], 'true');
    assert.equal(headers['x-api-key'], KEY);
    assert.equal(headers.authorization, undefined);
    assertKeyOnlySentTo(agent, mock.baseUrl);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});

test('a server that refuses the origin (CORS) ends the episode as api_error with the fix', async () => {
  const mock = await startMock({ flavour: 'openai', key: KEY, cors: false });
  const agent = await openAgent(browser, DESKTOP);
  const { page } = agent;
  try {
    await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm', retries: '0', timeout: '5' });
    await chooseFirstDevice(page);
    await runAndWait(page, 'agent-run-one');
    const error = await page.getByTestId('agent-step-api-error').textContent();
    assert.match(error, /could not reach .*chat\/completions/);
    assert.match(error, /OLLAMA_ORIGINS/);
    assert.match(await page.getByTestId('agent-report-counts').textContent(), /^0 episodes scored; 1 ended as api_error/);
    await page.screenshot({ path: `${SHOTS}agent-cors-desktop.png`, fullPage: true });
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});

test('a malformed reply is shown on the step and not retried', async () => {
  const mock = await startMock({ flavour: 'openai', key: KEY, script: [{ raw: '<html>proxy error</html>' }] });
  const agent = await openAgent(browser, DESKTOP);
  const { page } = agent;
  try {
    await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm', retries: '3', timeout: '5' });
    await chooseFirstDevice(page);
    await runAndWait(page, 'agent-run-one');
    const step = page.getByTestId('agent-step');
    assert.match(await step.getByTestId('agent-step-api-error').textContent(),
      /^malformed reply: the body is not JSON: <html>proxy error<\/html>$/);
    assert.match(await step.textContent(), /· 1 attempt$/);
    assert.equal(mock.requests.length, 1);
    assert.match(await page.getByTestId('agent-api-errors').textContent(), /^1 api_error$/);
    assert.deepEqual(mock.violations, []);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    await mock.close();
  }
});
