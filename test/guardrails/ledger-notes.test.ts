import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { startGuardWorld, streamed, type GuardWorld } from './setup';

type Entry = { notes: string; sku: string; inferenceDetails: { requestId: string } | null };

for (const backend of BACKENDS) {
  describe(`the guardrails' outcome in the request's ledger row (${backend.name})`, () => {
    let w: GuardWorld;
    beforeAll(async () => {
      w = await startGuardWorld({}, backend, { realMeter: true });
    });
    afterAll(() => w.close());

    /** The usage lines of one request, as /billing/usage shows them. */
    const linesOf = async (requestId: string | null) => {
      const res = await w.t.request('/billing/usage?limit=500');
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as { data: Entry[] };
      return data.filter((e) => e.inferenceDetails?.requestId === requestId);
    };

    test('JSON: which guardrails ran and which acted are the notes of every line of the charge', async () => {
      const res = await w.t.request('/chat/completions', {
        method: 'POST',
        json: {
          model: 'fix-plain',
          messages: [{ role: 'user', content: 'mail ada@example.com' }],
          svc_parameters: { guardrails: ['pii'] },
        },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-guardrails')).toBe('pii=redact');
      const lines = await linesOf(res.headers.get('cf-ray'));
      expect(lines.length).toBeGreaterThanOrEqual(2); // input and output tokens
      for (const line of lines) expect(line.notes).toBe('API Inference; guardrails: pii=redact');
    });

    test('stream: what the output side decided during the stream is recorded too', async () => {
      w.upstream.set({ tokens: ['write to bob', '@example.com'] });
      const { data, response } = await w.client.chat.completions
        .create({
          model: 'fix-plain',
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          ...{ svc_parameters: { guardrails: ['pii'] } },
        })
        .withResponse();
      expect((await streamed(data)).text).toBe('write to [EMAIL_1]');
      const lines = await linesOf(response.headers.get('cf-ray'));
      expect(lines.length).toBeGreaterThanOrEqual(1);
      for (const line of lines) expect(line.notes).toBe('API Inference; guardrails: pii=redact');
    });

    test('a request no plugin noted keeps the reference notes', async () => {
      w.upstream.set({});
      const res = await w.t.request('/chat/completions', {
        method: 'POST',
        json: { model: 'fix-plain', messages: [{ role: 'user', content: 'hi' }] },
      });
      const lines = await linesOf(res.headers.get('cf-ray'));
      expect(lines.length).toBeGreaterThanOrEqual(1);
      for (const line of lines) expect(line.notes).toBe('API Inference');
    });
  });
}
