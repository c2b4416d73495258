// What the size figures drop on the Score page, one function per
// benchmark, shared by e2e/route-sizes.test.mjs and scripts/page_sizes.mjs
// so that the test's bound and the documented table measure the same visit.
// Each starts on a shown `#/score` (the drop zone waited for) and returns
// once the files are given; the caller waits for the report.
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const OFFICIAL = join(ROOT, 'tests/fixtures/official');

/** EPIC-Bench: the official Custom results and their ground truth. */
export async function dropEpic(page) {
  await page.getByTestId('folder-input').setInputFiles(join(OFFICIAL, 'epic/dataset'));
  await page.getByTestId('folder-input').setInputFiles(join(OFFICIAL, 'epic/raw/Custom'));
}

/** FineState-Bench: the shipped sample's predictions, with the model its
 * official scoring needs, and the dataset. */
export async function dropFinestate(page) {
  await page.getByTestId('options').locator('summary').click();
  await page.getByTestId('opt-finestate-model').fill('google/gemini-2.5-flash');
  await page.getByTestId('opt-finestate-model').press('Enter');
  await page.getByTestId('folder-input').setInputFiles(join(OFFICIAL, 'finestate/dataset'));
  await page.getByTestId('file-input').setInputFiles(join(ROOT, 'data/samples/finestate/predictions.jsonl'));
}

/** SWITCH: the test fixture's predictions and its release. */
export async function dropSwitch(page) {
  await page.getByTestId('folder-input').setInputFiles(join(ROOT, 'tests/fixtures/switch/gt'));
  await page.getByTestId('file-input').setInputFiles(join(ROOT, 'tests/fixtures/switch/pred.jsonl'));
}
