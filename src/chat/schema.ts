import { t, type TSchema } from 'elysia';
import { Type, type TProperties } from '@sinclair/typebox';

// Elysia's t.Integer is a string-coercing Transform (for query strings), and one Transform
// anywhere makes Elysia Decode the whole body on every request (profiled: ~5 % of a chat
// request). A JSON body has real numbers, so the plain TypeBox integer is the right type.
const Integer = Type.Integer;

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

/** A content part; multimodal parts are checked against the model's capabilities later. */
const ContentPart = t.Object(
  {
    type: t.String({ minLength: 1, description: 'text | image_url | input_audio | video_url | file' }),
    text: t.Optional(t.String()),
    image_url: t.Optional(
      t.Union([t.String(), t.Object({ url: t.String(), detail: t.Optional(t.String()) }, { additionalProperties: true })]),
    ),
    input_audio: t.Optional(t.Object({ data: t.String(), format: t.Optional(t.String()) }, { additionalProperties: true })),
    video_url: t.Optional(t.Object({ url: t.String() }, { additionalProperties: true })),
    file: t.Optional(t.Record(t.String(), t.Unknown())),
    // Passed through untouched to providers that cache prompts.
    cache_control: t.Optional(t.Object({ type: t.Literal('ephemeral'), ttl: t.Optional(t.String()) })),
  },
  { additionalProperties: true },
);

const Message = t.Object(
  {
    role: t.Union(ROLES.map((r) => t.Literal(r))),
    content: t.Optional(t.Union([t.String(), t.Array(ContentPart), t.Null()])),
    name: t.Optional(t.String()),
    tool_calls: t.Optional(t.Array(t.Unknown())),
    tool_call_id: t.Optional(t.String()),
    reasoning_content: t.Optional(t.Union([t.String(), t.Null()])),
  },
  { additionalProperties: true },
);

const Effort = t.Union(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map((v) => t.Literal(v)));
const anything = () => t.Optional(t.Unknown());

/**
 * The `svc_parameters` object composed from the plugins' TypeBox fragments, so validation
 * and the OpenAPI description follow from the plugin list. Unknown keys are accepted here
 * and dropped when the parameters are merged (reference behaviour).
 */
export function svcParametersSchema(parameters: TProperties) {
  return t.Object(parameters, {
    additionalProperties: true,
    description: 'svc-specific options, each provided by a plugin. Unknown keys are ignored. Model suffixes override these.',
  });
}

/**
 * The ChatCompletionRequest body (API-NOTES section 1): the chat-completions fields the
 * official SDKs send, plus `svc_parameters`. Unknown top-level fields are dropped (Elysia
 * normalizes the body to the schema) and never reach the upstream; the reference refuses them
 * with a 400. Fields meant for the upstream are typed loosely and forwarded.
 */
export function chatRequestSchema(svcParameters: TSchema) {
  return t.Object(
    {
      model: t.String({ minLength: 1, description: 'Model id, trait or compatibility alias, with an optional `:option=value&...` suffix' }),
      messages: t.Array(Message, { minItems: 1 }),
      stream: t.Optional(t.Boolean()),
      stream_options: t.Optional(t.Object({ include_usage: t.Optional(t.Boolean()) }, { additionalProperties: true })),
      temperature: t.Optional(t.Number({ minimum: 0, maximum: 2 })),
      top_p: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
      top_k: t.Optional(Integer({ minimum: -1 })),
      min_p: t.Optional(t.Number({ minimum: 0, maximum: 1 })),
      min_temp: t.Optional(t.Number({ minimum: 0, maximum: 2 })),
      max_temp: t.Optional(t.Number({ minimum: 0, maximum: 2 })),
      repetition_penalty: t.Optional(t.Number({ minimum: 0 })),
      frequency_penalty: t.Optional(t.Number({ minimum: -2, maximum: 2 })),
      presence_penalty: t.Optional(t.Number({ minimum: -2, maximum: 2 })),
      max_completion_tokens: t.Optional(t.Union([Integer({ minimum: 1 }), t.Null()])),
      // 0 is accepted and ignored, as the reference does; a negative value is refused.
      max_tokens: t.Optional(t.Union([Integer({ minimum: 0 }), t.Null()])),
      // Each choice is reserved in full; the model's catalog entry may bound it lower (maxChoices).
      n: t.Optional(Integer({ minimum: 1, maximum: 128 })),
      seed: t.Optional(Integer()),
      stop: t.Optional(t.Union([t.String(), t.Array(t.String(), { maxItems: 4 }), t.Null()])),
      // Not in the reference; a handful in practice. The cap keeps a wide array out of validation.
      stop_token_ids: t.Optional(t.Array(t.Number(), { maxItems: 1024 })),
      logprobs: t.Optional(t.Union([t.Boolean(), t.Null()])),
      top_logprobs: t.Optional(t.Union([Integer({ minimum: 0 }), t.Null()])),
      prompt_cache_key: t.Optional(t.String({ description: 'Routes requests with the same key to the same upstream replica' })),
      prompt_cache_retention: t.Optional(t.Union([t.String(), t.Null()])),
      reasoning: t.Optional(t.Object({ effort: t.Optional(Effort), summary: t.Optional(t.String()) }, { additionalProperties: true })),
      reasoning_effort: t.Optional(t.Union([Effort, t.Null()])),
      verbosity: t.Optional(t.Union([t.String(), t.Null()])),
      text: anything(),
      response_format: anything(),
      // OpenAI documents at most 128 tools (the responses schema says so too); the cap keeps a wide array out of validation.
      tools: t.Optional(t.Array(t.Record(t.String(), t.Unknown()), { maxItems: 128 })),
      tool_choice: anything(),
      parallel_tool_calls: t.Optional(t.Boolean()),
      user: anything(),
      store: anything(),
      include: anything(),
      metadata: anything(),
      fallbacks: t.Optional(
        t.Array(t.Union([t.String({ minLength: 1 }), t.Object({ model: t.String({ minLength: 1 }) }, { additionalProperties: true })]), {
          maxItems: 10,
          description:
            'Models tried in order when every replica of `model` is at capacity or failing before the first byte: svc model ids (or `{model}` objects). `x-svc-model-id` names the model that answered.',
        }),
      ),
      // Further fields of the official SDK's ChatCompletionCreateParams, forwarded as they are.
      audio: anything(),
      function_call: anything(),
      functions: anything(),
      logit_bias: anything(),
      modalities: anything(),
      moderation: anything(),
      prediction: anything(),
      prompt_cache_options: anything(),
      safety_identifier: anything(),
      service_tier: anything(),
      web_search_options: anything(),
      chat_template_kwargs: anything(),
      svc_parameters: t.Optional(svcParameters),
    },
    { additionalProperties: false },
  );
}
