import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Wallet } from 'ethers';
import sharp from 'sharp';
import { JSON_SHAPE_LIMITS } from '../../src/http/json-shape';
import { defaultImageModels } from '../../src/models/default-image-models';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { deepJson } from '../helpers/hostile-input';
import { ledgerOf, png, startImagesApp } from '../images/helpers';

/** A PNG whose first IDAT chunk has a wrong CRC: its header reads, its pixels do not. */
async function pngWithBadCrc(): Promise<Buffer> {
  const noisy = Buffer.alloc(300 * 300 * 3);
  for (let i = 0; i < noisy.length; i++) noisy[i] = (i * 2654435761) >>> 24;
  const bytes = await sharp(noisy, { raw: { width: 300, height: 300, channels: 3 } })
    .png()
    .toBuffer();
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    if (bytes.toString('ascii', at + 4, at + 8) === 'IDAT') {
      bytes[at + 8 + length]! ^= 0xff;
      return bytes;
    }
    at += 12 + length;
  }
  throw new Error('no IDAT chunk');
}

const json = { 'content-type': 'application/json' };

for (const backend of BACKENDS) {
  describe(`hostile bodies refused by name on ${backend.name}`, () => {
    let t: TestApp;
    let up: { close(): Promise<void> | void };
    /** The default catalog (text and embedding models on the simulator); `t` serves image models. */
    let text: TestApp;
    let accountId: string;
    const wallet = Wallet.createRandom();

    beforeAll(async () => {
      ({ t, up } = await startImagesApp(backend, defaultImageModels([{ provider: 'sim', weight: 1 }])));
      text = await startTestApp({ backend });
      const created = await t.request('/admin/accounts', { method: 'POST', json: { scratch: true, displayName: 'hostile' } });
      accountId = ((await created.json()) as { data: { id: string } }).data.id;
    });
    afterAll(async () => {
      await t.close();
      await text.close();
      await up.close();
    });

    const post = (path: string, body: string) => t.request(path, { method: 'POST', body, headers: json });
    const balance = async () => ((await (await t.request('/billing/balance')).json()) as { balances: { usd: number } }).balances.usd;

    test('a 39 KB chat body nested 20,000 deep is a 400 naming maxDepth, in under 100 ms of CPU, memory flat', async () => {
      const body = `{"model":"qwen3-4b","messages":[{"role":"user","content":${deepJson(20_000, 'array')}}]}`;
      Bun.gc(true);
      const rss = process.memoryUsage().rss;
      const cpu = process.cpuUsage();
      for (let i = 0; i < 3; i++) {
        const res = await post('/chat/completions', body);
        expect(res.status).toBe(400);
        const answer = (await res.json()) as { error: string; details: { body: { _errors: string[] } } };
        expect(answer.error).toContain(`nested more than ${JSON_SHAPE_LIMITS.maxDepth} deep (limit maxDepth)`);
        expect(answer.details.body._errors[0]).toContain('maxDepth');
      }
      const used = process.cpuUsage(cpu);
      // Before the bound: 3.9 s and 2.5 GB each.
      expect((used.user + used.system) / 1000 / 3).toBeLessThan(100);
      expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
    });

    test('100,000 deep (objects or arrays, the body or one field) is a 400, not a stack overflow', async () => {
      for (const body of [
        deepJson(100_000, 'array'),
        deepJson(100_000, 'object'),
        `{"model":${deepJson(100_000, 'array')},"messages":[]}`,
        `{"model":"qwen3-4b","messages":${deepJson(100_000, 'object')}}`,
      ]) {
        const res = await post('/chat/completions', body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toContain('limit maxDepth');
      }
    });

    test('a 10,000-deep array in a string field is a 400 on chat, embeddings, images, keys and admin routes', async () => {
      const deep = deepJson(10_000, 'array');
      for (const [path, body] of [
        ['/chat/completions', `{"model":${deep},"messages":[{"role":"user","content":"hi"}]}`],
        ['/embeddings', `{"model":"text-embedding-bge-m3","input":${deep}}`],
        ['/image/generate', `{"model":"z-image-turbo","prompt":${deep}}`],
        ['/api_keys', `{"apiKeyType":"INFERENCE","description":${deep}}`],
        ['/admin/accounts', `{"displayName":${deep}}`],
      ] as const) {
        const res = await post(path, body);
        expect(`${path} ${res.status}`).toBe(`${path} 400`);
        expect(((await res.json()) as { error: string }).error).toContain('limit maxDepth');
      }
    });

    test('nesting within the bound still works: a tool schema 20 levels deep reaches validation and passes', async () => {
      let schema: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 20; i++) schema = { type: 'object', properties: { a: schema } };
      const res = await text.request('/chat/completions', {
        method: 'POST',
        json: {
          model: 'qwen3-4b',
          messages: [{ role: 'user', content: 'hi' }],
          tools: [{ type: 'function', function: { name: 'f', parameters: schema } }],
        },
      });
      expect(res.status).toBe(200);
    });

    test('an array of more than maxItems elements, and a body of more than maxValues values, are 400s naming the limit', async () => {
      const wide = `{"model":"text-embedding-bge-m3","input":[${'1,'.repeat(JSON_SHAPE_LIMITS.maxItems)}1]}`;
      const res = await post('/embeddings', wide);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain('limit maxItems');
      const rows = Math.ceil(JSON_SHAPE_LIMITS.maxValues / 50_000) + 1;
      const many = `{"model":"text-embedding-bge-m3","input":[${Array.from({ length: rows }, () => `[${'1,'.repeat(49_999)}1]`).join(',')}]}`;
      const res2 = await post('/embeddings', many);
      expect(res2.status).toBe(400);
      expect(((await res2.json()) as { error: string }).error).toContain('limit maxValues');
    });

    test('__proto__ and constructor members on strict bodies are 400s naming them, not 500s', async () => {
      const limits = `/admin/accounts/${accountId}/rate_limits`;
      for (const [method, path, body, field] of [
        ['PUT', limits, '{"tier":"standard","__proto__":{"a":1}}', '__proto__'],
        ['PUT', limits, '{"constructor":1}', 'constructor'],
        ['POST', '/image/generate', '{"model":"z-image-turbo","prompt":"a cat","__proto__":1}', '__proto__'],
        ['POST', '/image/generate', '{"model":"z-image-turbo","prompt":"a cat","constructor":{"prototype":{"x":1}}}', 'constructor'],
      ] as const) {
        const res = await t.request(path, { method, body, headers: json });
        expect(`${path} ${res.status}`).toBe(`${path} 400`);
        const answer = (await res.json()) as { error: string; details: Record<string, unknown> };
        expect(answer.error).toContain(field);
        expect(Object.hasOwn(answer.details, field)).toBe(true);
      }
    });

    test('50,000 unknown members on an image body are a short 400 naming the first 20', async () => {
      const members = Array.from({ length: 50_000 }, (_, i) => `"k${i}":1`).join(',');
      const res = await post('/image/generate', `{"model":"z-image-turbo","prompt":"a cat",${members}}`);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as { error: string; details: Record<string, unknown> };
      expect(answer.error).toEndWith('k19 and 49980 more');
      expect(Object.keys(answer.details)).toHaveLength(21); // _errors and 20 fields
    });

    test('a JSON body that is not an object is a 400 on upscale and background-remove (and every metered route)', async () => {
      for (const path of ['/image/upscale', '/image/background-remove', '/chat/completions', '/embeddings'])
        for (const body of ['[]', '[{}]', '1', '"text"', 'true', 'null']) {
          const res = await post(path, body);
          expect(`${path} ${body} ${res.status}`).toBe(`${path} ${body} 400`);
          expect(((await res.json()) as { error: string }).error).toBeString();
        }
    });

    test('a NUL in an image prompt or negative prompt is a 400 naming the field, nothing charged', async () => {
      const before = await balance();
      for (const [path, body, field] of [
        ['/image/generate', { model: 'z-image-turbo', prompt: 'a\u0000cat' }, 'prompt'],
        ['/image/generate', { model: 'z-image-turbo', prompt: 'a cat', negative_prompt: 'dog\u0000' }, 'negative_prompt'],
        ['/images/generations', { prompt: 'a\u0000cat' }, 'prompt'],
      ] as const) {
        const res = await post(path, JSON.stringify(body));
        expect(`${path} ${res.status}`).toBe(`${path} 400`);
        expect(((await res.json()) as { error: string }).error).toStartWith(`${field}: must not contain NUL`);
        expect(await ledgerOf(t, res)).toEqual([]);
      }
      expect(await balance()).toBe(before);
    });

    test('a PNG with a bad CRC is a 400 naming the image field, nothing charged', async () => {
      const bad = (await pngWithBadCrc()).toString('base64');
      const before = await balance();
      for (const [path, body] of [
        ['/image/upscale', { image: bad, scale: 2 }],
        ['/image/background-remove', { image: bad }],
        ['/image/edit', { image: bad, prompt: 'make it red' }],
      ] as const) {
        const res = await post(path, JSON.stringify(body));
        expect(`${path} ${res.status}`).toBe(`${path} 400`);
        const answer = (await res.json()) as { error: string; details: Record<string, unknown> };
        expect(answer.error).toContain('image');
        expect(answer.details.image).toBeDefined();
        expect(await ledgerOf(t, res)).toEqual([]);
      }
      expect(await balance()).toBe(before);
      // The same image with a good CRC passes.
      expect((await post('/image/upscale', JSON.stringify({ image: (await png(300, 300)).toString('base64'), scale: 2 }))).status).toBe(
        200,
      );
    });

    test('a NUL in the web3 key description is a 400 naming it, as on the other key routes', async () => {
      const web3 = await startTestApp({ backend, config: { wallets: { web3Keys: { allowList: [wallet.address] } } } });
      try {
        const token: string = (
          (await (await web3.request('/api_keys/generate_web3_key', { key: null })).json()) as { data: { token: string } }
        ).data.token;
        const res = await web3.request('/api_keys/generate_web3_key', {
          method: 'POST',
          key: null,
          json: {
            apiKeyType: 'INFERENCE',
            address: wallet.address,
            token,
            signature: await wallet.signMessage(token),
            description: 'my\u0000key',
          },
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toContain('description must not contain NUL');
      } finally {
        await web3.close();
      }
    });
  });
}
