import type { ChatCompletion, ChunkTransformer, UpstreamChatRequest } from '../stream/wire';
import type { AnyRequestPlugin, PluginContext } from './plugin';

/** No plugin active (the common request): one shared list, not an empty array per request. */
const NONE: readonly AnyRequestPlugin[] = Object.freeze([]);

/**
 * Runs the svc_parameters plugins of one request (DESIGN stage 6): in registry order, only
 * the active ones, so an inactive plugin costs one `isActive` call.
 */
export class PluginRunner {
  constructor(private readonly plugins: readonly AnyRequestPlugin[]) {}

  /** The plugins active for this request, in registry order. */
  active(ctx: PluginContext): readonly AnyRequestPlugin[] {
    let out: AnyRequestPlugin[] | null = null;
    for (const p of this.plugins) if (p.isActive(ctx)) (out ??= []).push(p);
    return out ?? NONE;
  }

  /** Lets each active plugin change the upstream request, one after the other (with none active, no promise). */
  transformRequest(active: readonly AnyRequestPlugin[], req: UpstreamChatRequest, ctx: PluginContext): Promise<void> | undefined {
    return active.length === 0 ? undefined : this.transformRequestOf(active, req, ctx);
  }

  private async transformRequestOf(active: readonly AnyRequestPlugin[], req: UpstreamChatRequest, ctx: PluginContext): Promise<void> {
    for (const p of active) if (p.transformRequest) await p.transformRequest(req, ctx);
  }

  /** The chunk transforms of the active plugins; empty means the stream stays zero-copy. */
  streamTransforms(active: readonly AnyRequestPlugin[], ctx: PluginContext): ChunkTransformer[] {
    const out: ChunkTransformer[] = [];
    for (const p of active) if (p.transformStream) out.push(p.transformStream(ctx));
    return out;
  }

  /** Lets each active plugin change a non-streaming response (with none active, `body` itself: no promise per request). */
  transformResponse(
    active: readonly AnyRequestPlugin[],
    body: ChatCompletion,
    ctx: PluginContext,
  ): ChatCompletion | Promise<ChatCompletion> {
    return active.length === 0 ? body : this.transformResponseOf(active, body, ctx);
  }

  private async transformResponseOf(
    active: readonly AnyRequestPlugin[],
    body: ChatCompletion,
    ctx: PluginContext,
  ): Promise<ChatCompletion> {
    let out = body;
    for (const p of active) if (p.transformResponse) out = await p.transformResponse(out, ctx);
    return out;
  }
}
