import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

/** The routes this round added that answer an account's data: none of them without a valid key. */
const ROUTES: [string, string][] = [
  ['GET', '/admin/requests'],
  ['GET', '/admin/requests/no-such-request'],
  ['GET', '/admin/keys/00000000-0000-4000-8000-000000000000/guardrails'],
  ['PUT', '/admin/keys/00000000-0000-4000-8000-000000000000/guardrails'],
  ['GET', '/admin/accounts/00000000-0000-4000-8000-000000000000/guardrails'],
  ['PUT', '/admin/accounts/00000000-0000-4000-8000-000000000000/guardrails'],
  ['GET', '/responses/resp_00000000000000000000-SVC'],
  ['DELETE', '/responses/resp_00000000000000000000-SVC'],
  ['GET', '/responses/resp_00000000000000000000-SVC/input_items'],
  ['POST', '/responses/resp_00000000000000000000-SVC/cancel'],
];

describe('the routes added for the request log, guardrail assignment and stored responses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  for (const [method, path] of ROUTES)
    test(`${method} ${path}: 401 {error} without a key and with an unknown one`, async () => {
      for (const key of [null, 'svc_not-a-key-of-this-server']) {
        const res = await t.request(path, { method, key, ...(method === 'PUT' ? { json: { guardrails: ['pii'] } } : {}) });
        expect(res.status).toBe(401);
        expect(typeof ((await res.json()) as { error?: unknown }).error).toBe('string');
      }
    });
});
