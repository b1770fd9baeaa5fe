import { Elysia, type Context } from 'elysia';
import type { AppDeps } from '../deps';
import { checkDimensions, embeddingResponse } from '../embeddings/respond';
import { EmbeddingRequestSchema, EmbeddingResponseSchema, type EmbeddingRequest } from '../embeddings/schema';
import type { Stages } from '../gates';
import type { ModelCall } from '../pipeline/model-call';
import { embeddingInputTokens } from '../pipeline/tokens';
import { errorResponses } from './responses';
import { withExample } from '../http/openapi-example';

/**
 * The tokenizer margin: tokens held beyond svc's own count (o200k) for an upstream whose
 * model's tokenizer counts more (a BERT-style vocabulary counts up to about half as many
 * again on some text), as half the count plus 16. Held only where the balance is ample
 * (src/billing/pricing.ts MARGIN_FLOOR_USD_MICROS), so it never refuses a funded request.
 */
const marginTokens = (counted: number) => Math.ceil(counted / 2) + 16;

/**
 * POST /embeddings (the OpenAI SDK's `embeddings.create`) on the metered call: reserves the
 * input tokens, routes to an `embed` replica (asking for the client's encoding), charges the
 * upstream's token count (or svc's own when it sends none), and answers floats or base64 as
 * JSON text around the provider's vector text, the upstream's own bytes when it answered in
 * the asked encoding (respond.ts).
 */
async function createEmbedding(req: EmbeddingRequest, call: ModelCall, set: Context['set']) {
  checkDimensions(req, call.model);
  const counted = embeddingInputTokens(req.input);
  // The upstream bills with its own model's tokenizer, which may count more than svc's; a
  // settlement is capped at its hold, so where the balance allows the hold leaves room for that.
  await call.reserve({ promptTokens: counted, marginPromptTokens: marginTokens(counted), completionTokens: 0 });
  let answer: string;
  let promptTokens: number;
  try {
    const encoding_format = req.encoding_format ?? 'float';
    const upstream = { model: call.model.id, input: req.input, dimensions: req.dimensions, encoding_format };
    const routed = await call.route('embed', (provider, options) => provider.embed(upstream, options));
    routed.done();
    promptTokens = routed.result.usage?.prompt_tokens ?? counted;
    answer = embeddingResponse(routed.result, call.model, promptTokens);
  } catch (error) {
    return call.fail(error);
  }
  const executionMs = Math.round(performance.now() - call.request.startedAt);
  const settled = await call.settle({ promptTokens, completionTokens: 0, executionMs });
  call.chargeBeforeHeaders(settled);
  // Already JSON: a string with this type is sent as it is, where an object would be serialised again.
  set.headers['content-type'] = 'application/json';
  return answer;
}

/** POST /embeddings. */
export function embeddingRoutes(_deps: AppDeps, stages: Stages) {
  return new Elysia({ name: 'svc.routes.embeddings' }).use(stages).post(
    '/embeddings',
    function createEmbeddingRoute({ body, call, set }) {
      return createEmbedding(body, call, set);
    },
    {
      meter: { type: 'embedding' },
      parse: 'json',
      body: withExample(EmbeddingRequestSchema, { model: 'text-embedding-bge-m3', input: 'Sea otters hold hands while they sleep.' }),
      detail: {
        operationId: 'createEmbedding',
        summary: 'Create embeddings',
        tags: ['Embeddings'],
        security: [{ BearerAuth: [] }, { siwx: [] }],
        description:
          'OpenAI-compatible embeddings. `input` is a string, up to 2048 strings, a token array or up to 2048 token arrays; ' +
          "`encoding_format: base64` returns little-endian float32. Charged per input token at the model's input price.",
        responses: {
          200: { description: 'The embeddings', content: { 'application/json': { schema: EmbeddingResponseSchema } } },
          ...errorResponses(400, 401, 402, 404, 415, 429, 502, 503, 504),
        } as never,
      },
    },
  );
}
