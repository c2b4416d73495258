// The page shell: it loads, routes by hash, and survives a panic.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, gotoRoute, SHOTS, DESKTOP, PHONE } from './support.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the page loads, follows two routes and logs no errors', async () => {
  const { page, errors } = await openPage(browser, DESKTOP);
  await gotoRoute(page, '');
  assert.equal(await page.getByTestId('brand').textContent(), 'KnobLab');
  assert.equal(await page.title(), 'KnobLab');
  // The landing page is the library.
  assert.equal(await page.getByTestId('nav-library').getAttribute('aria-current'), 'page');

  await page.getByTestId('nav-score').click();
  await page.waitForURL(/#\/score$/);
  await page.getByTestId('score-page').getByText('Score', { exact: true }).waitFor();
  assert.equal(await page.getByTestId('nav-score').getAttribute('aria-current'), 'page');
  await page.screenshot({ path: `${SHOTS}shell-score-desktop.png` });

  await page.getByTestId('nav-about').click();
  await page.waitForURL(/#\/about$/);
  await page.getByTestId('about').waitFor();
  assert.match(await page.getByTestId('about').textContent(), /About KnobLab/);
  await page.screenshot({ path: `${SHOTS}shell-about-desktop.png`, fullPage: true });

  // Back goes back: the route follows the history.
  await page.goBack();
  await page.getByTestId('score-page').waitFor();
  assert.deepEqual(errors, []);
});

test('on a phone the navigation folds into a menu button', async () => {
  const { page, errors } = await openPage(browser, PHONE);
  await gotoRoute(page, '#/about');
  const nav = page.locator('#site-nav');
  assert.equal(await nav.isVisible(), false);
  await page.getByTestId('menu-toggle').click();
  assert.equal(await nav.isVisible(), true);
  await page.screenshot({ path: `${SHOTS}shell-menu-phone.png` });
  await page.getByTestId('nav-play').click();
  await page.waitForURL(/#\/play$/);
  assert.equal(await nav.isVisible(), false);
  await page.screenshot({ path: `${SHOTS}shell-play-phone.png` });
  assert.deepEqual(errors, []);
});

test('an unknown route says so and links home', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/no/such/page');
  await page.getByTestId('not-found').waitFor();
  assert.match(await page.getByTestId('not-found').textContent(), /#\/no\/such\/page/);
  assert.deepEqual(errors, []);
});

test('a panic shows the error banner instead of a blank page', async () => {
  const { page, errors } = await openPage(browser);
  await gotoRoute(page, '#/about');
  await page.evaluate(() => { window.location.hash = '#/__panic'; });
  const banner = page.getByTestId('panic-banner');
  await banner.waitFor();
  assert.match(await banner.textContent(), /internal error/);
  assert.match(await banner.locator('pre').first().textContent(), /deliberate panic/);
  // The header is still on screen: the page is not blank.
  assert.equal(await page.getByTestId('brand').isVisible(), true);
  await page.screenshot({ path: `${SHOTS}shell-panic-desktop.png` });
  // The panic itself is reported to the console; nothing else went wrong.
  assert.ok(errors.length > 0 && errors.every((e) => /panic|unreachable|RuntimeError/i.test(e)), errors.join('\n'));
  // Whatever the dead module is asked next, there is one banner, not a pile.
  await page.evaluate(() => { window.location.hash = '#/about'; });
  await page.waitForTimeout(100);
  assert.equal(await page.getByTestId('panic-banner').count(), 1);
  // The reload link loads the app afresh on the route where it stopped.
  await banner.getByRole('link', { name: 'Reload KnobLab' }).click();
  await page.waitForURL(/reload=\d+#\/__panic$/);
  await page.getByTestId('panic-banner').waitFor();
});
