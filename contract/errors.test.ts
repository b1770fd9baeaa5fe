import { describe, expect, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import { badInputSuite } from './lib/bad-input-suite';
import { env, skipped } from './lib/env';
import { names, shapeProblem } from './lib/error-shape';
import { call } from './lib/http';
import { deployment } from './lib/deployment';
import { solidPng } from './lib/png';

const d = await deployment();

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

describe('bad input per field of the image upload routes, as JSON and as multipart', () => {
  const png = solidPng();
  const file = () => new Blob([png], { type: 'image/png' });
  const base64 = Buffer.from(png).toString('base64');
  const uploads: [operationId: string, path: string, model: string | null | undefined, json: object, form: object][] = [
    ['editImage', '/image/edit', d.editModel, { image: base64, prompt: 'make it blue' }, { image: file(), prompt: 'make it blue' }],
    [
      'multiEditImage',
      '/image/multi-edit',
      d.editModel,
      { images: [base64], prompt: 'make it blue' },
      { images: [file()], prompt: 'make it blue' },
    ],
    ['upscaleImage', '/image/upscale', d.upscaleModel, { image: base64, scale: 2 }, { image: file(), scale: 2 }],
    // No model type tells background removal apart: the route's default model serves it.
    ['backgroundRemoveImage', '/image/background-remove', undefined, { image: base64 }, { image: file() }],
  ];
  for (const [operationId, path, model, json, form] of uploads) {
    if (!d.own.byId.has(operationId)) skipped(`${operationId} bad input`, 'not in this deployment');
    else if (model === null) skipped(`${operationId} bad input`, 'the deployment lists no model of its type');
    else {
      const withModel = model ? { model } : {};
      badInputSuite(operationId, path, { ...withModel, ...json });
      badInputSuite(operationId, path, { ...withModel, ...form }, { form: true });
    }
  }
});

describe('bad input per field of the account writes (nothing is written: each targets an account or character that does not exist)', () => {
  const operatorKey = () => (d.operator ? env.apiKey : { skip: "the key is not an ADMIN key of the operator's account" });
  const nobody = randomUUID();
  badInputSuite('creditAccount', `/admin/accounts/${nobody}/credits`, { currency: 'USD', amount: '1' }, { key: operatorKey });
  badInputSuite('putAccountRateLimits', `/admin/accounts/${nobody}/rate_limits`, { tier: 'standard' }, { method: 'PUT', key: operatorKey });
  badInputSuite('createCharacterReview', `/characters/contract-no-such-character-${nobody}/reviews`, {
    username: 'svc contract suite',
    rating: 5,
    message: 'ok',
    locale: 'en',
    userAvatarUrl: null,
  });
  skipped('createCharacter bad input', 'a case the deployment wrongly accepted would leave a character, which the API cannot delete');

  test('deleteScratchAccount: an accountId that is not a UUID is a 400 naming it', async () => {
    if (!d.own.byId.has('deleteScratchAccount')) return skipped('deleteScratchAccount bad input', 'not in this deployment');
    if (!d.operator) return skipped('deleteScratchAccount bad input', "the key is not an ADMIN key of the operator's account");
    const a = await call('/admin/accounts/not-a-uuid', { method: 'DELETE' });
    expect(a.status).toBe(400);
    expect(shapeProblem(a.json)).toBe('');
    expect(names(a.json, 'accountId')).toBe(true);
  });
});
