import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

/** Bodies no client should send, each of which must be a 400 DetailedError naming a field (never a 500 or an empty body). */
const BODIES: [string, string, string][] = [
  // Not an object, or nested past the JSON limits: refused before validation, naming the body.
  ['an array', '[1,2]', 'body'],
  ['a string', '"hi"', 'body'],
  ['null', 'null', 'body'],
  ['a __proto__ field', '{"input":"a","__proto__":{"x":1}}', '__proto__'],
  ['deep nesting', `{"input":${'['.repeat(2000)}${']'.repeat(2000)}}`, 'body'],
  ['a number beyond doubles', '{"input":"a","speed":1e400}', 'speed'],
  ['a million letters', JSON.stringify({ input: 'a'.repeat(1_000_000) }), 'input'],
  ['an object for a string', '{"input":"a","model":{"0":"x"}}', 'model'],
];

describe('hostile JSON bodies on the audio routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  for (const [name, body, field] of BODIES)
    test(`/audio/speech, ${name}: 400 naming ${field}`, async () => {
      const res = await t.request('/audio/speech', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      const answer = await res.json();
      expect(answer.error).toContain(field);
      expect(Object.hasOwn(answer.details, field)).toBe(true);
    });

  test('the upload routes answer a JSON body with a 400 naming file, or the unknown field', async () => {
    for (const path of ['/audio/transcriptions', '/audio/voices'])
      for (const [, body] of BODIES) {
        const res = await t.request(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
        expect(res.status).toBe(400);
        const answer = await res.json();
        expect(answer.error).toMatch(/^Invalid (request |body )?(body|parameters)/);
        expect(Object.keys(answer.details).length).toBeGreaterThan(1);
      }
  });
});
