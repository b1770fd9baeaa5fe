import { t, type TSchema } from 'elysia';
import { Type, type Static } from '@sinclair/typebox';

// Plain TypeBox integers in JSON bodies (DESIGN "Traps": t.Integer is a string-coercing Transform).
const Integer = Type.Integer;

const Effort = t.Union(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map((v) => t.Literal(v)));
const Role = t.Union([t.Literal('user'), t.Literal('assistant'), t.Literal('system'), t.Literal('developer')]);
const anything = () => t.Optional(t.Unknown());

/** Most model ids in `fallbacks` (the reference's maxItems). */
export const MAX_FALLBACKS = 10;

/** A content part of an input message: input_text, input_image, input_file, output_text (history), or the chat shapes text / image_url. */
export const InputPart = t.Object(
  {
    type: t.Union([
      t.Literal('input_text'),
      t.Literal('input_image'),
      t.Literal('input_file'),
      t.Literal('output_text'),
      t.Literal('text'),
      t.Literal('image_url'),
      t.Literal('refusal'),
    ]),
    text: t.Optional(t.String()),
    refusal: t.Optional(t.String()),
    image_url: t.Optional(t.Union([t.String(), t.Object({ url: t.String(), detail: t.Optional(t.String()) })])),
    detail: t.Optional(t.String()),
    file_id: t.Optional(t.Union([t.String(), t.Null()])),
    file_data: t.Optional(t.String()),
    file_url: t.Optional(t.String()),
    filename: t.Optional(t.String()),
    annotations: anything(),
    logprobs: anything(),
  },
  { additionalProperties: true },
);

/** A message item (`type: "message"` or the short form without `type`). */
export const MessageItem = t.Object(
  {
    type: t.Optional(t.Literal('message')),
    role: Role,
    content: t.Union([t.String(), t.Array(InputPart)]),
    id: t.Optional(t.String()),
    status: t.Optional(t.String()),
  },
  { additionalProperties: true },
);

/** A function call the model made earlier (sent back for a tool round trip). */
export const FunctionCallItem = t.Object(
  {
    type: t.Literal('function_call'),
    call_id: t.String({ minLength: 1 }),
    name: t.String({ minLength: 1 }),
    arguments: t.String(),
    id: t.Optional(t.String()),
    status: t.Optional(t.String()),
  },
  { additionalProperties: true },
);

/** The output of a function call, by its `call_id`. */
export const FunctionCallOutputItem = t.Object(
  {
    type: t.Literal('function_call_output'),
    call_id: t.String({ minLength: 1 }),
    output: t.Unknown(),
    id: t.Optional(t.String()),
    status: t.Optional(t.String()),
  },
  { additionalProperties: true },
);

/** A reasoning item of an earlier answer; its summary text goes back as the assistant's reasoning. */
export const ReasoningItem = t.Object(
  {
    type: t.Literal('reasoning'),
    id: t.Optional(t.Union([t.String(), t.Null()])),
    summary: t.Optional(
      t.Union([t.Array(t.Union([t.String(), t.Object({ text: t.String() }, { additionalProperties: true })])), t.Null()]),
    ),
    content: anything(),
    encrypted_content: t.Optional(t.Union([t.String(), t.Null()])),
    status: t.Optional(t.Union([t.String(), t.Null()])),
  },
  { additionalProperties: true },
);

/** A reference to an item of a stored response (its input or output), resolved to the item. */
export const ItemReference = t.Object({ type: t.Literal('item_reference'), id: t.String() }, { additionalProperties: true });

/** The item types of `input`, each validated against its own schema (so the 400 names the item's field). */
export const ITEM_SCHEMAS = {
  message: MessageItem,
  function_call: FunctionCallItem,
  function_call_output: FunctionCallOutputItem,
  reasoning: ReasoningItem,
  item_reference: ItemReference,
} as const;

export type InputPart = Static<typeof InputPart>;
export type MessageItem = Static<typeof MessageItem>;
export type FunctionCallItem = Static<typeof FunctionCallItem>;
export type FunctionCallOutputItem = Static<typeof FunctionCallOutputItem>;
export type ReasoningItem = Static<typeof ReasoningItem>;

/**
 * A tool: a function tool in the Responses shape (`{type, name, parameters}`, what the
 * OpenAI SDK and the AI SDK send) or the reference's chat-like shape (`{type, function:
 * {name}}`), or a hosted tool (`web_search`, ...). Checked per type when translated.
 */
export const Tool = t.Object(
  {
    type: t.String({ minLength: 1 }),
    name: t.Optional(t.String()),
    description: t.Optional(t.Union([t.String(), t.Null()])),
    // Unknown here and checked when translated: Elysia's normalizer would turn a string given
    // for an object into an object of its characters before validation (DESIGN "Traps").
    parameters: t.Optional(t.Unknown({ description: 'A JSON Schema object' })),
    strict: t.Optional(t.Union([t.Boolean(), t.Null()])),
    function: t.Optional(t.Unknown({ description: 'The chat shape: {name, description?, parameters?, strict?}' })),
  },
  { additionalProperties: true },
);
export type Tool = Static<typeof Tool>;

/** `tool_choice`: auto, none, required, or one function by name (Responses or chat shape). */
export const ToolChoice = t.Union([
  t.Literal('auto'),
  t.Literal('none'),
  t.Literal('required'),
  t.Object(
    { type: t.String(), name: t.Optional(t.String()), function: t.Optional(t.Object({ name: t.String() })) },
    { additionalProperties: true },
  ),
]);

/** `text.format`: plain text, any JSON object, or JSON matching a schema (which must be an object). */
export const TextFormat = t.Union([
  t.Object({ type: t.Literal('text') }),
  t.Object({ type: t.Literal('json_object') }),
  t.Object(
    {
      type: t.Literal('json_schema'),
      name: t.Optional(t.String()),
      description: t.Optional(t.String()),
      // Checked when translated, as tool parameters are (the normalizer would mangle a string).
      schema: t.Unknown({ description: 'A JSON Schema object' }),
      strict: t.Optional(t.Union([t.Boolean(), t.Null()])),
    },
    { additionalProperties: true },
  ),
]);

/**
 * The ResponsesRequest body (reference `POST /responses`, createResponse): `model` and
 * `input` required, the fields the OpenAI SDK's `responses.create` and the AI SDK send, and
 * `svc_parameters`.
 */
export function responsesRequestSchema(svcParameters: TSchema) {
  return t.Object(
    {
      model: t.String({ minLength: 1, description: 'Model id, trait or compatibility alias, with an optional `:option=value&...` suffix' }),
      input: t.Union([t.String({ minLength: 1 }), t.Array(t.Record(t.String(), t.Unknown()), { minItems: 1 })], {
        description: 'A string (one user message) or items: message, function_call, function_call_output, reasoning, item_reference',
      }),
      instructions: t.Optional(t.Union([t.String(), t.Null()])),
      include: t.Optional(t.Union([t.Array(t.String(), { maxItems: 32 }), t.Null()])),
      max_output_tokens: t.Optional(t.Union([Integer({ minimum: 1 }), t.Null()])),
      temperature: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 2 }), t.Null()])),
      top_p: t.Optional(t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()])),
      fallbacks: t.Optional(
        t.Array(t.Union([t.String({ minLength: 1, maxLength: 256 }), t.Object({ model: t.String({ minLength: 1, maxLength: 256 }) })]), {
          maxItems: MAX_FALLBACKS,
          description: 'Models to try in order when the first is at capacity: ids, or `{model}` objects as the reference sends them',
        }),
      ),
      reasoning: t.Optional(
        t.Union([
          t.Object(
            { effort: t.Optional(t.Union([Effort, t.Null()])), summary: t.Optional(t.Union([t.String(), t.Null()])) },
            { additionalProperties: true },
          ),
          t.Null(),
        ]),
      ),
      tools: t.Optional(t.Array(Tool, { maxItems: 128 })),
      tool_choice: t.Optional(ToolChoice),
      parallel_tool_calls: t.Optional(t.Union([t.Boolean(), t.Null()])),
      text: t.Optional(
        t.Object(
          { format: t.Optional(TextFormat), verbosity: t.Optional(t.Union([t.String(), t.Null()])) },
          { additionalProperties: true },
        ),
      ),
      web_search: t.Optional(t.Boolean({ description: 'Web search for this request (svc_parameters.enable_web_search "on")' })),
      stream: t.Optional(t.Union([t.Boolean(), t.Null()])),
      store: t.Optional(
        t.Union([t.Boolean(), t.Null()], {
          description: 'Store the response for GET, input_items and previous_response_id (default true)',
        }),
      ),
      previous_response_id: t.Optional(
        t.Union([t.String({ maxLength: 256 }), t.Null()], {
          description: 'Continue a stored response: its input and output come before `input`',
        }),
      ),
      background: t.Optional(t.Union([t.Boolean(), t.Null()])),
      conversation: anything(),
      prompt_cache_key: t.Optional(t.String()),
      // Accepted for compatibility and not used (output logprobs are not translated).
      top_logprobs: t.Optional(t.Union([Integer({ minimum: 0, maximum: 20 }), t.Null()])),
      metadata: anything(),
      user: anything(),
      truncation: anything(),
      service_tier: anything(),
      safety_identifier: anything(),
      stream_options: anything(),
      max_tool_calls: anything(),
      prompt_cache_retention: anything(),
      svc_parameters: t.Optional(svcParameters),
    },
    { additionalProperties: false },
  );
}

/** The validated request body. */
export type ResponsesRequest = Static<ReturnType<typeof responsesRequestSchema>>;
