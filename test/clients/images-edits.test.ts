import { afterAll, beforeAll, beforeEach, describe as suite, expect, test } from 'bun:test';
import OpenAI, { toFile } from 'openai';
import { defaultImageModels } from '../../src/models/default-image-models';
import type { TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import type { ImagesUpstream } from '../fixtures/images-upstream';
import { describe, form, ledgerOf, png, startImagesApp, SVG } from '../images/helpers';
import { listening, resetUpstreams, usdMicros } from './helpers';

/** An upstream edit model (the fixture answers it), priced per quality. */
const FX_EDIT = {
  id: 'fx-edit',
  type: 'inpaint',
  routes: [{ provider: 'img', model: 'upstream-edit' }],
  pricing: { perUnit: '0.04' },
  image: {
    operation: 'edit',
    resolutions: ['1K'],
    qualities: ['low', 'medium', 'high'],
    defaultQuality: 'high',
    pricing: { quality: { '1K': { low: '0.01', medium: '0.02', high: '0.03' } } },
  },
};

for (const backend of BACKENDS) {
  suite(`POST /images/edits (openai images.edit) on ${backend.name}`, () => {
    let t: TestApp;
    let up: ImagesUpstream;
    let client: OpenAI;
    let server: ReturnType<typeof listening>;
    let square: Buffer;

    beforeAll(async () => {
      ({ t, up } = await startImagesApp(backend, [...defaultImageModels([{ provider: 'sim', weight: 1 }]), FX_EDIT]));
      server = listening(t, up);
      client = new OpenAI({ baseURL: server.baseURL, apiKey: t.adminKey, maxRetries: 0 });
      square = await png(512, 512);
    });
    afterAll(() => server.close());
    beforeEach(() => resetUpstreams(up));

    const usd = () => usdMicros(t);
    const file = (bytes: Buffer, name = 'photo.png') => toFile(bytes, name, { type: 'image/png' });
    const refused = async (body: FormData | Record<string, unknown>, status: number, field: string) => {
      const before = await usd();
      const res =
        body instanceof FormData
          ? await t.request('/images/edits', { method: 'POST', body })
          : await t.request('/images/edits', { method: 'POST', json: body });
      const answer = await res.json();
      expect(`${res.status} ${answer.error}`).toStartWith(`${status} `);
      expect(answer.error).toContain(field);
      expect(await ledgerOf(t, res)).toEqual([]);
      expect(await usd()).toBe(before);
      return answer;
    };

    test('the SDK with an OpenAI model name: the default edit model edits the PNG, answered as b64_json and charged as /image/edit', async () => {
      const before = await usd();
      const raw = await client.images.edit({ model: 'gpt-image-1', image: await file(square), prompt: 'add a hat' }).withResponse();
      expect(raw.response.headers.get('x-svc-model-id')).toBe('firered-image-edit');
      expect(raw.data.data).toHaveLength(1);
      const out = Buffer.from(raw.data.data?.[0]?.b64_json as string, 'base64');
      expect(await describe(out)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
      const rows = await ledgerOf(t, raw.response as unknown as Response);
      expect(rows[0]).toMatchObject({ sku: 'firered-image-edit-image-1k', amountMicros: -40_000 });
      expect(await usd()).toBe(before - 40_000);
    });

    test('an upstream model gets the same /images/edits multipart as /image/edit: files, prompt, size from `size`, quality', async () => {
      const raw = await client.images
        .edit({
          model: 'fx-edit',
          image: [await file(square, 'a.png'), await file(square, 'b.png')],
          prompt: 'merge',
          size: '1536x1024',
          quality: 'low',
          output_format: 'webp',
          response_format: 'url',
        })
        .withResponse();
      expect(raw.response.headers.get('x-svc-aspect-ratio')).toBe('3:2');
      const url = raw.data.data?.[0]?.url as string;
      expect(url).toStartWith('data:image/webp;base64,');
      expect(await describe(Buffer.from(url.split(',')[1] as string, 'base64'))).toMatchObject({ format: 'webp' });
      const sent = up.requests.at(-1);
      expect(sent?.path).toBe('/v1/images/edits');
      expect(sent?.body).toMatchObject({ prompt: 'merge', quality: 'low', model: 'upstream-edit', output_format: 'webp' });
      expect(sent?.body['image[]']).toHaveLength(2);
      expect((await ledgerOf(t, raw.response as unknown as Response))[0]).toMatchObject({ sku: 'fx-edit-image-1k-low' });
    });

    test('JSON with a base64 image works too', async () => {
      const res = await t.request('/images/edits', { method: 'POST', json: { prompt: 'x', image: square.toString('base64') } });
      expect(res.status).toBe(200);
      expect((await res.json()).data[0].b64_json.length).toBeGreaterThan(100);
    });

    test('bad inputs are 400s naming the field, nothing charged', async () => {
      await refused(form({ prompt: 'x' }), 400, 'image');
      await refused(form({ prompt: 'x', image: [square, square, square, square] }), 400, 'image');
      await refused(form({ prompt: 'x', image: SVG }), 400, 'image');
      await refused(form({ prompt: 'x', image: square, mask: square }), 400, 'mask');
      await refused(form({ prompt: 'x', image: square, stream: 'true' }), 400, 'stream');
      await refused(form({ prompt: 'x', image: square, n: '2' }), 400, 'n');
      await refused(form({ prompt: 'x', image: square, size: 'huge' }), 400, 'size');
      await refused({ image: square.toString('base64') }, 400, 'prompt');
      await refused({ image: square.toString('base64'), prompt: 'x', model: 'z-image-turbo-nope', n: 0 }, 400, 'n');
      const error = await client.images.edit({ model: 'fx-edit', image: await file(SVG, 'x.svg'), prompt: 'x' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as Error).message).toContain('image: SVG images are not accepted');
    });

    test('a body that is neither JSON nor multipart is a 415; no key is a 401', async () => {
      const text = await t.request('/images/edits', { method: 'POST', body: 'prompt=x', headers: { 'content-type': 'text/plain' } });
      expect(text.status).toBe(415);
      expect((await text.json()).error).toContain('text/plain');
      expect((await t.request('/images/edits', { method: 'POST', body: form({ prompt: 'x', image: square }), key: null })).status).toBe(
        401,
      );
    });

    test('an upstream 5xx is a 503/502 and charges nothing', async () => {
      const before = await usd();
      up.set({ status: 500 });
      const failed = await t.request('/images/edits', { method: 'POST', body: form({ prompt: 'x', image: square, model: 'fx-edit' }) });
      expect(failed.status).toBe(502);
      expect(await ledgerOf(t, failed)).toEqual([]);
      expect(await usd()).toBe(before);
    });
  });
}
