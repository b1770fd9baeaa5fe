import type { ModelCall } from '../pipeline/model-call';
import type { BackgroundResponses } from './background';
import { FOLLOW_PACE, followResponse, SSE_HEADERS } from './follow';
import { citedSources, responseFromChat, type ChatAnswer, type ResponseObject } from './response';
import type { ResponsesRuntime } from './runtime';
import type { ResponsesRequest } from './schema';
import { ResponsesStreamEncoder } from './stream-encoder';
import { prepareTurn, type ChatHandler } from './turn';

/**
 * POST /responses over the chat pipeline: the turn prepared (turn.ts: the stored conversation
 * and the new input translated to chat), run by the chat handler on the same metered call
 * (model resolution, plugins, suffixes, reservation, routing, settlement: the charge is for
 * the history sent), and its answer translated back: a Response object, or the typed event
 * stream encoded once from the decoded chat chunks. A stored response is queued for the
 * store when it is complete, never on the answer's path. A `background: true` turn is
 * queued on the job runner instead (background.ts) and answered `queued` at once.
 */
export function createResponsesHandler(chat: ChatHandler, now: () => number, responses: ResponsesRuntime, background: BackgroundResponses) {
  const { store } = responses;
  return async function createResponse(req: ResponsesRequest, call: ModelCall): Promise<unknown> {
    const turn = await prepareTurn(req, call, now, responses);
    if (req.background === true) {
      const queued = await background.queue(turn, call);
      // Streamed: its events as it runs, to its end (a client may reconnect with GET ?stream=true&starting_after).
      if (req.stream !== true) return queued;
      return new Response(followResponse(store, turn.accountId, turn.id, -1, FOLLOW_PACE), { headers: SSE_HEADERS });
    }
    const keep = (response: ResponseObject) => {
      if (turn.storing) store.save(turn.stored(response));
    };
    const answer = await chat(turn.chatRequest, call, {
      route: '/responses',
      streamEncoder: (ctx) => new ResponsesStreamEncoder(turn.shell, turn.idBase, () => citedSources(ctx.echo), keep),
    });
    if (answer instanceof Response) return answer;
    const response = responseFromChat(turn.shell, answer as ChatAnswer, turn.idBase);
    keep(response);
    return response;
  };
}
