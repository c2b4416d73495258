// Bytes a visitor's browser downloads per route on a cold visit (issue
// #46's table, docs/performance.md "What each route downloads"):
//
//   node e2e/serve.mjs --dist dist --mount /a/b/c/ &   # prints {"app": URL, …}
//   node scripts/page_sizes.mjs URL
//
// Each route is visited in a fresh browser context (an empty cache), by
// deep link, until it is ready (and the network idle). The bytes are the
// bodies the server sent (e2e/serve.mjs's counters, gzipped as sent; one
// column adds the response headers, as a browser's "transferred" does), so
// that the workers' requests count as the page's do (a page's DevTools
// protocol does not see its workers' requests):
// - at ready, SW blocked: what the route downloaded until it became usable,
//   with the service worker blocked (so that nothing it needs reaches it
//   from the service worker's cache uncounted); `wasm+JS+CSS` is that part's
//   code alone (the "before the library page is interactive");
// - then the same visit once the network is idle;
// - SW allowed: a second cold visit with the service worker allowed, which
//   adds what it keeps for offline use.
// Prints a Markdown table, gzipped KiB, and each wasm's gzipped bytes.
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { dropEpic, dropFinestate, dropSwitch } from '../e2e/score-drops.mjs';

const BASE = process.argv[2];
if (!BASE) throw new Error('usage: node scripts/page_sizes.mjs BASE_URL (served by e2e/serve.mjs)');
const server = new URL('/', BASE);
const ROOT = new URL('..', import.meta.url).pathname;

const dataJson = async (path) => (await fetch(new URL(`data/${path}`, BASE))).json();
const library = await dataJson('library.json');
const kettle = library.devices.find((d) => d.category === 'ElectricKettle');
const { tasks } = await dataJson(`${kettle.path}/tasks.json`);
const generated = (await dataJson('generated.json')).devices[0].id;

const ROUTES = [
  ['library', '#/library', async (page) => page.getByTestId('device-card').first().waitFor()],
  ['play a hand-made device', `#/play?bundle=${kettle.id}&task=${encodeURIComponent(tasks[0].id)}`,
    async (page) => page.getByTestId('player').waitFor()],
  ['play a generated device', `#/play?bundle=${generated}`,
    async (page) => page.getByTestId('player').waitFor({ timeout: 300_000 })],
  ['Score with an EPIC file', '#/score', async (page) => {
    await page.getByTestId('drop-zone').waitFor();
    await dropEpic(page);
    await page.getByTestId('score-time').waitFor({ timeout: 300_000 });
  }],
  ['Agent', '#/agent', async (page) => page.getByTestId('agent-page').waitFor()],
  // Beyond the table: the Score route with each other benchmark's
  // file (its scorer's chunk), and the Leaderboard with three runs.
  ['Score with a FineState-Bench file', '#/score', async (page) => {
    await page.getByTestId('drop-zone').waitFor();
    await dropFinestate(page);
    await page.getByTestId('score-report').first().waitFor({ timeout: 300_000 });
  }],
  ['Score with a SWITCH file', '#/score', async (page) => {
    await page.getByTestId('drop-zone').waitFor();
    await dropSwitch(page);
    await page.getByTestId('score-report').first().waitFor({ timeout: 300_000 });
  }],
  ['Score with trajectories', '#/score', async (page) => {
    await page.getByTestId('drop-zone').waitFor();
    await page.getByTestId('file-input').setInputFiles(join(ROOT, 'tests/fixtures/leaderboard_runs/oracle.jsonl'));
    await page.getByTestId('score-report').first().waitFor({ timeout: 300_000 });
  }],
  ['Leaderboard with three runs', '#/leaderboard', async (page) => {
    await page.getByTestId('leaderboard-page').waitFor();
    await page.getByTestId('file-input').setInputFiles(['oracle.jsonl', 'random.jsonl', 'partial.jsonl']
      .map((f) => join(ROOT, 'tests/fixtures/leaderboard_runs', f)));
    await page.getByTestId('lb-done').waitFor({ timeout: 300_000 });
  }],
];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
});
const rows = [];
// Each wasm file's bytes as sent (gzipped), as first seen.
const wasm = new Map();
const CODE = /\.(wasm|js|css)$/;
/** The server's counters: everything, and wasm + JS + CSS alone. */
async function counters() {
  const sent = await (await fetch(new URL('__bytes', server))).json();
  const files = Object.entries(sent.files);
  const code = files.filter(([path]) => CODE.test(path)).reduce((sum, [, bytes]) => sum + bytes, 0);
  return { ...sent, code, files };
}
/** One cold visit of a route in a fresh context, with the service worker
 * blocked or allowed. */
async function visit(name, hash, ready, serviceWorkers) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers });
  const page = await context.newPage();
  await fetch(new URL('__bytes/reset', server));
  await page.goto(new URL(hash, BASE).href);
  await ready(page);
  const atReady = await counters();
  // The network idle (a page that keeps polling is measured at 30 s).
  await page.waitForLoadState('networkidle', { timeout: 30_000 }).catch(() => console.error(`${name}: the network did not go idle`));
  await new Promise((r) => setTimeout(r, 1000)); // a service worker's install finishes
  const idle = await counters();
  if (serviceWorkers === 'block') {
    for (const [path, bytes] of idle.files) if (path.endsWith('.wasm') && !wasm.has(path)) wasm.set(path, bytes);
  }
  await context.close();
  return { atReady, idle };
}
for (const [name, hash, ready] of ROUTES) {
  const own = await visit(name, hash, ready, 'block');
  const kept = await visit(name, hash, ready, 'allow');
  rows.push([name, own, kept]);
}
await browser.close();
const kib = (n) => (n / 1024).toFixed(0);
console.log('| route | wasm+JS+CSS at ready, SW blocked | all at ready | requests | all at ready, with headers | all once idle | SW allowed: requests | SW allowed: KiB |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [name, own, kept] of rows) {
  console.log(`| ${name} | ${kib(own.atReady.code)} | ${kib(own.atReady.bytes)} | ${own.atReady.requests} | ${kib(own.atReady.bytes + own.atReady.headers)} | ${kib(own.idle.bytes)} | ${kept.idle.requests} | ${kib(kept.idle.bytes)} |`);
}
console.log('\n| wasm | bytes gzipped (as sent) |\n| --- | ---: |');
for (const [file, bytes] of wasm) console.log(`| ${file} | ${bytes} |`);
