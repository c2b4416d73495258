// Page helpers for the agent page's end-to-end tests: filling the form,
// running and waiting, downloads, and the checks that the key leaks nowhere.
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { openPage, gotoRoute, BASE_URL } from './support.mjs';

export const KEY = 'sk-test-SECRET-4242';

/** Opens the agent page, recording console text and every request made. */
export async function openAgent(browser, viewport) {
  const { page, errors } = await openPage(browser, viewport);
  const consoleText = [];
  const requests = [];
  page.on('console', (m) => consoleText.push(m.text()));
  page.on('request', (r) => requests.push({
    url: r.url(), method: r.method(), headers: r.headers(), body: r.postData() ?? '',
  }));
  await gotoRoute(page, '#/agent');
  await page.getByTestId('agent-page').waitFor();
  return { page, errors, consoleText, requests };
}

/** Chooses a model API and fills its settings; λ = 1 keeps episodes short. */
export async function chooseModel(page, { flavour = 'openai', baseUrl, model, retries = '1', timeout = '5', key = KEY }) {
  await page.getByTestId('agent-source').selectOption({ label: 'A model (API)' });
  await page.getByTestId('agent-flavor').selectOption({ index: flavour === 'anthropic' ? 1 : 0 });
  await page.getByTestId('agent-base-url').fill(baseUrl);
  await page.getByTestId('agent-key').fill(key);
  await page.getByTestId('agent-model').fill(model);
  await page.getByTestId('agent-retries').fill(retries);
  await page.getByTestId('agent-timeout').fill(timeout);
  await page.getByTestId('agent-lambda').fill('1');
  await page.getByTestId('agent-concurrency').fill('1');
}

/** A file of the shipped library (`data/…`), as JSON. */
export async function dataJson(path) {
  const response = await fetch(new URL(`data/${path}`, BASE_URL).href);
  if (!response.ok) throw new Error(`data/${path}: ${response.status}`);
  return response.json();
}

/**
 * What the chooser should count, from the shipped files alone: every
 * device of the index and of the generated manifest with its category and
 * single- and multi-turn task counts (a hand device's from its tasks file).
 */
export async function shippedLibrary() {
  const [index, generated] = await Promise.all([dataJson('library.json'), dataJson('generated.json')]);
  const hand = await Promise.all(index.devices.map(async (d) => {
    const { tasks } = await dataJson(`${d.path}/tasks.json`);
    const single = tasks.filter((t) => t.goals.length === 1).length;
    return { id: d.id, category: d.category, generated: false, single, multi: tasks.length - single };
  }));
  const made = generated.devices.map((d) => ({
    id: d.id, category: d.category, generated: true, single: d.single, multi: d.multi,
  }));
  return { index, devices: [...hand, ...made] };
}

/** A count as the page writes it: 16,196. */
export const grouped = (n) => n.toLocaleString('en-US');

/** The chooser's summary line, once the library is read. */
export async function summary(page) {
  const line = page.getByTestId('agent-summary');
  await line.waitFor();
  return line.textContent();
}

/** Waits (up to 10 s) for the summary line to read `expected`, then checks it. */
export async function summaryIs(page, expected) {
  await page.waitForFunction((e) => document.querySelector('[data-testid="agent-summary"]')?.textContent === e,
    expected, { timeout: 10_000 }).catch(() => {});
  assert.equal(await summary(page), expected);
}

/** Chooses devices by id through the chooser's search, ticking each. */
export async function chooseDevices(page, ids) {
  await page.getByTestId('agent-by-device').check();
  for (const id of ids) {
    await page.getByTestId('agent-device-search').fill(id);
    await page.getByTestId(`agent-device-${id}`).check();
  }
  await page.getByTestId('agent-device-search').fill('');
}

/** Picks the library's first device (whatever it is) and returns its index entry. */
export async function chooseFirstDevice(page) {
  const [first] = (await dataJson('library.json')).devices;
  await chooseDevices(page, [first.id]);
  return first;
}

/** Runs only the tasks with these ids. */
export async function chooseTasks(page, ids) {
  await page.getByTestId('agent-kind-ids').check();
  await page.getByTestId('agent-tasks').fill(ids.join(', '));
}

/** The batch's total, read from the progress line "done / total episodes". */
export async function progressCounts(page) {
  const text = await page.getByTestId('agent-done').textContent();
  const m = text.match(/^(\d+) \/ (\d+) episodes$/);
  assert.ok(m, `progress reads "${text}"`);
  return [Number(m[1]), Number(m[2])];
}

/** Clicks a run button, waits for every episode to finish, returns the total. */
export async function runAndWait(page, button = 'agent-run-batch', timeout = 90_000) {
  await page.getByTestId(button).click();
  await page.getByTestId('agent-done').waitFor();
  const [, total] = await progressCounts(page);
  await waitForDone(page, total, timeout);
  await page.getByTestId('agent-run-batch').waitFor({ timeout });
  return total;
}

/** Waits until at least `n` episodes are done. */
export async function waitForDone(page, n, timeout = 90_000) {
  await page.waitForFunction((n) => {
    const m = document.querySelector('[data-testid="agent-done"]')?.textContent?.match(/^(\d+) \//);
    return m && Number(m[1]) >= n;
  }, n, { timeout });
}

/** Clicks an export button and returns the downloaded file's text. */
export async function download(page, testid) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()]);
  return readFileSync(await file.path(), 'utf8');
}

/** The metrics table's cell under a header. */
export async function metricsCell(page, header) {
  const table = page.getByTestId('agent-metrics');
  const headers = await table.locator('th').allTextContents();
  const i = headers.indexOf(header);
  assert.ok(i >= 0, `no column ${header} in ${headers}`);
  return table.locator('td').nth(i).textContent();
}

/** Everything the page keeps in the browser: localStorage, sessionStorage, IndexedDB. */
export async function storedText(page) {
  return page.evaluate(async () => {
    const dump = [JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })];
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open('knoblab-agent');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    for (const name of db.objectStoreNames) {
      const all = await new Promise((resolve) => {
        const r = db.transaction(name).objectStore(name).getAll();
        r.onsuccess = () => resolve(r.result);
      });
      dump.push(JSON.stringify(all));
    }
    db.close();
    return dump.join('\n');
  });
}

/** The key went only in the key header of POSTs to the typed endpoint, and was never logged. */
export function assertKeyOnlySentTo({ requests, consoleText }, baseUrl) {
  const carrying = requests.filter((r) => JSON.stringify(r).includes(KEY));
  assert.ok(carrying.length > 0, 'no request carried the key');
  for (const r of carrying) {
    assert.ok(r.url.startsWith(baseUrl), `the key went to ${r.url}`);
    assert.equal(r.method, 'POST');
    assert.ok(!r.body.includes(KEY) && !r.url.includes(KEY), 'the key is in a body or URL');
  }
  assert.ok(!consoleText.some((t) => t.includes(KEY)), 'the key was logged');
}

/** No page error; console errors only for the failures the test provoked. */
export function assertNoUnexpectedErrors({ errors }) {
  const expected = /Failed to load resource|blocked by CORS policy|net::ERR_FAILED/;
  assert.deepEqual(errors.filter((e) => !expected.test(e)), []);
}
