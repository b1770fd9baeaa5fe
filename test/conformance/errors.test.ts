import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const messages = [{ role: 'user', content: 'hi' }];
const errorOf = async (res: Promise<Response>) => {
  const r = await res;
  expect(r.status).toBe(400);
  return (await r.json()) as { error: string; details: Record<string, { _errors: string[] }> };
};
const chat = (json: Record<string, unknown>) =>
  t.request('/chat/completions', { method: 'POST', json: { model: 'qwen3-4b', messages, ...json } });

describe('the error string names the field and the reason', () => {
  test('bounds, required fields and several fields at once', async () => {
    expect((await errorOf(chat({ temperature: 5 }))).error).toBe('Invalid body parameters: temperature: must be at most 2');
    const missing = await errorOf(t.request('/chat/completions', { method: 'POST', json: { messages: [] } }));
    expect(missing.error).toBe('Invalid body parameters: model: is required; messages: must have at least 1 item');
    expect(missing.details.model!._errors).toEqual(['is required']);
    expect((await errorOf(chat({ n: 0 }))).error).toBe('Invalid body parameters: n: must be at least 1');
  });

  test('literal unions list the values; nested paths are dotted', async () => {
    const role = await errorOf(
      t.request('/chat/completions', { method: 'POST', json: { model: 'qwen3-4b', messages: [{ role: 'bot', content: 'x' }] } }),
    );
    expect(role.error).toBe('Invalid body parameters: messages.0.role: must be one of: system, developer, user, assistant, tool');
    const web = await errorOf(chat({ svc_parameters: { enable_web_search: 'maybe' } }));
    expect(web.error).toBe('Invalid body parameters: svc_parameters.enable_web_search: must be one of: off, on, auto');
  });

  test("a union or format failure says what was expected (expiresAt, page=abc), not the schema's types", async () => {
    const expires = await errorOf(
      t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'ADMIN', description: 'x', expiresAt: 'tomorrow' } }),
    );
    expect(expires.error).toBe(
      "Invalid body parameters: expiresAt: must be one of: ''; a date YYYY-MM-DD (midnight UTC); a UTC date-time YYYY-MM-DDTHH:mm:ss(.sss)Z",
    );
    expect((await errorOf(t.request('/characters/alan-watts/reviews?page=abc'))).error).toBe(
      'Invalid query parameters: page: must be an integer',
    );
    expect((await errorOf(chat({ max_tokens: 'x' }))).error).toBe('Invalid body parameters: max_tokens: must be an integer or null');
  });

  test("a union whose value matches one alternative's type reports that alternative's own problem, at its path", async () => {
    const stop = await errorOf(chat({ stop: ['a', 'b', 'c', 'd', 'e'] }));
    expect(stop.error).toBe('Invalid body parameters: stop: must have at most 4 items');
    expect((await errorOf(chat({ stop: [1] }))).error).toBe('Invalid body parameters: stop.0: must be a string');
    const part = await errorOf(
      t.request('/chat/completions', { method: 'POST', json: { model: 'qwen3-4b', messages: [{ role: 'user', content: [{ type: 5 }] }] } }),
    );
    expect(part.error).toBe('Invalid body parameters: messages.0.content.0.type: must be a string');
    expect(part.details.messages).toBeDefined();
  });

  test('hand-checked bounds and path parameters', async () => {
    expect((await errorOf(t.request('/characters?limit=101'))).error).toBe('Invalid query parameters: limit: must be at most 100');
    expect((await errorOf(t.request('/billing/usage?limit=0'))).error).toBe('Invalid query parameters: limit: must be at least 1');
    expect((await errorOf(t.request('/api_keys/not-a-uuid'))).error).toBe('Invalid path parameters: id: must be a UUID');
  });

  test('more than three fields: three named, the rest counted', async () => {
    const many = await errorOf(chat({ temperature: 5, top_p: 7, n: 0, presence_penalty: 9 }));
    expect(many.error).toMatch(/^Invalid body parameters: [^;]+; [^;]+; [^;]+; and 1 more \(see details\)$/);
    expect(Object.keys(many.details).filter((k) => k !== '_errors')).toHaveLength(4);
  });

  test('the openai SDK shows the string: its BadRequestError message carries field and reason', async () => {
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
      const error = await client.chat.completions
        .create({ model: 'qwen3-4b', messages: [{ role: 'user', content: 'hi' }], temperature: 3 })
        .catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.message).toContain('temperature: must be at most 2');
    } finally {
      await t.app.stop(true);
    }
  });
});
