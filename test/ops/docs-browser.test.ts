import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { CHROMIUM, CHROMIUM_FLAGS as FLAGS, chromiumOrSkip } from '../helpers/chromium';

// Without chromium this test is skipped with the reason printed.
const hasChromium = chromiumOrSkip('docs-browser', '/docs');

describe.skipIf(!hasChromium)('/docs in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin = '';

  beforeAll(async () => {
    t = await startTestApp();
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    origin = `http://127.0.0.1:${t.app.server!.port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t.app.stop();
    await t.close();
  });

  test("renders the operation list offline, with the browser's own Accept-Encoding", async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const encodings = new Map<string, string | undefined>();
    const acceptEncoding = new Map<string, string | undefined>();
    page.on('request', (r) => void requested.push(r.url()));
    page.on('response', async (r) => {
      encodings.set(r.url(), (await r.allHeaders())['content-encoding']);
      acceptEncoding.set(r.url(), (await r.request().allHeaders())['accept-encoding']);
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => void errors.push(String(e)));

    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path') ?? e.textContent));
    expect(paths).toContain('/chat/completions');
    expect(paths).toContain('/models');
    expect(paths.length).toBeGreaterThan(15);
    const title = await page.textContent('.info .title');
    expect(title).toContain('svc inference API');

    // Everything came from svc itself: no CDN, no validator, no fonts from elsewhere.
    expect(requested.filter((u) => !u.startsWith(origin))).toEqual([]);
    const bundle = [...encodings.keys()].find((u) => u.endsWith('/swagger-ui-bundle.js'))!;
    expect(acceptEncoding.get(bundle)).toContain('br');
    expect(encodings.get(bundle)).toBe('br');
    expect(errors).toEqual([]);
    if (process.env.SVC_DOCS_SCREENSHOT) await page.screenshot({ path: process.env.SVC_DOCS_SCREENSHOT, fullPage: false });
  }, 60_000);

  test('the chat operation\'s first "Try it out" answers 200: a real model pre-filled, sent with a key', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    await page.click('button.authorize');
    await page.fill('.auth-container input[type=text], .auth-container input[type=password]', t.adminKey);
    await page.click('.auth-btn-wrapper button.authorize');
    await page.click('.btn-done');
    const op = page.locator('#operations-Chat-createChatCompletion');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    const prefilled = JSON.parse(await op.locator('textarea.body-param__text').inputValue());
    expect(prefilled).toEqual({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Write a haiku about gateways.' }] });
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    expect((await status.textContent())?.trim()).toBe('200');
  }, 60_000);
});
