import type { ChatCompletion, ChatContext, ChunkTransformer, RequestPlugin, UpstreamChatRequest } from '../pipeline/types';

/**
 * Runs the svc_parameters plugins of one request (DESIGN stage 6): in registry order, only
 * the active ones, so an inactive plugin costs one `isActive` call.
 */
export class PluginRunner {
  constructor(private readonly plugins: RequestPlugin[]) {}

  /** The plugins active for this request, in registry order. */
  active(ctx: ChatContext): RequestPlugin[] {
    const out: RequestPlugin[] = [];
    for (const p of this.plugins) if (p.isActive(ctx)) out.push(p);
    return out;
  }

  /** Lets each active plugin change the upstream request, one after the other. */
  async transformRequest(active: RequestPlugin[], req: UpstreamChatRequest, ctx: ChatContext): Promise<void> {
    for (const p of active) if (p.transformRequest) await p.transformRequest(req, ctx);
  }

  /** The chunk transforms of the active plugins; empty means the stream stays zero-copy. */
  streamTransforms(active: RequestPlugin[], ctx: ChatContext): ChunkTransformer[] {
    const out: ChunkTransformer[] = [];
    for (const p of active) if (p.transformStream) out.push(p.transformStream(ctx));
    return out;
  }

  /** Lets each active plugin change a non-streaming response. */
  async transformResponse(active: RequestPlugin[], body: ChatCompletion, ctx: ChatContext): Promise<ChatCompletion> {
    let out = body;
    for (const p of active) if (p.transformResponse) out = await p.transformResponse(out, ctx);
    return out;
  }
}
