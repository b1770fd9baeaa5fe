import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { referenceValidator, type ReferenceValidator } from './reference';

let t: TestApp;
let ref: ReferenceValidator;
beforeAll(async () => {
  [t, ref] = await Promise.all([startTestApp(), referenceValidator()]);
});
afterAll(() => t.close());

describe('GET /models against the reference schema', () => {
  test('every record of type=all validates against ModelResponse', async () => {
    const res = await t.request('/models?type=all');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.length).toBeGreaterThan(5);
    expect(ref.check('GET', '/models', 200, body)).toEqual([]);
  });
});
