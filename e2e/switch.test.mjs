// SWITCH on the scoring page in both layouts: the public-release fixture
// (tests/fixtures/switch_release: rows, a separate answers file, a family
// outside the eight, splits) dropped as a folder is scored; every displayed
// aggregate equals `knoblab score switch --json` at its JSON pointer, in the
// paper's layout and in the leaderboard's; the submission download is the
// CLI document's `submission`. Screenshots of both layouts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, gotoRoute, SHOTS, DESKTOP } from './support.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const RELEASE = join(ROOT, 'tests/fixtures/switch_release');

function cliJson(args) {
  return JSON.parse(execFileSync('cargo', ['run', '--quiet', '--bin', 'knoblab', '--', ...args, '--json'], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26,
  }));
}

function at(doc, pointer) {
  return pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((v, k) => (v == null ? undefined : v[k]), doc);
}

async function assertCellsMatch(report, doc, label) {
  const cells = await report.locator('td[data-pointer]').evaluateAll((tds) =>
    tds.map((td) => ({ pointer: td.dataset.pointer, value: Number(td.dataset.value) })));
  assert.ok(cells.length > 0, `${label}: no aggregate cell`);
  for (const c of cells) {
    const want = at(doc, c.pointer);
    assert.equal(typeof want, 'number', `${label} ${c.pointer}: the CLI has ${JSON.stringify(want)}`);
    assert.ok(Math.abs(want - c.value) <= 1e-12, `${label} ${c.pointer}: page ${c.value}, CLI ${want}`);
  }
  return cells.length;
}

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('SWITCH release tree in the paper and leaderboard layouts shows the CLI numbers', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  await gotoRoute(page, '#/score');
  await page.getByTestId('folder-input').setInputFiles(RELEASE);
  await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
  const report = page.locator('[data-testid=score-report][data-benchmark=SWITCH]');
  assert.equal(await report.count(), 1);
  const doc = cliJson(['score', 'switch', '--gt', RELEASE, '--pred', join(RELEASE, 'pred.jsonl')]);

  // The paper's layout: grouped columns, the family outside the eight apart.
  const paper = await assertCellsMatch(report, doc, 'paper');
  const skills = report.getByTestId('table-switch-skills');
  assert.match(await skills.textContent(), /Interface Understanding.*Action & Consequence Reasoning.*Closed-loop Reflection/);
  assert.match(await skills.textContent(), /Open-weight models/);
  assert.match(await report.getByTestId('table-switch-extra-families').textContent(), /recovery_abnormal/);
  await page.screenshot({ path: `${SHOTS}score-switch-paper.png`, fullPage: true });

  // The leaderboard's layout, chosen under Options: Open / Held / Overall rows.
  await page.getByTestId('options').locator('summary').click();
  await page.getByTestId('opt-switch-layout').selectOption('leaderboard');
  await page.getByTestId('table-switch-leaderboard').waitFor({ timeout: 120_000 });
  await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
  const board = report.getByTestId('table-switch-leaderboard');
  const rows = await board.locator('tbody tr td:first-child').allTextContents();
  assert.deepEqual(rows, ['Open', 'Held', 'Overall']);
  assert.match(await board.locator('thead').textContent(), /1\/ Task-Aware VQA \(a\) UI State Rec\. \(IT\)/);
  const leaderboard = await assertCellsMatch(report, doc, 'leaderboard');
  console.log(`SWITCH layouts: ${paper} + ${leaderboard} displayed aggregates equal the CLI's`);
  await page.screenshot({ path: `${SHOTS}score-switch-leaderboard.png`, fullPage: true });

  // The submission row, downloaded: the CLI's `submission` (but for the time).
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    report.getByTestId('download-submission').click(),
  ]);
  const row = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(row.results, doc.submission.results);
  assert.equal(row.model_name, 'tiny-vlm');
  assert.equal(row.model_access, 'open_weight');
  assert.match(row.submission_time, /^\d{4}-\d\d-\d\dT/);
  // The fixture's predictions cover the four tracks: no track is named.
  assert.doesNotMatch(await report.locator('.notes').textContent(), /tracks not covered/);
  assert.deepEqual(errors, []);
});

test('the submission\'s tracks the predictions do not cover are named on the page, as the CLI names them', async () => {
  // The release with multiple-choice answers alone: no open question answered.
  const dir = mkdtempSync(join(tmpdir(), 'knoblab-switch-'));
  try {
    const copy = join(dir, 'switch_release');
    cpSync(RELEASE, copy, { recursive: true });
    const lines = readFileSync(join(RELEASE, 'pred.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"m'));
    writeFileSync(join(copy, 'pred.jsonl'), `${lines.join('\n')}\n`);
    const doc = cliJson(['score', 'switch', '--gt', copy, '--pred', join(copy, 'pred.jsonl')]);
    const uncovered = doc.submission_tracks.filter((t) => !t.covered).map((t) => t.track);
    assert.deepEqual(uncovered, ['openqa_open', 'openqa_closed']);
    const { page, errors } = await openPage(browser, DESKTOP);
    await gotoRoute(page, '#/score');
    await page.getByTestId('folder-input').setInputFiles(copy);
    await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
    const notes = await page.locator('[data-testid=score-report][data-benchmark=SWITCH] .notes').textContent();
    assert.match(notes, /tracks not covered by these predictions: openqa_open, openqa_closed: none of its 1 items has a prediction/);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
