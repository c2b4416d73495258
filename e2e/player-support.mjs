// Helpers of the player's end-to-end tests. Everything a test needs about a
// device is read from the shipped data (the library index and the bundle's
// files) or from the page's `window.knoblab`, never from hard-coded ids or
// pixel positions, so the tests hold for whatever library the page ships.
import { BASE_URL, gotoRoute } from './support.mjs';

const dataUrl = (path) => new URL(`data/${path}`, BASE_URL).href;

export async function fetchJson(path) {
  const response = await fetch(dataUrl(path));
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

/** The library index the page ships. */
export const libraryIndex = () => fetchJson('library.json');

/** A library device with its views and tasks. */
async function withFiles(entry) {
  const views = await fetchJson(`${entry.path}/views.json`);
  const { tasks } = await fetchJson(`${entry.path}/tasks.json`);
  return { entry, views, tasks };
}

/** The first device of a category, with its views and tasks. */
export async function deviceOf(category) {
  const entry = (await libraryIndex()).devices.find((d) => d.category === category);
  if (!entry) throw new Error(`no ${category} device in the library`);
  return withFiles(entry);
}

/** The first device of the library that has a dashboard view, with its views and tasks. */
export async function deviceWithDashboard() {
  for (const entry of (await libraryIndex()).devices) {
    const device = await withFiles(entry);
    if (Object.values(device.views).some((v) => v.kind === 'dashboard')) return device;
  }
  throw new Error('no device with a dashboard in the library');
}

/** The device as one JSON object (the single-file bundle form, images as data: URLs). */
export async function singleJson(entry) {
  const [manifest, ssm, views, tasks] = await Promise.all(
    ['manifest', 'ssm', 'views', 'tasks'].map((f) => fetchJson(`${entry.path}/${f}.json`)));
  for (const view of Object.values(views)) {
    const bytes = Buffer.from(await (await fetch(dataUrl(`${entry.path}/${view.file}`))).arrayBuffer());
    view.file = `data:image/png;base64,${bytes.toString('base64')}`;
  }
  return { manifest, ssm, views, tasks };
}

/** Opens the play page on a library device and task, and waits for the player. */
export async function openPlay(page, id, task, extra = '') {
  await gotoRoute(page, `#/play?bundle=${encodeURIComponent(id)}&task=${encodeURIComponent(task)}${extra}`);
  await page.getByTestId('player').waitFor();
}

/** The optimal path of a task on the open device (from the core, through window.knoblab). */
export const optimal = (page, task) => page.evaluate((t) => window.knoblab.optimal(t), task);

/** Reads an action text in its canonical form: verb, point, parameters. */
export function readAction(text) {
  const verb = text.match(/^(\w+)\(/)[1];
  const coord = text.match(/coord=\[(\d+), (\d+)\]/);
  const params = text.match(/params=\[([^\]]*)\]/);
  return {
    verb,
    point: coord ? { x: Number(coord[1]), y: Number(coord[2]) } : null,
    params: params ? params[1].split(',').map((p) => p.trim()).filter((p) => p !== '') : [],
  };
}

/** The tool button of a verb. */
export function toolOf(action) {
  if (action.verb === 'Timed_wait') return 'wait';
  if (action.verb === 'Switch_view') return 'look-closer';
  return action.verb.toLowerCase();
}

/** Clicks a point of the 0–1000 scale on a picture (test id of the <figure>). */
export async function clickPicture(page, point, testid = 'picture') {
  const box = await page.getByTestId(`${testid}-img`).boundingBox();
  const x = box.x + Math.round((point.x / 1000) * box.width) + 0.5;
  const y = box.y + Math.round((point.y / 1000) * box.height) + 0.5;
  await page.mouse.click(x, y);
}

/** The point the player shows as chosen, or null. */
export async function shownPoint(page) {
  const text = await page.getByTestId('point').textContent();
  const m = text.match(/\((\d+), (\d+)\)/);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : null;
}

/** The number of entries in the feedback log. */
export const logLength = (page) => page.getByTestId('feedback-entry').count();

/** Plays one action with the mouse: tool button, parameter menus, a click on the picture, Act. */
export async function actByClicking(page, text) {
  const action = readAction(text);
  const before = await logLength(page);
  if (action.verb === 'Switch_view' && !action.point) {
    await page.getByTestId(`view-${action.params[0]}`).click();
  } else {
    await page.getByTestId(`tool-${toolOf(action)}`).click();
    const selects = page.locator('[data-testid^="param-"]');
    for (let i = 0; i < action.params.length && i < await selects.count(); i += 1) {
      const select = selects.nth(i);
      const labels = await select.locator('option').allTextContents();
      const index = labels.findIndex((l) => l.startsWith(`${action.params[i]} ·`));
      await select.selectOption({ index });
    }
    if (action.point) {
      await clickPicture(page, action.point);
      const shown = await shownPoint(page);
      // A click lands on a whole CSS pixel, which is up to about 2 units of
      // the 0–1000 scale on a picture 500 px wide: the box's centre is far
      // enough from its edges for that.
      if (Math.abs(shown.x - action.point.x) > 5 || Math.abs(shown.y - action.point.y) > 5) {
        throw new Error(`clicked for ${JSON.stringify(action.point)}, the player shows ${JSON.stringify(shown)}`);
      }
    }
    await page.getByTestId('act').click();
  }
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="feedback-entry"]').length === n, before + 1);
}

const TOOL_KEYS = { press: '1', pull: '2', push: '3', rotate: '4', grasp: '5', wait: '6', 'look-closer': '7' };

/** Moves the point with arrow keys only (Shift 50, plain 10, Alt 1). */
async function keyTo(page, target) {
  let at = (await shownPoint(page)) ?? { x: 500, y: 500 };
  if (!(await shownPoint(page))) {
    // The first arrow starts from the centre.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    at = await shownPoint(page);
  }
  for (const [axis, plus, minus] of [['x', 'ArrowRight', 'ArrowLeft'], ['y', 'ArrowDown', 'ArrowUp']]) {
    let d = target[axis] - at[axis];
    const key = d > 0 ? plus : minus;
    d = Math.abs(d);
    for (const [size, prefix] of [[50, 'Shift+'], [10, ''], [1, 'Alt+']]) {
      for (; d >= size; d -= size) await page.keyboard.press(`${prefix}${key}`);
    }
  }
}

/** Plays one action with the keyboard only. */
export async function actByKeyboard(page, text) {
  const action = readAction(text);
  const before = await logLength(page);
  if (action.verb === 'Switch_view' && !action.point) {
    const tabs = await page.locator('[data-testid="view-tabs"] button').evaluateAll((bs) => bs.map((b) => b.dataset.testid));
    const i = tabs.indexOf(`view-${action.params[0]}`);
    await page.keyboard.press(`Shift+Digit${i + 1}`);
  } else {
    await page.keyboard.press(TOOL_KEYS[toolOf(action)]);
    const selects = page.locator('[data-testid^="param-"]');
    for (let i = 0; i < action.params.length && i < await selects.count(); i += 1) {
      const labels = await selects.nth(i).locator('option').allTextContents();
      const index = labels.findIndex((l) => l.startsWith(`${action.params[i]} ·`));
      for (let k = 0; k < index; k += 1) await page.keyboard.press(i === 0 ? 'p' : 'd');
    }
    if (action.point) {
      await keyTo(page, action.point);
      const shown = await shownPoint(page);
      if (shown.x !== action.point.x || shown.y !== action.point.y) {
        throw new Error(`keys moved the point to ${JSON.stringify(shown)}, not ${JSON.stringify(action.point)}`);
      }
    }
    await page.keyboard.press('Enter');
  }
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="feedback-entry"]').length === n, before + 1);
}
