import { describe, expect, test } from 'bun:test';
import { env, skipped } from './lib/env';
import { call } from './lib/http';
import { deployment } from './lib/deployment';

const d = await deployment();

/** An INFERENCE key to try account endpoints with: SVC_INFERENCE_KEY, or one made (and deleted) with --write. */
async function withInferenceKey(use: (key: string) => Promise<void>): Promise<boolean> {
  if (env.inferenceKey) {
    await use(env.inferenceKey);
    return true;
  }
  if (!env.write) return false;
  const created = await call('/api_keys', {
    method: 'POST',
    json: { apiKeyType: 'INFERENCE', description: 'svc contract suite (deleted at once)' },
  });
  expect(created.status).toBe(200);
  const { apiKey, id } = (created.json as { data: { apiKey: string; id: string } }).data;
  try {
    await use(apiKey);
  } finally {
    const deleted = await call(`/api_keys?id=${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
  }
  return true;
}

describe('auth', () => {
  test('a garbage key is 401 on account and inference endpoints', async () => {
    const key = 'svc_contract-garbage-key-0000000000000000000000';
    expect((await call('/api_keys', { key, fails: true })).status).toBe(401);
    expect((await call('/billing/balance', { key, fails: true })).status).toBe(401);
    const chat = await call('/chat/completions', {
      method: 'POST',
      key,
      fails: true,
      json: { model: d.textModel ?? 'x', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(chat.status).toBe(401);
  });

  test('no credentials: 401 on account endpoints', async () => {
    for (const path of ['/api_keys', '/billing/balance', '/api_keys/rate_limits'])
      expect(`${path} ${(await call(path, { key: null, fails: true })).status}`).toBe(`${path} 401`);
  });

  test('no credentials on an inference endpoint: 401, or the x402 discovery 402 where wallet payments are on', async () => {
    const a = await call('/chat/completions', {
      method: 'POST',
      key: null,
      fails: true,
      json: { model: d.textModel ?? 'x', messages: [{ role: 'user', content: 'x' }] },
    });
    if (a.status === 402) {
      expect((a.json as { x402Version?: number }).x402Version).toBe(2);
      expect(Array.isArray((a.json as { accepts?: unknown[] }).accepts)).toBe(true);
      expect(a.headers.get('payment-required')).toBeString();
    } else expect(a.status).toBe(401);
  });

  test('the wrong key type: an INFERENCE key is 403 on account endpoints and works on inference ones', async () => {
    const ran = await withInferenceKey(async (key) => {
      for (const path of ['/api_keys', '/billing/balance'])
        expect(`${path} ${(await call(path, { key, fails: true, identity: 'account' })).status}`).toBe(`${path} 403`);
      if (d.textModel) {
        const chat = await call('/chat/completions', {
          method: 'POST',
          key,
          json: { model: d.textModel, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 },
        });
        expect(chat.status).toBe(200);
      }
    });
    if (!ran) skipped('wrong key type', 'needs SVC_INFERENCE_KEY or --write (creates an INFERENCE key and deletes it)');
  });
});
