// Bytes a visitor's browser downloads per route on a cold visit (issue
// #46's table, docs/performance.md "What each route downloads"):
//
//   node e2e/serve.mjs --dist dist --mount /a/b/c/ &   # prints {"app": URL, …}
//   node scripts/page_sizes.mjs URL
//
// Each route is visited in a fresh browser context (an empty cache), by
// deep link, until it is ready (and the network idle). Two sums:
// - page: Chromium's encodedDataLength (bytes on the wire, gzipped as the
//   server sent them, headers included) of the page's and its workers'
//   requests, read from the DevTools protocol, in a visit with the service
//   worker blocked (so that nothing the route needs reaches it from the
//   service worker's cache uncounted); `ready` is its part when the route
//   became usable, and `app ready` that part's wasm + JS + CSS alone (the
//   issue's "before the library page is interactive");
// - server: the bytes of bodies the server sent (e2e/serve.mjs's counters)
//   in a second cold visit with the service worker allowed, so they include
//   what it keeps for offline use.
// Prints a Markdown table, gzipped KiB.
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const BASE = process.argv[2];
if (!BASE) throw new Error('usage: node scripts/page_sizes.mjs BASE_URL (served by e2e/serve.mjs)');
const server = new URL('/', BASE);
const OFFICIAL = join(new URL('..', import.meta.url).pathname, 'tests/fixtures/official');

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
    await page.getByTestId('folder-input').setInputFiles(join(OFFICIAL, 'epic/dataset'));
    await page.getByTestId('folder-input').setInputFiles(join(OFFICIAL, 'epic/raw/Custom'));
    await page.getByTestId('score-time').waitFor({ timeout: 300_000 });
  }],
  ['Agent', '#/agent', async (page) => page.getByTestId('agent-page').waitFor()],
];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
});
const rows = [];
// Each wasm file's bytes on the wire (gzipped), as first seen.
const wasm = new Map();
/** One cold visit of a route in a fresh context. With the service worker
 * blocked, every file the route needs comes from the network and is
 * counted once (with it allowed, a file the service worker had already
 * kept in the background reaches the page as 0 bytes, which would hide
 * it); with it allowed, the server's counters also see what the service
 * worker keeps. */
async function visit(name, hash, ready, serviceWorkers) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers });
  const page = await context.newPage();
  let wire = 0;
  let requests = 0;
  let app = 0;
  const urls = new Map();
  // The page's and every worker's network, through the DevTools protocol.
  const session = await context.newCDPSession(page);
  await session.send('Network.enable');
  session.on('Network.responseReceived', (e) => urls.set(e.requestId, e.response.url));
  session.on('Network.loadingFinished', (e) => {
    wire += e.encodedDataLength;
    requests += 1;
    const path = new URL(urls.get(e.requestId) ?? 'about:blank').pathname;
    if (/\.(wasm|js|css)$/.test(path)) {
      app += e.encodedDataLength;
      if (path.endsWith('.wasm') && serviceWorkers === 'block') wasm.set(path.split('/').pop(), e.encodedDataLength);
    }
  });
  await fetch(new URL('__bytes/reset', server));
  await page.goto(new URL(hash, BASE).href);
  await ready(page);
  const atReady = [wire, app];
  // The network idle (a page that keeps polling is measured at 30 s).
  await page.waitForLoadState('networkidle', { timeout: 30_000 }).catch(() => console.error(`${name}: the network did not go idle`));
  await new Promise((r) => setTimeout(r, 1000)); // a service worker's install finishes
  const sent = await (await fetch(new URL('__bytes', server))).json();
  await context.close();
  return { atReady, requests, wire, sent };
}
for (const [name, hash, ready] of ROUTES) {
  const own = await visit(name, hash, ready, 'block');
  const { sent } = await visit(name, hash, ready, 'allow');
  rows.push([name, own.atReady, own.requests, own.wire, sent.requests, sent.bytes]);
}
await browser.close();
const kib = (n) => (n / 1024).toFixed(0);
console.log('| route | app KiB at ready (wasm+JS+CSS) | page KiB at ready | page requests | page KiB (wire) | server requests | server KiB sent |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [name, [readyWire, readyApp], req, wire, sreq, sent] of rows) {
  console.log(`| ${name} | ${kib(readyApp)} | ${kib(readyWire)} | ${req} | ${kib(wire)} | ${sreq} | ${kib(sent)} |`);
}
console.log('\n| wasm | KiB gzipped (wire) |\n| --- | ---: |');
for (const [file, bytes] of wasm) console.log(`| ${file} | ${kib(bytes)} |`);
