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
import type { PluginMeters } from '../metrics/plugins';
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
  /** Its hook calls and times in /metrics. */
  meters: PluginMeters;
}

/** The options of the context before any plugin's turn: shared, never written. */
const NO_OPTIONS: Record<string, unknown> = Object.freeze({});
/** A caller without a key: nothing attached through the ADMIN API. */
const NONE_ASSIGNED = Object.freeze({ key: [] as string[], account: [] as string[] });

/** What a request's plugin context needs of its call. */
export interface ContextCall {
  readonly request: RequestContext;
  /** The client's request headers. */
  readonly clientHeaders: Headers;
  readonly headers: Record<string, string | number>;
  readonly signal: AbortSignal;
}

/**
 * The plugin context of one chat request. The hooks that run one after the other
 * (isActive, transformRequest, respond, transformResponse) get it pointed at their plugin
 * (`as`); those whose work outlives their turn (a stream transform, onSettled) get a view of
 * their own (`viewFor`). Its request summary is built only when a plugin reads it.
 */
export class RequestPluginContext implements PluginContext {
  plugin = '';
  options: Record<string, unknown> = NO_OPTIONS;
  store!: PluginStore;
  readonly extraCharges: PluginCharge[] = [];
  readonly echo: Record<string, unknown> = {};
  readonly notes: Record<string, string> = {};
  readonly leadingChunks: ChatChunk[] = [];
  readonly signal: AbortSignal;
  /** The plugin that stopped the stream, if one did (views write it here: `root`). */
  stopped: PluginStop | null = null;
  /** The request's context itself, also from a view. */
  readonly root: RequestPluginContext = this;
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

  /** The request id, without building the request summary. */
  get requestId(): string {
    return this.call.request.requestId;
  }

  get request(): PluginRequest {
    if (this.summary) return this.summary;
    const { requestId, startedAt, caller } = this.call.request;
    this.summary = {
      requestId,
      startedAt,
      accountId: caller?.accountId ?? null,
      keyId: caller?.apiKey?.id ?? null,
      assignedGuardrails: caller?.apiKey?.guardrails ?? NONE_ASSIGNED,
      route: this.route,
      headers: this.call.clientHeaders,
    };
    return this.summary;
  }

  setHeader(name: string, value: string): void {
    this.call.headers[name.toLowerCase()] = value;
  }

  /** Points the context at `p` for its turn (a hook the runner awaits before the next plugin's). */
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
