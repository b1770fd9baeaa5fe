import type { ChatOutput, ChatRequestBody } from '../chat/completions';
import { checkContentParts } from '../chat/multimodal';
import { invalidField } from '../http/errors';
import type { ModelCall } from '../pipeline/model-call';
import { continuedInput, conversationBefore, resolveReferences, storedInputItems, type Conversation } from './conversation';
import { citedSources, responseFromChat, responseShell, type ChatAnswer, type ResponseObject } from './response';
import type { ResponsesRuntime } from './runtime';
import type { ResponsesRequest } from './schema';
import { ResponsesStreamEncoder } from './stream-encoder';
import { toChatRequest } from './to-chat';

/** The chat pipeline's handler (src/chat/completions.ts), which runs the call. */
type ChatHandler = (body: ChatRequestBody, call: ModelCall, output?: ChatOutput) => Promise<unknown>;

const DAY_MS = 86_400_000;

/**
 * POST /responses over the chat pipeline: the conversation a `previous_response_id`
 * continues and the new input (item references resolved) translated to chat (to-chat.ts),
 * run by the chat handler on the same metered call (model resolution, plugins, suffixes,
 * reservation, routing, settlement: the charge is for the history sent), and its answer
 * translated back: a Response object, or the typed event stream encoded once from the
 * decoded chat chunks. A stored response is queued for the store when it is complete,
 * never on the answer's path.
 */
export function createResponsesHandler(chat: ChatHandler, now: () => number, responses: ResponsesRuntime) {
  const { config, store } = responses;
  return async function createResponse(req: ResponsesRequest, call: ModelCall): Promise<unknown> {
    const accountId = call.request.caller!.accountId;
    const storing = config.store && req.store !== false;
    const idBase = call.request.requestId;
    const id = `resp_${idBase}`;
    let conversation: Conversation | null = null;
    if (req.previous_response_id) {
      if (!config.store) throw invalidField(['previous_response_id'], 'is not available: this server stores no responses', 'body');
      conversation = await conversationBefore(store, accountId, req.previous_response_id, config.maxChainLength);
    }
    const resolved = await resolveReferences(store, accountId, req.input);
    const { items, own: input } = conversation ? continuedInput(conversation, resolved) : { items: resolved, own: resolved };
    const rootId = conversation?.rootId ?? id;
    // A stored conversation keeps to one replica (the router's rendezvous hash) so its prefix stays cached.
    const cacheKey = req.prompt_cache_key ?? (storing || conversation ? rootId : undefined);
    const { body: chatRequest, partPath } = toChatRequest({ ...req, input: items, prompt_cache_key: cacheKey });
    // Chat checks the parts too, but would name `messages.*`: here the 400 names the input item.
    checkContentParts(chatRequest.messages, call.model, partPath);
    const createdAt = now();
    const shell = responseShell(req, id, call.model.id, Math.floor(createdAt / 1000));
    shell.store = storing;
    shell.previous_response_id = req.previous_response_id ?? null;
    const keep = (response: ResponseObject) => {
      if (!storing) return;
      store.save({
        id,
        accountId,
        previousResponseId: req.previous_response_id ?? null,
        rootId,
        status: response.status,
        input: storedInputItems(input, idBase),
        response,
        createdAt,
        expiresAt: createdAt + config.retentionDays * DAY_MS,
      });
    };
    const answer = await chat(chatRequest, call, {
      route: '/responses',
      streamEncoder: (ctx) => new ResponsesStreamEncoder(shell, idBase, () => citedSources(ctx.echo), keep),
    });
    if (answer instanceof Response) return answer;
    const response = responseFromChat(shell, answer as ChatAnswer, idBase);
    keep(response);
    return response;
  };
}
