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

/** The non-destructive GET operations this suite can call, each with a concrete path. */
function reads(): [string, string][] {
  const out: [string, string][] = [];
  for (const [id, { path, method }] of d.own.byId) {
    if (method !== 'get' || /openapi|docs/.test(path)) continue;
    if (!path.includes('{')) out.push([id, path]);
    else if (path === '/models/{id}' && d.textModel) out.push([id, `/models/${encodeURIComponent(d.textModel)}`]);
    else if (path === '/characters/{slug}' && d.characterSlug) out.push([id, `/characters/${d.characterSlug}`]);
    else if (path === '/characters/{slug}/reviews' && d.characterSlug) out.push([id, `/characters/${d.characterSlug}/reviews`]);
    else skipped(id, `no concrete value for the path parameters of ${path} is known without writing`);
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

  test('createEmbedding: one input', async () => {
    if (!d.embeddingModel) return skipped('createEmbedding', 'the deployment lists no embedding model');
    const a = await call('/embeddings', { method: 'POST', json: { model: d.embeddingModel, input: 'contract' } });
    expect(a.status === 200 ? '' : `createEmbedding: ${show(a)}`).toBe('');
    conforms(d.own, 'createEmbedding', a, "svc's /openapi.yaml");
    if (d.reference) conforms(d.reference, 'createEmbedding', a, 'the reference');
  });
});
