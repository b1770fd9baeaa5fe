import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { startTestApp } from '../helpers/app';
import { rejectionOf } from '../helpers/rejection';
import { startGuardWorld, streamed, type GuardWorld } from './setup';

/**
 * A classifier on 127.0.0.1 that denies input containing "forbidden", hangs on "hang", passes
 * the rest; on "slow" it calls `onSlow` and waits for it before answering.
 */
function startClassifier() {
  const seen: { side: string; messages?: unknown; output?: string }[] = [];
  const hooks: { onSlow: () => Promise<void> } = { onSlow: async () => {} };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = (await req.json()) as { side: string; messages?: { content: string }[]; output?: string };
      seen.push(body);
      const text = body.output ?? (body.messages ?? []).map((m) => m.content).join('\n');
      if (text.includes('hang')) return new Promise<Response>(() => {});
      if (text.includes('slow')) await hooks.onSlow();
      if (text.includes('forbidden')) return Response.json({ verdict: 'deny', reason: 'S1 violent crimes' });
      return Response.json({ verdict: 'pass' });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/classify`, seen, hooks, close: () => server.stop(true) };
}

let w: GuardWorld;
let classifier: ReturnType<typeof startClassifier>;
const SCHEMA = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'], additionalProperties: false };

beforeAll(async () => {
  classifier = startClassifier();
  w = await startGuardWorld({
    limits: { default: { max_messages: 3, max_input_tokens: 200 }, models: { 'fix-guarded': { max_images: 0, max_tools: 1 } } },
    webhook: { url: classifier.url, timeoutMs: 300, fail: 'open' },
  });
});
afterAll(async () => {
  await w.close();
  classifier.close();
});
beforeEach(() => {
  w.reset();
  classifier.seen.length = 0;
});

const chat = (json: Record<string, unknown>, app = w.t.app) =>
  app.handle(
    new Request('http://localhost/api/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${w.t.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fix-plain', messages: [{ role: 'user', content: 'hi' }], ...json }),
    }),
  );
const user = (content: unknown) => ({ role: 'user', content });

describe('limits', () => {
  test.each([
    [
      { messages: [user('a'), user('b'), user('c'), user('d')], svc_parameters: { guardrails: ['limits'] } },
      'limits: max_messages exceeded: the request has 4 messages, the default limit is 3',
    ],
    [{ messages: [user('word '.repeat(300))], svc_parameters: { guardrails: ['limits'] } }, 'limits: max_input_tokens exceeded'],
    [
      { model: 'fix-guarded', messages: [user([{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }])] },
      'limits: max_images exceeded: the request has 1 images, the model limit is 0',
    ],
    [
      {
        model: 'fix-guarded',
        tools: [1, 2].map((i) => ({ type: 'function', function: { name: `f${i}`, parameters: { type: 'object' } } })),
      },
      'limits: max_tools exceeded: the request has 2 tool definitions, the model limit is 1',
    ],
  ])('%#: a refusal names the limit; nothing upstream', async (json, error) => {
    const res = await chat(json);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toStartWith(error);
    expect(w.upstream.requests).toHaveLength(0);
    expect(w.meter.calls.settled).toHaveLength(0);
  });

  test('within the limits the request goes through', async () => {
    expect((await chat({ svc_parameters: { guardrails: ['limits'] } })).status).toBe(200);
  });
});

describe('output_schema', () => {
  const rf = {
    response_format: { type: 'json_schema', json_schema: { name: 'p', schema: SCHEMA } },
    svc_parameters: { guardrails: ['output_schema'] },
  };

  test('a JSON answer that fits passes; one that does not is withheld naming the violation', async () => {
    w.upstream.set({ tokens: ['{"age":', '3}'] });
    expect((await chat(rf)).status).toBe(200);
    w.upstream.set({ tokens: ['{"age":', '"3"}'] });
    const res = await chat(rf);
    expect(res.status).toBe(502);
    expect((await res.json()).error).toStartWith(
      'output_schema: the answer does not match the requested json_schema: /age must be integer',
    );
    expect(res.headers.get('x-svc-guardrails')).toBe('output_schema=deny');
  });

  /** An upstream answer (JSON) with `content`, 10 prompt and 3 completion tokens; the fixture records the requests. */
  const answers = (...contents: string[]) => {
    let n = 0;
    w.upstream.set({
      respond: () =>
        Response.json({
          id: `chatcmpl-${n}`,
          object: 'chat.completion',
          created: 1,
          model: 'up-model',
          choices: [
            { index: 0, message: { role: 'assistant', content: contents[Math.min(n++, contents.length - 1)] }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
        }),
    });
  };

  test('without the operator allowing a retry, an invalid answer is one upstream call and a 502', async () => {
    answers('{"age":"3"}', '{"age":3}');
    const res = await chat(rf);
    expect(res.status).toBe(502);
    expect(w.upstream.requests).toHaveLength(1);
    expect(res.headers.get('x-svc-upstream-calls')).toBeNull();
  });

  test('retry allowed: invalid then valid is asked twice, both charged in one settlement, and the client is told', async () => {
    answers('{"age":"3"}', '{"age":3}');
    const res = await chat(rf, w.appWith({ output_schema: { retry: true } }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('{"age":3}');
    expect(w.upstream.requests).toHaveLength(2);
    expect(w.upstream.requests[1]!.body.messages).toEqual(w.upstream.requests[0]!.body.messages);
    expect(res.headers.get('x-svc-upstream-calls')).toBe('2');
    expect(res.headers.get('x-svc-guardrails')).toBe('output_schema=retry');
    expect(body.svc_parameters.output_schema_retry).toEqual({
      reason: 'the answer does not match the requested json_schema: /age must be integer',
      upstream_calls: 2,
    });
    expect(w.meter.calls.settled).toHaveLength(1);
    expect(w.meter.calls.settled[0]).toMatchObject({ promptTokens: 20, completionTokens: 6 });
  });

  test('retry allowed: invalid twice is a 502 with the validation error, both calls charged', async () => {
    answers('{"age":"3"}', 'not json');
    const res = await chat(rf, w.appWith({ output_schema: { retry: true } }));
    expect(res.status).toBe(502);
    const { error } = await res.json();
    expect(error).toStartWith('output_schema: the answer is not valid JSON');
    expect(error).toContain('the upstream was asked 2 times and its answers were withheld; all were charged: $');
    expect(res.headers.get('x-svc-guardrails')).toBe('output_schema=deny');
    expect(w.upstream.requests).toHaveLength(2);
    expect(w.meter.calls.settled).toHaveLength(1);
    expect(w.meter.calls.settled[0]).toMatchObject({ promptTokens: 20, completionTokens: 6 });
  });

  test('stream: an answer that is not JSON is reported in-band at its end', async () => {
    w.upstream.set({ tokens: ['{"age":', ' 3'] });
    const out = await streamed(
      // @ts-expect-error svc extension of the request body
      await w.client.chat.completions.create({ model: 'fix-plain', messages: [user('x') as never], stream: true, ...rf }),
    );
    expect(out.text).toBe('{"age": 3');
    expect(out.finish).toBe('content_filter');
    expect(out.error).toContain('output_schema: the answer is not valid JSON');
  });
});

describe('webhook classifier', () => {
  test('a deny verdict refuses the input with the classifier reason; nothing upstream', async () => {
    const res = await chat({ messages: [user('something forbidden')], svc_parameters: { guardrails: ['webhook'] } });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe('webhook: the classifier denied the input: S1 violent crimes');
    expect(classifier.seen[0]).toMatchObject({ side: 'input', messages: [{ role: 'user', content: 'something forbidden' }] });
    expect(w.upstream.requests).toHaveLength(0);
  });

  test('a pass verdict lets it through', async () => {
    const res = await chat({ svc_parameters: { guardrails: ['webhook'] } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-guardrails')).toBe('webhook=pass');
  });

  test('a hanging classifier fails open within its timeout', async () => {
    const started = performance.now();
    const res = await chat({ messages: [user('please hang')], svc_parameters: { guardrails: ['webhook'] } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-guardrails')).toBe('webhook=error');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test('a hanging classifier fails closed when the operator says so', async () => {
    const app = w.appWith({ webhook: { url: classifier.url, timeoutMs: 300, fail: 'closed' } });
    const res = await chat({ messages: [user('please hang')], svc_parameters: { guardrails: ['webhook'] } }, app);
    expect(res.status).toBe(503);
    expect((await res.json()).error).toStartWith('webhook: the classifier did not answer');
    expect(w.upstream.requests).toHaveLength(0);
  });

  describe('on a streamed answer (check_output)', () => {
    const output = (fail: 'open' | 'closed' = 'open') =>
      w.appWith({ webhook: { url: classifier.url, timeoutMs: 300, fail, check_output: true } });
    /** Reads an SSE answer: its text, finish reason, in-band error, and whether `[DONE]` came; `onFinish` when the finish chunk arrives. */
    const read = async (res: Response, onEvent: (e: { finish?: string }) => void = () => {}) => {
      const out = { text: '', finish: null as string | null, error: null as string | null, done: false };
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(bytes, { stream: true });
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const line = buffer.slice(0, cut).trim();
          buffer = buffer.slice(cut + 2);
          if (!line.startsWith('data: ')) continue;
          if (line === 'data: [DONE]') out.done = true;
          else {
            const e = JSON.parse(line.slice(6));
            if (e.error) out.error = e.error.message ?? e.error;
            for (const c of e.choices ?? []) {
              out.text += c.delta?.content ?? '';
              if (c.finish_reason) {
                out.finish = c.finish_reason;
                onEvent({ finish: c.finish_reason });
              }
            }
          }
        }
      }
      return out;
    };
    const streamChat = (tokens: string[], app: ReturnType<typeof output>) => {
      w.upstream.set({ tokens });
      return chat({ stream: true, svc_parameters: { guardrails: ['webhook'] } }, app);
    };

    test('a pass: the answer flows, the classifier saw the whole text, then the finish and [DONE]', async () => {
      const out = await read(await streamChat(['all ', 'fine'], output()));
      expect(out).toEqual({ text: 'all fine', finish: 'stop', error: null, done: true });
      expect(classifier.seen.map((s) => s.side)).toEqual(['input', 'output']);
      expect(classifier.seen[1]!.output).toBe('all fine');
    });

    test('the finish is held until the verdict: the client has not seen it while the classifier thinks', async () => {
      let finishSeen = false;
      let seenWhileWaiting: boolean | null = null;
      classifier.hooks.onSlow = async () => {
        await Bun.sleep(150);
        seenWhileWaiting = finishSeen;
      };
      try {
        const out = await read(await streamChat(['a slow ', 'answer'], output()), () => (finishSeen = true));
        expect(out.finish).toBe('stop');
        expect(seenWhileWaiting === false).toBe(true);
      } finally {
        classifier.hooks.onSlow = async () => {};
      }
    });

    test('a deny ends the stream with content_filter and the in-band error; the charge is settled', async () => {
      const out = await read(await streamChat(['this is ', 'forbidden'], output()));
      expect(out.finish).toBe('content_filter');
      expect(out.error).toStartWith('webhook: the classifier denied the output: S1 violent crimes');
      expect(out.done).toBe(true);
      expect(w.meter.calls.settled).toHaveLength(1);
    });

    test('a hanging classifier fails open within its timeout: the upstream finish goes out', async () => {
      const out = await read(await streamChat(['please ', 'hang'], output('open')));
      expect(out).toMatchObject({ finish: 'stop', error: null, done: true });
    });

    test('a hanging classifier fails closed: content_filter and the failure in-band', async () => {
      const out = await read(await streamChat(['please ', 'hang'], output('closed')));
      expect(out.finish).toBe('content_filter');
      expect(out.error).toStartWith('webhook: the classifier did not answer');
    });

    test('without check_output the answer is not posted', async () => {
      const out = await read(await streamChat(['this is ', 'forbidden'], w.t.app));
      expect(out.finish).toBe('stop');
      expect(classifier.seen.map((s) => s.side)).toEqual(['input']);
    });
  });

  test('its latency is in the metrics', async () => {
    await chat({ svc_parameters: { guardrails: ['webhook'] } });
    const metrics = await (await w.t.app.handle(new Request('http://localhost/metrics'))).text();
    expect(metrics).toMatch(/svc_plugin_webhook_duration_seconds_count\{[^}]*result="pass"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/svc_plugin_webhook_actions_total\{[^}]*action="pass"/);
  });
});

test('a pathological operator regex is refused at start, naming the plugin, the field and the reason', async () => {
  const start = startTestApp({ config: { plugins: [{ name: 'deny_list', options: { deny: [{ name: 'bad', regex: '(a+)+$' }] } }] } });
  expect((await rejectionOf(start)).message).toContain(
    'config: plugin "deny_list": invalid field "plugins.0.options": rule bad: regex refused: nested quantifiers: a+ repeated inside (a+)+',
  );
}, 30_000);
