import { Elysia } from 'elysia';
import { PLUGINS } from '../../plugins';
import { createChatHandler, type ChatCall } from '../chat/completions';
import { composeParameters } from '../chat/parameters';
import { PluginRunner } from '../chat/runner';
import { chatRequestSchema, svcParametersSchema } from '../chat/schema';
import type { AppDeps } from '../deps';
import type { AuthGate } from '../gates/auth';
import type { RequestPlugin } from '../pipeline/types';

/** Options of the chat routes; tests shorten the ping interval or pass their own plugins. */
export interface ChatRouteOptions {
  plugins?: RequestPlugin[];
  /** Keep-alive interval while the upstream is silent (default 15 s). */
  pingIntervalMs?: number;
}

/** POST /chat/completions, with its request schema composed from the plugins. */
export function chatRoutes(deps: AppDeps, auth: AuthGate, opts: ChatRouteOptions = {}) {
  const plugins = opts.plugins ?? PLUGINS;
  const parameters = composeParameters(plugins);
  const handle = createChatHandler(deps, new PluginRunner(plugins), parameters, { pingIntervalMs: opts.pingIntervalMs ?? 15_000 });
  return new Elysia({ name: 'svc.routes.chat' }).use(auth).post(
    '/chat/completions',
    function createChatCompletion(c) {
      return handle(c as unknown as ChatCall);
    },
    {
      auth: 'INFERENCE',
      body: chatRequestSchema(svcParametersSchema(parameters.properties)),
      detail: {
        operationId: 'createChatCompletion',
        summary: 'Chat completions',
        tags: ['Chat'],
        security: [{ BearerAuth: [] }, { siwx: [] }],
        description:
          'OpenAI-compatible chat completions, streaming (SSE, ending with `data: [DONE]`) or not. ' +
          '`svc_parameters` may also be given as a model suffix `<model>:<option>=<value>&...` (URL-decoded); suffix values override the body. ' +
          'Responses carry `cost {usd, diem}` and the `svc_parameters` echo; streams end with a usage chunk (with cost) when `stream_options.include_usage` is set. ' +
          'A failure after the stream started arrives in-band as `data: {"error": {...}}` followed by `data: [DONE]`.',
      },
    },
  );
}
