// The Content Security Policy (issue #12): the built page carries it, and
// no route breaks it. A violation shows up as a `securitypolicyviolation`
// event or a console message naming the policy; either fails the test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, gotoRoute, BASE_URL } from './support.mjs';

// Every route of src/ui/route.rs, the play page with a library device, and
// a path no route knows. The panic route is left out: it stops the app on
// purpose (e2e/shell.test.mjs checks its banner).
const ROUTES = [
  '',
  '#/library',
  '#/play',
  '#/play?bundle=kettle-0001&task=single-boiling',
  '#/agent',
  '#/score',
  '#/about',
  '#/no/such/page',
];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A page that records CSP violations from the first byte the app runs. */
async function watchedPage() {
  const { page, errors } = await openPage(browser);
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const consoleCsp = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(m.text())) consoleCsp.push(m.text());
  });
  const violations = async () => [...(await page.evaluate(() => window.__cspViolations)), ...consoleCsp];
  return { page, errors, violations };
}

test('the built page carries the policy, with the loader script hashed in', async () => {
  const html = await (await fetch(BASE_URL)).text();
  const meta = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)"/);
  assert.ok(meta, 'a Content-Security-Policy meta element');
  const policy = Object.fromEntries(meta[1].split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(policy['default-src'], ["'self'"]);
  assert.deepEqual(policy['object-src'], ["'none'"]);
  assert.deepEqual(policy['base-uri'], ["'none'"]);
  assert.deepEqual(policy['form-action'], ["'none'"]);
  assert.deepEqual(policy['img-src'], ["'self'", 'data:', 'blob:']);
  assert.deepEqual(policy['connect-src'], ["'self'", 'https:', 'http:']);
  // Workers are files beside the page (score-worker.js, device-worker.js, sw.js): no blob: workers.
  assert.deepEqual(policy['worker-src'], ["'self'"]);
  assert.deepEqual(policy['style-src'], ["'self'"]);
  // Style attributes only (meters, positions): no <style> element, no inline script.
  assert.deepEqual(policy['style-src-attr'], ["'unsafe-inline'"]);
  const scripts = policy['script-src'];
  assert.deepEqual(scripts.slice(0, 2), ["'self'", "'wasm-unsafe-eval'"]);
  assert.ok(scripts.length > 2 && scripts.slice(2).every((s) => /^'sha256-[A-Za-z0-9+/]{43}='$/.test(s)), scripts.join(' '));
  assert.ok(!scripts.includes("'unsafe-inline'") && !scripts.includes("'unsafe-eval'"));
});

test('every route runs without a CSP violation', async () => {
  const { page, errors, violations } = await watchedPage();
  for (const route of ROUTES) {
    await gotoRoute(page, route);
    // Let the route's fetches, images and workers start.
    await page.waitForLoadState('networkidle');
    assert.deepEqual(await violations(), [], `route ${route || '(none)'}`);
  }
  assert.deepEqual(errors, []);
});

test('the policy is enforced: an injected inline script is blocked and seen', async () => {
  // The negative control: were the policy missing, or the listener deaf,
  // the test above would pass for nothing.
  const { page, violations } = await watchedPage();
  await gotoRoute(page, '#/about');
  const ran = await page.evaluate(async () => {
    window.__injectedRan = false;
    const script = document.createElement('script');
    script.textContent = 'window.__injectedRan = true;';
    document.body.append(script);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return window.__injectedRan;
  });
  assert.equal(ran, false, 'the inline script must not run');
  const seen = await violations();
  assert.ok(seen.some((v) => v.startsWith('script-src')), seen.join('\n'));
});
