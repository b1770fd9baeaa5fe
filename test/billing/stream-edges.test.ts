import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { microsToNumber } from '../../src/billing/money';
import type { Storage } from '../../src/db/database';
import { endOpenStreams } from '../../src/stream/open-streams';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { charges, newAccount, openMeterSuite, type MeterInstance } from './meter-helpers';

let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('stream-edges');
});
afterAll(() => up.close());

/** The `data:` payloads of an SSE body, JSON-decoded where they are JSON (garbage passes through as it came). */
function eventsOf(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
    .map((d) => {
      try {
        return JSON.parse(d);
      } catch {
        return d;
      }
    });
}

/** 200 answers whose bodies carry no chat content: bytes that are no SSE, events that are no JSON, an empty stream. */
const GARBAGE: Record<string, string> = {
  'random bytes': '\u0001\u00ff<html>502 Bad Gateway</html>\n\nnot an event stream',
  'events that are not JSON': 'data: {"choices": [oops\n\ndata: <<<>>>\n\n',
  'an empty stream': '',
};

describe.each(BACKENDS)('money on the edges of a stream on $name', (backend) => {
  let storage: Storage;
  let m: MeterInstance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, m, close } = await openMeterSuite(backend, { upstreamUrl: up.url }));
  });
  afterAll(() => close());

  async function funded() {
    const account = await newAccount(storage);
    await m.meter.credit({ accountId: account.accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `c-${account.accountId}` });
    return account;
  }

  for (const [kind, body] of Object.entries(GARBAGE))
    test(`a 200 stream of ${kind}: nothing delivered, nothing charged`, async () => {
      up.set({ respond: () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }) });
      try {
        const { accountId, secret } = await funded();
        for (const transformed of [false, true]) {
          const res = await m.chat(secret, { stream: true, ...(transformed ? { svc_parameters: { strip_thinking_response: true } } : {}) });
          // An empty body fails before the first byte: a 502, as any upstream failure then.
          if (body === '') {
            expect(res.status).toBe(502);
            await res.text();
            continue;
          }
          expect(res.status).toBe(200);
          const sent = eventsOf(await res.text());
          expect(sent.at(-1)).toBe('[DONE]');
          expect(sent.at(-2)).toMatchObject({ error: { code: 'upstream_error' } });
          expect(sent.some((e) => typeof e === 'object' && e !== null && 'usage' in e)).toBe(false);
        }
        await m.meter.flush();
        expect(await charges(storage, accountId)).toHaveLength(0);
        expect((await m.meter.balances(accountId)).USD).toBe(1_000_000);
      } finally {
        up.set({});
      }
    });

  test('a stream cut by a shutdown shows its usage and cost before the error, and the ledger holds that cost', async () => {
    // Two content chunks, then a silence the shutdown cuts.
    up.set({ silenceMs: 30_000, silenceAt: 3 });
    try {
      const { accountId, secret } = await funded();
      const res = await m.chat(secret, { stream: true });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes(' from')) text += new TextDecoder().decode((await reader.read()).value);
      expect(await endOpenStreams('The server is shutting down')).toBeGreaterThanOrEqual(1);
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
      const sent = eventsOf(text);
      expect(sent.at(-1)).toBe('[DONE]');
      expect(sent.at(-2)).toMatchObject({ error: { message: 'The server is shutting down' } });
      const last = sent.at(-3) as { usage: { prompt_tokens: number; completion_tokens: number }; cost: { usd: number } };
      expect(last.usage.completion_tokens).toBeGreaterThan(0);
      expect(last.cost.usd).toBeGreaterThan(0);
      await m.meter.flush();
      const rows = await charges(storage, accountId);
      expect(microsToNumber(-rows.reduce((s, r) => s + r.amountMicros, 0))).toBe(last.cost.usd);
    } finally {
      up.set({});
    }
  });
});
