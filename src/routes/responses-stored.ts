import { Elysia, t } from 'elysia';
import type { Stages } from '../gates';
import { notFound } from '../http/errors';
import type { BackgroundResponses } from '../responses/background';
import { contextItems, inputItemPage } from '../responses/input-items';
import { FOLLOW_PACE, followResponse, SSE_HEADERS } from '../responses/follow';
import { replayText } from '../responses/replay';
import type { ResponsesRuntime } from '../responses/runtime';
import { errorResponses } from './responses';

const security: Record<string, string[]>[] = [{ BearerAuth: [] }, { siwx: [] }];
const tags = ['Responses (Alpha)'];
const Params = t.Object({ response_id: t.String({ minLength: 1, maxLength: 256, description: 'The id of a stored response' }) });

const RESPONSE_OBJECT = {
  description: 'The stored Response object (as `POST /responses` answered it), or with `stream=true` its typed events',
  content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': { schema: { type: 'string' } } },
};
const ITEM_LIST = {
  description: 'A page of input items: `{object: "list", data, first_id, last_id, has_more}`',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['object', 'data', 'has_more'],
        properties: {
          object: { type: 'string', enum: ['list'] },
          data: { type: 'array', items: { type: 'object' } },
          first_id: { type: ['string', 'null'] },
          last_id: { type: ['string', 'null'] },
          has_more: { type: 'boolean' },
        },
      },
    },
  },
};

/**
 * GET and DELETE /responses/{response_id} and GET /responses/{response_id}/input_items: the
 * caller's account's stored responses (another account's id is a 404, as an unknown one),
 * authenticated like inference, counted against the account-wide rate limit, not metered.
 */
export function storedResponseRoutes(stages: Stages, responses: ResponsesRuntime, background: BackgroundResponses) {
  const { store, config } = responses;
  const found = async (accountId: string, id: string) => {
    const r = await store.get(accountId, id);
    if (!r) throw notFound(`response_id: response "${id}" not found`);
    return r;
  };
  return new Elysia({ name: 'svc.routes.responses.stored' })
    .use(stages)
    .get(
      '/responses/:response_id',
      async function getResponse({ params, query, svc, request, server }) {
        const r = await found(svc.caller!.accountId, params.response_id);
        if (query.stream !== true) return r.response;
        const after = query.starting_after ?? -1;
        if (r.response.background !== true) return new Response(replayText(r.response, after), { headers: SSE_HEADERS });
        // A background response is followed to its end: its events may come minutes later, pings keep it open.
        server?.timeout(request, 0);
        return new Response(followResponse(store, svc.caller!.accountId, params.response_id, after, FOLLOW_PACE), { headers: SSE_HEADERS });
      },
      {
        auth: 'INFERENCE',
        params: Params,
        query: t.Object({
          stream: t.Optional(t.Boolean({ description: 'Replay the response as its typed event stream' })),
          starting_after: t.Optional(t.Integer({ minimum: -1, description: 'With stream: only the events after this sequence number' })),
          include: t.Optional(t.Union([t.String(), t.Array(t.String())])),
          include_obfuscation: t.Optional(t.Boolean()),
        }),
        detail: {
          operationId: 'getResponse',
          summary: 'Retrieve a stored response',
          tags,
          security,
          description:
            "A response stored by `POST /responses` (`store` defaults to true) of the caller's account, kept for the operator's retention " +
            '(30 days by default). `stream=true` replays it as the typed events that created it, each `sequence_number` as numbered on replay ' +
            '(a background response still queued or running is followed to its end, `: ping` comments meanwhile); ' +
            "`starting_after` skips the events up to that number. Another account's id answers 404.",
          responses: { 200: RESPONSE_OBJECT, ...errorResponses(400, 401, 404, 429) } as never,
        },
      },
    )
    .delete(
      '/responses/:response_id',
      async function deleteResponse({ params, svc }) {
        // A background response still running is cancelled first: its run would store it again.
        const r = await store.get(svc.caller!.accountId, params.response_id);
        if (r?.response.background === true) await background.cancel(svc.caller!.accountId, params.response_id);
        const deleted = await store.delete(svc.caller!.accountId, params.response_id);
        if (!deleted) throw notFound(`response_id: response "${params.response_id}" not found`);
        return { id: params.response_id, object: 'response', deleted: true };
      },
      {
        auth: 'INFERENCE',
        params: Params,
        detail: {
          operationId: 'deleteResponse',
          summary: 'Delete a stored response',
          tags,
          security,
          description:
            'Deletes a stored response of the caller\'s account: `{id, object: "response", deleted: true}` (a background response still queued or running is cancelled first). Unknown or another account\'s: 404.',
          responses: {
            200: {
              description: 'Deleted',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { id: { type: 'string' }, object: { type: 'string' }, deleted: { type: 'boolean' } },
                  },
                },
              },
            },
            ...errorResponses(401, 404, 429),
          } as never,
        },
      },
    )
    .post(
      '/responses/:response_id/cancel',
      async function cancelResponse({ params, svc }) {
        return background.cancel(svc.caller!.accountId, params.response_id);
      },
      {
        auth: 'INFERENCE',
        params: Params,
        detail: {
          operationId: 'cancelResponse',
          summary: 'Cancel a background response',
          tags,
          security,
          description:
            "Cancels a `background: true` response of the caller's account that is `queued` or `in_progress` and answers it `cancelled`. " +
            "Queued: nothing is charged (its reservation is given back). Running: its upstream call is aborted; before the upstream's first byte " +
            "nothing is charged, after it what the upstream produced until then (as a client leaving a stream), shown in the response's `usage` and `cost`. " +
            'A cancelled or finished background response is answered as it is (idempotent). A response created without `background: true`: 400. ' +
            "Unknown or another account's: 404.",
          responses: { 200: RESPONSE_OBJECT, ...errorResponses(400, 401, 404, 429) } as never,
        },
      },
    )
    .get(
      '/responses/:response_id/input_items',
      async function listInputItems({ params, query, svc }) {
        const r = await found(svc.caller!.accountId, params.response_id);
        return inputItemPage(await contextItems(store, r, config.maxChainLength), query);
      },
      {
        auth: 'INFERENCE',
        params: Params,
        query: t.Object({
          limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: 'Page size, 1 to 100 (default 20)' })),
          order: t.Optional(t.Union([t.Literal('asc'), t.Literal('desc')], { description: 'desc (default): newest first' })),
          after: t.Optional(t.String({ description: 'An item id: the page starts after it' })),
          include: t.Optional(t.Union([t.String(), t.Array(t.String())])),
        }),
        detail: {
          operationId: 'listInputItems',
          summary: "List a stored response's input items",
          tags,
          security,
          description:
            'The items the response was made from: the earlier turns of its `previous_response_id` chain (their input and output) ' +
            'then its own input, each with an id; paginated as OpenAI does (`data`, `first_id`, `last_id`, `has_more`; `after`, `limit`, `order`).',
          responses: { 200: ITEM_LIST, ...errorResponses(400, 401, 404, 429) } as never,
        },
      },
    );
}
