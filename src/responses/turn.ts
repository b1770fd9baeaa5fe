import type { ChatOutput, ChatRequestBody } from '../chat/completions';
import { checkContentParts } from '../chat/multimodal';
import { invalidField } from '../http/errors';
import type { ModelCall } from '../pipeline/model-call';
import { continuedInput, conversationBefore, resolveReferences, storedInputItems, type Conversation } from './conversation';
import { responseShell, type ResponseObject } from './response';
import type { ResponsesRuntime } from './runtime';
import type { ResponsesRequest } from './schema';
import type { StoredResponse } from './store';
import { toChatRequest } from './to-chat';

const DAY_MS = 86_400_000;

/** The chat pipeline's handler (src/chat/completions.ts), which runs a turn's call. */
export type ChatHandler = (body: ChatRequestBody, call: ModelCall, output?: ChatOutput) => Promise<unknown>;

/** One turn of `POST /responses`, ready to run: its ids, the chat request, the response shell and how it is stored. */
export interface Turn {
  /** `resp_<idBase>`. */
  id: string;
  /** The request id: output item ids are `<prefix>_<idBase>_<n>`. */
  idBase: string;
  accountId: string;
  /** Whether the response is stored (the request's `store` and the operator's `responses.store`). */
  storing: boolean;
  chatRequest: ChatRequestBody;
  shell: ResponseObject;
  /** Epoch ms. */
  createdAt: number;
  /** The turn as the store keeps it, in the state `response` shows. */
  stored(response: ResponseObject): StoredResponse;
}

/**
 * Prepares a turn: the conversation a `previous_response_id` continues and the new input
 * (item references resolved) translated to chat, its parts checked for the model (the 400
 * names the input item), and the response shell echoing the request. A background turn asks
 * chat for a stream (its runner reads the events as they come, to cancel midway).
 */
export async function prepareTurn(req: ResponsesRequest, call: ModelCall, now: () => number, responses: ResponsesRuntime): Promise<Turn> {
  const { config, store } = responses;
  const accountId = call.request.caller!.accountId;
  const storing = config.store && req.store !== false;
  const idBase = call.request.requestId;
  const id = `resp_${idBase}`;
  const background = req.background === true;
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
  const { body: chatRequest, partPath } = toChatRequest({
    ...req,
    input: items,
    prompt_cache_key: cacheKey,
    stream: background ? true : req.stream,
  });
  // Chat checks the parts too, but would name `messages.*`: here the 400 names the input item.
  checkContentParts(chatRequest.messages, call.model, partPath);
  const createdAt = now();
  const shell = responseShell(req, id, call.model.id, Math.floor(createdAt / 1000));
  shell.store = storing;
  shell.background = background;
  shell.previous_response_id = req.previous_response_id ?? null;
  const storedInput = storedInputItems(input, idBase);
  return {
    id,
    idBase,
    accountId,
    storing,
    chatRequest,
    shell,
    createdAt,
    stored: (response) => ({
      id,
      accountId,
      previousResponseId: req.previous_response_id ?? null,
      rootId,
      status: response.status,
      input: storedInput,
      response,
      createdAt,
      expiresAt: createdAt + config.retentionDays * DAY_MS,
    }),
  };
}
