import { Elysia } from 'elysia';
import { PLUGINS } from '../../plugins';
import { createChatHandler, type ChatCall } from '../chat/completions';
import { composeParameters } from '../chat/parameters';
import { PluginRunner } from '../chat/runner';
import { chatRequestSchema, svcParametersSchema } from '../chat/schema';
import type { AppDeps } from '../deps';
import type { AuthGate } from '../gates/auth';
import type { RequestPlugin } from '../pipeline/types';

const error = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' }, details: { type: 'object' } } },
    },
  },
});

// Documentation only: responses are not validated on the hot path.
const RESPONSES = {
  200: {
    description:
      'A chat.completion (JSON) with `cost` and the `svc_parameters` echo, or an SSE stream of chat.completion.chunk events ending with `data: [DONE]`.',
    content: {
      'application/json': { schema: { type: 'object', required: ['id', 'object', 'created', 'model', 'choices', 'usage'] } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  },
  400: error('Invalid request (DetailedError naming the field, including svc_parameters and model suffix options)'),
  401: error('Authentication failed'),
  402: error('Insufficient balance'),
  404: error('Model or character not found'),
  429: error('Rate limit exceeded'),
  502: error('Upstream error before the first byte (retryable)'),
  503: error('The model is at capacity (retryable)'),
  504: error('The upstream did not respond in time; use stream=true'),
};

/** Options of the chat routes; tests shorten the ping interval or pass their own plugins. */
export interface ChatRouteOptions {
  plugins?: RequestPlugin[];
  /** Keep-alive interval while the upstream is silent (default 15 s). */
  pingIntervalMs?: number;
  /** Upstream idle timeout of a stream (default: config `streamIdleTimeoutMs`). */
  idleTimeoutMs?: number;
}

/** POST /chat/completions, with its request schema composed from the plugins. */
export function chatRoutes(deps: AppDeps, auth: AuthGate, opts: ChatRouteOptions = {}) {
  const plugins = opts.plugins ?? PLUGINS;
  const parameters = composeParameters(plugins);
  const handle = createChatHandler(deps, new PluginRunner(plugins), parameters, {
    pingIntervalMs: opts.pingIntervalMs ?? 15_000,
    idleTimeoutMs: opts.idleTimeoutMs ?? deps.config.streamIdleTimeoutMs,
  });
  return new Elysia({ name: 'svc.routes.chat' }).use(auth).post(
    '/chat/completions',
    // Destructured: Elysia reads which context fields a handler uses from its source, and a
    // handler that takes the whole context makes every request parse cookies, query and headers.
    function createChatCompletion({ body, svc, request, set, server }) {
      return handle({ body, svc, request, set, server } as unknown as ChatCall);
    },
    {
      auth: 'INFERENCE',
      // JSON whatever the Content-Type says (curl -d sends form-urlencoded).
      parse: 'json',
      body: chatRequestSchema(svcParametersSchema(parameters.properties)),
      detail: {
        operationId: 'createChatCompletion',
        summary: 'Chat completions',
        tags: ['Chat'],
        security: [{ BearerAuth: [] }, { siwx: [] }],
        responses: RESPONSES as never,
        description:
          'OpenAI-compatible chat completions, streaming (SSE, ending with `data: [DONE]`) or not. ' +
          '`svc_parameters` may also be given as a model suffix `<model>:<option>=<value>&...` (URL-decoded); suffix values override the body. ' +
          'Responses carry `cost {usd, diem}` and the `svc_parameters` echo; streams end with a usage chunk (with cost) when `stream_options.include_usage` is set. ' +
          'A failure after the stream started arrives in-band as `data: {"error": {...}}` followed by `data: [DONE]`.',
      },
    },
  );
}
