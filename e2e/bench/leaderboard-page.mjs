// The Leaderboard page's time and memory on big runs (docs/leaderboard.md,
// "Performance"): the files given are chosen in the page's file dialog at
// once, and the page's Leaderboard worker ranks them (reading each file,
// scoring it, the bootstraps). Prints one JSON line:
//   {files, ms, worker_memory_mb, page_memory_mb, js_heap_used_mb,
//    js_heap_total_mb, longest_stall_ms}
// - ms: performance.now() from just before the files are chosen to the
//   "Ranked" line being in the page (the table drawn);
// - worker_memory_mb, page_memory_mb: the worker's and the page's wasm
//   linear memory afterwards (it never shrinks, so it is the peak);
// - js_heap_*: the page's performance.memory (Chromium, with
//   --enable-precise-memory-info);
// - longest_stall_ms: the longest the page's thread was busy while it
//   ranked (the longest lateness of a 50 ms timer), how responsive it stayed.
//
//   BASE_URL=http://127.0.0.1:PORT/a/b/c/ node e2e/bench/leaderboard-page.mjs runs/run*.jsonl
// (e2e/serve.mjs serves dist/ at such a URL.)
import { chromium } from 'playwright-core';

const files = process.argv.slice(2);
if (!files.length || !process.env.BASE_URL) {
  console.error('usage: BASE_URL=URL node e2e/bench/leaderboard-page.mjs FILE...');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--enable-precise-memory-info'],
});
try {
  const page = await browser.newPage();
  await page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (e) => { window.__knoblabWasm = e.detail.wasm; });
  });
  await page.goto(new URL('#/leaderboard', process.env.BASE_URL).href);
  await page.getByTestId('file-input').waitFor();
  const start = await page.evaluate(() => {
    window.__stall = 0;
    let last = performance.now();
    window.__tick = setInterval(() => {
      const now = performance.now();
      window.__stall = Math.max(window.__stall, now - last - 50);
      last = now;
    }, 50);
    return performance.now();
  });
  await page.getByTestId('file-input').setInputFiles(files);
  await page.getByTestId('lb-done').waitFor({ timeout: 3_600_000 });
  const worker = page.workers().find((w) => w.url().endsWith('board-worker.js'));
  const workerMemory = worker ? await worker.evaluate(() => self.__knoblabWasm?.memory?.buffer?.byteLength ?? 0) : 0;
  const out = await page.evaluate((t0) => ({
    ms: performance.now() - t0,
    longest_stall_ms: (clearInterval(window.__tick), window.__stall),
    page_memory_mb: (window.__knoblabWasm?.memory?.buffer?.byteLength ?? 0) / 2 ** 20,
    js_heap_used_mb: performance.memory.usedJSHeapSize / 2 ** 20,
    js_heap_total_mb: performance.memory.totalJSHeapSize / 2 ** 20,
    rows: document.querySelectorAll('[data-testid=lb-row]').length,
    episodes: document.querySelector('[data-testid=lb-coverage]')?.dataset.plan,
  }), start);
  console.log(JSON.stringify({ files: files.length, worker_memory_mb: workerMemory / 2 ** 20, ...out }));
} finally {
  await browser.close();
}
