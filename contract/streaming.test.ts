import { describe, expect, test } from 'bun:test';
import { skipped } from './lib/env';
import { call, describe as show } from './lib/http';
import { deployment } from './lib/deployment';

const d = await deployment();

/** The SSE events of a streamed chat: raw data lines and `: ping` comments checked for framing. */
async function stream(body: Record<string, unknown>): Promise<{ events: string[]; problems: string[]; status: number }> {
  const a = await call('/chat/completions', { method: 'POST', json: { ...body, stream: true } });
  const problems: string[] = [];
  if (a.status !== 200) return { events: [], problems: [`HTTP ${a.status}: ${a.text.slice(0, 200)}`], status: a.status };
  if (!a.headers.get('content-type')?.startsWith('text/event-stream')) problems.push(`content-type ${a.headers.get('content-type')}`);
  const events: string[] = [];
  for (const block of a.text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) continue; // a comment (keep-alive ping)
      if (!line.startsWith('data: ')) problems.push(`a line that is neither data nor a comment: ${line.slice(0, 80)}`);
      else events.push(line.slice(6));
    }
  }
  if (events.at(-1) !== '[DONE]') problems.push('the stream does not end with data: [DONE]');
  if (events.filter((e) => e === '[DONE]').length !== 1) problems.push('[DONE] is sent more than once');
  for (const e of events.slice(0, -1))
    try {
      JSON.parse(e);
    } catch {
      problems.push(`an event that is not JSON: ${e.slice(0, 80)}`);
    }
  return { events, problems, status: a.status };
}

const chunks = (events: string[]) => events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e) as Record<string, unknown>);

describe('SSE framing of createChatCompletion', () => {
  test('createChatCompletion stream: data: <json> events, then exactly one [DONE]; usage with cost only when asked', async () => {
    if (!d.textModel) return skipped('createChatCompletion stream', 'no text model');
    const asked = await stream({
      model: d.textModel,
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 8,
      stream_options: { include_usage: true },
    });
    expect(asked.problems.map((p) => `createChatCompletion stream: ${p}`)).toEqual([]);
    const withUsage = chunks(asked.events).filter((c) => c.usage);
    expect(withUsage.length).toBe(1);
    expect(withUsage[0]).toMatchObject({ object: 'chat.completion.chunk', choices: [] });
    expect((withUsage[0] as { cost?: unknown }).cost).toBeDefined();
    for (const c of chunks(asked.events)) {
      const ok =
        c.object === 'chat.completion.chunk' && typeof c.id === 'string' && typeof c.model === 'string' && Array.isArray(c.choices);
      expect(ok ? '' : `createChatCompletion: a chunk without object/id/model/choices: ${JSON.stringify(c).slice(0, 200)}`).toBe('');
    }

    const plain = await stream({ model: d.textModel, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 });
    expect(plain.problems).toEqual([]);
    expect(chunks(plain.events).filter((c) => c.usage)).toEqual([]);
  });
});

describe('model suffixes and the svc_parameters echo', () => {
  test('createChatCompletion: a model suffix option is applied and echoed', async () => {
    if (!d.textModel) return skipped('suffix', 'no text model');
    const chatBody = d.own.requestBody('createChatCompletion');
    const params = (chatBody?.properties as Record<string, { properties?: Record<string, unknown> }> | undefined)?.svc_parameters
      ?.properties;
    if (!params?.strip_thinking_response) return skipped('suffix', 'the deployment has no strip_thinking_response option');
    const a = await call('/chat/completions', {
      method: 'POST',
      json: { model: `${d.textModel}:strip_thinking_response=true`, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 },
    });
    expect(a.status === 200 ? '' : `createChatCompletion with a suffix: ${show(a)}`).toBe('');
    expect((a.json as { svc_parameters?: Record<string, unknown> }).svc_parameters?.strip_thinking_response).toBe(true);
    expect(a.headers.get('x-svc-model-id')).toBe(d.textModel);
  });

  test('createChatCompletion: a bad suffix value is a 400 naming model', async () => {
    if (!d.textModel) return skipped('bad suffix', 'no text model');
    const a = await call('/chat/completions', {
      method: 'POST',
      fails: true,
      json: { model: `${d.textModel}:strip_thinking_response=maybe`, messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(a.status).toBe(400);
    expect(JSON.stringify(a.json)).toContain('model');
  });
});
