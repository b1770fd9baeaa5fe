import { afterAll, beforeAll, beforeEach, describe as suite, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import type { TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import type { ImagesUpstream } from '../fixtures/images-upstream';
import { describe, ledgerOf, startImagesApp } from './helpers';

const QUALITY = { low: '0.01', medium: '0.02', high: '0.03' };
/** An upstream image model with resolution and quality prices and a 100-character prompt limit. */
const GEN = {
  id: 'fx-gen',
  type: 'image',
  routes: [{ provider: 'img', model: 'upstream-gen' }],
  pricing: { perUnit: '0.05' },
  promptCharacterLimit: 100,
  traits: ['default'],
  image: {
    operation: 'generate',
    resolutions: ['1K', '2K'],
    aspectRatios: ['1:1', '16:9', '9:16'],
    qualities: ['low', 'medium', 'high'],
    defaultQuality: 'medium',
    pricing: {
      resolutions: { '1K': '0.05', '2K': '0.1' },
      quality: { '1K': QUALITY, '2K': { low: '0.04', medium: '0.05', high: '0.06' } },
    },
  },
};
/** A flat-priced model that does not honour quality. */
const FLAT = {
  id: 'fx-flat',
  type: 'image',
  routes: [{ provider: 'img' }],
  pricing: { perUnit: '0.01' },
  image: { operation: 'generate' },
};
/** The same kind of model on the simulator. */
const SIM = {
  id: 'sim-gen',
  type: 'image',
  routes: [{ provider: 'sim' }],
  pricing: { perUnit: '0.01' },
  image: { operation: 'generate', resolutions: ['1K', '2K'] },
};
const CHAT = { id: 'chat', type: 'text', routes: [{ provider: 'sim' }], pricing: { input: '1', output: '1' } };

for (const backend of BACKENDS) {
  suite(`image generation on ${backend.name}`, () => {
    let t: TestApp;
    let up: ImagesUpstream;
    let client: OpenAI;

    beforeAll(async () => {
      ({ t, up } = await startImagesApp(backend, [GEN, FLAT, SIM, CHAT]));
      t.app.listen({ port: 0, hostname: '127.0.0.1' });
      client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
    });
    afterAll(async () => {
      await t.app.stop(true);
      await t.close();
      await up.close();
    });
    beforeEach(() => up.set({}));

    const generate = (json: unknown, key?: string | null) => t.request('/image/generate', { method: 'POST', json, key });
    const usd = async () => (await (await t.request('/billing/balance')).json()).balances.usd as number;

    test('the official SDK: images.generate with an OpenAI model name uses the default image model; b64_json is a PNG; charged once', async () => {
      const raw = await client.images.generate({ model: 'dall-e-3', prompt: 'a lighthouse', size: '1024x1536' }).withResponse();
      const image = raw.data.data?.[0];
      expect(typeof raw.data.created).toBe('number');
      expect(await describe(Buffer.from(image?.b64_json as string, 'base64'))).toMatchObject({ format: 'png', width: 1024, height: 1536 });
      expect(raw.response.headers.get('x-svc-model-id')).toBe('fx-gen');
      const sent = up.requests.at(-1);
      expect(sent?.path).toBe('/v1/images/generations');
      expect(sent?.body).toMatchObject({ model: 'upstream-gen', prompt: 'a lighthouse', size: '1024x1536', n: 1, quality: 'medium' });
      const rows = await ledgerOf(t, raw.response);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sku: 'fx-gen-image-1k-medium', amountMicros: -20_000, currency: 'USD' });
    });

    test('images/generations: a data URL with response_format=url, webp output, quality honoured', async () => {
      const res = await t.request('/images/generations', {
        method: 'POST',
        json: { prompt: 'x', model: 'fx-gen', response_format: 'url', output_format: 'webp', quality: 'high' },
      });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.data[0].url).toStartWith('data:image/webp;base64,');
      expect((await describe(Buffer.from(body.data[0].url.split(',')[1], 'base64'))).format).toBe('webp');
      expect((await ledgerOf(t, res))[0]).toMatchObject({ sku: 'fx-gen-image-1k-high', amountMicros: -30_000 });
    });

    test('generate: variants multiply the charge at the resolution x quality price; the JSON shape of the reference', async () => {
      const before = await usd();
      const res = await generate({
        model: 'fx-gen',
        prompt: 'two cats',
        variants: 3,
        resolution: '2K',
        quality: 'low',
        aspect_ratio: '16:9',
      });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(Object.keys(body).sort()).toEqual(['id', 'images', 'request', 'timing']);
      expect(body.images).toHaveLength(3);
      // The fixture answers PNG whatever it is asked; svc re-encodes to the requested (default webp) format.
      expect(await describe(Buffer.from(body.images[0], 'base64'))).toMatchObject({ format: 'webp', width: 2736, height: 1536 });
      expect(Object.keys(body.timing).sort()).toEqual(['inferenceDuration', 'inferencePreprocessingTime', 'inferenceQueueTime', 'total']);
      const rows = await ledgerOf(t, res);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sku: 'fx-gen-image-2k-low', amountMicros: -120_000 });
      expect(Number(rows[0]?.units)).toBe(3);
      expect(await usd()).toBeCloseTo(before - 0.12, 6);
    });

    test('without quality the default tier is billed; a model without tiers ignores quality and bills its flat price', async () => {
      expect((await ledgerOf(t, await generate({ model: 'fx-gen', prompt: 'a' })))[0]).toMatchObject({
        sku: 'fx-gen-image-1k-medium',
        amountMicros: -20_000,
      });
      const flat = await generate({ model: 'fx-flat', prompt: 'a', quality: 'high' });
      expect(flat.status).toBe(200);
      expect(up.requests.at(-1)?.body.quality).toBeUndefined();
      expect((await ledgerOf(t, flat))[0]).toMatchObject({ sku: 'fx-flat-image-1k', amountMicros: -10_000 });
    });

    test('each output format with return_binary: Content-Type, Content-Disposition and the bytes agree; jpg is jpeg', async () => {
      for (const [asked, format, type, ext] of [
        ['jpeg', 'jpeg', 'image/jpeg', 'jpg'],
        ['jpg', 'jpeg', 'image/jpeg', 'jpg'],
        ['png', 'png', 'image/png', 'png'],
        ['webp', 'webp', 'image/webp', 'webp'],
      ] as const) {
        const res = await generate({ model: 'fx-gen', prompt: 'a', format: asked, return_binary: true, width: 512, height: 768 });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe(type);
        expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^inline; filename="generate-.+\\.${ext}"$`));
        expect(await describe(await res.arrayBuffer())).toMatchObject({ format, width: 512, height: 768 });
      }
    });

    test('an upstream that answers another size is resized to the size asked', async () => {
      up.set({ forceSize: { width: 300, height: 200 } });
      const res = await generate({ model: 'fx-flat', prompt: 'a', width: 512, height: 768, format: 'png', return_binary: true });
      expect(res.status).toBe(200);
      expect(await describe(await res.arrayBuffer())).toMatchObject({ format: 'png', width: 512, height: 768 });
    });

    test('the simulator: a real image of the requested size, labelled simulated in the header and in /models', async () => {
      const res = await generate({
        model: 'sim-gen',
        prompt: 'a red fox',
        resolution: '2K',
        aspect_ratio: '9:16',
        format: 'png',
        return_binary: true,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-simulated')).toBe('true');
      expect(await describe(await res.arrayBuffer())).toMatchObject({ format: 'png', width: 1536, height: 2736 });
      const models = await (await t.request('/models?type=image', { key: null })).json();
      const sim = models.data.find((m: { id: string }) => m.id === 'sim-gen');
      expect(sim.model_spec.simulator).toBe(true);
      expect(sim.model_spec.description).toContain('simulator');
    });

    test('/models?type=image: resolutions, aspect ratios, quality tiers, promptCharacterLimit and per resolution x quality prices', async () => {
      const models = await (await t.request('/models?type=image', { key: null })).json();
      const gen = models.data.find((m: { id: string }) => m.id === 'fx-gen');
      expect(gen.type).toBe('image');
      expect(gen.model_spec.constraints).toMatchObject({
        promptCharacterLimit: 100,
        resolutions: ['1K', '2K'],
        defaultResolution: '1K',
        aspectRatios: ['1:1', '16:9', '9:16'],
        qualities: ['low', 'medium', 'high'],
        defaultQuality: 'medium',
        widthHeightDivisor: 16,
      });
      expect(gen.model_spec.pricing).toEqual({
        generation: { usd: 0.05, diem: 0.05 },
        resolutions: { '1K': { usd: 0.05, diem: 0.05 }, '2K': { usd: 0.1, diem: 0.1 } },
        quality: {
          '1K': { low: { usd: 0.01, diem: 0.01 }, medium: { usd: 0.02, diem: 0.02 }, high: { usd: 0.03, diem: 0.03 } },
          '2K': { low: { usd: 0.04, diem: 0.04 }, medium: { usd: 0.05, diem: 0.05 }, high: { usd: 0.06, diem: 0.06 } },
        },
      });
      const flat = models.data.find((m: { id: string }) => m.id === 'fx-flat');
      expect(flat.model_spec.constraints.qualities).toBeUndefined();
    });

    test('safe mode: adult content is blurred (x-svc-is-blurred) and still charged; safe_mode=false returns it as is', async () => {
      up.set({ nsfw: true });
      const blurred = await generate({ model: 'fx-flat', prompt: 'a', return_binary: true, format: 'png' });
      expect(blurred.status).toBe(200);
      expect(blurred.headers.get('x-svc-is-blurred')).toBe('true');
      expect(blurred.headers.get('x-svc-is-content-violation')).toBe('false');
      expect(await ledgerOf(t, blurred)).toHaveLength(1);
      const plain = await generate({ model: 'fx-flat', prompt: 'a', return_binary: true, format: 'png', safe_mode: false });
      expect(plain.headers.get('x-svc-is-blurred')).toBe('false');
      const off = await t.request('/images/generations', { method: 'POST', json: { prompt: 'a', model: 'fx-flat', moderation: 'low' } });
      expect(off.headers.get('x-svc-is-blurred')).toBe('false');
    });

    test('a content violation is a 422 with x-svc-is-content-violation; nothing charged', async () => {
      up.set({ violation: true });
      const before = await usd();
      const res = await generate({ model: 'fx-flat', prompt: 'a' });
      expect(res.status).toBe(422);
      expect(res.headers.get('x-svc-is-content-violation')).toBe('true');
      expect(await ledgerOf(t, res)).toHaveLength(0);
      expect(await usd()).toBe(before);
    });

    const bad: [string, Record<string, unknown>, string][] = [
      ['an empty prompt', { model: 'fx-gen', prompt: '' }, 'prompt'],
      ['a prompt over the model limit (101)', { model: 'fx-gen', prompt: 'x'.repeat(101) }, 'prompt'],
      ['a prompt over 32768', { model: 'fx-flat', prompt: 'x'.repeat(32769) }, 'prompt'],
      ['a missing model', { prompt: 'a' }, 'model'],
      ['a text model', { model: 'chat', prompt: 'a' }, 'model'],
      ['a resolution of 11 characters', { model: 'fx-gen', prompt: 'a', resolution: '12345678901' }, 'resolution'],
      ['an empty resolution', { model: 'fx-gen', prompt: 'a', resolution: '' }, 'resolution'],
      ['a resolution the model lacks', { model: 'fx-gen', prompt: 'a', resolution: '4K' }, 'resolution'],
      ['an unknown aspect ratio', { model: 'fx-gen', prompt: 'a', aspect_ratio: '5:4' }, 'aspect_ratio'],
      ['an aspect ratio the model lacks', { model: 'fx-gen', prompt: 'a', aspect_ratio: '21:9' }, 'aspect_ratio'],
      ['an unknown quality', { model: 'fx-gen', prompt: 'a', quality: 'ultra' }, 'quality'],
      ['an unknown format', { model: 'fx-gen', prompt: 'a', format: 'gif' }, 'format'],
      ['variants 0', { model: 'fx-gen', prompt: 'a', variants: 0 }, 'variants'],
      ['variants 5', { model: 'fx-gen', prompt: 'a', variants: 5 }, 'variants'],
      ['variants 2 with return_binary', { model: 'fx-gen', prompt: 'a', variants: 2, return_binary: true }, 'variants'],
      ['width 1281', { model: 'fx-gen', prompt: 'a', width: 1281 }, 'width'],
      ['height 0', { model: 'fx-gen', prompt: 'a', height: 0 }, 'height'],
      ['steps over the max', { model: 'fx-gen', prompt: 'a', steps: 31 }, 'steps'],
      ['an unknown style', { model: 'fx-gen', prompt: 'a', style_preset: 'Nope' }, 'style_preset'],
      ['an unknown field', { model: 'fx-gen', prompt: 'a', colour: 'red' }, 'colour'],
    ];
    for (const [what, body, field] of bad)
      test(`400 naming ${field}: ${what}`, async () => {
        const n = up.requests.length;
        const res = await generate(body);
        expect(res.status).toBe(400);
        const err = await res.json();
        expect(err.error).toContain(field);
        expect(err.details?.[field]?._errors?.length ?? 0).toBeGreaterThan(0);
        expect(up.requests.length).toBe(n);
      });

    for (const [what, model] of [
      ['a number', 12345],
      ['an empty string', ''],
    ] as const)
      test(`images/generations: a model that is ${what} is a 400 naming model, not the default model`, async () => {
        const res = await t.request('/images/generations', { method: 'POST', json: { prompt: 'a', model } });
        expect(res.status).toBe(400);
        expect((await res.json()).error).toContain('model');
      });

    test('bounds at their edge are accepted: a 100-character prompt, width and height 1280, 4 variants, a style', async () => {
      const res = await generate({
        model: 'fx-gen',
        prompt: 'x'.repeat(100),
        width: 1280,
        height: 1280,
        variants: 4,
        style_preset: 'Anime',
      });
      expect(res.status).toBe(200);
      expect((await res.json()).images).toHaveLength(4);
      expect(String(up.requests.at(-1)?.body.prompt)).toContain('anime');
    });

    test('an empty body is 415; malformed JSON a 400', async () => {
      expect((await t.request('/image/generate', { method: 'POST' })).status).toBe(415);
      const res = await t.request('/image/generate', {
        method: 'POST',
        body: '{"model":',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
    });

    test('GET /image/styles lists the styles without a key', async () => {
      const res = await t.request('/image/styles', { key: null });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.object).toBe('list');
      expect(body.data).toContain('Anime');
      expect((await t.request('/image/styles', { key: 'svc_bad' })).status).toBe(401);
    });

    test('401 without a key or with a bad one; 402 for an empty account; 429 over the Image requests-per-minute limit', async () => {
      expect((await generate({ model: 'fx-flat', prompt: 'a' }, null)).status).toBe(401);
      expect((await generate({ model: 'fx-flat', prompt: 'a' }, 'svc_bad')).status).toBe(401);
      const db = t.deps.storage.db;
      const n = up.requests.length;
      const broke = await createAccount(db, { creditUsd: '0' });
      const brokeKey = (await createApiKey(db, { accountId: broke, type: 'INFERENCE' })).secret;
      expect((await generate({ model: 'fx-flat', prompt: 'a' }, brokeKey)).status).toBe(402);
      expect(up.requests.length).toBe(n);
      const limited = await createAccount(db, { creditUsd: '10' });
      const limitedKey = (await createApiKey(db, { accountId: limited, type: 'INFERENCE' })).secret;
      const put = await t.request(`/admin/accounts/${limited}/rate_limits`, { method: 'PUT', json: { overrides: { image: 1 } } });
      expect(put.status).toBe(200);
      expect((await generate({ model: 'fx-flat', prompt: 'a' }, limitedKey)).status).toBe(200);
      const refused = await generate({ model: 'fx-flat', prompt: 'a' }, limitedKey);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('1');
    });

    test('an upstream answer without images, or with bytes that are not an image: 502, nothing charged', async () => {
      const before = await usd();
      for (const garbage of ['empty', 'bytes'] as const) {
        up.set({ garbage });
        const res = await generate({ model: 'fx-flat', prompt: 'a' });
        expect(res.status).toBe(502);
        expect((await res.json()).error).toContain(garbage === 'empty' ? 'without images' : 'could not be read');
        expect(await ledgerOf(t, res)).toHaveLength(0);
      }
      expect(await usd()).toBe(before);
    });

    test('upstream 5xx: 502, nothing charged; a hanging upstream: 504, nothing charged', async () => {
      const before = await usd();
      up.set({ status: 500 });
      const failed = await generate({ model: 'fx-flat', prompt: 'a' });
      expect(failed.status).toBe(502);
      expect(await ledgerOf(t, failed)).toHaveLength(0);
      up.set({ hang: true });
      const hung = await client.images.generate({ model: 'fx-flat', prompt: 'a' }).catch((e: { status: number }) => e);
      expect((hung as { status: number }).status).toBe(504);
      expect(await usd()).toBe(before);
    });
  });
}
