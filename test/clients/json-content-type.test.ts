import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { usdMicros } from './helpers';

let up: FixtureUpstream;
let t: TestApp;

beforeAll(async () => {
  up = startUpstream('a');
  t = await startTestApp({
    config: {
      providers: [fixtureProvider('a', up.url)],
      models: [fixtureModel('chat', ['a']), fixtureModel('emb', ['a'], { type: 'embedding', pricing: { input: '1' } })],
    },
  });
});
afterAll(async () => {
  await t.close();
  await up.close();
});
beforeEach(() => {
  up.requests.length = 0;
});

const BODIES: Record<string, Record<string, unknown>> = {
  '/chat/completions': { model: 'chat', messages: [{ role: 'user', content: 'Hi' }] },
  '/embeddings': { model: 'emb', input: 'Hi' },
  '/responses': { model: 'chat', input: 'Hi' },
};
const usd = () => usdMicros(t);
const post = (path: string, body: BodyInit, type?: string) =>
  t.request(path, { method: 'POST', body, headers: type === undefined ? {} : { 'content-type': type } });

describe('a body that is not JSON is a 415 naming its content type', () => {
  for (const [path, json] of Object.entries(BODIES))
    test(`${path}: text/plain, XML and a form (even holding JSON) are refused before any upstream call; JSON types are read`, async () => {
      const before = await usd();
      const text = JSON.stringify(json);
      for (const [type, body] of [
        ['text/plain;charset=UTF-8', text],
        ['application/xml', `<request><model>${String(json.model)}</model></request>`],
        ['text/xml', '<request/>'],
        ['application/x-www-form-urlencoded', text],
        ['application/x-www-form-urlencoded', 'model=chat&input=Hi'],
      ] as const) {
        const res = await post(path, body, type);
        const answer = await res.json();
        expect(`${path} ${type} ${res.status}`).toBe(`${path} ${type} 415`);
        expect(answer.error).toBe(`Unsupported content type ${type.split(';')[0]}: send application/json`);
        expect(res.headers.get('cf-ray')).toBeTruthy();
      }
      const form = new FormData();
      form.append('model', String(json.model));
      const multipart = await post(path, form);
      expect(multipart.status).toBe(415);
      expect((await multipart.json()).error).toStartWith('Unsupported content type multipart/form-data');
      expect(up.requests).toHaveLength(0);
      expect(await usd()).toBe(before);

      for (const type of ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.svc+json'])
        expect(`${type} ${(await post(path, text, type)).status}`).toBe(`${type} 200`);
      // No declared type at all (a raw byte body): read as JSON, as the image routes do.
      expect((await post(path, new TextEncoder().encode(text))).status).toBe(200);
    });

  test('the type is checked where the body is read, as malformed JSON is: before the credential', async () => {
    const anonymous = { method: 'POST', headers: { 'content-type': 'text/plain' }, key: null } as const;
    expect((await t.request('/chat/completions', { ...anonymous, body: 'hi' })).status).toBe(415);
    const malformed = { method: 'POST', headers: { 'content-type': 'application/json' }, key: null } as const;
    expect((await t.request('/chat/completions', { ...malformed, body: '{"model":' })).status).toBe(400);
    expect((await t.request('/chat/completions', { ...malformed, body: JSON.stringify(BODIES['/chat/completions']) })).status).toBe(401);
  });
});
