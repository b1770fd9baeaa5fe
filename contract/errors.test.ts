import { describe, expect, test } from 'bun:test';
import { badInputs, type BadCase } from './lib/bad-input';
import { skipped } from './lib/env';
import { call, describe as show } from './lib/http';
import { deployment } from './lib/deployment';

const d = await deployment();

/** Whether an error body names `field` (dotted): in its `error` string, or under `details`. */
function names(body: unknown, field: string): boolean {
  const b = body as { error?: unknown; details?: Record<string, unknown> };
  if (typeof b?.error === 'string' && b.error.includes(field.split('.').at(-1)!)) return true;
  let node: unknown = b?.details;
  for (const part of field.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return node !== undefined;
}

/** The spec 2.5 shapes: `{error}` or `{error, details}` with `_errors` arrays at every level of `details`. */
function shapeProblem(body: unknown): string {
  const b = body as Record<string, unknown> | undefined;
  if (!b || typeof b.error !== 'string') return 'no error string';
  if (b.details === undefined) return '';
  const walk = (node: unknown, at: string): string => {
    if (!node || typeof node !== 'object') return `${at} is not an object`;
    const n = node as Record<string, unknown>;
    if (!Array.isArray(n._errors)) return `${at}._errors is not an array`;
    for (const [k, v] of Object.entries(n)) {
      const problem = k === '_errors' ? '' : walk(v, `${at}.${k}`);
      if (problem) return problem;
    }
    return '';
  };
  return walk(b.details, 'details');
}

/** Sends each bad case and checks the 400 names its field; never a 500. */
function badInputSuite(operationId: string, path: string, valid: Record<string, unknown>) {
  const schema = d.own.requestBody(operationId);
  if (!schema) return skipped(operationId, 'no JSON request schema published');
  const cases: BadCase[] = badInputs(schema, valid, d.own);
  for (const c of cases)
    test(`${operationId}: ${c.field} ${c.what} is a 400 naming it`, async () => {
      const a = await call(path, { method: 'POST', json: c.body });
      expect(a.status === 400 ? '' : `${operationId} ${c.field} (${c.what}): ${show(a)}`).toBe('');
      expect(shapeProblem(a.json) ? `${operationId} ${c.field}: ${shapeProblem(a.json)}` : '').toBe('');
      expect(names(a.json, c.field) ? '' : `${operationId}: the error does not name ${c.field}: ${a.text.slice(0, 300)}`).toBe('');
    });
}

describe('error shapes (spec 2.5)', () => {
  test('StandardError: a garbage key is 401 {error}', async () => {
    const a = await call('/api_keys', { key: 'svc_garbage-key-of-the-contract-suite' });
    expect(a.status).toBe(401);
    expect(Object.keys(a.json as object)).toEqual(['error']);
  });

  test('StandardError: an unknown model is 404 {error} naming it', async () => {
    const a = await call('/chat/completions', {
      method: 'POST',
      json: { model: 'no-such-model-contract', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(a.status).toBe(404);
    expect((a.json as { error: string }).error).toContain('no-such-model-contract');
  });

  test('DetailedError: a bad field is 400 with details.<field>._errors', async () => {
    const a = await call('/chat/completions', {
      method: 'POST',
      json: { model: d.textModel ?? 'x', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' },
    });
    expect(a.status).toBe(400);
    expect(shapeProblem(a.json)).toBe('');
    expect(names(a.json, 'temperature')).toBe(true);
  });
});

describe('bad input per field, generated from the request schemas', () => {
  if (d.textModel)
    badInputSuite('createChatCompletion', '/chat/completions', {
      model: d.textModel,
      messages: [{ role: 'user', content: 'x' }],
      max_tokens: 4,
    });
  else skipped('createChatCompletion bad input', 'no text model');
  if (d.embeddingModel) badInputSuite('createEmbedding', '/embeddings', { model: d.embeddingModel, input: ['x'] });
  else skipped('createEmbedding bad input', 'no embedding model');
  if (d.imageModel && d.own.byId.has('simpleGenerateImage'))
    badInputSuite('simpleGenerateImage', '/images/generations', { model: d.imageModel, prompt: 'a red square' });
  else skipped('simpleGenerateImage bad input', 'no image model');
  if (d.imageModel && d.own.byId.has('generateImage'))
    badInputSuite('generateImage', '/image/generate', { model: d.imageModel, prompt: 'a red square' });
  else skipped('generateImage bad input', 'no image model');
});
