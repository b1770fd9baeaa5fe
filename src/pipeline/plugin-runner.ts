import type {
  ChatChunk,
  ChatCompletion,
  ChatRequest,
  ChunkTransformer,
  PluginAnswer,
  PluginContext,
  SettledOutcome,
} from '@svc/plugin-sdk';
import type { Logger } from '../log';
import { pluginHookTimed } from '../metrics/plugins';
import { viewFor, type LoadedPlugin, type RequestPluginContext } from '../plugin-host/context';
import { PluginStop, PluginTimeout, pluginStop } from '../plugin-host/errors';
import { StreamStopped } from '../stream/chunks';

/** An active plugin of one request, with its own view of the context. */
export interface ActivePlugin {
  p: LoadedPlugin;
  ctx: PluginContext;
}

/** A plugin's answer instead of the upstream's, and whose it is. */
export interface RespondedAnswer {
  plugin: string;
  answer: PluginAnswer;
}

/** No plugin active (the common request): one shared list, not an empty array per request. */
const NONE: readonly ActivePlugin[] = Object.freeze([]);

/** `p`, or a rejection once `ms` pass; the timer is cleared either way. */
async function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(reject, ms, new PluginTimeout(ms))))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs the plugins of one request (DESIGN stage 6) in list order, only the active ones, so
 * an inactive plugin costs one `isActive` call. Every hook is timed and counted by plugin;
 * an async hook has the plugin's time budget; a throw becomes the error the client sees,
 * naming the plugin (refusals their own status, failures a 5xx).
 */
export class PluginRunner {
  /** Whether any plugin has `onSettled` (else the pipeline builds no outcome). */
  readonly observes: boolean;

  constructor(
    readonly plugins: readonly LoadedPlugin[],
    private readonly log: Logger,
  ) {
    this.observes = plugins.some((p) => p.plugin.onSettled);
  }

  /** The plugins active for this request, in list order, each with its view of `base`. */
  active(base: RequestPluginContext): readonly ActivePlugin[] {
    let out: ActivePlugin[] | null = null;
    for (const p of this.plugins) {
      let on: boolean;
      try {
        on = p.plugin.isActive(base.as(p));
      } catch (error) {
        throw pluginStop(error, p.name, false, this.log, base.request.requestId);
      }
      if (on) (out ??= []).push({ p, ctx: viewFor(base, p) });
    }
    return out ?? NONE;
  }

  /** Runs one hook of `a` timed, within its budget when it is async; a throw becomes the client's error. */
  private async run<T>(a: ActivePlugin, hook: string, after: boolean, fn: () => T | Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const out = fn();
      return out instanceof Promise ? await within(out, a.p.timeoutMs) : out;
    } catch (error) {
      throw pluginStop(error, a.p.name, after, this.log, a.ctx.request.requestId);
    } finally {
      pluginHookTimed(a.p.name, hook, (performance.now() - started) / 1000);
    }
  }

  /** Lets each active plugin change the upstream request, one after the other (with none active, no promise). */
  transformRequest(active: readonly ActivePlugin[], req: ChatRequest): Promise<void> | undefined {
    return active.length === 0 ? undefined : this.transformRequestOf(active, req);
  }

  private async transformRequestOf(active: readonly ActivePlugin[], req: ChatRequest): Promise<void> {
    for (const a of active)
      if (a.p.plugin.transformRequest) await this.run(a, 'transformRequest', false, () => a.p.plugin.transformRequest!(req, a.ctx));
  }

  /** The first answer of an active plugin's `respond`, in list order; undefined (no promise) when none has the hook. */
  respond(active: readonly ActivePlugin[], req: ChatRequest): Promise<RespondedAnswer | null> | undefined {
    for (const a of active) if (a.p.plugin.respond) return this.respondOf(active, req);
    return undefined;
  }

  private async respondOf(active: readonly ActivePlugin[], req: ChatRequest): Promise<RespondedAnswer | null> {
    for (const a of active) {
      if (!a.p.plugin.respond) continue;
      const answer = await this.run(a, 'respond', false, () => a.p.plugin.respond!(req, a.ctx));
      if (answer) return { plugin: a.p.name, answer };
    }
    return null;
  }

  /** The chunk transforms of the active plugins; empty means the stream stays zero-copy. A throw in one names its plugin. */
  streamTransforms(active: readonly ActivePlugin[], base: RequestPluginContext): ChunkTransformer[] {
    const out: ChunkTransformer[] = [];
    for (const a of active) if (a.p.plugin.transformStream) out.push(this.guarded(a, a.p.plugin.transformStream(a.ctx), base));
    return out;
  }

  /** `t` with its throws turned into the plugin's stop (a refusal mid-stream, or a failure), and its time counted. */
  private guarded(a: ActivePlugin, t: ChunkTransformer, base: RequestPluginContext): ChunkTransformer {
    const { log } = this;
    let last: ChatChunk | null = null;
    // A refusal ends the stream with a content_filter finish; a failure without one. Either is kept for onSettled.
    const fail = (error: unknown) => {
      const stop = pluginStop(error, a.p.name, true, log, a.ctx.request.requestId);
      if (!(stop instanceof PluginStop)) return stop;
      base.shared.stopped = stop;
      const finish: ChatChunk | null =
        stop.reason !== null && last
          ? {
              id: last.id,
              object: 'chat.completion.chunk',
              created: last.created,
              model: last.model,
              choices: [{ index: 0, delta: {}, finish_reason: 'content_filter' }],
            }
          : null;
      return new StreamStopped(stop.body.error, finish);
    };
    return {
      transform(chunk, emit) {
        const started = performance.now();
        last = chunk;
        try {
          t.transform(chunk, emit);
        } catch (error) {
          throw fail(error);
        } finally {
          pluginHookTimed(a.p.name, 'transformStream', (performance.now() - started) / 1000);
        }
      },
      flush: t.flush
        ? (emit) => {
            try {
              t.flush!(emit);
            } catch (error) {
              throw fail(error);
            }
          }
        : undefined,
    };
  }

  /** Lets each active plugin change a non-streaming response (with none active, `body` itself: no promise per request). */
  transformResponse(active: readonly ActivePlugin[], body: ChatCompletion): ChatCompletion | Promise<ChatCompletion> {
    return active.length === 0 ? body : this.transformResponseOf(active, body);
  }

  private async transformResponseOf(active: readonly ActivePlugin[], body: ChatCompletion): Promise<ChatCompletion> {
    let out = body;
    for (const a of active) {
      if (!a.p.plugin.transformResponse) continue;
      const current = out;
      out = await this.run(a, 'transformResponse', true, () => a.p.plugin.transformResponse!(current, a.ctx));
    }
    return out;
  }

  /** Whether an active plugin has `onSettled` (the pipeline then keeps what the outcome needs). */
  observing(active: readonly ActivePlugin[]): boolean {
    if (!this.observes) return false;
    for (const a of active) if (a.p.plugin.onSettled) return true;
    return false;
  }

  /**
   * Hands the outcome to each active plugin's `onSettled`, after the answer (a macrotask
   * later, never awaited by it); a throw or a timeout is logged and counted, never seen by the client.
   */
  settled(active: readonly ActivePlugin[], outcome: SettledOutcome): void {
    setImmediate(() => {
      for (const a of active) {
        if (!a.p.plugin.onSettled) continue;
        this.run(a, 'onSettled', true, () => a.p.plugin.onSettled!(outcome, a.ctx)).catch(() => {});
      }
    });
  }
}
