// A live picture's time in the page (docs/performance.md, "Live
// pictures"): microwave-0001 in live mode, each of its first eight tasks
// played along its optimal path through window.knoblab; after each step the
// stage's `data-render-ms` (the page's own timing of drawing the picture:
// decoding the view and its sheet, laying the patches, encoding the PNG) is
// read. Prints one JSON line: {n, median, p25, p75} in ms.
//
//   BASE_URL=http://127.0.0.1:PORT/a/b/c/ node e2e/bench/live-picture.mjs
// (e2e/serve.mjs serves dist/ at such a URL.) To compare two builds, serve
// each and run this against them in turn, A, B, A, B.
import { chromium } from 'playwright-core';

const BASE = process.env.BASE_URL;
if (!BASE) {
  console.error('usage: BASE_URL=URL node e2e/bench/live-picture.mjs');
  process.exit(2);
}
const json = async (path) => (await fetch(new URL(`data/${path}`, BASE))).json();
const device = (await json('library.json')).devices.find((d) => d.id === 'microwave-0001');
const { tasks } = await json(`${device.path}/tasks.json`);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  const samples = [];
  for (const task of tasks.slice(0, 8)) {
    const hash = `#/play?bundle=${device.id}&task=${encodeURIComponent(task.id)}&render=live`;
    await page.goto(new URL(hash, BASE).href);
    await page.getByTestId('player').waitFor();
    const path = await page.evaluate((id) => window.knoblab.optimal(id), task.id);
    for (const step of path) {
      await page.evaluate((a) => window.knoblab.step(a), step.action);
      await page.waitForTimeout(30);
      const ms = Number(await page.locator('.stage').getAttribute('data-render-ms'));
      if (Number.isFinite(ms) && ms > 0) samples.push(ms);
    }
  }
  if (!samples.length) throw new Error('no live picture was timed: is microwave-0001 drawn live?');
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  console.log(JSON.stringify({ n: samples.length, median: at(0.5), p25: at(0.25), p75: at(0.75) }));
} finally {
  await browser.close();
}
