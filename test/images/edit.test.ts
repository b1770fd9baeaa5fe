import { afterAll, beforeAll, beforeEach, describe as suite, expect, test } from 'bun:test';
import sharp from 'sharp';
import { parse } from 'yaml';
import { MAX_INPUT_BYTES } from '../../src/images/input';
import { defaultImageModels } from '../../src/models/default-image-models';
import type { TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import type { ImagesUpstream } from '../fixtures/images-upstream';
import { compressedPng, describe, form, ledgerOf, png, startImagesApp, SVG, truncatedPng } from './helpers';

/** An upstream edit model that honours quality. */
const FX_EDIT = {
  id: 'fx-edit',
  type: 'inpaint',
  routes: [{ provider: 'img', model: 'upstream-edit' }],
  pricing: { perUnit: '0.04' },
  promptCharacterLimit: 50,
  image: {
    operation: 'edit',
    resolutions: ['1K', '2K'],
    qualities: ['low', 'medium', 'high'],
    defaultQuality: 'high',
    pricing: { quality: { '1K': { low: '0.01', medium: '0.02', high: '0.03' }, '2K': { low: '0.04', medium: '0.05', high: '0.06' } } },
  },
};

for (const backend of BACKENDS) {
  suite(`image edit, multi-edit, upscale and background removal on ${backend.name}`, () => {
    let t: TestApp;
    let up: ImagesUpstream;
    let square: Buffer;
    let wide: Buffer;

    beforeAll(async () => {
      ({ t, up } = await startImagesApp(backend, [...defaultImageModels([{ provider: 'sim', weight: 1 }]), FX_EDIT]));
      square = await png(512, 512);
      wide = await png(1600, 900);
    });
    afterAll(async () => {
      await t.close();
      await up.close();
    });
    beforeEach(() => up.set({}));

    const post = (path: string, body: FormData | Record<string, unknown>, key?: string | null) =>
      body instanceof FormData ? t.request(path, { method: 'POST', body, key }) : t.request(path, { method: 'POST', json: body, key });
    const b64 = (b: Buffer) => b.toString('base64');

    test('the published request schemas of the upload routes do not require model, which has a default (as the reference)', async () => {
      const doc = parse(await (await t.request('/openapi.yaml')).text());
      for (const path of ['/image/edit', '/image/multi-edit', '/image/upscale', '/image/background-remove'])
        for (const [type, { schema }] of Object.entries(
          doc.paths[path].post.requestBody.content as Record<string, { schema: { required?: string[] } }>,
        ))
          expect(`${path} ${type}: ${schema.required?.includes('model') ?? false}`).toBe(`${path} ${type}: false`);
    });

    test('curl-like multipart edit: PNG at 1K by default, the simulator visibly changed the image; the ledger holds the edit', async () => {
      const res = await post('/image/edit', form({ prompt: 'make it orange', image: square }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="edit-.+\.png"$/);
      expect(res.headers.get('x-svc-model-id')).toBe('firered-image-edit');
      expect(res.headers.get('x-svc-simulated')).toBe('true');
      const out = Buffer.from(await res.arrayBuffer());
      expect(await describe(out)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
      const before = await sharp(square).resize(1, 1).raw().toBuffer();
      const after = await sharp(out).extract({ left: 0, top: 0, width: 8, height: 8 }).resize(1, 1).raw().toBuffer();
      expect(after.equals(before)).toBe(false);
      expect((await ledgerOf(t, res))[0]).toMatchObject({ sku: 'firered-image-edit-image-1k', amountMicros: -40_000 });
    });

    test('each output format and the defaults: jpg is jpeg, 2K defaults to JPEG; size follows resolution and aspect ratio', async () => {
      for (const [fields, format, width, height] of [
        [{ output_format: 'jpg' }, 'jpeg', 1024, 1024],
        [{ output_format: 'webp', aspect_ratio: '9:16' }, 'webp', 768, 1360],
        [{ resolution: '2K' }, 'jpeg', 2048, 2048],
        [{ resolution: '2K', output_format: 'png', aspect_ratio: '3:2' }, 'png', 2512, 1680],
      ] as const) {
        const res = await post('/image/edit', form({ prompt: 'x', image: square, ...fields }));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe(`image/${format}`);
        expect(await describe(await res.arrayBuffer())).toMatchObject({ format, width, height });
      }
    });

    test('auto aspect ratio: the closest supported ratio to the input (1600x900 is 16:9)', async () => {
      const res = await post('/image/edit', { prompt: 'x', image: b64(wide), aspect_ratio: 'auto' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-aspect-ratio')).toBe('16:9');
      expect(await describe(await res.arrayBuffer())).toMatchObject({ width: 1360, height: 768 });
    });

    test('JSON: a base64 string and a data URL; modelId is a deprecated alias with its headers', async () => {
      const plain = await post('/image/edit', { prompt: 'x', image: b64(square) });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('x-svc-deprecated')).toBeNull();
      const aliased = await post('/image/edit', {
        prompt: 'x',
        image: `data:image/png;base64,${b64(square)}`,
        modelId: 'gpt-image-2-edit',
      });
      expect(aliased.status).toBe(200);
      expect(aliased.headers.get('x-svc-model-id')).toBe('gpt-image-2-edit');
      expect(aliased.headers.get('x-svc-deprecated')).toBe('true');
      expect(aliased.headers.get('x-svc-deprecated-replacement')).toBe('model');
    });

    test('an OpenAI-compatible upstream gets /images/edits multipart with the file, size and quality; quality prices the edit', async () => {
      const res = await post('/image/edit', form({ prompt: 'x', image: square, model: 'fx-edit', quality: 'low', output_format: 'webp' }));
      expect(res.status).toBe(200);
      // The fixture answers PNG; svc re-encodes to what was asked.
      expect(await describe(await res.arrayBuffer())).toMatchObject({ format: 'webp', width: 1024, height: 1024 });
      const sent = up.requests.at(-1);
      expect(sent?.path).toBe('/v1/images/edits');
      expect(sent?.body).toMatchObject({ model: 'upstream-edit', prompt: 'x', size: '1024x1024', quality: 'low', output_format: 'webp' });
      expect(sent?.body.image).toMatchObject({ type: 'image/png', size: square.length });
      expect((await ledgerOf(t, res))[0]).toMatchObject({ sku: 'fx-edit-image-1k-low', amountMicros: -10_000 });
      const byDefault = await post('/image/edit', form({ prompt: 'x', image: square, model: 'fx-edit' }));
      expect((await ledgerOf(t, byDefault))[0]).toMatchObject({ sku: 'fx-edit-image-1k-high', amountMicros: -30_000 });
    });

    test('multi-edit: 1 and 3 files (multipart), 3 base64 strings (JSON); the upstream gets image[] files', async () => {
      const one = await post('/image/multi-edit', form({ prompt: 'x', images: [square] }));
      expect(one.status).toBe(200);
      const three = await post('/image/multi-edit', form({ prompt: 'x', images: [square, wide, square], output_format: 'jpeg' }));
      expect(three.status).toBe(200);
      expect(await describe(await three.arrayBuffer())).toMatchObject({ format: 'jpeg', width: 1024, height: 1024 });
      const json = await post('/image/multi-edit', { prompt: 'x', images: [b64(square), b64(square), b64(wide)], modelId: 'fx-edit' });
      expect(json.status).toBe(200);
      const files = up.requests.at(-1)?.body['image[]'];
      expect(Array.isArray(files) && files.length).toBe(3);
    });

    test('multi-edit bills the input images beyond those included (model_spec.pricing.inputImages)', async () => {
      const res = await post('/image/multi-edit', {
        prompt: 'x',
        images: [b64(square), b64(square), b64(wide)],
        model: 'gpt-image-2-edit',
      });
      expect(res.status).toBe(200);
      const rows = (await ledgerOf(t, res)).map((r) => ({ sku: r.sku, amount: r.amountMicros, units: Number(r.units) }));
      expect(rows.sort((a, b) => a.sku.localeCompare(b.sku))).toEqual([
        { sku: 'gpt-image-2-edit-additional-input-image', amount: -18_400, units: 2 },
        { sku: 'gpt-image-2-edit-image-1k-high', amount: -340_000, units: 1 },
      ]);
      const one = await post('/image/multi-edit', { prompt: 'x', images: [b64(square)], model: 'gpt-image-2-edit' });
      expect((await ledgerOf(t, one)).map((r) => r.sku)).toEqual(['gpt-image-2-edit-image-1k-high']);
      const models = await (await t.request('/models?type=inpaint', { key: null })).json();
      const edit = models.data.find((m: { id: string }) => m.id === 'gpt-image-2-edit');
      expect(edit.model_spec.pricing.inputImages).toEqual({ included: 1, additional: { usd: 0.0092, diem: 0.0092 } });
      expect(edit.model_spec.pricing.inpaint).toEqual({ usd: 0.34, diem: 0.34 });
    });

    test('multi-edit refuses 0 and 4 images, text where files belong in multipart, and a bad item naming its index', async () => {
      for (const body of [
        form({ prompt: 'x' }),
        { prompt: 'x', images: [] },
        form({ prompt: 'x', images: [square, square, square, square] }),
      ]) {
        const res = await post('/image/multi-edit', body);
        expect(res.status).toBe(400);
        expect((await res.json()).error).toContain('images');
      }
      const text = await post('/image/multi-edit', form({ prompt: 'x', images: b64(square) }));
      expect(text.status).toBe(400);
      expect((await text.json()).details.images._errors[0]).toContain('file');
      const badItem = await post('/image/multi-edit', { prompt: 'x', images: [b64(square), 'not base64!'] });
      expect(badItem.status).toBe(400);
      expect((await badItem.json()).details.images['1']._errors.length).toBe(1);
    });

    test('pixel bounds at the edge: 256x256 (65,536) and 7680x4320 (33,177,600) pass; 255x256 and 7681x4320 are refused', async () => {
      expect((await post('/image/edit', form({ prompt: 'x', image: await png(256, 256) }))).status).toBe(200);
      const small = await post('/image/edit', form({ prompt: 'x', image: await png(255, 256) }));
      expect(small.status).toBe(400);
      expect((await small.json()).details.image._errors[0]).toContain('65536');
      expect((await post('/image/edit', form({ prompt: 'x', image: await png(7680, 4320) }))).status).toBe(200);
      const big = await post('/image/edit', form({ prompt: 'x', image: await png(7681, 4320) }));
      expect(big.status).toBe(400);
      expect((await big.json()).details.image._errors[0]).toContain('33177600');
    }, 30_000);

    test('a 5000x5000 PNG of under 100 KB is read from its header and accepted; a 10000x10000 bomb is refused from its header', async () => {
      const large = await compressedPng(5000, 5000);
      expect(large.length).toBeLessThan(100_000);
      const ok = await post('/image/upscale', form({ image: large, model: 'upscaler' }));
      // Within the input bounds, but 4x its pixels exceed the upscaler's output: refused by size, not by decoding.
      expect(ok.status).toBe(400);
      expect((await ok.json()).details.image._errors[0]).toContain('upscale');
      expect((await post('/image/background-remove', form({ image: large }))).status).toBe(200);
      const bomb = await compressedPng(10_000, 10_000);
      expect(bomb.length).toBeLessThan(200_000);
      const refused = await post('/image/edit', form({ prompt: 'x', image: bomb }));
      expect(refused.status).toBe(400);
      expect((await refused.json()).details.image._errors[0]).toContain('100000000 pixels');
    }, 30_000);

    test('size at the edge: a file of 25 MB less one byte passes, 25 MB is refused', async () => {
      const pad = (n: number) => Buffer.concat([square, Buffer.alloc(n - square.length)]);
      expect((await post('/image/edit', form({ prompt: 'x', image: pad(MAX_INPUT_BYTES - 1) }))).status).toBe(200);
      const res = await post('/image/edit', form({ prompt: 'x', image: pad(MAX_INPUT_BYTES) }));
      expect(res.status).toBe(400);
      expect((await res.json()).details.image._errors[0]).toContain('under');
    }, 30_000);

    test('every allowed input format is read: jpeg, png, webp, gif, avif', async () => {
      for (const format of ['jpeg', 'png', 'webp', 'gif', 'avif'] as const) {
        const bytes = await sharp(square).toFormat(format).toBuffer();
        const res = await post('/image/edit', form({ prompt: 'x', image: bytes }));
        expect(`${format} ${res.status}`).toBe(`${format} 200`);
      }
    });

    test('SVG, TIFF, a truncated file and garbage are refused naming the field; nothing goes upstream', async () => {
      const n = up.requests.length;
      const tiff = await sharp(square).tiff().toBuffer();
      for (const [bytes, words] of [
        [SVG, 'SVG'],
        [tiff, 'tiff'],
        [await truncatedPng(), 'truncated'],
        [Buffer.from('definitely not an image'), 'not a readable image'],
      ] as const) {
        const res = await post('/image/edit', form({ prompt: 'x', image: bytes as Buffer, model: 'fx-edit' }));
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body.error).toContain('image');
        expect(body.details.image._errors[0]).toContain(words);
      }
      expect(up.requests.length).toBe(n);
    });

    test('a URL to 127.0.0.1 is refused by the SSRF guard; so is a non-http scheme', async () => {
      for (const url of [`${up.url}/anything.png`, 'http://[::1]/a.png', 'http://169.254.169.254/latest']) {
        const res = await post('/image/edit', { prompt: 'x', image: url });
        expect(res.status).toBe(400);
        expect((await res.json()).details.image._errors[0]).toContain('not allowed');
      }
      const bg = await post('/image/background-remove', { image_url: 'http://127.0.0.1:1/a.png' });
      expect(bg.status).toBe(400);
      expect((await bg.json()).details.image_url._errors[0]).toContain('not fetched');
    });

    const bad: [string, Record<string, unknown>, string][] = [
      ['a missing prompt', { image: 'x' }, 'prompt'],
      ['an empty prompt', { image: 'x', prompt: '' }, 'prompt'],
      ['a prompt over 32768', { image: 'x', prompt: 'x'.repeat(32769) }, 'prompt'],
      ['a prompt over the model limit', { image: 'x', prompt: 'x'.repeat(51), model: 'fx-edit' }, 'prompt'],
      ['a missing image', { prompt: 'x' }, 'image'],
      ['an empty resolution', { image: 'x', prompt: 'x', resolution: '' }, 'resolution'],
      ['a resolution of 11 characters', { image: 'x', prompt: 'x', resolution: '12345678901' }, 'resolution'],
      ['an unknown aspect ratio', { image: 'x', prompt: 'x', aspect_ratio: '4:3' }, 'aspect_ratio'],
      ['an unknown output format', { image: 'x', prompt: 'x', output_format: 'gif' }, 'output_format'],
      ['an unknown quality', { image: 'x', prompt: 'x', quality: 'ultra' }, 'quality'],
      ['an unknown field', { image: 'x', prompt: 'x', mask: 'y' }, 'mask'],
      ['a generation model', { image: 'x', prompt: 'x', model: 'z-image-turbo' }, 'model'],
    ];
    for (const [what, body, field] of bad)
      test(`edit: 400 naming ${field}: ${what}`, async () => {
        const res = await post('/image/edit', body);
        expect(res.status).toBe(400);
        const err = await res.json();
        expect(err.error).toContain(field);
        expect(err.details[field]._errors.length).toBeGreaterThan(0);
      });

    test('a prompt of 32768 characters and a resolution the model has (4K) pass', async () => {
      expect((await post('/image/edit', { image: b64(square), prompt: 'x'.repeat(32768) })).status).toBe(200);
      const res = await post('/image/edit', { image: b64(square), prompt: 'x', model: 'gpt-image-2-edit', resolution: '4K' });
      expect(res.status).toBe(200);
      expect(await describe(await res.arrayBuffer())).toMatchObject({ format: 'jpeg', width: 4096, height: 4096 });
      const lacking = await post('/image/edit', { image: b64(square), prompt: 'x', resolution: '4K' });
      expect(lacking.status).toBe(400);
      expect((await lacking.json()).details.resolution._errors[0]).toContain('1K, 2K');
    }, 20_000);

    test('an empty body is 415 on every upload route; another content type too', async () => {
      for (const path of ['/image/edit', '/image/multi-edit', '/image/upscale', '/image/background-remove'])
        expect((await t.request(path, { method: 'POST' })).status).toBe(415);
      const text = await t.request('/image/edit', { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
      expect(text.status).toBe(415);
    });

    test('upscale: 2x and 4x as PNG of the scaled size, priced per scale; scale 3 refused', async () => {
      const two = await post('/image/upscale', form({ image: square, scale: '2' }));
      expect(two.status).toBe(200);
      expect(two.headers.get('content-type')).toBe('image/png');
      expect(await describe(await two.arrayBuffer())).toMatchObject({ format: 'png', width: 1024, height: 1024 });
      expect((await ledgerOf(t, two))[0]).toMatchObject({ sku: 'upscaler-upscale-2x', amountMicros: -20_000 });
      const four = await post('/image/upscale', { image: b64(square), scale: 4 });
      expect(await describe(await four.arrayBuffer())).toMatchObject({ width: 2048, height: 2048 });
      expect((await ledgerOf(t, four))[0]).toMatchObject({ sku: 'upscaler-upscale-4x', amountMicros: -80_000 });
      const three = await post('/image/upscale', { image: b64(square), scale: 3 });
      expect(three.status).toBe(400);
      expect((await three.json()).details.scale._errors.length).toBe(1);
    });

    test('background removal: a PNG with transparency, the corner background gone; exactly one of image and image_url', async () => {
      const res = await post('/image/background-remove', form({ image: square }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const out = Buffer.from(await res.arrayBuffer());
      expect(await describe(out)).toMatchObject({ format: 'png', width: 512, height: 512, hasAlpha: true });
      const { data } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
      expect(data[3]).toBe(0);
      expect((await ledgerOf(t, res))[0]).toMatchObject({ sku: 'bria-bg-remover-background-remove', amountMicros: -20_000 });
      const neither = await post('/image/background-remove', {});
      expect(neither.status).toBe(400);
      expect((await neither.json()).details.image._errors.length).toBe(1);
    });

    test('401 without a key; upstream 5xx and timeout on an edit charge nothing', async () => {
      expect((await post('/image/edit', form({ prompt: 'x', image: square }), null)).status).toBe(401);
      up.set({ status: 503 });
      const busy = await post('/image/edit', form({ prompt: 'x', image: square, model: 'fx-edit' }));
      expect(busy.status).toBe(503);
      expect(await ledgerOf(t, busy)).toHaveLength(0);
      up.set({ hang: true });
      const hung = await post('/image/edit', form({ prompt: 'x', image: square, model: 'fx-edit' }));
      expect(hung.status).toBe(504);
      expect(await ledgerOf(t, hung)).toHaveLength(0);
    });
  });
}
