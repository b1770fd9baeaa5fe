import { describe, expect, test } from 'bun:test';
import { skipped } from './lib/env';
import { call, type Answer } from './lib/http';
import { deployment } from './lib/deployment';

const d = await deployment();
const VERSION = /^\d{8}\.\d{6}$/;

/** The names of the headers in `names` that an answer lacks, prefixed by the operation. */
function missing(operationId: string, a: Answer, names: string[]): string {
  const absent = names.filter((n) => !a.headers.get(n));
  return absent.length ? `${operationId}: missing ${absent.join(', ')} (HTTP ${a.status})` : '';
}

const EVERY = ['cf-ray', 'x-svc-version', 'content-type', 'date'];
const RATE = ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'];
const BALANCE = ['x-svc-balance-usd', 'x-svc-balance-diem'];
const MODEL = ['x-svc-model-id', 'x-svc-model-name', 'x-svc-model-router'];

describe('headers', () => {
  test('listModels (public): CF-RAY and x-svc-version in YYYYMMDD.HHMMSS form', async () => {
    const a = await call('/models', { key: null });
    expect(missing('listModels', a, EVERY)).toBe('');
    expect(`listModels: x-svc-version ${a.headers.get('x-svc-version')}`).toMatch(/ \d{8}\.\d{6}$/);
  });

  test('getApiKeys (authenticated): rate-limit and balance headers', async () => {
    const a = await call('/api_keys');
    expect(missing('getApiKeys', a, [...EVERY, ...RATE, ...BALANCE])).toBe('');
  });

  test('getBillingBalance (authenticated): rate-limit and balance headers', async () => {
    const a = await call('/billing/balance');
    expect(missing('getBillingBalance', a, [...EVERY, ...RATE, ...BALANCE])).toBe('');
  });

  test('createChatCompletion (inference): model, rate-limit and balance headers', async () => {
    if (!d.textModel) return skipped('createChatCompletion headers', 'no text model');
    const a = await call('/chat/completions', {
      method: 'POST',
      json: { model: d.textModel, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 },
    });
    expect(missing('createChatCompletion', a, [...EVERY, ...RATE, ...BALANCE, ...MODEL])).toBe('');
    expect(a.headers.get('x-svc-model-id')).toBe(d.textModel);
  });

  test('createEmbedding (inference): model, rate-limit and balance headers', async () => {
    if (!d.embeddingModel) return skipped('createEmbedding headers', 'no embedding model');
    const a = await call('/embeddings', { method: 'POST', json: { model: d.embeddingModel, input: 'x' } });
    expect(missing('createEmbedding', a, [...EVERY, ...RATE, ...BALANCE, ...MODEL])).toBe('');
  });

  test('errors carry CF-RAY and x-svc-version too (an unknown model, a bad key)', async () => {
    const unknown = await call('/chat/completions', {
      method: 'POST',
      fails: true,
      json: { model: 'no-such-model-contract', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(missing('createChatCompletion 404', unknown, ['cf-ray', 'x-svc-version'])).toBe('');
    const bad = await call('/api_keys', { key: 'svc_not-a-real-key-contract', fails: true });
    expect(missing('getApiKeys 401', bad, ['cf-ray', 'x-svc-version'])).toBe('');
    expect(VERSION.test(bad.headers.get('x-svc-version') ?? '')).toBe(true);
  });

  test('getCharacterReviews: x-pagination-* headers agree with the body', async () => {
    if (!d.characterSlug) return skipped('getCharacterReviews headers', 'the deployment lists no character');
    const a = await call(`/characters/${d.characterSlug}/reviews?page=1&pageSize=2`);
    const p = (a.json as { pagination: { page: number; pageSize: number; total: number; totalPages: number } }).pagination;
    expect({
      limit: a.headers.get('x-pagination-limit'),
      page: a.headers.get('x-pagination-page'),
      total: a.headers.get('x-pagination-total'),
      pages: a.headers.get('x-pagination-total-pages'),
    }).toEqual({ limit: String(p.pageSize), page: String(p.page), total: String(p.total), pages: String(p.totalPages) });
  });
});
