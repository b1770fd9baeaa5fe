import { describe, expect, test } from 'bun:test';
import { env, skipped } from './lib/env';
import { expectAnswer } from './lib/conform';
import { call, describe as show } from './lib/http';
import { deployment } from './lib/deployment';

const d = await deployment();

describe('key management (--write): create, read, update and delete one key, nothing left behind', () => {
  test('createApiKey, getApiKeyById, updateApiKey, deleteApiKey', async () => {
    if (!env.write) return skipped('key management', 'needs --write');
    const created = await call('/api_keys', {
      method: 'POST',
      json: { apiKeyType: 'INFERENCE', description: 'svc contract suite (deleted at once)' },
    });
    expectAnswer('createApiKey', created);
    const id = (created.json as { data: { id: string } }).data.id;
    try {
      expectAnswer('getApiKeyById', await call(`/api_keys/${id}`));
      expectAnswer('updateApiKey', await call('/api_keys', { method: 'PATCH', json: { id, description: 'svc contract suite (renamed)' } }));
    } finally {
      expectAnswer('deleteApiKey', await call(`/api_keys?id=${id}`, { method: 'DELETE' }));
    }
    const gone = await call(`/api_keys/${id}`, { fails: true });
    expect(gone.status >= 400 && gone.status < 500 ? '' : `getApiKeyById after delete: ${show(gone)}`).toBe('');
  });
});

describe('image generation', () => {
  test('simpleGenerateImage: one image as b64_json', async () => {
    if (!d.own.byId.has('simpleGenerateImage')) return skipped('simpleGenerateImage', 'not in this deployment');
    const models = await call('/models?type=image', { key: null });
    const model = (models.json as { data?: { id: string }[] }).data?.[0]?.id;
    if (!model) return skipped('simpleGenerateImage', 'the deployment lists no image model');
    const a = await call('/images/generations', { method: 'POST', json: { model, prompt: 'a red square', response_format: 'b64_json' } });
    expectAnswer('simpleGenerateImage', a);
    const b64 = (a.json as { data: { b64_json?: string }[] }).data[0]?.b64_json ?? '';
    expect(Buffer.from(b64, 'base64').length).toBeGreaterThan(100);
    expect(a.headers.get('x-svc-model-id')).toBe(model);
  });
});

describe('x402', () => {
  test('topUpX402Balance without a payment: the 402 with accepts and PAYMENT-REQUIRED, or 503 where payments are off', async () => {
    if (!d.own.byId.has('topUpX402Balance')) return skipped('topUpX402Balance', 'not in this deployment');
    const a = await call('/x402/top-up', { method: 'POST', key: null, json: {}, fails: true });
    if (a.status === 503) return skipped('topUpX402Balance', 'wallet payments are not configured on this deployment');
    expect(a.status).toBe(402);
    const body = a.json as { x402Version?: number; accepts?: { network?: string; payTo?: string }[] };
    expect(body.x402Version).toBe(2);
    expect(body.accepts?.length).toBeGreaterThan(0);
    const header = a.headers.get('payment-required');
    expect(header).toBeString();
    expect(JSON.parse(Buffer.from(header!, 'base64').toString('utf8'))).toEqual(body);
  });
});
