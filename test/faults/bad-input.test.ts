import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createLogger } from '../../src/log';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

// Bad input found in the fault probe: NUL characters, SQL parameters in logs, max_tokens
// beyond a whole minute's tokens, oversized bodies.
let t: TestApp;
let accountId: string;
const FEW = { rpm: 100, tpm: 1_000 };
const TABLE = { text: { XS: FEW, S: FEW, M: FEW, L: FEW } };

beforeAll(async () => {
  t = await startTestApp({ config: { rateLimits: { standard: TABLE, partner: TABLE }, maxBodyBytes: 4096 } });
  accountId = (await (await t.request('/api_keys/rate_limits')).json()).data.accountId ?? '';
});
afterAll(() => t.close());

describe('NUL characters in stored text', () => {
  test.each([
    ['a key description', '/api_keys', { apiKeyType: 'INFERENCE', description: 'bad\u0000key' }, 'description'],
    [
      'a nested field',
      '/api_keys',
      { apiKeyType: 'INFERENCE', description: 'ok', consumptionLimit: { usd: 1, x: ['\u0000'] } },
      'consumptionLimit.x.0',
    ],
  ])('%s is a 400 naming the field', async (_what, path, json, field) => {
    const res = await t.request(path, { method: 'POST', json });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toContain(field);
    expect(body.error).toContain('NUL');
  });

  test('credit notes and idempotency key are 400s naming the field', async () => {
    for (const [field, extra] of [
      ['notes', { notes: 'n\u0000' }],
      ['idempotencyKey', { idempotencyKey: 'k\u0000' }],
    ] as const) {
      const res = await t.request(`/admin/accounts/${accountId || '00000000-0000-4000-8000-000000000000'}/credits`, {
        method: 'POST',
        json: { currency: 'USD', amount: '1', ...extra },
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toContain(field);
    }
  });

  test('a slug in the path is a 400 naming it', async () => {
    const res = await t.request('/characters/bad%00slug');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toContain('slug');
  });
});

describe('max_tokens beyond the model tokens-per-minute limit', () => {
  test('is a 400 naming max_tokens (a 429 would be retried forever); within the limit it is served', async () => {
    const over = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'default', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5_000 },
    });
    expect(over.status).toBe(400);
    const body = await over.json();
    expect(body.error).toContain('max_tokens');
    expect(body.details.max_tokens._errors[0]).toContain('1000 tokens per minute');
    const completion = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'default', messages: [{ role: 'user', content: 'Hi' }], max_completion_tokens: 50_000 },
    });
    expect(completion.status).toBe(400);
    const ok = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'default', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 20 },
    });
    expect(ok.status).toBe(200);
  });
});

describe('oversized bodies', () => {
  test('a body over maxBodyBytes is a 413 with {error}', async () => {
    const body = JSON.stringify({ apiKeyType: 'INFERENCE', description: 'x'.repeat(8_000) });
    const res = await t.request('/api_keys', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error).toContain('exceeds');
  });
});

describe.each(BACKENDS)('logs on $name', (backend) => {
  test('a failed query is logged without its parameters', async () => {
    const storage = await backend.storage();
    const lines: string[] = [];
    const log = createLogger('error', (line) => lines.push(line));
    try {
      await storage.db.execute(sql`select * from api_keys where secret_hash = ${'deadbeef-secret-hash'} and id = ${'not-a-uuid'}::uuid`);
      throw new Error('the query should have failed');
    } catch (error) {
      log.error('unhandled error', { error: String((error as Error).stack ?? error) });
    } finally {
      await storage.close();
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('select * from api_keys');
    expect(lines[0]).toContain('params: [redacted]');
    expect(lines[0]).not.toContain('deadbeef-secret-hash');
  });
});
