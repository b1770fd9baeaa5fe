import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { CHROMIUM, CHROMIUM_FLAGS, chromiumOrSkip } from '../helpers/chromium';

// The console in Debian's chromium (.ci/run installs it when missing), against a listening
// svc with a fixture upstream and seeded accounts: each task an operator does, as they do
// it. Screenshots of every page at 1280 px and at phone width go to test/artifacts/.
const ARTIFACTS = join(import.meta.dir, '../artifacts');
const hasChromium = chromiumOrSkip('console-browser', 'the console');

const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describe.skipIf(!hasChromium)('the console in headless Chromium', () => {
  let t: TestApp;
  let upstream: FixtureUpstream;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin = '';
  let offset = 0; // the app's clock runs `offset` ms ahead of the wall clock
  let customer = '';
  let customerKey = '';
  let inferenceKey = '';
  const errors: string[] = [];

  const shot = (name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `console-${name}-${page.viewportSize()?.width}.png`), fullPage: true });
  const go = async (id: string, heading: string) => {
    // Leaving a page with fetches in flight races playwright's bookkeeping of their responses
    // ("Object with guid response@... was not bound"), seen once in eight runs: let them end first.
    await page.waitForLoadState('networkidle');
    await page.goto(`${origin}/console#/${id}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  async function signIn(key: string) {
    await page.goto(`${origin}/console`);
    const field = page.getByLabel('ADMIN API key');
    await field.waitFor();
    // Keyboard only: the field has focus on load and Enter submits.
    await page.waitForFunction(() => document.activeElement?.id === 'key');
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
  }

  // Values are awaited, then expected: `expect(promise).resolves` stalled the in-process
  // server's database calls here (test/ops/no-nested-expect-waits.test.ts says why).
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = startUpstream('a', { tokens: ['Hello', ' from', ' the', ' fixture'] });
    t = await startTestApp({
      backend: BACKENDS.at(-1), // Postgres + Redis when DATABASE_URL and REDIS_URL are set
      now: () => Date.now() + offset,
      config: {
        providers: [fixtureProvider('up-a', upstream.url)],
        models: [
          fixtureModel('fix-chat', ['up-a'], { name: 'Fixture Chat', contextLength: 32768 }),
          fixtureModel('fix-old', ['up-a'], { deprecation: { date: '2027-01-01', replacementModelId: 'fix-chat' } }),
        ],
      },
    });
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    origin = `http://127.0.0.1:${t.app.server!.port}`;
    // Seeded data: a customer account, and an INFERENCE key of the operator's.
    const scratch = await t.request('/admin/accounts', { method: 'POST', json: { scratch: true, displayName: 'Seeded customer' } });
    const made = (await scratch.json()) as { data: { id: string; apiKey: { apiKey: string } } };
    customer = made.data.id;
    customerKey = made.data.apiKey.apiKey;
    const key = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'seeded inference key' } });
    inferenceKey = ((await key.json()) as { data: { apiKey: string } }).data.apiKey;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
    context = await browser.newContext({ viewport: WIDE, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = await context.newPage();
    page.on('pageerror', (e) => void errors.push(String(e)));
    // Fail at the step that waits, before the test's own timeout (generous: the machine is shared).
    page.setDefaultTimeout(20_000);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.app.stop();
    await t?.close();
    await upstream?.close();
  });

  test('an INFERENCE key is refused at sign-in, and no cookie is set', async () => {
    await signIn(inferenceKey);
    expect(await page.getByRole('alert').textContent()).toContain('INFERENCE keys are refused');
    expect(await context.cookies()).toEqual([]);
    await shot('signin-refused');
  }, 60_000);

  test('the ADMIN key signs in: an httpOnly SameSite=Strict cookie, the key in no browser storage', async () => {
    await page.getByLabel('ADMIN API key').fill('');
    await page.getByLabel('ADMIN API key').focus();
    await page.keyboard.type(t.adminKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'svc_console', httpOnly: true, sameSite: 'Strict' });
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie);
    expect(stored).not.toContain(t.adminKey);
    expect(stored).not.toContain('svc_console');
  }, 60_000);

  let secret = '';
  let requestId = '';
  test('create a key: the secret shown once, copied with the button; the key then serves a chat', async () => {
    await page.getByText('Create a key').click();
    await page.getByLabel('Description').fill('browser key');
    await page.getByLabel('Type').selectOption('INFERENCE');
    await page.getByLabel('USD limit (empty: none)').fill('5');
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.getByLabel('New API key secret');
    await field.waitFor();
    secret = await field.inputValue();
    expect(secret).toMatch(/^svc_/);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shot('keys-created');

    const client = new OpenAI({ apiKey: secret, baseURL: `${origin}/api/v1` });
    const { data, response } = await client.chat.completions
      .create({ model: 'fix-chat', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hello from the fixture');
    requestId = response.headers.get('cf-ray') as string;

    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByLabel('New API key secret').count()).toBe(0);
    await page.reload();
    const row = page.getByRole('row', { name: /browser key/ });
    await row.waitFor();
    // The limit bar shows the chat's spend against the 5 USD limit: exact (millionths of a
    // dollar, which GET /api_keys rounds to $0), and a bar that is not empty.
    const meter = row.locator('meter').first();
    expect(await meter.getAttribute('max')).toBe('5');
    expect(await row.textContent()).toMatch(/\$0\.0*[1-9]\d* of \$5/);
    expect(Number(await meter.getAttribute('value'))).toBeGreaterThan(0);
    await shot('keys');
  }, 60_000);

  test('edit a key: description, limit and expiry', async () => {
    await page.getByRole('button', { name: 'Edit browser key' }).click();
    const form = page.getByRole('form', { name: 'Edit key browser key' });
    await form.getByLabel('Description').fill('browser key (edited)');
    await form.getByLabel('USD limit').fill('7');
    await form.getByLabel('Expires').fill('2099-01-31');
    await form.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row', { name: /browser key \(edited\)/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('2099-01-31');
    expect(await row.textContent()).toContain('of $7');
  }, 60_000);

  test('usage: the chat appears in the plot and the ledger table; CSV export downloads it', async () => {
    await go('usage', 'Usage');
    const ledger = page.locator('#ledger');
    await ledger.getByText(requestId).first().waitFor();
    await page.getByRole('img', { name: /^Requests per hour: 1 series, total 1$/ }).waitFor();
    await page.getByRole('img', { name: /^Tokens per hour: .*total [1-9]/ }).waitFor();
    // Split by key: the line is named after the key.
    await page.getByLabel('key', { exact: true }).check();
    await page.locator('.chart').first().getByText('browser key (edited)').waitFor();
    await page.getByRole('img', { name: /^Requests per hour: 1 series, total 1$/ }).waitFor();
    await page.getByLabel('7 days').check();
    await page.getByRole('img', { name: /^Requests per day: 1 series, total 1$/ }).waitFor();
    // Spend per day comes from usage analytics, its line named after the key too.
    await page.getByRole('img', { name: /^Spend per day by key \(usage analytics\): 1 series, total \$0\.0*[1-9]/ }).waitFor();
    await page.locator('.chart', { hasText: 'usage analytics' }).getByText('browser key (edited)').waitFor();
    // And the period's tokens by key, as usage analytics sums them.
    const totals = page.locator('#period-totals').getByRole('row', { name: /browser key \(edited\)/ });
    expect(await totals.textContent()).toMatch(/[1-9]\d*.*\$0\.0*[1-9]/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path()) as string, 'utf8');
    expect(csv).toContain(requestId);
    expect(csv.split('\n')[0]).toContain('sku');
    await page.getByLabel('24 h').check();
    await page.getByRole('img', { name: /^Requests per hour: 1 series/ }).waitFor();
    await shot('usage');
  }, 60_000);

  test('accounts: credit the seeded account once with an idempotency key, and change its tier', async () => {
    await go('accounts', 'Accounts');
    const row = page.locator(`tr[data-account="${customer}"]`);
    expect(await row.textContent()).toContain('Seeded customer');
    await row.getByRole('button', { name: 'Credit' }).click();
    const form = page.getByRole('form', { name: `Credit account ${customer.slice(0, 8)}` });
    await form.getByLabel('Amount').fill('12.5');
    await form.getByLabel('Notes').fill('welcome credit');
    await form.getByRole('button', { name: 'Credit account' }).click();
    // An error from the server shows as an alert in the form: fail with its text, not a timeout.
    await form.getByRole('status').or(form.getByRole('alert')).waitFor();
    expect(await form.getByRole('alert').allTextContents()).toEqual([]);
    expect(await form.getByRole('status').textContent()).toContain('Credited');
    await row.getByText('$12.5').waitFor();
    await page.getByLabel(`Tier of account ${customer.slice(0, 8)}`).selectOption('partner');
    await page.waitForFunction(
      async ([base, id]) =>
        (await (await fetch(`${base}/console/api/accounts`)).json()).data.find((a: { id: string }) => a.id === id).tier === 'partner',
      [origin, customer],
    );
    // Rate-limit overrides as JSON: a bad one is refused naming the field, a good one is stored.
    await row.getByRole('button', { name: 'Limits' }).click();
    const limits = page.getByRole('form', { name: `Rate-limit overrides of account ${customer.slice(0, 8)}` });
    const json = limits.getByLabel('Rate-limit overrides (JSON)');
    await json.fill('{"models": {"no-such-model": {"rpm": 7}}}');
    await limits.getByRole('button', { name: 'Save overrides' }).click();
    expect(await limits.getByRole('alert').textContent()).toContain('no-such-model');
    await json.fill('{"models": {"fix-chat": {"rpm": 7}}}');
    await limits.getByRole('button', { name: 'Save overrides' }).click();
    await row.getByText('"rpm":7').waitFor();
    const account = (await (await t.request(`/admin/accounts/${customer}`)).json()) as {
      data: { tier: string; balances: Record<string, number> };
    };
    expect(account.data.tier).toBe('partner');
    expect(account.data.balances.USD).toBe(12.5);
    await shot('accounts');
  }, 60_000);

  test('guardrails: attached to the seeded account and to a key from their rows, through the PUT endpoints', async () => {
    await go('accounts', 'Accounts');
    const row = page.locator(`tr[data-account="${customer}"]`);
    await row.getByText('none').waitFor();
    await row.getByRole('button', { name: `Edit guardrails of account ${customer.slice(0, 8)}` }).click();
    const form = page.getByRole('form', { name: `Guardrails of account ${customer.slice(0, 8)}` });
    await form.getByLabel('pii').check();
    await form.getByLabel('deny_list').check();
    // The form's own labels name deny_list too: wait for the PUT's answer, not for the text.
    const accountSaved = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/guardrails'));
    await form.getByRole('button', { name: 'Save' }).click();
    expect((await accountSaved).status()).toBe(200);
    await row.getByText('deny_list').waitFor();
    const account = (await (await t.request(`/admin/accounts/${customer}/guardrails`)).json()) as { data: { guardrails: string[] } };
    expect(account.data.guardrails).toEqual(['pii', 'deny_list']);

    await go('keys', 'API keys');
    await page.getByRole('button', { name: 'Edit guardrails of seeded inference key' }).click();
    const keyForm = page.getByRole('form', { name: 'Guardrails of seeded inference key' });
    await keyForm.getByLabel('webhook').check();
    const keySaved = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/guardrails'));
    await keyForm.getByRole('button', { name: 'Save' }).click();
    expect((await keySaved).status()).toBe(200);
    await page.getByRole('button', { name: 'Edit guardrails of seeded inference key' }).waitFor();
    const keys = (await (await t.request('/api_keys')).json()) as { data: { id: string; description: string }[] };
    const id = keys.data.find((k) => k.description === 'seeded inference key')!.id;
    const key = (await (await t.request(`/admin/keys/${id}/guardrails`)).json()) as { data: { guardrails: string[] } };
    expect(key.data.guardrails).toEqual(['webhook']);
    await shot('keys-guardrails');
  }, 60_000);

  test('usage of another account: the operator picks the seeded customer and sees its request', async () => {
    // The customer (credited above) chats with its own key.
    const client = new OpenAI({ apiKey: customerKey, baseURL: `${origin}/api/v1` });
    const { response } = await client.chat.completions
      .create({ model: 'fix-chat', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    const customerRequest = response.headers.get('cf-ray') as string;
    await go('usage', 'Usage');
    const ledger = page.locator('#ledger');
    await ledger.getByText(requestId).first().waitFor();
    expect(await ledger.getByText(customerRequest).count()).toBe(0);
    await page.getByLabel('Account', { exact: true }).selectOption(customer);
    await ledger.getByText(customerRequest).first().waitFor();
    expect(await ledger.getByText(requestId).count()).toBe(0);
    await page.getByRole('img', { name: /^Requests per hour: 1 series, total 1$/ }).waitFor();
    await page.getByLabel('30 days').check();
    await page.getByRole('img', { name: /^Spend per day by model \(usage analytics\): 1 series, total \$0\.0*[1-9]/ }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path()) as string, 'utf8');
    expect(csv).toContain(customerRequest);
    expect(csv).not.toContain(requestId);
    await shot('usage-customer');
  }, 60_000);

  test('live: request rate, open streams, latency, the upstream and the plugins, refreshed', async () => {
    // A chat just before that asks for the service system prompt (off by default on an operator's
    // model): its plugin runs its transform.
    const chat = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'fix-chat', messages: [{ role: 'user', content: 'Hi' }], svc_parameters: { include_svc_system_prompt: true } },
    });
    expect(chat.status).toBe(200);
    await go('live', 'Live');
    await page.getByText('Requests / s').waitFor();
    await page.getByRole('cell', { name: 'up-a' }).waitFor();
    const table = page.getByRole('table', { name: 'Plugin hook calls, refusals, errors and time, by plugin' });
    expect(await table.getByRole('columnheader').allTextContents()).toEqual([
      'Plugin',
      'Enabled',
      'Hooks',
      'Calls',
      'Refusals',
      'Errors',
      'Mean',
      'p95',
    ]);
    const row = table.getByRole('row').filter({ hasText: 'include_svc_system_prompt' });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(0, 3)).toEqual(['include_svc_system_prompt', 'yes', 'transformRequest']);
    expect(Number(cells[3])).toBeGreaterThanOrEqual(1);
    expect(cells[6]).toMatch(/ms$/);
    await shot('live');
  }, 60_000);

  test('models: prices, context, deprecation and replicas with their health', async () => {
    await go('models', 'Models');
    const row = page.getByRole('row', { name: /fix-chat/ }).first();
    await row.getByText('up-a').waitFor();
    expect(await row.textContent()).toContain('input $1');
    expect(await row.textContent()).toContain('32,768');
    // The rate limits in force for the account's tier, as GET /api_keys/rate_limits gives them.
    const limits = (await (await t.request('/api_keys/rate_limits')).json()) as {
      data: { rateLimits: { apiModelId: string; rateLimits: { amount: number; type: string }[] }[] };
    };
    const rpm = limits.data.rateLimits.find((m) => m.apiModelId === 'fix-chat')?.rateLimits.find((l) => l.type === 'RPM');
    expect(rpm).toBeDefined();
    expect(await row.textContent()).toContain(`${rpm?.amount.toLocaleString('en-US')} RPM`);
    expect(await page.getByRole('row', { name: /fix-old/ }).textContent()).toContain('2027-01-01');
    await shot('models');
  }, 60_000);

  test('delete the key after a confirmation: it stops working', async () => {
    await go('keys', 'API keys');
    // Escape cancels the confirmation, and focus starts on Cancel, not on Delete.
    await page.getByRole('button', { name: 'Delete browser key (edited)' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Delete browser key (edited)' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('cannot be undone');
    await dialog.getByRole('button', { name: 'Delete key' }).click();
    await page.getByRole('row', { name: /browser key/ }).waitFor({ state: 'detached' });
    const res = await fetch(`${origin}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fix-chat', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(401);
  }, 60_000);

  test('sign out revokes the session', async () => {
    const [cookie] = await context.cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('ADMIN API key').waitFor();
    expect(await context.cookies()).toEqual([]);
    const res = await fetch(`${origin}/console/session`, { headers: { cookie: `svc_console=${cookie?.value}` } });
    expect(res.status).toBe(401);
  }, 60_000);

  test('an expired session sends the page back to sign-in', async () => {
    await signIn(t.adminKey);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    // The key list has loaded before the clock moves (else its own request is the one refused).
    await page.getByRole('row', { name: /Bootstrap admin key/ }).waitFor();
    offset += 31 * 60_000;
    // Go to Usage by its address: a refresh the page makes on its own may meet the expiry first
    // and replace the nav (with its links) by the sign-in form.
    await page.evaluate(() => {
      location.hash = '#/usage';
    });
    await page.getByLabel('ADMIN API key').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('expired');
    await shot('signin-expired');
  }, 60_000);

  test('every page at phone width: no sideways scrolling of the page', async () => {
    await page.setViewportSize(PHONE);
    await signIn(t.adminKey);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    for (const [id, heading] of [
      ['keys', 'API keys'],
      ['accounts', 'Accounts'],
      ['usage', 'Usage'],
      ['live', 'Live'],
      ['models', 'Models'],
    ] as const) {
      await go(id, heading);
      await page.waitForLoadState('networkidle');
      await shot(id);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), id).toBeLessThanOrEqual(0);
      // Every field has a label a screen reader reads out.
      const unlabelled = await page.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLInputElement | HTMLSelectElement>('main input, main select'))
          .filter((el) => el.labels?.length === 0 && !el.getAttribute('aria-label'))
          .map((el) => el.outerHTML),
      );
      expect(unlabelled, id).toEqual([]);
    }
    // Nothing the pages loaded came from anywhere but svc (read in the page: a request listener
    // made playwright's bookkeeping race under Bun), and no script failed.
    const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    expect(loaded.length).toBeGreaterThan(5);
    expect(loaded.filter((u) => !u.startsWith(origin) && !u.startsWith('blob:'))).toEqual([]);
    expect(errors).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('ADMIN API key').waitFor();
    await shot('signin');
  }, 60_000);
});
