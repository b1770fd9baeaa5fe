import type { ChatChunk, ChatCompletion, ChatRequest, ChunkTransformer, PluginAnswer, SettledOutcome } from '@svc/plugin-sdk';
import type { Logger } from '../log';
import type { Hook } from '../metrics/plugins';
import { viewFor, type LoadedPlugin, type RequestPluginContext } from '../plugin-host/context';
import { PluginStop, PluginTimeout, pluginStop } from '../plugin-host/errors';
import { StreamStopped } from '../stream/chunks';

/** An active plugin of one request. */
export type ActivePlugin = LoadedPlugin;

/** A plugin's answer instead of the upstream's, and whose it is. */
export interface RespondedAnswer {
  plugin: string;
  answer: PluginAnswer;
}

/** No plugin active: one shared list, not an empty array per request. */
const NONE: readonly ActivePlugin[] = Object.freeze([]);

/**
 * `p`, or a rejection once `ms` pass; the timer is cleared either way. The timeout error (an
 * Error captures a stack) is made only when the timer fires: most hooks answer in time, and
 * a cache hit runs this once per request.
 */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  const w = Promise.withResolvers<T>() as PromiseWithResolvers<T> & { timer: number | ReturnType<typeof setTimeout> };
  w.timer = setTimeout(timedOut, ms, w, ms);
  p.then(
    (value) => {
      clearTimeout(w.timer);
      w.resolve(value);
    },
    (error: unknown) => {
      clearTimeout(w.timer);
      w.reject(error);
    },
  );
  return w.promise;
}

function timedOut(w: PromiseWithResolvers<unknown>, ms: number): void {
  w.reject(new PluginTimeout(ms));
}

/**
 * Runs the plugins of one request (DESIGN stage 6) in list order, only the active ones, so
 * an inactive plugin costs one `isActive` call. Every hook is timed and counted by plugin;
 * an async hook has the plugin's time budget; a throw becomes the error the client sees,
 * naming the plugin (refusals their own status, failures a 5xx). The hooks that run one
 * after the other share the request's context, pointed at each plugin in turn: no object
 * per plugin per request.
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

  /** The plugins active for this request, in list order. */
  active(base: RequestPluginContext): readonly ActivePlugin[] {
    let out: ActivePlugin[] | null = null;
    for (const p of this.plugins) {
      let on: boolean;
      try {
        on = p.plugin.isActive(base.as(p));
      } catch (error) {
        throw pluginStop(error, p.name, false, this.log, base.requestId);
      }
      if (on) (out ??= []).push(p);
    }
    return out ?? NONE;
  }

  /** The error a hook's throw becomes (its time counted). */
  private failed(p: LoadedPlugin, hook: Hook, after: boolean, requestId: string, started: number, error: unknown): Error {
    p.meters.timed(hook, (performance.now() - started) / 1000);
    return pluginStop(error, p.name, after, this.log, requestId);
  }

  /**
   * What a hook of `p` returned, timed: the value at once when the hook was synchronous,
   * else a promise within the plugin's time budget (a rejection becomes the client's error).
   * The call sites call the hook themselves: a closure per call would cost every request.
   */
  private finish<T>(p: LoadedPlugin, hook: Hook, after: boolean, requestId: string, started: number, out: T | Promise<T>): T | Promise<T> {
    if (!(out instanceof Promise)) {
      p.meters.timed(hook, (performance.now() - started) / 1000);
      return out;
    }
    return within(out, p.timeoutMs).then(
      (value) => {
        p.meters.timed(hook, (performance.now() - started) / 1000);
        return value;
      },
      (error: unknown) => {
        p.meters.timed(hook, (performance.now() - started) / 1000);
        throw pluginStop(error, p.name, after, this.log, requestId);
      },
    );
  }

  /** Lets each active plugin change the upstream request, one after the other (with none active, no promise). */
  transformRequest(active: readonly ActivePlugin[], req: ChatRequest, base: RequestPluginContext): Promise<void> | undefined {
    return active.length === 0 ? undefined : this.transformRequestOf(active, req, base);
  }

  private async transformRequestOf(active: readonly ActivePlugin[], req: ChatRequest, base: RequestPluginContext): Promise<void> {
    const { requestId } = base;
    for (const p of active) {
      if (!p.plugin.transformRequest) continue;
      const started = performance.now();
      let out;
      try {
        out = p.plugin.transformRequest(req, base.as(p));
      } catch (error) {
        throw this.failed(p, 'transformRequest', false, requestId, started, error);
      }
      const done = this.finish(p, 'transformRequest', false, requestId, started, out);
      if (done) await done;
    }
  }

  /** The first answer of an active plugin's `respond`, in list order; undefined (no promise) when none has the hook. */
  respond(active: readonly ActivePlugin[], req: ChatRequest, base: RequestPluginContext): Promise<RespondedAnswer | null> | undefined {
    for (const p of active) if (p.plugin.respond) return this.respondOf(active, req, base);
    return undefined;
  }

  private async respondOf(active: readonly ActivePlugin[], req: ChatRequest, base: RequestPluginContext): Promise<RespondedAnswer | null> {
    for (const p of active) {
      if (!p.plugin.respond) continue;
      const started = performance.now();
      let out;
      try {
        out = p.plugin.respond(req, base.as(p));
      } catch (error) {
        throw this.failed(p, 'respond', false, base.requestId, started, error);
      }
      const answer = await this.finish(p, 'respond', false, base.requestId, started, out);
      if (answer) return { plugin: p.name, answer };
    }
    return null;
  }

  /** The chunk transforms of the active plugins (each with its own view); empty means the stream stays zero-copy. */
  streamTransforms(active: readonly ActivePlugin[], base: RequestPluginContext): ChunkTransformer[] {
    const out: ChunkTransformer[] = [];
    for (const p of active) if (p.plugin.transformStream) out.push(this.guarded(p, p.plugin.transformStream(viewFor(base, p)), base));
    return out;
  }

  /** `t` with its throws turned into the plugin's stop (a refusal mid-stream, or a failure), and its time counted. */
  private guarded(p: LoadedPlugin, t: ChunkTransformer, base: RequestPluginContext): ChunkTransformer {
    const { log } = this;
    let last: ChatChunk | null = null;
    // A refusal ends the stream with a content_filter finish; a failure without one. Either is kept for onSettled.
    const fail = (error: unknown) => {
      const stop = pluginStop(error, p.name, true, log, base.requestId);
      if (!(stop instanceof PluginStop)) return stop;
      base.stopped = stop;
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
          p.meters.timed('transformStream', (performance.now() - started) / 1000);
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
      end: t.end
        ? async (emit) => {
            try {
              await this.finish(p, 'transformStream', true, base.requestId, performance.now(), t.end!(emit));
            } catch (error) {
              throw fail(error);
            }
          }
        : undefined,
    };
  }

  /**
   * Lets each active plugin change a non-streaming response (with none active, `body` itself:
   * no promise per request). A `shared` body (a plugin's answer, which others may be served
   * too) is deep-copied first, since a transform may change it in place.
   */
  transformResponse(
    active: readonly ActivePlugin[],
    body: ChatCompletion,
    base: RequestPluginContext,
    shared = false,
  ): ChatCompletion | Promise<ChatCompletion> {
    for (const p of active)
      if (p.plugin.transformResponse) return this.transformResponseOf(active, shared ? structuredClone(body) : body, base);
    return body;
  }

  private async transformResponseOf(
    active: readonly ActivePlugin[],
    body: ChatCompletion,
    base: RequestPluginContext,
  ): Promise<ChatCompletion> {
    let out = body;
    for (const p of active) {
      if (!p.plugin.transformResponse) continue;
      const started = performance.now();
      let next;
      try {
        next = p.plugin.transformResponse(out, base.as(p));
      } catch (error) {
        throw this.failed(p, 'transformResponse', true, base.requestId, started, error);
      }
      out = await this.finish(p, 'transformResponse', true, base.requestId, started, next);
    }
    return out;
  }

  /** Whether an active plugin has `transformResponse` (it may change a JSON answer in place). */
  changesResponse(active: readonly ActivePlugin[]): boolean {
    for (const p of active) if (p.plugin.transformResponse) return true;
    return false;
  }

  /** Whether an active plugin has `onSettled` (the pipeline then keeps what the outcome needs). */
  observing(active: readonly ActivePlugin[]): boolean {
    if (!this.observes) return false;
    for (const p of active) if (p.plugin.onSettled) return true;
    return false;
  }

  /**
   * Hands the outcome to each active plugin's `onSettled` (each with its own view: they run
   * together), after the answer (a macrotask later, never awaited by it); a throw or a
   * timeout is logged and counted, never seen by the client.
   */
  settled(active: readonly ActivePlugin[], base: RequestPluginContext, outcome: SettledOutcome): void {
    setImmediate(() => {
      for (const p of active) {
        if (!p.plugin.onSettled) continue;
        const started = performance.now();
        try {
          const done = this.finish(p, 'onSettled', true, outcome.requestId, started, p.plugin.onSettled(outcome, viewFor(base, p)));
          if (done instanceof Promise) done.catch(() => {});
        } catch (error) {
          this.failed(p, 'onSettled', true, outcome.requestId, started, error); // logged and counted, never thrown
        }
      }
    });
  }
}
