import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { CHROMIUM, CHROMIUM_FLAGS, chromiumOrSkip } from '../helpers/chromium';

// The Requests page in Debian's chromium against a listening svc: traffic sent while the page
// is open shows up in its table, a filter narrows it, and a stream that broke mid-way opens
// with its error, its timings and the ledger row it was charged. Screenshots to test/artifacts/.
const ARTIFACTS = join(import.meta.dir, '../artifacts');
const hasChromium = chromiumOrSkip('console-requests', 'the Requests page');

describe.skipIf(!hasChromium)('the Requests page in headless Chromium', () => {
  let t: TestApp;
  let good: FixtureUpstream;
  let broken: FixtureUpstream;
  let browser: Browser;
  let page: Page;
  let origin = '';
  const keys: { apiKey: string; id: string }[] = [];
  const errors: string[] = [];

  const chat = async (key: string, model: string, stream = false) => {
    const res = await fetch(`${origin}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.text();
    return res.headers.get('cf-ray')!;
  };
  // The stream's settlement, then the request log's batch (the page polls every 3 s).
  const written = async () => {
    await Bun.sleep(50);
    await t.deps.meter.flush();
    await t.deps.observability!.recorder!.flush();
  };
  const row = (id: string) => page.locator(`#requests-table tr[data-request="${id}"]`);
  const shownIds = () =>
    page.locator('#requests-table tbody tr[data-request]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-request')));

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    good = startUpstream('rq-good', { tokens: ['All', ' good'] });
    broken = startUpstream('rq-broken', { tokens: ['One', ' two', ' three', ' four'], failAfterChunks: 2, chunkDelayMs: 100 });
    t = await startTestApp({
      backend: BACKENDS.at(-1),
      config: {
        providers: [fixtureProvider('up-good', good.url), fixtureProvider('up-broken', broken.url)],
        models: [fixtureModel('rq-chat', ['up-good']), fixtureModel('rq-broken', ['up-broken'])],
        observability: { requestLog: { flushIntervalMs: 100 } },
      },
    });
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    origin = `http://127.0.0.1:${t.app.server!.port}`;
    for (const description of ['rq first', 'rq second']) {
      const res = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description } });
      keys.push(((await res.json()) as { data: { apiKey: string; id: string } }).data);
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (e) => void errors.push(String(e)));
    page.setDefaultTimeout(20_000);
    await page.goto(`${origin}/console`);
    await page.getByLabel('ADMIN API key').fill(t.adminKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.app.stop();
    await t?.close();
    await good?.close();
    await broken?.close();
  });

  test('the table follows live traffic: requests sent while it is open appear at its head', async () => {
    await page.getByRole('link', { name: 'Requests', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await page.locator('#requests-table').waitFor();
    const first = await chat(keys[0]!.apiKey, 'rq-chat');
    const second = await chat(keys[1]!.apiKey, 'rq-chat');
    await written();
    await row(second).waitFor();
    await row(first).waitFor();
    const ids = await shownIds();
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first)); // newest first
    expect(await row(first).textContent()).toContain('rq-chat');
    await page.screenshot({ path: join(ARTIFACTS, 'console-requests-1280.png'), fullPage: true });
  }, 60_000);

  test('a filter narrows it: by key, then by error text', async () => {
    const other = await chat(keys[0]!.apiKey, 'rq-chat');
    const failed = await chat(keys[1]!.apiKey, 'rq-broken', true);
    await written();
    await row(failed).waitFor();
    await row(other).waitFor();

    await page.getByLabel('Key id').fill(keys[1]!.id);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction((id) => !document.querySelector(`#requests-table tr[data-request="${id}"]`), other);
    await row(failed).waitFor();
    expect(page.url()).toContain(`key=${keys[1]!.id}`);
    const mine = await shownIds();
    expect(mine.length).toBe(2);

    await page.getByLabel('Error text').fill('upstream');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#requests-table tbody tr[data-request]').length === 1);
    expect(await shownIds()).toEqual([failed]);
  }, 60_000);

  test("a broken stream's detail shows its error, its timings and the ledger row it was charged", async () => {
    const [failed] = await shownIds();
    await row(failed!).getByRole('link').click();
    const detail = page.locator('article.detail');
    await detail.getByRole('heading', { name: `Request ${failed}` }).waitFor();
    await detail.locator('.request-error').waitFor();
    const error = await detail.locator('.request-error').textContent();
    expect(error).toContain('upstream');
    // The request log records the stages (auth to settlement), so the waterfall draws each of them.
    expect(await detail.locator('.waterfall li').evaluateAll((li) => li.map((l) => l.getAttribute('data-stage')))).toEqual([
      'auth',
      'admission',
      'plugins',
      'upstream TTFB',
      'stream',
      'settlement',
      'total',
    ]);
    const ledger = detail.locator('#request-ledger tbody tr');
    expect(await ledger.count()).toBe(1);
    expect(await ledger.first().textContent()).toContain('rq-broken');
    expect(await ledger.first().textContent()).toMatch(/\$-0\.0000\d+/); // a debit, in micro-dollars;
    await page.screenshot({ path: join(ARTIFACTS, 'console-request-detail-1280.png'), fullPage: true });
  }, 60_000);

  test("the key page's Requests link opens the page filtered by that key", async () => {
    await page.goto(`${origin}/console#/keys`);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('link', { name: 'Requests of rq first' }).click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    expect(await page.getByLabel('Key id').inputValue()).toBe(keys[0]!.id);
    await page.locator('#requests-table tbody tr[data-request]').first().waitFor();
    const ids = await shownIds();
    expect(ids.length).toBe(2);
  }, 60_000);

  test("the account page's Requests link opens it filtered by the account; the Live page links to it", async () => {
    const listed = (await (await t.request(`/admin/requests?key=${keys[0]!.id}&limit=1`)).json()) as { data: { accountId: string }[] };
    const account = listed.data[0]!.accountId;
    await page.goto(`${origin}/console#/accounts`);
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();
    await page.getByRole('link', { name: `Requests of account ${account.slice(0, 8)}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    expect(await page.getByLabel('Account id').inputValue()).toBe(account);
    await page.goto(`${origin}/console#/live`);
    await page.getByRole('heading', { level: 1, name: 'Live' }).waitFor();
    await page.getByRole('link', { name: '5xx requests' }).click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    expect(await page.getByLabel('Status').inputValue()).toBe('5xx');
    expect(errors).toEqual([]);
  }, 60_000);
});
