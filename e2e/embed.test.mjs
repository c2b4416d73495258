// Embed mode: a host page frames #/embed?bundle=URL&task=ID, hears every
// step and the end (with metrics) through postMessage, and acts by sending
// messages. The bundle is served as one JSON file at a URL of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, BASE_URL, SHOTS, DESKTOP, PHONE } from './support.mjs';
import { deviceOf, singleJson } from './player-support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('an embedded player reports every step and the end to its host, and takes actions from it', async () => {
  const { entry, tasks } = await deviceOf('ElectricKettle');
  const bundle = await singleJson(entry);
  const bundleUrl = new URL('test-bundles/kettle.json', BASE_URL).href;
  const task = tasks[0].id;
  for (const [size, name] of [[DESKTOP, 'desktop'], [PHONE, 'phone']]) {
    const { page, errors } = await openPage(browser, size);
    await page.route(bundleUrl, (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify(bundle) }));
    const src = `${BASE_URL}#/embed?bundle=${encodeURIComponent(bundleUrl)}&task=${encodeURIComponent(task)}`;
    await page.goto(new URL('data/library.json', BASE_URL).href); // any page of the same server hosts the frame
    await page.evaluate((frameSrc) => {
      document.documentElement.innerHTML = '<body><h1>Host</h1></body>';
      window.received = [];
      window.addEventListener('message', (e) => { if (e.data?.source === 'knoblab') window.received.push(e.data); });
      const frame = document.createElement('iframe');
      frame.src = frameSrc;
      frame.style.cssText = 'width: 100%; height: 700px; border: 1px solid #999';
      frame.id = 'player';
      document.body.append(frame);
    }, src);
    await page.waitForFunction(() => window.received.some((m) => m.type === 'ready'));
    const ready = await page.evaluate(() => window.received.find((m) => m.type === 'ready'));
    assert.equal(ready.task, task);
    assert.equal(ready.bundle_id, bundle.manifest.id);
    assert.equal(ready.observation.instruction, tasks[0].goals[0].instruction);

    const frame = page.frameLocator('#player');
    await frame.getByTestId('player').waitFor();
    // No site header inside the frame: the player alone.
    assert.equal(await frame.getByTestId('brand').count(), 0);
    const path = await page.frames()[1].evaluate((t) => window.knoblab.optimal(t), task);

    await page.evaluate(() => document.getElementById('player').contentWindow.postMessage({ type: 'act', action: 'Click(coord=[1, 1])' }, '*'));
    await page.waitForFunction(() => window.received.filter((m) => m.type === 'step').length === 1);
    for (const step of path) {
      await page.evaluate((action) => document.getElementById('player').contentWindow.postMessage({ type: 'act', action }, '*'), step.action);
    }
    await page.waitForFunction(() => window.received.some((m) => m.type === 'end'));
    const received = await page.evaluate(() => window.received);
    const steps = received.filter((m) => m.type === 'step');
    assert.equal(steps.length, path.length + 1);
    assert.deepEqual(steps.map((s) => s.index), steps.map((_, i) => i + 1));
    assert.equal(steps[0].action, 'Click(coord=[1, 1])');
    assert.equal(steps[0].info.outcome, 'notification');
    assert.equal(steps.at(-1).terminated, true);
    const end = received.find((m) => m.type === 'end');
    assert.equal(end.terminated, true);
    assert.equal(end.metrics.sr, 1);
    assert.equal(end.steps, path.length + 1);
    assert.equal(end.trajectory.steps.length, path.length + 1);
    // The frame shows the same episode.
    await frame.getByTestId('end-panel').waitFor();
    await page.screenshot({ path: `${SHOTS}player-embed-${name}.png`, fullPage: true });

    // A request the player cannot serve is answered with an error.
    await page.evaluate(() => document.getElementById('player').contentWindow.postMessage({ type: 'act', action: 'Timed_wait()' }, '*'));
    await page.waitForFunction(() => window.received.some((m) => m.type === 'error'));
    assert.match((await page.evaluate(() => window.received.find((m) => m.type === 'error'))).message, /over/);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
