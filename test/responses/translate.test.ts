import { describe, expect, test } from 'bun:test';
import { ServiceError } from '../../src/http/errors';
import { urlCitations } from '../../src/responses/citations';
import { OutputBuilder, type ChatDelta } from '../../src/responses/output';
import { responseFromChat, responseShell, responseUsage, type ChatAnswer } from '../../src/responses/response';
import type { ResponsesRequest } from '../../src/responses/schema';
import { ResponsesStreamEncoder } from '../../src/responses/stream-encoder';
import { ThinkSplitter } from '../../src/responses/think-split';
import { toChatRequest } from '../../src/responses/to-chat';
import { SseDecoder } from '../../src/stream/events';
import type { ChatChunk } from '../../src/stream/wire';

/** The chat request body a Responses request becomes. */
const toChat = (r: ResponsesRequest) => toChatRequest(r).body;
const req = (fields: Partial<ResponsesRequest>): ResponsesRequest => ({ model: 'm', input: 'Hi', ...fields }) as ResponsesRequest;

/** The 400's field path (details) of a translation that must fail. */
function refusal(fields: Partial<ResponsesRequest>): { error: string; field: string } {
  try {
    toChat(req(fields));
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    const path: string[] = [];
    let node = e.body.details as Record<string, unknown> | undefined;
    while (node) {
      const key = Object.keys(node).find((k) => k !== '_errors');
      if (!key) break;
      path.push(key);
      node = node[key] as Record<string, unknown>;
    }
    return { error: e.body.error, field: path.join('.') };
  }
  throw new Error('expected a 400');
}

describe('Responses request -> chat request', () => {
  test('a string input with instructions, sampling, limits, reasoning and format', () => {
    const chat = toChat(
      req({
        instructions: 'Be brief.',
        max_output_tokens: 64,
        temperature: 0.2,
        top_p: 0.9,
        reasoning: { effort: 'low', summary: 'auto' },
        text: { format: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true } },
        stream: true,
        fallbacks: ['a', { model: 'b' }],
        prompt_cache_key: 'k',
      }),
    );
    expect(chat).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_completion_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: 'low', summary: 'auto' },
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' }, strict: true } },
      stream: true,
      stream_options: { include_usage: true },
      fallbacks: ['a', 'b'],
      prompt_cache_key: 'k',
    });
  });

  test('message items with text, image and file parts; assistant history as text', () => {
    const chat = toChat(
      req({
        input: [
          { type: 'message', role: 'developer', content: 'Rules.' },
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'Look:' },
              { type: 'input_image', image_url: 'https://x.test/a.png', detail: 'low' },
              { type: 'input_file', file_data: 'data:application/pdf;base64,AAAA', filename: 'a.pdf' },
            ],
          },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Seen.', annotations: [] }] },
        ],
      }),
    );
    expect(chat.messages).toEqual([
      { role: 'developer', content: 'Rules.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,AAAA', filename: 'a.pdf' } },
        ],
      },
      { role: 'assistant', content: 'Seen.' },
    ]);
  });

  test('a tool round trip: reasoning, parallel function calls, outputs; item references skipped', () => {
    const chat = toChat(
      req({
        input: [
          { role: 'user', content: 'Weather in A and B?' },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two cities.' }] },
          { type: 'item_reference', id: 'msg_0' },
          { type: 'function_call', call_id: 'c1', name: 'w', arguments: '{"city":"A"}' },
          { type: 'function_call', call_id: 'c2', name: 'w', arguments: '{"city":"B"}' },
          { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
          { type: 'function_call_output', call_id: 'c2', output: { t: 3 } },
        ],
        tools: [
          { type: 'function', name: 'w', parameters: { type: 'object' }, strict: true },
          { type: 'function', function: { name: 'v', description: 'chat shape' } },
        ],
        tool_choice: { type: 'function', name: 'w' },
        parallel_tool_calls: true,
      }),
    );
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Weather in A and B?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Two cities.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'w', arguments: '{"city":"A"}' } },
          { id: 'c2', type: 'function', function: { name: 'w', arguments: '{"city":"B"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'c2', content: '{"t":3}' },
    ]);
    expect(chat.tools).toEqual([
      { type: 'function', function: { name: 'w', parameters: { type: 'object' }, strict: true } },
      { type: 'function', function: { name: 'v', description: 'chat shape' } },
    ]);
    expect(chat.tool_choice).toEqual({ type: 'function', function: { name: 'w' } });
    expect(chat.parallel_tool_calls).toBe(true);
  });

  test('web_search (flag or tool) turns web search on unless svc_parameters says otherwise', () => {
    expect(toChat(req({ web_search: true })).svc_parameters).toEqual({ enable_web_search: 'on' });
    expect(toChat(req({ tools: [{ type: 'web_search' }] })).svc_parameters).toEqual({ enable_web_search: 'on' });
    expect(toChat(req({ tools: [{ type: 'web_search' }] })).tools).toBeUndefined();
    expect(toChat(req({ web_search: true, svc_parameters: { enable_web_search: 'auto' } })).svc_parameters).toEqual({
      enable_web_search: 'auto',
    });
  });

  test('refusals name the field', () => {
    expect(refusal({ conversation: 'c' }).field).toBe('conversation');
    expect(refusal({ input: [{ type: 'nope' }] }).field).toBe('input.0.type');
    expect(refusal({ input: [{ type: 'function_call', call_id: 'c', arguments: '{}' }] }).field).toBe('input.0.name');
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }).field).toBe(
      'input.0.content.0.file_data',
    );
    expect(refusal({ input: [{ type: 'item_reference', id: 'x' }] }).field).toBe('input');
    expect(refusal({ tools: [{ type: 'function' }] }).field).toBe('tools.0.name');
    expect(refusal({ tools: [{ type: 'code_interpreter' }] }).field).toBe('tools.0.type');
    expect(refusal({ tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function' } }).field).toBe('tool_choice');
    expect(refusal({ text: { format: { type: 'json_schema', schema: [] } } } as never).field).toBe('text.format.schema');
  });
});

describe('ThinkSplitter', () => {
  const text = 'Hi <think>\nplan A</think>\n\nAnswer <b>bold</b> <thin';
  test('splits thought from answer at every cut of the input', () => {
    for (let cut = 0; cut <= text.length; cut++) {
      const s = new ThinkSplitter();
      const parts = [s.push(text.slice(0, cut)), s.push(text.slice(cut)), s.end()];
      expect(parts.map((p) => p.thought).join('')).toBe('\nplan A');
      expect(parts.map((p) => p.answer).join('')).toBe('Hi Answer <b>bold</b> <thin');
    }
  });

  test('an unclosed block is all thought', () => {
    const s = new ThinkSplitter();
    const a = s.push('<think>still going </th');
    expect(a).toEqual({ thought: 'still going ', answer: '' });
    expect(s.end()).toEqual({ thought: '</th', answer: '' });
  });
});

test('urlCitations: one annotation per marker that names a result', () => {
  const sources = [{ title: 'Zero', url: 'https://0.test' }, { url: 'https://1.test' }];
  const text = 'A[REF]0[/REF] B[REF]1[/REF] C[REF]7[/REF]';
  expect(urlCitations(text, sources)).toEqual([
    { type: 'url_citation', url: 'https://0.test', title: 'Zero', start_index: 1, end_index: 13 },
    { type: 'url_citation', url: 'https://1.test', title: 'https://1.test', start_index: 15, end_index: 27 },
  ]);
  expect(urlCitations(text, undefined)).toEqual([]);
});

test('responseUsage maps cached and reasoning tokens', () => {
  expect(
    responseUsage({
      prompt_tokens: 10,
      completion_tokens: 7,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 3 },
    }),
  ).toEqual({
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 4 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 3 },
    total_tokens: 17,
  });
  expect(responseUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }).output_tokens_details).toEqual({ reasoning_tokens: 0 });
});

describe('chat answer -> Response object', () => {
  const shell = responseShell(req({ max_output_tokens: 9 }), 'resp_x', 'm', 1700000000);
  const answer = (message: Record<string, unknown>, finish = 'stop'): ChatAnswer => ({
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    cost: { usd: 0.1, diem: 0 },
  });

  test('reasoning_content, text and tool calls become reasoning, message and function_call items', () => {
    const res = responseFromChat(
      shell,
      answer({
        reasoning_content: 'Hmm.',
        content: 'Calling.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'w', arguments: '{}' } }],
      }),
      'x',
    );
    expect(res).toMatchObject({
      id: 'resp_x',
      object: 'response',
      status: 'completed',
      model: 'm',
      max_output_tokens: 9,
      cost: { usd: 0.1, diem: 0 },
    });
    expect(res.output).toEqual([
      { type: 'reasoning', id: 'rs_x_0', summary: [{ type: 'summary_text', text: 'Hmm.' }] },
      {
        type: 'message',
        id: 'msg_x_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Calling.', annotations: [], logprobs: [] }],
      },
      { type: 'function_call', id: 'fc_x_2', call_id: 'call_1', name: 'w', arguments: '{}', status: 'completed' },
    ]);
    expect(res.usage?.output_tokens).toBe(4);
  });

  test('<think> content becomes a reasoning item; a cut answer says why in incomplete_details', () => {
    const res = responseFromChat(shell, answer({ content: '<think>why</think>\n\nBecause' }, 'length'), 'y');
    // The reference's statuses have no `incomplete`.
    expect(res.status).toBe('completed');
    expect(res.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(res.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(res.output[1]).toMatchObject({ status: 'completed', content: [{ text: 'Because' }] });
  });
});

describe('the typed event stream', () => {
  const chunk = (delta: ChatDelta & Record<string, unknown>, finish: string | null = null, extra: Partial<ChatChunk> = {}): ChatChunk => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  const decode = (text: string) => {
    const d = new SseDecoder();
    return [...d.push(new TextEncoder().encode(text)), ...d.end()].map((e) => ({ ...JSON.parse(e.data), sse_event: e.event }));
  };

  test('reasoning, text and a tool call: every event named, numbered, with consistent indices', () => {
    const enc = new ResponsesStreamEncoder(responseShell(req({}), 'resp_s', 'm', 1), 's', () => undefined);
    let text = enc.start();
    text += enc.chunk(chunk({ role: 'assistant', content: '' }));
    text += enc.chunk(chunk({ reasoning_content: 'Think' }));
    text += enc.chunk(chunk({ content: 'Hel' }));
    text += enc.chunk(chunk({ content: 'lo' }));
    text += enc.chunk(chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'w', arguments: '{"a"' } }] }));
    text += enc.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, 'tool_calls'));
    text += enc.end(
      chunk({}, null, { choices: [], usage: { prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 }, cost: { usd: 1, diem: 0 } }),
    );
    const events = decode(text);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.every((e) => e.sse_event === e.type)).toBe(true);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const done = events.at(-1)!;
    expect(done.response.output.map((o: { type: string }) => o.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(done.response.output[2]).toMatchObject({ call_id: 'call_9', arguments: '{"a":1}', status: 'completed' });
    expect(done.response.usage).toMatchObject({ input_tokens: 2, output_tokens: 5 });
    expect(done.response.cost).toEqual({ usd: 1, diem: 0 });
    const textDeltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(textDeltas.every((e) => e.output_index === 1 && e.content_index === 0)).toBe(true);
  });

  test('a failure mid-stream closes the open item and ends with response.failed', () => {
    const enc = new ResponsesStreamEncoder(responseShell(req({}), 'resp_f', 'm', 1), 'f', () => undefined);
    const events = decode(enc.start() + enc.chunk(chunk({ content: 'Par' })) + enc.error('The upstream broke'));
    expect(events.slice(-2).map((e) => e.type)).toEqual(['response.output_item.done', 'response.failed']);
    expect(events.at(-2)!.item.status).toBe('failed');
    expect(events.at(-1)!.response).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'The upstream broke' } });
  });

  test('a cut answer completes with incomplete_details', () => {
    const enc = new ResponsesStreamEncoder(responseShell(req({}), 'resp_l', 'm', 1), 'l', () => undefined);
    const events = decode(enc.start() + enc.chunk(chunk({ content: 'Par' }, 'length')) + enc.end(null));
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { status: 'completed', incomplete_details: { reason: 'max_output_tokens' } },
    });
  });

  test('OutputBuilder: a tool call without an index gets its own item', () => {
    const seen: string[] = [];
    const b = new OutputBuilder(
      'z',
      (type) => seen.push(type),
      () => undefined,
    );
    b.delta({
      tool_calls: [
        { id: 'a', function: { name: 'f', arguments: '{}' } },
        { id: 'b', function: { name: 'g', arguments: '{}' } },
      ],
    });
    b.finish();
    expect(b.output.map((o) => (o.type === 'function_call' ? o.call_id : ''))).toEqual(['a', 'b']);
    expect(seen.filter((s) => s === 'response.output_item.done')).toHaveLength(2);
  });
});
