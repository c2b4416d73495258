// Live pictures in the player: with render=live the picture is drawn for
// the device's state, so a step that changes the state changes the
// picture (screenshots before and after), while the static mode (the
// paper's) keeps the same picture; the time the core took to draw each
// live picture is logged.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, SHOTS } from './support.mjs';
import { deviceOf, openPlay, optimal } from './player-support.mjs';

let browser;
let microwave;
before(async () => {
  browser = await launch();
  microwave = await deviceOf('Microwave');
});
after(async () => { await browser?.close(); });

/** The first task whose optimal path changes the state at its first action. */
const pictureSrc = (page) => page.getByTestId('picture-img').getAttribute('src');

for (const mode of ['live', 'static']) {
  test(`in ${mode} mode a change of state ${mode === 'live' ? 'changes' : 'keeps'} the picture`, async () => {
    const { page, errors } = await openPage(browser);
    const task = microwave.tasks[0].id;
    await openPlay(page, microwave.entry.id, task, `&render=${mode}`);
    const stage = page.locator('.stage');
    assert.equal(await stage.getAttribute('data-render'), mode);
    assert.equal(await page.evaluate(() => window.knoblab.render()), mode);
    const path = await optimal(page, task);
    const first = path.find((s) => !s.action.startsWith('Switch_view'));
    // Reach the view of the first physical action, then act.
    for (const s of path.slice(0, path.indexOf(first))) await page.evaluate((a) => window.knoblab.step(a), s.action);
    const before = await pictureSrc(page);
    await page.screenshot({ path: `${SHOTS}player-${mode}-before.png` });
    const state = (await page.evaluate((a) => window.knoblab.step(a), first.action)).info.state;
    await page.waitForTimeout(100);
    const afterSrc = await pictureSrc(page);
    await page.screenshot({ path: `${SHOTS}player-${mode}-after.png` });
    if (mode === 'live') {
      assert.notEqual(afterSrc, before, `the picture did not change on entering ${state}`);
      const ms = Number(await stage.getAttribute('data-render-ms'));
      assert.ok(Number.isFinite(ms));
      console.log(`live picture of ${microwave.entry.id} in ${state}: ${ms.toFixed(2)} ms in the page`);
      // The page API hands a script the same live picture.
      assert.equal(await page.evaluate(() => window.knoblab.image()), afterSrc);
      assert.equal((await page.evaluate(() => window.knoblab.trajectory())).settings.render, 'live');
    } else {
      assert.equal(afterSrc, before);
      assert.equal((await page.evaluate(() => window.knoblab.trajectory())).settings.render, 'static');
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}
