import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { createBackgroundResponses } from '../responses/background';
import { createResponsesHandler } from '../responses/handler';
import { responsesRuntimeOf } from '../responses/runtime';
import { checkedItem } from '../responses/input';
import { responsesRequestSchema, type ResponsesRequest } from '../responses/schema';
import { chatPipeline, type ChatRouteOptions } from './chat';
import { errorResponse, errorResponses } from './responses';
import { storedResponseRoutes } from './responses-stored';
import { withExample } from '../http/openapi-example';

// Documentation only: responses are not validated on the hot path.
const RESPONSES = {
  200: {
    description:
      'A Response object (`object: "response"`, `output` items, `usage`, svc `cost`), or with `stream: true` an SSE stream of typed events ' +
      '(`response.created` ... `response.completed`), each with a `sequence_number`.',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['id', 'object', 'created_at', 'model', 'status', 'output'],
          properties: {
            id: { type: 'string' },
            object: { type: 'string', enum: ['response'] },
            created_at: { type: 'integer' },
            model: { type: 'string' },
            status: { type: 'string', enum: ['completed', 'failed', 'in_progress', 'incomplete', 'queued', 'cancelled'] },
            output: { type: 'array', items: { type: 'object' } },
            usage: { type: 'object' },
            cost: { type: 'object', properties: { usd: { type: 'number' }, diem: { type: 'number' } } },
          },
        },
      },
      'text/event-stream': { schema: { type: 'string' } },
    },
  },
  ...errorResponses(400, 401, 402, 415, 429, 502, 503, 504),
  404: errorResponse('Model, character, previous response or referenced item not found'),
};

/**
 * The `checkInputItems` route option: each `input` item checked against its type's schema,
 * as the handler does, but before Elysia copies the body onto the route's schema (whose
 * items are any objects): a wide `input` of wrong items is refused at the first one instead
 * of copied whole (a 1.3 MB body: 12 to 23 ms of CPU, now what parsing it costs). A macro,
 * so that written after `meter` it runs after authentication.
 */
const inputItemsCheck = new Elysia({ name: 'svc.routes.responses.input-items' }).macro({
  checkInputItems: {
    transform: function refuseBadInputItem({ body }) {
      const input = (body as { input?: unknown } | undefined)?.input;
      if (Array.isArray(input)) input.forEach(checkedItem);
    },
  },
});

/**
 * The Responses API: POST /responses over the chat pipeline, with the same plugins and
 * options as chat, and the stored responses' routes (retrieve, delete, input items).
 */
export function responsesRoutes(deps: AppDeps, stages: Stages, opts: ChatRouteOptions = {}) {
  const { handle, svcParameters } = chatPipeline(deps, opts);
  const runtime = responsesRuntimeOf(deps);
  const background = createBackgroundResponses(deps, handle, runtime);
  const createResponse = createResponsesHandler(handle, deps.now, runtime, background);
  return new Elysia({ name: 'svc.routes.responses' })
    .use(stages)
    .use(storedResponseRoutes(stages, runtime, background))
    .use(inputItemsCheck)
    .post(
      '/responses',
      function createResponseRoute({ body, call }) {
        return createResponse(body as ResponsesRequest, call);
      },
      {
        meter: { type: 'text' },
        checkInputItems: true,
        parse: 'json',
        body: withExample(responsesRequestSchema(svcParameters), { model: 'llama-3.3-70b', input: 'Write a haiku about gateways.' }),
        detail: {
          operationId: 'createResponse',
          summary: 'Create a response (Responses API)',
          tags: ['Responses (Alpha)'],
          security: [{ BearerAuth: [] }, { siwx: [] }],
          responses: RESPONSES as never,
          description:
            'The Responses API (OpenAI-compatible) over the chat pipeline: `input` as a string or items (messages with text, image and file parts; ' +
            '`function_call` and `function_call_output` for tool round trips; `item_reference` to a stored item), `instructions`, function `tools`, ' +
            '`tool_choice`, `text.format`, `reasoning`, `max_output_tokens`, `web_search`, `fallbacks` and `svc_parameters` (or model suffixes) exactly as on chat. ' +
            'The response is stored (`store` defaults to true; the operator may turn storage off) for `GET /responses/{id}`, `input_items` and ' +
            '`previous_response_id`, which continues a stored conversation: its input and output items come before `input` (its `instructions` do not). ' +
            '`background: true` answers at once with the response `queued` (it needs `store`; with `stream: true` its events as it runs): it runs on the job runner, ' +
            'survives a restart, is polled with `GET /responses/{id}` and cancelled with `POST /responses/{id}/cancel`; reserved when queued, charged once when it ends. ' +
            '`conversation` is refused with a 400. ' +
            'Charged as the same chat call, for the whole history sent: one ledger line, `cost` on the response. A failure after the stream started arrives as `response.failed`. ' +
            'See docs/responses.md.',
        },
      },
    );
}
