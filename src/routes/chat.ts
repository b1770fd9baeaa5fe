import { Elysia } from 'elysia';
import { PLUGINS } from '../../plugins';
import { createChatHandler, type ChatRequestBody } from '../chat/completions';
import { composeParameters } from '../chat/parameters';
import { PluginRunner } from '../pipeline/plugin-runner';
import { baseServices, loadPlugins, pluginSpecs } from '../plugin-host';
import { pluginOptions, type LoadedPackages, type PluginSpec } from '../plugin-host/entries';
import { chatRequestSchema, svcParametersSchema } from '../chat/schema';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { errorResponse as error } from './responses';
import type { AnyPlugin } from '@svc/plugin-sdk';
import { withExample } from '../http/openapi-example';

// Documentation only: responses are not validated on the hot path.
const RESPONSES = {
  200: {
    description:
      'A chat.completion (JSON) with `cost` and the `svc_parameters` echo, or an SSE stream of chat.completion.chunk events ending with `data: [DONE]`.',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['id', 'object', 'created', 'model', 'choices', 'usage'],
          properties: {
            id: { type: 'string' },
            object: { type: 'string', enum: ['chat.completion'] },
            created: { type: 'integer' },
            model: { type: 'string' },
            choices: { type: 'array', items: { type: 'object' } },
            usage: { type: 'object' },
            cost: { type: 'object', properties: { usd: { type: 'number' }, diem: { type: 'number' } } },
            svc_parameters: { type: 'object' },
          },
        },
      },
      'text/event-stream': { schema: { type: 'string' } },
    },
  },
  400: error('Invalid request (DetailedError naming the field, including svc_parameters, model suffix options and fallbacks)'),
  401: error('Authentication failed'),
  402: error('Insufficient balance'),
  404: error('Model or character not found'),
  415: error('The body is declared as something other than JSON (text/plain, XML, a form); the message names its type'),
  422: error('The provider refused the content (x-svc-is-content-violation: true); nothing charged'),
  429: error('Rate limit exceeded'),
  502: error('Upstream error before the first byte (retryable)'),
  503: error('The model is at capacity (retryable)'),
  504: error('The upstream did not respond in time; use stream=true'),
};

/** Options of the chat routes; tests shorten the ping interval or pass their own plugins. */
export interface ChatRouteOptions {
  /** The plugins instead of the config's list (tests): a plugin (default options) or a spec with options. */
  plugins?: (AnyPlugin | PluginSpec)[];
  /** The packages the config's `plugins:` names, imported before the app is built (boot). */
  packages?: LoadedPackages;
  /** Keep-alive interval while the upstream is silent (default 15 s). */
  pingIntervalMs?: number;
  /** Upstream idle timeout of a stream (default: config `streamIdleTimeoutMs`). */
  idleTimeoutMs?: number;
}

/**
 * The chat pipeline of a route: the plugins' composed `svc_parameters` schema and the chat
 * handler over them. Chat completions and the Responses API (which translates to chat) each
 * build theirs from the same options, so both run the same plugins and suffix parser.
 */
export function chatPipeline(deps: AppDeps, opts: ChatRouteOptions = {}) {
  const specs = opts.plugins?.map(asSpec) ?? pluginSpecs(deps, PLUGINS, opts.packages);
  const loaded = loadPlugins(deps, specs);
  const parameters = composeParameters(specs.map((s) => s.plugin));
  const handle = createChatHandler(baseServices(deps), new PluginRunner(loaded, deps.log), parameters, {
    pingIntervalMs: opts.pingIntervalMs ?? 15_000,
    idleTimeoutMs: opts.idleTimeoutMs ?? deps.config.streamIdleTimeoutMs,
  });
  return { handle, svcParameters: svcParametersSchema(parameters.properties) };
}

/** POST /chat/completions, with its request schema composed from the plugins. */
export function chatRoutes(deps: AppDeps, stages: Stages, opts: ChatRouteOptions = {}) {
  const { handle, svcParameters } = chatPipeline(deps, opts);
  const schema = chatRequestSchema(svcParameters);
  return new Elysia({ name: 'svc.routes.chat' }).use(stages).post(
    '/chat/completions',
    // Destructured: Elysia reads which context fields a handler uses from its source, and a
    // handler that takes the whole context makes every request parse cookies, query and headers.
    function createChatCompletion({ body, call }) {
      return handle(body as ChatRequestBody, call);
    },
    {
      meter: { type: 'text' },
      // JSON whatever the Content-Type says (curl -d sends form-urlencoded).
      parse: 'json',
      body: withExample(schema, { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Write a haiku about gateways.' }] }),
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
          'A failure after the stream started arrives in-band as `data: {"error": {...}}` followed by `data: [DONE]`, after a usage chunk with cost when it was charged. ' +
          "Every choice (`n`) is reserved in full and never charged beyond that reservation; `n` above the model's bound (default 8) is a 400. " +
          "`fallbacks` (or the model's configured fallbacks) names models tried in order when every replica of `model` is at capacity or failing before the first byte; `x-svc-model-id` names the model that answered, the reservation is priced at the dearest candidate and the charge at the model used. " +
          "Prompt-cache reads and writes reported by the provider are charged at the model's cache prices, as their own usage lines.",
      },
    },
  );
}

/** A plugin given in code (tests, the plugin test kit) as a spec: its options validated, defaults applied. */
function asSpec(p: AnyPlugin | PluginSpec): PluginSpec {
  const spec: PluginSpec = 'plugin' in p && typeof p.plugin === 'object' ? (p as PluginSpec) : { plugin: p as AnyPlugin, options: {} };
  return { ...spec, options: pluginOptions(spec.plugin, spec.options, ['plugins', spec.plugin.name]) };
}
