import type { ChatCompletion, ChunkTransformer, UpstreamChatRequest } from '../stream/wire';
import type { AnyRequestPlugin, PluginContext } from './plugin';

/**
 * Runs the svc_parameters plugins of one request (DESIGN stage 6): in registry order, only
 * the active ones, so an inactive plugin costs one `isActive` call.
 */
export class PluginRunner {
  constructor(private readonly plugins: readonly AnyRequestPlugin[]) {}

  /** The plugins active for this request, in registry order. */
  active(ctx: PluginContext): AnyRequestPlugin[] {
    const out: AnyRequestPlugin[] = [];
    for (const p of this.plugins) if (p.isActive(ctx)) out.push(p);
    return out;
  }

  /** Lets each active plugin change the upstream request, one after the other. */
  async transformRequest(active: AnyRequestPlugin[], req: UpstreamChatRequest, ctx: PluginContext): Promise<void> {
    for (const p of active) if (p.transformRequest) await p.transformRequest(req, ctx);
  }

  /** The chunk transforms of the active plugins; empty means the stream stays zero-copy. */
  streamTransforms(active: AnyRequestPlugin[], ctx: PluginContext): ChunkTransformer[] {
    const out: ChunkTransformer[] = [];
    for (const p of active) if (p.transformStream) out.push(p.transformStream(ctx));
    return out;
  }

  /** Lets each active plugin change a non-streaming response. */
  async transformResponse(active: AnyRequestPlugin[], body: ChatCompletion, ctx: PluginContext): Promise<ChatCompletion> {
    let out = body;
    for (const p of active) if (p.transformResponse) out = await p.transformResponse(out, ctx);
    return out;
  }
}
