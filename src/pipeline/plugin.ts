import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { ExtraCharge } from '../billing/meter';
import type { Characters } from '../characters';
import type { RequestContext } from '../http/request-context';
import type { Logger } from '../log';
import type { ModelEntry } from '../models/catalog';
import type { GuardOptions } from '../net/guarded-fetch';
import type { ChatChunk, ChatCompletion, ChunkTransformer, UpstreamChatRequest } from '../stream/wire';
import type { WebTools } from '../../providers/search';

/**
 * What plugins may use beyond the request: config, log, clock, the SSRF-guarded outbound
 * fetch settings, web search and characters. Never the database or the whole app.
 */
export interface PluginServices {
  /** The settings a plugin reads, named here rather than the app's whole config. */
  config: { systemPrompt: string; allowPrivateUrls: boolean };
  log: Logger;
  /** Wall clock in epoch ms (tests inject a fake one). */
  now: () => number;
  /** The base of every user-URL fetch (guardedFetch): the operator's private-address switch and the injected fetch. */
  urlGuard: Pick<GuardOptions, 'allowPrivate' | 'fetch'>;
  /** The configured search engine and web-tool prices. */
  web: WebTools;
  /** The character store, seeded. */
  characters: Characters;
}

/** What a plugin sees and may add to while one chat request runs. `P` is the plugin's own parameters. */
export interface PluginContext<P = Record<string, unknown>> {
  request: RequestContext;
  services: PluginServices;
  model: ModelEntry;
  /** svc_parameters after merging body and model suffix, with defaults applied: this plugin's typed, the others' readable. */
  params: P & Record<string, unknown>;
  /** Aborted when the client disconnects or the request times out. */
  signal: AbortSignal;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** Extra line items to charge at settlement (web search, scraping, x-search). */
  extraCharges: ExtraCharge[];
  /** Fields merged into the response's `svc_parameters` echo (e.g. web_search_citations). */
  echo: Record<string, unknown>;
  /** Chunks emitted before the first upstream chunk (e.g. search results). */
  leadingChunks: ChatChunk[];
}

/**
 * A `svc_parameters` option (DESIGN "The request pipeline", stage 6). One folder in
 * plugins/ and one line in plugins/index.ts. Its `parameters` are composed into the
 * request schema and the OpenAPI description; `Params` is what its hooks read in `ctx.params`.
 */
export interface RequestPlugin<Params = Record<string, unknown>> {
  /** Unique plugin name, usually its main parameter. */
  name: string;
  /** TypeBox properties this plugin adds to `svc_parameters` (each optional, with a default). */
  parameters: TProperties;
  /** Parameter names accepted as model suffixes (`model:key=value`); defaults to none. */
  suffixKeys?: string[];
  /** Whether the plugin does anything for this request; inactive plugins cost nothing. */
  isActive(ctx: PluginContext<Params>): boolean;
  /** Changes the upstream request (system prompts, search context, native options). */
  transformRequest?(req: UpstreamChatRequest, ctx: PluginContext<Params>): void | Promise<void>;
  /** A chunk transform; its presence turns off zero-copy streaming for this request. */
  transformStream?(ctx: PluginContext<Params>): ChunkTransformer;
  /** Changes a non-streaming response. */
  transformResponse?(body: ChatCompletion, ctx: PluginContext<Params>): ChatCompletion | Promise<ChatCompletion>;
}

/** A plugin as the runner holds it, whatever its parameters. */
export type AnyRequestPlugin = RequestPlugin;

/**
 * Declares a plugin with `ctx.params` typed from its own TypeBox properties, so no plugin
 * casts its parameters (and its `parameters` keep their types, for typed clients). The runner's context was validated against the composed schema,
 * which includes this plugin's properties, so the typing holds when the runner calls it.
 */
export function definePlugin<P extends TProperties>(
  plugin: RequestPlugin<Static<TObject<P>>> & { parameters: P; suffixKeys?: (keyof P & string)[] },
): Omit<RequestPlugin, 'parameters'> & { parameters: P } {
  return plugin as unknown as Omit<RequestPlugin, 'parameters'> & { parameters: P };
}
