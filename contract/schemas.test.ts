import { describe, expect, test } from 'bun:test';
import { skipped } from './lib/env';
import { call, describe as show, type Answer } from './lib/http';
import { deployment } from './lib/deployment';
import { errorsOf, type Validators } from './lib/spec';

const d = await deployment();

/** Checks an answer's status and body against an operation's response schema in `v`. */
function conforms(v: Validators, operationId: string, a: Answer, source: string) {
  const fn = v.response(operationId, a.status);
  if (!fn) {
    if (a.status >= 200 && a.status < 300) skipped(`${operationId} (${source})`, `the description gives no schema for ${a.status}`);
    return;
  }
  const ok = fn(a.json);
  expect(ok ? '' : `${operationId}: ${source} schema: ${errorsOf(fn)}`).toBe('');
}

/** Concrete values for the path parameters of readable operations, discovered from the lists the API serves. */
function pathValue(path: string): string | null | { skip: string } {
  const known: Record<string, string | null | { skip: string }> = {
    '/models/{id}': d.textModel && `/models/${encodeURIComponent(d.textModel)}`,
    '/characters/{slug}': d.characterSlug && `/characters/${d.characterSlug}`,
    '/characters/{slug}/reviews': d.characterSlug && `/characters/${d.characterSlug}/reviews`,
    '/api_keys/{id}': d.apiKeyId && `/api_keys/${d.apiKeyId}`,
    '/admin/accounts/{accountId}': d.operator
      ? d.accountId && `/admin/accounts/${d.accountId}`
      : { skip: "the key is not an ADMIN key of the operator's account" },
    '/x402/balance/{walletAddress}': { skip: 'it needs a wallet sign-in (SIGN-IN-WITH-X), which the suite cannot sign' },
    '/x402/transactions/{walletAddress}': { skip: 'it needs a wallet sign-in (SIGN-IN-WITH-X), which the suite cannot sign' },
  };
  return path in known ? known[path]! : { skip: `the suite knows no list that gives the path parameters of ${path}` };
}

/** The non-destructive GET operations this suite can call, each with a concrete path. */
function reads(): [string, string][] {
  const out: [string, string][] = [];
  for (const [id, { path, method }] of d.own.byId) {
    if (method !== 'get' || /openapi|docs/.test(path)) continue;
    if (!path.includes('{')) {
      if (!path.startsWith('/admin/') || d.operator) out.push([id, path]);
      else skipped(id, "the key is not an ADMIN key of the operator's account");
      continue;
    }
    const value = pathValue(path);
    if (typeof value === 'string') out.push([id, value]);
    else skipped(id, value ? value.skip : `the deployment's list for ${path} is empty`);
  }
  return out;
}

describe('every readable operation answers 200 with a body its schemas accept', () => {
  for (const [operationId, path] of reads())
    test(`${operationId}: GET ${path}`, async () => {
      const a = await call(path);
      expect(a.status === 200 ? '' : `${operationId}: ${show(a)}`).toBe('');
      conforms(d.own, operationId, a, "svc's /openapi.yaml");
      if (d.reference) conforms(d.reference, operationId, a, 'the reference');
    });
});

describe('inference operations answer bodies their schemas accept', () => {
  test('createChatCompletion: a short chat', async () => {
    if (!d.textModel) return skipped('createChatCompletion', 'the deployment lists no text model');
    const a = await call('/chat/completions', {
      method: 'POST',
      json: { model: d.textModel, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 },
    });
    expect(a.status === 200 ? '' : `createChatCompletion: ${show(a)}`).toBe('');
    conforms(d.own, 'createChatCompletion', a, "svc's /openapi.yaml");
    if (d.reference) conforms(d.reference, 'createChatCompletion', a, 'the reference');
  });

  test('createResponse: a short response', async () => {
    if (!d.textModel) return skipped('createResponse', 'the deployment lists no text model');
    const a = await call('/responses', { method: 'POST', json: { model: d.textModel, input: 'Hi', max_output_tokens: 8 } });
    expect(a.status === 200 ? '' : `createResponse: ${show(a)}`).toBe('');
    conforms(d.own, 'createResponse', a, "svc's /openapi.yaml");
    if (d.reference) conforms(d.reference, 'createResponse', a, 'the reference');
  });

  test('createEmbedding: one input', async () => {
    if (!d.embeddingModel) return skipped('createEmbedding', 'the deployment lists no embedding model');
    const a = await call('/embeddings', { method: 'POST', json: { model: d.embeddingModel, input: 'contract' } });
    expect(a.status === 200 ? '' : `createEmbedding: ${show(a)}`).toBe('');
    conforms(d.own, 'createEmbedding', a, "svc's /openapi.yaml");
    if (d.reference) conforms(d.reference, 'createEmbedding', a, 'the reference');
  });
});
