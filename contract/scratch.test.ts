import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { badInputSuite } from './lib/bad-input-suite';
import { scratchUnavailable } from './lib/bad-input-plan';
import { expectAnswer } from './lib/conform';
import { env, skipped } from './lib/env';
import { call, describe as show } from './lib/http';
import { deployment } from './lib/deployment';

const d = await deployment();

/** Why this deployment and key cannot have a scratch account, or '' when they can. */
const unavailable = scratchUnavailable(d);
const CREDIT_USD = 0.1;

/** The scratch account of this run: made before the checks, deleted after them. */
let scratch: { id: string; adminKey: string } | null = null;
let deleted = false;

/** Deletes the scratch account (retrying while its last requests still hold balance); the answer. */
async function deleteScratch() {
  for (let attempt = 0; ; attempt++) {
    const a = await call(`/admin/accounts/${scratch!.id}`, { method: 'DELETE' });
    if (a.status !== 409 || !a.headers.get('retry-after') || attempt >= 10) return a;
    await Bun.sleep(500);
  }
}

describe('a scratch account (--write with an operator key): created, credited, used and deleted, nothing left behind', () => {
  beforeAll(async () => {
    if (unavailable) return skipped('scratch account', unavailable);
    const a = await call('/admin/accounts', {
      method: 'POST',
      json: { scratch: true, displayName: 'svc contract suite (deleted at once)' },
    });
    expectAnswer('createScratchAccount', a);
    const data = (a.json as { data: { id: string; apiKey: { apiKey: string } } }).data;
    scratch = { id: data.id, adminKey: data.apiKey.apiKey };
  });
  afterAll(async () => {
    if (scratch && !deleted) await deleteScratch();
  });

  test('creditAccount, getAccount, createApiKey on it, one metered call, getBillingBalance, getBillingUsage', async () => {
    if (!scratch) return skipped('scratch account use', unavailable || 'it was not created');
    const admin = scratch.adminKey;
    const credit = await call(`/admin/accounts/${scratch.id}/credits`, {
      method: 'POST',
      json: { currency: 'USD', amount: String(CREDIT_USD), notes: 'svc contract suite' },
    });
    expectAnswer('creditAccount', credit);
    expect((credit.json as { data: { balance: number } }).data.balance).toBe(CREDIT_USD);
    expectAnswer('getAccount', await call(`/admin/accounts/${scratch.id}`));

    const created = await call('/api_keys', {
      method: 'POST',
      key: admin,
      json: { apiKeyType: 'INFERENCE', description: 'svc contract suite' },
    });
    expectAnswer('createApiKey', created);
    const inference = (created.json as { data: { apiKey: string } }).data.apiKey;

    let metered = false;
    if (d.textModel) {
      const chat = await call('/chat/completions', {
        method: 'POST',
        key: inference,
        json: { model: d.textModel, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 },
      });
      expectAnswer('createChatCompletion', chat);
      metered = true;
    } else if (d.embeddingModel) {
      expectAnswer(
        'createEmbedding',
        await call('/embeddings', { method: 'POST', key: inference, json: { model: d.embeddingModel, input: 'x' } }),
      );
      metered = true;
    } else skipped('scratch account metered call', 'the deployment lists no text or embedding model');

    const balance = await call('/billing/balance', { key: admin });
    expectAnswer('getBillingBalance', balance);
    const usd = (balance.json as { balances: { usd: number } }).balances.usd;
    if (metered) expect(usd < CREDIT_USD ? '' : `getBillingBalance: ${usd} USD left of ${CREDIT_USD} after a metered call`).toBe('');
    const usage = await call('/billing/usage', { key: admin });
    expectAnswer('getBillingUsage', usage);
    if (metered) expect((usage.json as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(1);
  });

  // The key writes, as the scratch account: a case the deployment wrongly accepted goes with it.
  const scratchKey = () => (scratch ? scratch.adminKey : { skip: unavailable || 'the scratch account was not created' });
  badInputSuite('createApiKey', { key: scratchKey });
  badInputSuite('updateApiKey', { key: scratchKey });
  badInputSuite('createScratchAccount', {
    undo: async (a) => void (await call(`/admin/accounts/${(a.json as { data: { id: string } }).data.id}`, { method: 'DELETE' })),
  });

  test('deleteScratchAccount: everything goes; its keys are 401 and the account 404 afterwards', async () => {
    if (!scratch) return skipped('deleteScratchAccount', unavailable || 'the scratch account was not created');
    const a = await deleteScratch();
    deleted = a.status === 200;
    expectAnswer('deleteScratchAccount', a);
    const after = await call('/billing/balance', { key: scratch.adminKey, fails: true });
    expect(after.status === 401 ? '' : `getBillingBalance with a deleted account's key: ${show(after)}`).toBe('');
    const gone = await call(`/admin/accounts/${scratch.id}`, { fails: true });
    expect(gone.status === 404 ? '' : `getAccount of a deleted account: ${show(gone)}`).toBe('');
  });
});
