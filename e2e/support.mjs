// Shared pieces of the end-to-end tests: launching Debian's Chromium through
// playwright-core, collecting page errors, and where screenshots go.
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
export const SHOTS = new URL('../target/screenshots/', import.meta.url).pathname;
mkdirSync(SHOTS, { recursive: true });

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Launches headless Chromium with the flags this closed network needs. */
export async function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/** A new page that records uncaught errors and console errors. */
export async function openPage(browser, viewport = DESKTOP) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  return { page, errors };
}

/** Goes to a route (a hash such as `#/score`) and waits for the app to render. */
export async function gotoRoute(page, hash = '') {
  await page.goto(new URL(hash, BASE_URL).href);
  await page.getByTestId('brand').waitFor();
}

/**
 * Polls `predicate` (which may be async) in the page until it returns a
 * truthy value, else fails after `timeout` ms naming `what`. Not
 * `page.waitForFunction`: that one does not await a returned promise, which
 * is truthy, so an async predicate would pass at once.
 */
export async function until(page, predicate, arg, what, timeout = 60_000) {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(predicate, arg))) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await page.waitForTimeout(100);
  }
}
