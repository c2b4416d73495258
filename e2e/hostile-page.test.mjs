// Hostile files in the page (issue #12): a 1 GiB results file is refused by
// its size before it is read, and a bundle whose picture declares
// 100,000 x 100,000 pixels is refused with the same message as the CLI's.
// The page keeps working after both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, closeSync, ftruncateSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, openPage, gotoRoute } from './support.mjs';

let browser;
let dir;
before(async () => {
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'knoblab-hostile-'));
});
after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A sparse file: its length is `bytes`, its disk use is nil. */
function sparse(name, bytes) {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  ftruncateSync(fd, bytes);
  closeSync(fd);
  return path;
}

test('a 1 GiB results file is refused by its size, and the page still scores', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/score');
  // Chromium is given the path, not the bytes: nothing reads the file unless the page does.
  await page.getByTestId('file-input').setInputFiles(sparse('huge.jsonl', 1024 ** 3));
  const refused = page.getByTestId('refused');
  await page.waitForFunction(() => /huge\.jsonl/.test(document.querySelector('[data-testid=refused]')?.textContent ?? ''));
  assert.match(await refused.textContent(), /huge\.jsonl: the file takes 1024 MiB; at most 256 MiB is read/);
  await page.getByTestId('clear').click();
  await page.getByTestId('sample-switch').click();
  await page.getByTestId('score-report').first().waitFor({ timeout: 60_000 });
  assert.deepEqual(errors, []);
});

/** A PNG header (signature and IHDR) declaring a size, with no pixel data. */
function pngHeader(width, height) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const chunk = Buffer.concat([Buffer.from([0, 0, 0, 13]), Buffer.from('IHDR'), ihdr, Buffer.alloc(4)]);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk]);
}

test('a bundle whose picture declares 100,000 x 100,000 pixels is refused with a message', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/library');
  const bundle = {
    manifest: { format: 'knoblab-bundle/1', id: 'huge-picture', category: 'Lamp', name: 'Huge picture',
      initial_view: 'front', license: 'CC0-1.0', source: 'hostile test' },
    ssm: { name: 'Lamp', initial_state: 'Off', states: { Off: { description: 'off', on: {} } } },
    views: { front: { file: `data:image/png;base64,${pngHeader(100000, 100000).toString('base64')}`, kind: 'orthographic' } },
    tasks: { tasks: [] },
  };
  await page.getByTestId('file-input').setInputFiles({
    name: 'huge-picture.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bundle)),
  });
  const problems = page.getByTestId('problems');
  await problems.waitFor();
  assert.match(await problems.textContent(), /100000.100000/);
  assert.match(await problems.textContent(), /40 ?(megapixels|MP)/i);
  assert.deepEqual(errors, []);
});
