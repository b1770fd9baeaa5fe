import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { APICallError, generateText, streamText } from 'ai';
import { createSvc, svcOptions } from '../../packages/ai-sdk-provider/src';
import { startGuardWorld, type GuardWorld } from './setup';

// The checks through the AI SDK (the project's own provider), as the openai SDK tests do them.
let w: GuardWorld;
beforeAll(async () => {
  w = await startGuardWorld({
    guardrails: { models: { 'fix-guarded': ['deny_list'] } },
    deny_list: { deny: [{ name: 'codename', words: ['apollo'] }] },
  });
});
afterAll(() => w.close());
beforeEach(() => w.reset());

const svc = () => createSvc({ baseURL: `http://127.0.0.1:${w.t.app.server?.port}/api/v1`, apiKey: w.t.adminKey });
const PROMPT = 'Mail me at ann.lee@example.com, card 4111 1111 1111 1111, order 4111 1111 1111 1112.';
const ECHO = ['Sure [EMA', 'IL_1], your card [CARD_1] is noted', ' and boss@corp.io', ' too.'];
const RESTORED = 'Sure ann.lee@example.com, your card 4111 1111 1111 1111 is noted and [EMAIL_2] too.';

describe('guardrails through the AI SDK', () => {
  test('generateText: the e-mail and the Luhn-valid card reach the upstream as placeholders, the Luhn-invalid number passes, restored in the answer', async () => {
    w.upstream.set({ tokens: ECHO });
    const result = await generateText({
      model: svc()('fix-plain'),
      prompt: PROMPT,
      maxRetries: 0,
      providerOptions: svcOptions({ guardrails: ['pii'], pii_restore: true }),
    });
    expect(w.upstreamText()).toBe('Mail me at [EMAIL_1], card [CARD_1], order 4111 1111 1111 1112.');
    expect(result.text).toBe(RESTORED);
    expect(result.response.headers?.['x-svc-guardrails']).toBe('pii=redact');
  });

  test('streamText: placeholders and an e-mail split over chunks are restored and redacted', async () => {
    w.upstream.set({ tokens: ECHO, splitBytes: 5 });
    const result = streamText({
      model: svc()('fix-plain'),
      prompt: PROMPT,
      maxRetries: 0,
      providerOptions: svcOptions({ guardrails: ['pii'], pii_restore: true }),
    });
    expect(await result.text).toBe(RESTORED);
    expect(await result.finishReason).toBe('stop');
    expect(w.upstreamText()).toBe('Mail me at [EMAIL_1], card [CARD_1], order 4111 1111 1111 1112.');
  });

  test("generateText: a denied word is an APICallError with the rule's name, status 400, nothing upstream", async () => {
    const error = await generateText({ model: svc()('fix-guarded'), prompt: 'the apollo plan', maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).message).toBe('deny_list: rule "codename" matched the input');
    expect(w.upstream.requests).toHaveLength(0);
  });

  test('streamText: a word denied mid-stream ends the stream with content-filter and the error in band', async () => {
    w.upstream.set({ tokens: ['The plan is ', 'apo', 'llo', ' and more'], splitBytes: 4 });
    const errors: unknown[] = [];
    const result = streamText({
      model: svc()('fix-guarded'),
      prompt: 'what is the plan?',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    const text = await result.text;
    expect(text).not.toContain('apollo');
    expect(await result.finishReason).toBe('content-filter');
    // The in-band error event reaches the stream's onError with the rule's name.
    expect(JSON.stringify(errors)).toContain('deny_list: rule \\"codename\\" matched the output');
  });
});
