// Live pictures on the Agent page (issue #20), mirroring the native check
// in tests/eval_driver.rs (a_live_model_episode_sends_the_same_prompt_and_only_other_pictures):
// the same model episodes (a microwave's multi-turn tasks) are played in
// static and in live mode against the mock API, the mock replying with the
// oracle's actions. Every request's
// text (system prompt, instruction, history, feedback) is the same in both
// modes; in live mode the picture sent changes after a state change that
// has a visible sign, where the static picture of the same view does not;
// the step shows the picture sent; the export records the mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, SHOTS, DESKTOP } from './support.mjs';
import { startMock } from './mock/server.mjs';
import {
  KEY, openAgent, chooseModel, chooseDevices, runAndWait, download, dataJson,
  assertNoUnexpectedErrors,
} from './agent-support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A request body with its pictures taken out (in order), and the pictures. */
function withoutPictures(body) {
  const pictures = [];
  const walk = (v) => {
    if (typeof v === 'string' && v.startsWith('data:image')) { pictures.push(v); return '<picture>'; }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { text: walk(body), pictures };
}

test('live mode: the same prompt, other pictures after a visible change, the mode recorded', async () => {
  // A microwave's multi-turn tasks: after the first goal the episode goes on,
  // so the model is shown the device in its new state.
  const entry = (await dataJson('library.json')).devices.find((d) => d.category === 'Microwave');
  const agent = await openAgent(browser, DESKTOP);
  const { page } = agent;
  const mocks = [];
  const lines = async () => (await download(page, 'agent-export-jsonl')).trim().split('\n').map((l) => JSON.parse(l));
  try {
    // The oracle's actions for each task, from its export (one episode at a
    // time, so in the plan's order).
    await page.getByTestId('agent-source').selectOption({ label: 'Oracle (no model)' });
    await page.getByTestId('agent-concurrency').fill('1');
    await chooseDevices(page, [entry.id]);
    await page.getByTestId('agent-kind-multi').check();
    const episodes = await runAndWait(page);
    assert.ok(episodes >= 2, `${episodes} multi-turn tasks`);
    const oracle = await lines();
    const paths = oracle.map((l) => l.steps.map((s) => s.action));

    const runs = {};
    for (const mode of ['static', 'live']) {
      const mock = await startMock({
        flavour: 'openai', key: KEY,
        script: paths.flat().map((a) => ({ text: `Thought: go.\nAction: ${a}` })),
      });
      mocks.push(mock);
      await chooseModel(page, { baseUrl: mock.baseUrl, model: 'mock-vlm', retries: '0', timeout: '10' });
      await page.getByTestId('agent-render').selectOption({ label: mode === 'live' ? 'live (drawn for the state)' : 'static (paper)' });
      assert.equal(await runAndWait(page), episodes);
      assert.deepEqual(mock.violations, []);
      const exported = await lines();
      assert.deepEqual(exported.map((l) => l.item), oracle.map((l) => l.item));
      for (const l of exported) {
        assert.equal(l.settings.render, mode, 'the export records the mode');
        assert.equal(l.status, 'finished');
      }
      const requests = mock.requests.map((r) => withoutPictures(r.body));
      assert.equal(requests.length, paths.flat().length, 'one request per action of the oracle');
      // The picture the newest step shows is the one sent last.
      const shown = await page.getByTestId('agent-step').first().locator('img').getAttribute('src');
      assert.equal(shown, requests.at(-1).pictures.at(-1), `${mode}: the step shows the picture sent`);
      if (mode === 'live') {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: `${SHOTS}agent-live-desktop.png` });
      }
      runs[mode] = { exported, requests };
    }

    const { static: still, live } = runs;
    // The model is told nothing different: every request's text is the same.
    assert.deepEqual(live.requests.map((r) => r.text), still.requests.map((r) => r.text));
    assert.deepEqual(live.requests.map((r) => r.pictures.length), still.requests.map((r) => r.pictures.length));
    // The same transitions and feedback.
    const steps = (ls) => ls.map((l) => l.steps.map((s) => [s.action, s.outcome, s.state_before, s.state_after, s.view_after, s.feedback]));
    assert.deepEqual(steps(live.exported), steps(still.exported));
    // What it sees: each request's current picture (the last one sent),
    // episode by episode.
    let at = 0;
    const found = [];
    for (const [e, path] of paths.entries()) {
      const a = still.requests.slice(at, at + path.length).map((r) => r.pictures.at(-1));
      const b = live.requests.slice(at, at + path.length).map((r) => r.pictures.at(-1));
      at += path.length;
      // After a change of state with a sign, the live picture changes where
      // the static one of the same view stays the same.
      for (let i = 1; i < b.length; i++) {
        if (b[i] !== b[i - 1] && a[i] === a[i - 1]) found.push(`${oracle[e].item} after ${path[i - 1]}`);
      }
    }
    assert.ok(found.length > 0, 'no step where only the live picture changed');
    console.log(`live picture changed where the static one did not: ${found.length} times, e.g. ${found[0]}`);
    assertNoUnexpectedErrors(agent);
  } finally {
    await page.close();
    for (const m of mocks) await m.close();
  }
});
