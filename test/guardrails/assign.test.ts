import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { startGuardWorld, type GuardWorld } from './setup';

const EMAIL = 'write to ada@example.com';

for (const backend of BACKENDS) {
  describe(`guardrails attached through the ADMIN API (${backend.name})`, () => {
    let w: GuardWorld;
    /** A scratch account of its own with 10 USD, its ADMIN key and an INFERENCE key. */
    let scratch: { accountId: string; adminKey: string; inference: { id: string; key: string } };

    const api = (path: string, key: string | null, init: { method?: string; json?: unknown } = {}) => w.t.request(path, { key, ...init });
    const chat = (key: string, guardrails?: string[]) =>
      api('/chat/completions', key, {
        method: 'POST',
        json: {
          model: 'fix-plain',
          messages: [{ role: 'user', content: EMAIL }],
          ...(guardrails ? { svc_parameters: { guardrails } } : {}),
        },
      });
    const put = (path: string, guardrails: unknown, key = w.t.adminKey) => api(path, key, { method: 'PUT', json: { guardrails } });

    beforeAll(async () => {
      w = await startGuardWorld({}, backend);
      const created = (await (await api('/admin/accounts', w.t.adminKey, { method: 'POST', json: { scratch: true } })).json()) as {
        data: { id: string; apiKey: { apiKey: string } };
      };
      const accountId = created.data.id;
      const adminKey = created.data.apiKey.apiKey;
      await api(`/admin/accounts/${accountId}/credits`, w.t.adminKey, { method: 'POST', json: { currency: 'USD', amount: '10' } });
      const res = await api('/api_keys', adminKey, { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'assigned' } });
      const { data } = (await res.json()) as { data: { id: string; apiKey: string } };
      scratch = { accountId, adminKey, inference: { id: data.id, key: data.apiKey } };
    });
    afterAll(() => w.close());

    test('a key: its requests run the guardrail even when they send guardrails: []; the cached key sees the change', async () => {
      // The key is cached by this first request, before the assignment.
      const before = await chat(scratch.inference.key, []);
      expect(before.status).toBe(200);
      expect(before.headers.get('x-svc-guardrails')).toBeNull();
      expect(w.upstreamText()).toContain('ada@example.com');

      const path = `/admin/keys/${scratch.inference.id}/guardrails`;
      const set = await put(path, ['pii', 'pii']);
      expect(set.status).toBe(200);
      expect(await set.json()).toEqual({ data: { keyId: scratch.inference.id, guardrails: ['pii'] } });
      expect(await (await api(path, w.t.adminKey)).json()).toEqual({ data: { keyId: scratch.inference.id, guardrails: ['pii'] } });

      const after = await chat(scratch.inference.key, []);
      expect(after.status).toBe(200);
      expect(after.headers.get('x-svc-guardrails')).toBe('pii=redact');
      expect(w.upstreamText()).toContain('[EMAIL_1]');
      expect(w.upstreamText()).not.toContain('ada@example.com');
      // Another key of the same account is not affected.
      expect((await chat(scratch.adminKey, [])).headers.get('x-svc-guardrails')).toBeNull();

      expect((await put(path, [])).status).toBe(200);
      expect((await chat(scratch.inference.key)).headers.get('x-svc-guardrails')).toBeNull();
    });

    test("an account: every key's requests run it, guardrails: [] included; a request may add more", async () => {
      const path = `/admin/accounts/${scratch.accountId}/guardrails`;
      expect((await chat(scratch.adminKey, [])).headers.get('x-svc-guardrails')).toBeNull();
      const set = await put(path, ['pii']);
      expect(set.status).toBe(200);
      expect(await set.json()).toEqual({ data: { accountId: scratch.accountId, guardrails: ['pii'] } });
      expect(await (await api(path, w.t.adminKey)).json()).toEqual({ data: { accountId: scratch.accountId, guardrails: ['pii'] } });

      for (const key of [scratch.adminKey, scratch.inference.key]) {
        const res = await chat(key, []);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-svc-guardrails')).toBe('pii=redact');
        expect(w.upstreamText()).toContain('[EMAIL_1]');
      }
      const added = await chat(scratch.inference.key, ['limits']);
      expect(added.headers.get('x-svc-guardrails')).toContain('pii=redact');
      expect(added.headers.get('x-svc-guardrails')).toContain('limits=');
      // The operator's own account is not affected.
      expect((await chat(w.t.adminKey, [])).headers.get('x-svc-guardrails')).toBeNull();

      expect((await put(path, [])).status).toBe(200);
      expect((await chat(scratch.adminKey, [])).headers.get('x-svc-guardrails')).toBeNull();
    });

    test('an unknown name is a 400 naming the entry; nothing is stored', async () => {
      const path = `/admin/keys/${scratch.inference.id}/guardrails`;
      const res = await put(path, ['pii', 'nope']);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe(
        'Invalid request parameters: guardrails.1: unknown guardrail "nope" (known: pii, deny_list, limits, output_schema, webhook)',
      );
      expect(await (await api(path, w.t.adminKey)).json()).toEqual({ data: { keyId: scratch.inference.id, guardrails: [] } });
      expect((await put(`/admin/accounts/${scratch.accountId}/guardrails`, ['deny-list'])).status).toBe(400);
      expect((await put(path, 'pii')).status).toBe(400);
    });

    test('unknown key or account: 404; not a UUID: 400', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      expect((await put(`/admin/keys/${missing}/guardrails`, ['pii'])).status).toBe(404);
      expect((await api(`/admin/accounts/${missing}/guardrails`, w.t.adminKey)).status).toBe(404);
      expect((await api('/admin/keys/abc/guardrails', w.t.adminKey)).status).toBe(400);
    });

    test("only the operator's ADMIN keys: an INFERENCE key gets 403, another account's ADMIN key 403", async () => {
      const paths = [`/admin/keys/${scratch.inference.id}/guardrails`, `/admin/accounts/${scratch.accountId}/guardrails`];
      for (const path of paths)
        for (const key of [scratch.inference.key, scratch.adminKey]) {
          expect((await api(path, key)).status).toBe(403);
          expect((await put(path, [], key)).status).toBe(403);
        }
      expect((await put(paths[0] as string, ['pii'], scratch.inference.key)).status).toBe(403);
    });
  });
}
