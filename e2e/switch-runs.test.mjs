// Several SWITCH runs on the scoring page: the public-release fixture
// (tests/fixtures/switch_release, with tiny-vlm's open-weight predictions)
// dropped as a folder, then two more runs (tests/fixtures/switch_runs:
// api-vlm, closed API; mystery-vlm, access not given). The leaderboard
// lists the rows under the paper's access groups (proprietary/API first,
// open-weight next, the model of unknown access last), with the fixtures'
// Overall numbers (6/7, 5/7, 3/7, worked out in switch_runs/README.md);
// its Markdown export keeps the groups. Screenshot of the grouped board.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, openPage, gotoRoute, SHOTS, DESKTOP } from './support.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const RELEASE = join(ROOT, 'tests/fixtures/switch_release');
const RUNS = join(ROOT, 'tests/fixtures/switch_runs');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a leaderboard of SWITCH runs groups its rows by model access as the paper does', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  await gotoRoute(page, '#/score');
  await page.getByTestId('folder-input').setInputFiles(RELEASE);
  await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
  await page.getByTestId('file-input').setInputFiles([join(RUNS, 'mystery-vlm.jsonl'), join(RUNS, 'api-vlm.jsonl')]);
  const board = page.locator('[data-testid=leaderboard][data-benchmark=SWITCH]');
  await board.getByTestId('leader-row').nth(2).waitFor({ timeout: 120_000 });
  await page.getByTestId('score-time').waitFor({ timeout: 120_000 });
  assert.equal(await page.locator('[data-testid=score-report][data-benchmark=SWITCH]').count(), 3);

  const groups = await board.getByTestId('leader-group').allTextContents();
  assert.deepEqual(groups, ['Proprietary / API models', 'Open-weight models', 'Access not given']);
  const rows = await board.getByTestId('leader-row').evaluateAll((trs) => trs.map((tr) => ({
    group: tr.dataset.group,
    name: tr.querySelector('td').textContent,
    overall: Number(tr.querySelectorAll('td')[1].dataset.value),
  })));
  assert.deepEqual(rows.map((r) => [r.group, r.name.split(' ')[0]]), [
    ['Proprietary / API models', 'api-vlm'],
    ['Open-weight models', 'tiny-vlm'],
    ['Access not given', 'mystery-vlm'],
  ]);
  for (const [r, want] of rows.map((r, i) => [r, [6 / 7, 5 / 7, 3 / 7][i]])) {
    assert.ok(Math.abs(r.overall - want) < 1e-12, `${r.name}: ${r.overall}, expected ${want}`);
  }
  // A sort holds inside each group: the groups stay in the paper's order.
  await board.getByTestId('sort').first().click();
  assert.deepEqual(await board.getByTestId('leader-group').allTextContents(), groups);

  // The Markdown export (the core's) keeps the groups as bold heading rows.
  await board.getByTestId('export-md').click();
  const md = await board.getByTestId('export-text').textContent();
  const at = (s) => { const i = md.indexOf(s); assert.ok(i >= 0, `${s} not in\n${md}`); return i; };
  assert.ok(at('| **Proprietary / API models** |') < at('| api-vlm | 85.7 |'));
  assert.ok(at('| api-vlm |') < at('| **Open-weight models** |'));
  assert.ok(at('| **Access not given** |') < at('| mystery-vlm | 42.9 |'));

  // Table 1 of a report draws its column groups over their columns.
  const skills = page.locator('[data-testid=score-report][data-benchmark=SWITCH]').first().getByTestId('table-switch-skills');
  const spans = await skills.locator('tr.group-row th').evaluateAll((ths) => ths.map((th) => [th.textContent, th.colSpan]));
  assert.deepEqual(spans.slice(0, 5), [['', 1], ['', 1], ['Interface Understanding', 3], ['Action & Consequence Reasoning', 3], ['Closed-loop Reflection', 2]]);
  // The column groups sit above the column names, as the paper prints
  // them; the access group's heading is a body row.
  const head = await skills.locator('thead tr').evaluateAll((trs) => trs.map((tr) => tr.className));
  assert.deepEqual(head, ['group-row', ''], 'thead: the column-group row, then the column names');
  const bodyHeadings = await skills.locator('tbody tr.group-row').allTextContents();
  assert.deepEqual(bodyHeadings.map((t) => t.trim()), ['Open-weight models']);

  await board.scrollIntoViewIfNeeded();
  await board.screenshot({ path: `${SHOTS}score-switch-grouped-leaderboard.png` });
  await skills.screenshot({ path: `${SHOTS}score-switch-table1-groups.png` });
  assert.deepEqual(errors, []);
});
