import type { ChatOutput, ChatRequestBody } from '../chat/completions';
import { checkContentParts } from '../chat/multimodal';
import type { ModelCall } from '../pipeline/model-call';
import { citedSources, responseFromChat, responseShell, type ChatAnswer } from './response';
import type { ResponsesRequest } from './schema';
import { ResponsesStreamEncoder } from './stream-encoder';
import { toChatRequest } from './to-chat';

/** The chat pipeline's handler (src/chat/completions.ts), which runs the call. */
type ChatHandler = (body: ChatRequestBody, call: ModelCall, output?: ChatOutput) => Promise<unknown>;

/**
 * POST /responses over the chat pipeline: the request translated to chat (to-chat.ts), run
 * by the chat handler on the same metered call (model resolution, plugins, suffixes,
 * reservation, routing, settlement), and its answer translated back: a Response object, or
 * the typed event stream encoded once from the decoded chat chunks.
 */
export function createResponsesHandler(chat: ChatHandler, now: () => number) {
  return async function createResponse(req: ResponsesRequest, call: ModelCall): Promise<unknown> {
    const { body: chatRequest, partPath } = toChatRequest(req);
    // Chat checks the parts too, but would name `messages.*`: here the 400 names the input item.
    checkContentParts(chatRequest.messages, call.model, partPath);
    const idBase = call.request.requestId;
    const shell = responseShell(req, `resp_${idBase}`, call.model.id, Math.floor(now() / 1000));
    const answer = await chat(chatRequest, call, {
      route: '/responses',
      streamEncoder: (ctx) => new ResponsesStreamEncoder(shell, idBase, () => citedSources(ctx.echo)),
    });
    if (answer instanceof Response) return answer;
    return responseFromChat(shell, answer as ChatAnswer, idBase);
  };
}
