import type {
  AnyPlugin,
  ChatChunk,
  PluginCharge,
  PluginContext,
  PluginModel,
  PluginRequest,
  PluginServices,
  PluginStore,
} from '@svc/plugin-sdk';
import type { RequestContext } from '../http/request-context';
import type { PluginStop } from './errors';

/** A plugin as the pipeline runs it: its code, the operator's options, its store, its services and its time budget. */
export interface LoadedPlugin {
  name: string;
  plugin: AnyPlugin;
  options: Record<string, unknown>;
  store: PluginStore;
  services: PluginServices;
  /** A hook's time budget in ms (config `pluginTimeoutMs`, or the entry's own). */
  timeoutMs: number;
}

/** What a request's plugin context needs of its call. */
export interface ContextCall {
  readonly request: RequestContext;
  /** The client's request headers. */
  readonly clientHeaders: Headers;
  readonly headers: Record<string, string | number>;
  readonly signal: AbortSignal;
}

/**
 * The plugin context of one chat request. Each active plugin sees it through its own view
 * (`viewFor`: its name, options, store and services over the shared request state); its
 * request summary is built only when a plugin reads it.
 */
export class RequestPluginContext implements PluginContext {
  plugin = '';
  options: Record<string, unknown> = {};
  store!: PluginStore;
  readonly extraCharges: PluginCharge[] = [];
  readonly echo: Record<string, unknown> = {};
  readonly leadingChunks: ChatChunk[] = [];
  readonly signal: AbortSignal;
  /** What every view shares and writes: the plugin that stopped the stream, if one did. */
  readonly shared: { stopped: PluginStop | null } = { stopped: null };
  private summary: PluginRequest | null = null;

  constructor(
    private readonly call: ContextCall,
    /** The services before any plugin's view (svc's own log and clock). */
    public services: PluginServices,
    readonly model: PluginModel,
    readonly params: Record<string, unknown>,
    readonly stream: boolean,
    readonly route: string,
  ) {
    this.signal = call.signal;
  }

  get request(): PluginRequest {
    if (this.summary) return this.summary;
    const { requestId, startedAt, caller } = this.call.request;
    this.summary = {
      requestId,
      startedAt,
      accountId: caller?.accountId ?? null,
      keyId: caller?.apiKey?.id ?? null,
      route: this.route,
      headers: this.call.clientHeaders,
    };
    return this.summary;
  }

  setHeader(name: string, value: string): void {
    this.call.headers[name.toLowerCase()] = value;
  }

  /** Points the shared context at `p` for one synchronous call (isActive). */
  as(p: LoadedPlugin): this {
    this.plugin = p.name;
    this.options = p.options;
    this.store = p.store;
    this.services = p.services;
    return this;
  }
}

/** `p`'s own view of the request's context: its name, options, store and services; the rest shared. */
export function viewFor(base: RequestPluginContext, p: LoadedPlugin): PluginContext {
  const view = Object.create(base) as RequestPluginContext;
  view.plugin = p.name;
  view.options = p.options;
  view.store = p.store;
  view.services = p.services;
  return view;
}
