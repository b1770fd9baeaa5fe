import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { CHROMIUM, CHROMIUM_FLAGS, chromiumOrSkip } from '../helpers/chromium';

// The console in Debian's chromium against a svc served by the built-in simulator alone (the
// default catalog), with traffic: one colour per model in every usage chart, the ledger's
// rows by request, accounts created from the page, and the Live page's first reading after a
// burst, with the simulator among the upstreams. Screenshots go to test/artifacts/.
const ARTIFACTS = join(import.meta.dir, '../artifacts');
const hasChromium = chromiumOrSkip('console-browser-traffic', 'the console under traffic');

const LLAMA = 'Llama 3.3 70B (simulated)';
const QWEN = 'Qwen3 4B (simulated)';

describe.skipIf(!hasChromium)('the console under traffic, in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let origin = '';
  let startedAt = 0;
  const errors: string[] = [];

  const chat = async (model: string, content: string, max_tokens: number) => {
    const res = await t.request('/chat/completions', {
      method: 'POST',
      json: { model, max_tokens, messages: [{ role: 'user', content }] },
    });
    await res.text();
    return res;
  };
  const go = async (id: string, heading: string) => {
    // Let the last page's fetches end first (browser.test.ts says why).
    await page.waitForLoadState('networkidle');
    await page.goto(`${origin}/console#/${id}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    startedAt = performance.now();
    t = await startTestApp({ backend: BACKENDS.at(-1) }); // no providers, no models: the simulator serves the defaults
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    origin = `http://127.0.0.1:${t.app.server!.port}`;
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
  });

  let bigRequest = '';
  test('usage: a model keeps one colour in every chart, though the charts rank the models differently', async () => {
    // Llama leads by requests (3 to 1), Qwen by tokens (a long prompt): ranked per chart, the
    // colours by position swapped between the two charts.
    for (let i = 0; i < 3; i++) expect((await chat('llama-3.3-70b', 'Hi', 2)).status).toBe(200);
    const big = await chat('qwen3-4b', 'word '.repeat(2000), 8);
    expect(big.status).toBe(200);
    bigRequest = big.headers.get('cf-ray') as string;
    await go('usage', 'Usage');
    await page.getByRole('img', { name: /^Requests per hour: 2 series, total 4$/ }).waitFor();
    const legend = (title: string) =>
      page.evaluate((t) => {
        const chart = [...document.querySelectorAll('figure.chart')].find((f) => f.querySelector('figcaption')?.textContent?.startsWith(t));
        return Object.fromEntries(
          [...(chart?.querySelectorAll('.u-legend .u-series') ?? [])]
            .slice(1) // the x series
            .map((s) => [s.querySelector('.u-label')?.textContent ?? '', getComputedStyle(s.querySelector('.u-marker')!).borderColor]),
        );
      }, title);
    const requests = await legend('Requests per hour');
    const tokens = await legend('Tokens per hour');
    const spend = await legend('Spend per hour');
    expect(Object.keys(requests)).toEqual([LLAMA, QWEN]);
    expect(Object.keys(tokens)).toEqual([QWEN, LLAMA]);
    expect(requests[LLAMA]).not.toBe(requests[QWEN]);
    for (const chart of [tokens, spend]) expect([chart[LLAMA], chart[QWEN]]).toEqual([requests[LLAMA], requests[QWEN]]);
    await page.screenshot({ path: join(ARTIFACTS, 'console-usage-colours-1280.png'), fullPage: true });
  }, 60_000);

  test('ledger: one row per request with its key and model, expandable to its SKUs', async () => {
    const ledger = page.locator('#ledger');
    const row = ledger.locator(`tr[data-request="${bigRequest}"]`);
    await row.waitFor();
    expect(await row.count()).toBe(1);
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(1, 5)).toEqual([bigRequest, 'Bootstrap admin key', QWEN, '▸ 2 SKUs']);
    // Four chats, four rows (each billed as input and output tokens: eight lines).
    expect(await ledger.locator('tr[data-request]').count()).toBe(4);
    await row.getByRole('button', { name: `Show the 2 SKUs of request ${bigRequest}` }).click();
    const skus = page.getByRole('list', { name: `SKUs of request ${bigRequest}` });
    expect(await skus.getByRole('listitem').count()).toBe(2);
    expect((await skus.locator('li > span:first-child').allTextContents()).sort()).toEqual([
      'qwen3-4b-llm-input-mtoken',
      'qwen3-4b-llm-output-mtoken',
    ]);
    expect(await row.getByRole('button', { name: /^Hide the 2 SKUs/ }).getAttribute('aria-expanded')).toBe('true');
    await page.screenshot({ path: join(ARTIFACTS, 'console-ledger-1280.png'), fullPage: true });
    await row.getByRole('button', { name: /^Hide the 2 SKUs/ }).click();
    await skus.waitFor({ state: 'detached' });
  }, 60_000);

  test('accounts: create a lasting account and a scratch account; each ADMIN key is shown once and works', async () => {
    await go('accounts', 'Accounts');
    for (const [name, scratch] of [
      ['Customer from the console', false],
      ['Scratch from the console', true],
    ] as const) {
      const form = page.getByRole('form', { name: 'Create an account' });
      if (!(await form.isVisible())) await page.getByText('Create an account').click();
      await form.getByLabel('Name').fill(name);
      if (scratch) await form.getByLabel(/^Scratch account/).check();
      await form.getByRole('button', { name: 'Create account' }).click();
      const secret = await page.getByLabel('New API key secret').inputValue();
      expect(secret).toMatch(/^svc_/);
      const balance = await fetch(`${origin}/api/v1/billing/balance`, { headers: { authorization: `Bearer ${secret}` } });
      expect(balance.status).toBe(200);
      await page.getByRole('button', { name: 'I have stored it' }).click();
      const row = page.getByRole('row', { name: new RegExp(name) });
      await row.waitFor();
      expect((await row.textContent())?.includes('scratch')).toBe(scratch);
    }
    const listed = (await (await t.request('/admin/accounts')).json()) as { data: { displayName: string; scratch: boolean }[] };
    expect(listed.data.filter((a) => a.displayName?.endsWith('from the console')).map((a) => [a.displayName, a.scratch])).toEqual([
      ['Scratch from the console', true],
      ['Customer from the console', false],
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'console-accounts-created-1280.png'), fullPage: true });
  }, 60_000);

  test("live: the first reading after a burst shows the burst's rate over ~10 s; the simulator is among the upstreams", async () => {
    // The app is older than the window, so a reading since its start would be a fraction of the burst's rate.
    await Bun.sleep(Math.max(0, startedAt + 15_000 - performance.now()));
    await page.waitForLoadState('networkidle');
    // 8 chats a second, fired on a schedule (each one's time does not slow the pace), for 12 s
    // before the page opens and until its first reading is read: the window lies in the burst.
    const sent: Promise<Response>[] = [];
    let bursting = true;
    const began = performance.now();
    const burst = (async () => {
      while (bursting) {
        sent.push(chat('qwen3-4b', 'Hi', 2));
        await Bun.sleep(125);
      }
    })();
    await Bun.sleep(12_000);
    await go('live', 'Live');
    const tile = page.locator('.tiles div', { hasText: 'Requests / s' }).locator('dd');
    await tile.waitFor();
    const first = Number((await tile.textContent())?.replace(/,/g, ''));
    const window = await page.getByText(/^This instance, over the last/).textContent();
    bursting = false;
    await burst;
    const burstRate = sent.length / ((performance.now() - began) / 1000);
    const statuses = await Promise.all(sent.map(async (r) => (await r).status));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(window).toMatch(/over the last 1[0-2] s/);
    // Averaged since the app's start (15 s idle before the burst), it would read under half the rate.
    expect(first / burstRate).toBeGreaterThan(0.75);
    expect(first / burstRate).toBeLessThan(1.25);
    const upstream = page.getByRole('table', { name: 'Upstream calls by provider' }).getByRole('row', { name: /simulator/ });
    await upstream.waitFor();
    const [provider, calls] = await upstream.getByRole('cell').allTextContents();
    expect(provider).toBe('simulatorsimulator'); // the id, then its badge
    expect(Number(calls)).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'console-live-burst-1280.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 90_000);
});
