import type { ChatRequestBody } from '../chat/completions';
import { cost } from '../chat/settle';
import type { MeteredCallDeps } from '../pipeline/metered-call';
import { ResumedCall, type StoredCaller } from './background-call';
import type { ChatHandler } from './turn';
import { citedSources, type ResponseObject } from './response';
import type { StoredResponse } from './store';
import { ResponsesStreamEncoder } from './stream-encoder';

/** What a background response's job row keeps to run it: the chat request (history included), the caller, the queued response. */
export interface BackgroundBody {
  request: ChatRequestBody;
  caller: StoredCaller;
  stored: StoredResponse;
}

/** How a run ended: the response in its final state and whether anything was charged. */
export interface RunOutcome {
  response: ResponseObject;
  charged: boolean;
}

/** `base` ended failed with `message` (as a stream that failed ends: `error` an object). */
export const failedResponse = (base: ResponseObject, message: string): ResponseObject => ({
  ...base,
  status: 'failed',
  error: { code: 'server_error', message },
});

/** `base` cancelled, with the items produced before the cancel and what they were charged. */
function cancelledResponse(base: ResponseObject, output: ResponseObject['output'], call: ResumedCall | null): ResponseObject {
  const charged = call?.charged;
  if (!charged) return { ...base, status: 'cancelled', output };
  const { promptTokens: input, completionTokens: produced } = charged.usage;
  return {
    ...base,
    status: 'cancelled',
    output,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: charged.usage.cachedPromptTokens ?? 0 },
      output_tokens: produced,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + produced,
    },
    cost: cost(charged.cost),
  };
}

/** Reads a stream to its end; an abort of `signal` cancels it (the proxy then settles what was produced) and waits for that. */
async function drain(body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<void> {
  const reader = body.getReader();
  let cancelling: Promise<void> | null = null;
  const stop = () => void (cancelling ??= reader.cancel().catch(() => {}));
  signal.addEventListener('abort', stop, { once: true });
  try {
    while (!(await reader.read()).done);
  } catch {
    // Cancelled: the read ends with an error.
  } finally {
    signal.removeEventListener('abort', stop);
  }
  await cancelling;
}

/**
 * Runs a background response's chat call as a streamed foreground call runs it (the same
 * handler: plugins, routing, settlement once), on its kept reservation, reading the events
 * as they come so that a cancel (`signal`) stops it midway: before the upstream's first byte
 * nothing is charged; after it, what the upstream produced until then, as a client leaving a
 * stream is charged.
 */
export async function runBackgroundCall(
  deps: MeteredCallDeps,
  chat: ChatHandler,
  body: BackgroundBody,
  requestId: string,
  signal: AbortSignal,
): Promise<RunOutcome> {
  const base: ResponseObject = { ...(body.stored.response as ResponseObject), status: 'in_progress' };
  let encoder: ResponsesStreamEncoder | null = null;
  let final: ResponseObject | null = null;
  let call: ResumedCall | null = null;
  let failure: string | null = null;
  if (signal.aborted) return { response: cancelledResponse(base, [], null), charged: false };
  try {
    call = ResumedCall.of(deps, body.request.model, requestId, body.caller, signal);
    const answer = await chat(body.request, call, {
      route: '/responses',
      streamEncoder: (ctx) =>
        (encoder = new ResponsesStreamEncoder(
          base,
          requestId,
          () => citedSources(ctx.echo),
          (response) => (final = response),
        )),
    });
    if (!(answer instanceof Response) || !answer.body) throw new Error('the chat call did not answer a stream');
    await drain(answer.body, signal);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  const charged = call?.charged != null;
  if (signal.aborted) return { response: cancelledResponse(base, (encoder as ResponsesStreamEncoder | null)?.output ?? [], call), charged };
  if (final) return { response: final, charged };
  return { response: failedResponse(base, failure ?? 'the response stream ended without its last event'), charged };
}
