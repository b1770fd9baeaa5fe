import { Type as T } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { imageBodyParser, jsonImageBody, rejectUnknownFields } from '../images/body';
import { adultClassifier, imagesConfigOf } from '../images/classifier';
import { editImage, multiEditImage, removeBackground, upscaleImage, type ImageServices } from '../images/edit';
import { generateImage, simpleGenerateImage } from '../images/generate';
import { fillModel, openAIModelOrDefault } from '../images/model-defaults';
import { openAIEditImage } from '../images/openai-edit';
import {
  BackgroundRemoveSchema,
  EditImageSchema,
  GenerateImageResponseSchema,
  GenerateImageSchema,
  MultiEditImageSchema,
  OpenAIEditImageSchema,
  SimpleGenerateImageSchema,
  UpscaleImageSchema,
} from '../images/schema';
import { IMAGE_STYLES } from '../images/styles';
import type { ModelCall } from '../pipeline/model-call';
import { errorResponses } from './responses';
import { EXAMPLE_PNG_BASE64 } from '../images/example-image';
import { withExample } from '../http/openapi-example';

/** Time allowed to fetch an image URL (connect, redirects and body). */
const IMAGE_URL_TIMEOUT_MS = 15_000;

const ERRORS = errorResponses(400, 401, 402, 404, 415, 429, 502, 503, 504);
const IMAGE_BINARY = {
  description: 'The image; `Content-Type` and `Content-Disposition` set; `x-svc-is-blurred`, `x-svc-is-content-violation`',
  content: {
    'image/png': { schema: { type: 'string', format: 'binary' } },
    'image/jpeg': { schema: { type: 'string', format: 'binary' } },
    'image/webp': { schema: { type: 'string', format: 'binary' } },
  },
};
const CONTENT_VIOLATION = {
  description: 'Content policy violation (nothing charged)',
  content: { 'application/json': { schema: { type: 'object' } } },
};
const security: Record<string, string[]>[] = [{ BearerAuth: [] }, { siwx: [] }];

/**
 * Multipart field types shared by the upload routes. Each route's own parser reads every body;
 * the named content types after it only tell the OpenAPI generator which bodies are accepted.
 */
const FORM = { booleans: ['safe_mode', 'disable_prompt_optimization_thinking'], numbers: ['scale', 'creativity'] };

/** Multipart fields of /images/edits as the `openai` SDK sends them: `image` is always a list. */
const OPENAI_EDIT_FORM = { booleans: ['stream'], numbers: ['n', 'output_compression'], lists: ['image'] };

/** The seven operations of the reference's Image tag, and OpenAI's images.edit path. */
export function imageRoutes(deps: AppDeps, stages: Stages) {
  // Validated now, so a broken `images` section stops the start, not a request.
  const classify = adultClassifier(imagesConfigOf(deps.config), { fetch: deps.fetch, log: deps.log });
  const services = (call: ModelCall): ImageServices => ({
    fetching: { allowPrivate: deps.config.allowPrivateUrls, fetch: deps.fetch, timeoutMs: IMAGE_URL_TIMEOUT_MS, signal: call.signal },
    classify,
  });
  return new Elysia({ name: 'svc.routes.images' })
    .use(stages)
    .post('/image/generate', ({ body, call }) => generateImage(body, call, classify), {
      meter: { type: 'image' },
      parse: [jsonImageBody, 'application/json'],
      transform: rejectUnknownFields(GenerateImageSchema),
      body: withExample(GenerateImageSchema, { model: 'z-image-turbo', prompt: 'A lighthouse on a cliff at dawn, watercolor' }),
      detail: {
        operationId: 'generateImage',
        summary: 'Generate an image',
        tags: ['Image'],
        security,
        description:
          'Generates `variants` images (1 to 4) at the resolution and aspect ratio (or width x height) asked; billed per image at the ' +
          "model's price for the resolution and quality tier (model_spec.pricing). JSON `{id, images, request, timing}`, or the image with `return_binary`. " +
          'Adult content is blurred under `safe_mode` (x-svc-is-blurred).',
        responses: {
          200: {
            description: 'The images (base64), or the image itself with return_binary',
            content: { 'application/json': { schema: GenerateImageResponseSchema }, ...IMAGE_BINARY.content },
          },
          422: CONTENT_VIOLATION,
          ...ERRORS,
        } as never,
      },
    })
    .post('/images/generations', ({ body, call }) => simpleGenerateImage(body, call, classify), {
      meter: { type: 'image' },
      parse: [jsonImageBody, 'application/json'],
      transform: [rejectUnknownFields(SimpleGenerateImageSchema), openAIModelOrDefault(deps.models, 'generate', 'z-image-turbo')],
      body: withExample(SimpleGenerateImageSchema, {
        model: 'z-image-turbo',
        prompt: 'A lighthouse on a cliff at dawn, watercolor',
        size: '1024x1024',
      }),
      detail: {
        operationId: 'simpleGenerateImage',
        summary: 'Generate an image (OpenAI-compatible)',
        tags: ['Image'],
        security,
        description:
          "OpenAI's images.generate: `{created, data: [{b64_json}]}` (or a data URL with response_format=url). An unknown or OpenAI model name uses the default image model.",
        responses: {
          200: { description: 'The image', content: { 'application/json': { schema: { type: 'object', required: ['created', 'data'] } } } },
          422: CONTENT_VIOLATION,
          ...ERRORS,
        } as never,
      },
    })
    .get('/image/styles', () => ({ object: 'list' as const, data: Object.keys(IMAGE_STYLES) }), {
      auth: 'OPTIONAL',
      response: { 200: T.Object({ object: T.Literal('list'), data: T.Array(T.String()) }) },
      detail: {
        summary: 'List image styles',
        tags: ['Image'],
        security: [{}, { BearerAuth: [] }],
        description: 'The `style_preset` values of /image/generate.',
      },
    })
    .post('/image/edit', ({ body, call }) => editImage(body, call, services(call)), {
      meter: { type: 'inpaint' },
      parse: [imageBodyParser(FORM), 'application/json', 'multipart/form-data'],
      transform: [rejectUnknownFields(EditImageSchema), fillModel(deps.models, 'edit', 'firered-image-edit', { modelIdDeprecated: true })],
      body: withExample(EditImageSchema, {
        model: 'firered-image-edit',
        image: EXAMPLE_PNG_BASE64,
        prompt: 'Turn the square into a sunset sky',
      }),
      detail: {
        operationId: 'editImage',
        summary: 'Edit (inpaint) an image',
        tags: ['Image'],
        security,
        description:
          '`image` as a multipart file, a base64 string or an http(s) URL (fetched through the SSRF guard). `modelId` is a deprecated alias of `model` ' +
          '(x-svc-deprecated). Output PNG for 1K and JPEG for 2K/4K unless output_format says otherwise. An empty body is 415.',
        responses: { 200: IMAGE_BINARY, 422: CONTENT_VIOLATION, ...ERRORS } as never,
      },
    })
    .post('/images/edits', ({ body, call }) => openAIEditImage(body, call, services(call)), {
      meter: { type: 'inpaint' },
      parse: [imageBodyParser(OPENAI_EDIT_FORM), 'application/json', 'multipart/form-data'],
      transform: [rejectUnknownFields(OpenAIEditImageSchema), openAIModelOrDefault(deps.models, 'edit', 'firered-image-edit')],
      body: withExample(OpenAIEditImageSchema, {
        model: 'gpt-image-2-edit',
        image: EXAMPLE_PNG_BASE64,
        prompt: 'Turn the square into a sunset sky',
      }),
      detail: {
        operationId: 'simpleEditImage',
        summary: 'Edit an image (OpenAI-compatible)',
        tags: ['Image'],
        security,
        description:
          "OpenAI's images.edit on the edit of /image/edit: 1 to 3 images (`image` or `image[]`), `{created, data: [{b64_json}]}` " +
          '(or a data URL with response_format=url). An unknown or OpenAI model name uses the default edit model; `size` picks the closest aspect ratio.',
        responses: {
          200: { description: 'The image', content: { 'application/json': { schema: { type: 'object', required: ['created', 'data'] } } } },
          422: CONTENT_VIOLATION,
          ...ERRORS,
        } as never,
      },
    })
    .post('/image/multi-edit', ({ body, call }) => multiEditImage(body, call, services(call)), {
      meter: { type: 'inpaint' },
      parse: [imageBodyParser({ ...FORM, lists: ['images'], filesOnly: ['images'] }), 'application/json', 'multipart/form-data'],
      transform: [rejectUnknownFields(MultiEditImageSchema), fillModel(deps.models, 'edit', 'firered-image-edit')],
      body: withExample(MultiEditImageSchema, {
        model: 'firered-image-edit',
        images: [EXAMPLE_PNG_BASE64, EXAMPLE_PNG_BASE64],
        prompt: 'Blend the two squares',
      }),
      detail: {
        operationId: 'multiEditImage',
        summary: 'Edit an image with up to 3 images',
        tags: ['Image'],
        security,
        description:
          'JSON: `images` is 1 to 3 URLs or base64 strings; multipart: 1 to 3 files only. The first image is edited, the others guide it.',
        responses: { 200: IMAGE_BINARY, 422: CONTENT_VIOLATION, ...ERRORS } as never,
      },
    })
    .post('/image/upscale', ({ body, call }) => upscaleImage(body, call, services(call)), {
      meter: { type: 'upscale' },
      parse: [imageBodyParser(FORM), 'application/json', 'multipart/form-data'],
      transform: fillModel(deps.models, 'upscale', 'upscaler'),
      body: withExample(UpscaleImageSchema, { model: 'upscaler', image: EXAMPLE_PNG_BASE64, scale: 2 }),
      detail: {
        operationId: 'upscaleImage',
        summary: 'Upscale an image',
        tags: ['Image'],
        security,
        description: '2x or 4x; the output is at most 16,777,216 pixels; answered as PNG. Billed at the model price for the scale.',
        responses: { 200: IMAGE_BINARY, ...ERRORS } as never,
      },
    })
    .post('/image/background-remove', ({ body, call }) => removeBackground(body, call, services(call)), {
      meter: { type: 'image' },
      parse: [imageBodyParser(FORM), 'application/json', 'multipart/form-data'],
      transform: [rejectUnknownFields(BackgroundRemoveSchema), fillModel(deps.models, 'background-remove', 'bria-bg-remover')],
      body: withExample(BackgroundRemoveSchema, { model: 'bria-bg-remover', image: EXAMPLE_PNG_BASE64 }),
      detail: {
        operationId: 'backgroundRemoveImage',
        summary: 'Remove the background of an image',
        tags: ['Image'],
        security,
        description: '`image` (file or base64) or `image_url`; answered as a PNG with a transparent background.',
        responses: { 200: IMAGE_BINARY, ...ERRORS } as never,
      },
    });
}
