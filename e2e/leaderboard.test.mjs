// The Leaderboard page (issue #49) on three runs the CLI made
// (tests/fixtures/leaderboard_runs: the oracle, the random agent, and a
// random run cut short, so partial): the table equals `knoblab leaderboard
// --json` on the same files (expected.json, which a native test keeps equal
// to the CLI's output), a cell opens its episodes and an episode its
// trajectory in the player; a paired comparison lists the episodes one
// solved and the other did not; a bad file is refused without losing the
// board. Then the leaderboard is saved, served beside the page as a project
// page would publish it (results/leaderboard.json next to dist/'s files,
// under the same sub-path), and reopened from `#/leaderboard?src=…` and by
// dropping the saved file. Screenshots of the board and of a trajectory. A
// run on a generated device is ranked as the CLI ranks it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, gotoRoute, SHOTS, DESKTOP } from './support.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = join(ROOT, 'tests/fixtures/leaderboard_runs');
const FILES = ['oracle.jsonl', 'random.jsonl', 'partial.jsonl'].map((f) => join(RUNS, f));
const EXPECTED = JSON.parse(readFileSync(join(RUNS, 'expected.json'), 'utf8'));

let browser;
let work;
before(async () => {
  browser = await launch();
  work = mkdtempSync(join(tmpdir(), 'knoblab-lb-'));
});
after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const num = (s) => (s === '' ? null : Number(s));

/** The page's main table: per row, coverage and each cell's raw numbers. */
async function tableOf(page) {
  return page.getByTestId('lb-row').evaluateAll((trs) => trs.map((tr) => ({
    file: tr.dataset.file,
    status: tr.dataset.status,
    coverage: Object.fromEntries(['played', 'plan', 'missing', 'apiError'].map((k) => [k, Number(tr.querySelector('[data-testid=lb-coverage]').dataset[k])])),
    plan: (() => { const c = tr.querySelector('[data-testid=lb-plan-cell]'); return [c.dataset.value, c.dataset.low, c.dataset.high]; })(),
    cells: [...tr.querySelectorAll('[data-testid=lb-cell]')].map((td) => [td.dataset.metric, td.dataset.value, td.dataset.low, td.dataset.high, td.dataset.n]),
  })));
}

/** The table equals the CLI's document, number for number. */
function assertEqualsCli(rows) {
  assert.equal(rows.length, EXPECTED.runs.length);
  rows.forEach((row, i) => {
    const want = EXPECTED.runs[i];
    assert.equal(row.file, want.file);
    assert.equal(row.status, want.status);
    assert.deepEqual(row.coverage, { played: want.coverage.played, plan: want.coverage.plan, missing: want.coverage.missing, apiError: want.coverage.api_error });
    assert.deepEqual(row.plan.map(num), [want.sr_plan.value, want.sr_plan.ci_low, want.sr_plan.ci_high]);
    assert.equal(row.cells.length, Object.keys(want.metrics).length);
    for (const [key, v, lo, hi, n] of row.cells) {
      const e = want.metrics[key];
      assert.ok(e, `${key} is not in the CLI's document`);
      assert.deepEqual([num(v), num(lo), num(hi), Number(n)], [e.value, e.ci_low, e.ci_high, e.n], `${want.file} ${key}`);
    }
  });
}

/** Opens the first trajectory link of the episode list in its tab, and checks the player replays it. */
async function openTrajectory(page, context, key) {
  const link = page.locator(`[data-testid=lb-episode][data-key="${key}"] [data-testid=lb-trace]`);
  const [player] = await Promise.all([context.waitForEvent('page'), link.click()]);
  await player.getByTestId('player').waitFor({ timeout: 60_000 });
  return player;
}

test('three runs: the table is the CLI\'s, cells open episodes, episodes open trajectories; saved, served, reopened', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  await gotoRoute(page, '#/leaderboard');
  assert.equal(await page.getByTestId('nav-leaderboard').getAttribute('aria-current'), 'page');
  await page.getByTestId('file-input').setInputFiles(FILES);
  await page.getByTestId('lb-done').waitFor({ timeout: 120_000 });
  const rows = await tableOf(page);
  assertEqualsCli(rows);
  assert.deepEqual(rows.map((r) => r.status), ['complete', 'complete', 'partial']);
  // The chart draws SR per run at the document's values.
  const chart = await page.getByTestId('lb-chart-run').evaluateAll((gs) => gs.map((g) => Number(g.dataset.value)));
  assert.deepEqual(chart, EXPECTED.runs.map((r) => r.metrics.sr.value));
  await page.getByTestId('lb-board').screenshot({ path: join(SHOTS, 'leaderboard-board.png') });

  // A bad file is refused by name; the board keeps its three rows.
  const bad = join(work, 'notes.txt');
  writeFileSync(bad, 'not a run\n');
  await page.getByTestId('file-input').setInputFiles([bad]);
  await page.getByTestId('lb-refusal').first().waitFor();
  assert.match(await page.getByTestId('lb-refusal').first().textContent(), /notes\.txt.*trajectory file/);
  await page.getByTestId('lb-done').waitFor();
  assert.equal(await page.getByTestId('lb-row').count(), 3);

  // The partial run's SR cell: every planned episode, 8 of them missing.
  await page.locator('[data-testid=lb-row][data-file="partial.jsonl"] [data-testid=lb-cell][data-metric=sr] button').click();
  const list = page.getByTestId('lb-episodes');
  await list.waitFor();
  // The traces behind the list come from the worker, where they stay.
  await page.locator('[data-testid=lb-episodes][data-traces=in]').waitFor();
  assert.equal(await list.getByTestId('lb-episode').count(), EXPECTED.plan.episodes);
  assert.equal(await list.locator('[data-testid=lb-episode][data-state=missing]').count(), 8);
  assert.equal(await list.getByTestId('lb-trace').count(), 16);

  // The oracle's row by task kind, then one of its episodes in the player.
  await page.getByTestId('lb-drill-by').selectOption('kind');
  await page.getByTestId('lb-drill').waitFor();
  assert.ok(await page.getByTestId('lb-group-row').count() >= 3);
  await page.locator('[data-testid=lb-row][data-file="oracle.jsonl"] [data-testid=lb-cell][data-metric=spl] button').click();
  const oracle = EXPECTED.runs[0].episodes.find((e) => e.state === 'played');
  await list.locator(`[data-testid=lb-episode][data-key="${oracle.key}"]`).waitFor();
  const player = await openTrajectory(page, page.context(), oracle.key);
  // The player played the recorded actions again: one feedback entry a step, the episode over, the optimal path shown.
  await player.getByTestId('end-panel').waitFor({ timeout: 60_000 });
  assert.equal(await player.getByTestId('feedback-entry').count(), oracle.steps);
  await player.getByTestId('optimal-path').waitFor();
  assert.match(player.url(), /#\/play\?bundle=/);
  await player.screenshot({ path: join(SHOTS, 'leaderboard-trajectory.png'), fullPage: true });
  await player.close();

  // Oracle against random: +100 points of SR, the 24 episodes only A solved listed.
  await page.getByTestId('lb-compare-a').selectOption('0');
  await page.getByTestId('lb-compare-b').selectOption('1');
  await page.getByTestId('lb-compare-run').click();
  await page.getByTestId('lb-compared').waitFor();
  const diff = page.getByTestId('lb-diff-sr');
  assert.equal(Number(await diff.getAttribute('data-value')), 1);
  assert.equal(await page.getByTestId('lb-only-a').count(), 24);
  assert.equal(await page.getByTestId('lb-only-b').count(), 0);
  await page.screenshot({ path: join(SHOTS, 'leaderboard-page.png'), fullPage: true });

  // Save: one file, with the document and the trajectories.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('lb-save').click()]);
  const site = join(work, 'site');
  mkdirSync(join(site, 'results'), { recursive: true });
  const saved = join(site, 'results', 'leaderboard.json');
  await download.saveAs(saved);
  const doc = JSON.parse(readFileSync(saved, 'utf8'));
  assert.equal(doc.format, 'knoblab-leaderboard-published/1');
  assert.deepEqual(doc.leaderboard.runs.map((r) => r.metrics), EXPECTED.runs.map((r) => r.metrics));
  assert.equal(doc.traces.length, 3);

  // A plan with one episode none of the runs played: every row counts it
  // as missing (ranked again in the worker, the plan file handed over).
  const keys = EXPECTED.runs[0].episodes.map((e) => e.key);
  const extra = keys[0].replace(/#\d+$/, '#99');
  const planFile = join(work, 'plan.txt');
  writeFileSync(planFile, [...keys, extra].join('\n') + '\n');
  const before = await tableOf(page);
  await page.getByTestId('lb-plan').setInputFiles([planFile]);
  await page.getByTestId('lb-plan-name').waitFor();
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=lb-row] [data-testid=lb-coverage]')?.dataset.plan) === n, before[0].coverage.plan + 1);
  await page.getByTestId('lb-done').waitFor();
  const planned = await tableOf(page);
  assert.deepEqual(planned.map((r) => [r.coverage.plan, r.coverage.missing]),
    before.map((r) => [r.coverage.plan + 1, r.coverage.missing + 1]));
  assert.equal(errors.length, 0, errors.join('\n'));
  await page.close();

  // Published beside the page: dist/'s files and results/ under one sub-path, served.
  const dist = join(ROOT, 'dist');
  for (const entry of readdirSync(dist)) symlinkSync(join(dist, entry), join(site, entry));
  const server = spawn(process.execPath, [join(ROOT, 'e2e/serve.mjs'), '--dist', site, '--mount', '/p/q/'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const urls = await new Promise((done, fail) => {
      server.stdout.once('data', (d) => done(JSON.parse(String(d).split('\n')[0])));
      server.once('exit', (code) => fail(new Error(`serve.mjs exited with ${code}`)));
    });
    const { page: reopened, errors: errors2 } = await openPage(browser, DESKTOP);
    await reopened.goto(`${urls.app}#/leaderboard?src=results/leaderboard.json`);
    await reopened.getByTestId('lb-done').waitFor({ timeout: 120_000 });
    assertEqualsCli(await tableOf(reopened));
    await reopened.locator('[data-testid=lb-row][data-file="random.jsonl"] [data-testid=lb-cell][data-metric=sr] button').click();
    const random = EXPECTED.runs[1].episodes.find((e) => e.state === 'played');
    const replay = await openTrajectory(reopened, reopened.context(), random.key);
    await replay.getByTestId('end-panel').waitFor({ timeout: 60_000 });
    assert.equal(await replay.getByTestId('feedback-entry').count(), random.steps);
    await replay.close();
    await reopened.screenshot({ path: join(SHOTS, 'leaderboard-reopened.png'), fullPage: true });
    assert.equal(errors2.length, 0, errors2.join('\n'));
    await reopened.close();
  } finally {
    server.kill();
  }

  // And by dropping the saved file on a fresh page.
  const { page: dropped } = await openPage(browser, DESKTOP);
  await gotoRoute(dropped, '#/leaderboard');
  await dropped.getByTestId('file-input').setInputFiles([saved]);
  await dropped.getByTestId('lb-done').waitFor({ timeout: 60_000 });
  assertEqualsCli(await tableOf(dropped));
  assert.equal(await dropped.getByTestId('lb-no-traces').count(), 0);
  await dropped.close();
});

/** Runs the CLI: `KNOBLAB_BIN` when set, else the dev build. */
function knoblab(args) {
  const [cmd, pre] = process.env.KNOBLAB_BIN
    ? [process.env.KNOBLAB_BIN, []]
    : ['cargo', ['run', '--quiet', '--bin', 'knoblab', '--']];
  return execFileSync(cmd, [...pre, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
}

test("a run on a generated device is ranked as the CLI ranks it (the worker makes the device, with the generator's font)", async () => {
  const id = JSON.parse(readFileSync(join(ROOT, 'data/generated.json'), 'utf8')).devices[0].id;
  const run = join(work, 'generated-oracle.jsonl');
  knoblab(['run', id, '--agent', 'oracle', '--out', run]);
  const doc = JSON.parse(knoblab(['leaderboard', run, '--json']));
  const { page, errors } = await openPage(browser, DESKTOP);
  await gotoRoute(page, '#/leaderboard');
  await page.getByTestId('file-input').setInputFiles([run]);
  await page.getByTestId('lb-done').waitFor({ timeout: 300_000 });
  const rows = await tableOf(page);
  assert.equal(rows.length, 1, JSON.stringify(rows));
  const want = doc.runs[0];
  assert.equal(rows[0].status, want.status);
  assert.ok(rows[0].cells.length > 0);
  for (const [key, v, lo, hi, n] of rows[0].cells) {
    const e = want.metrics[key];
    assert.ok(e, `${key} is not in the CLI's document`);
    assert.deepEqual([num(v), num(lo), num(hi), Number(n)], [e.value, e.ci_low, e.ci_high, e.n], key);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a leaderboard URL that names no file says so', async () => {
  const { page } = await openPage(browser, DESKTOP);
  await gotoRoute(page, '#/leaderboard?src=results/nowhere.json');
  await page.getByTestId('lb-refusal').waitFor({ timeout: 30_000 });
  assert.match(await page.getByTestId('lb-refusal').textContent(), /results\/nowhere\.json.*404/);
  assert.equal(await page.getByTestId('lb-board').count(), 0);
  await page.close();
});
