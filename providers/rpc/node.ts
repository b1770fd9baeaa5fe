import { BodyTooLarge, responseTextUpTo } from '../../src/net/limited-body';
import { UpstreamFailure } from '../errors';

/** How one node call is made: the client's abort, the node's deadline and the answer's size cap. */
export interface NodeCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
  /** The W3C `traceparent` to send (tracing on): a node that traces joins the request's trace. */
  traceparent?: string;
}

/** A JSON-RPC node: the request text in, the answer text out (throws NodeFailure). */
export interface RpcNode {
  /** How logs and errors name the node (its origin; never a path that may hold an API key). */
  readonly label: string;
  send(body: string, o: NodeCallOptions): Promise<string>;
}

/**
 * A node that failed this call. `skip` marks it unhealthy (down, slow, garbled), so the next
 * calls try other nodes first; an answer over the size cap is not the node's fault and would
 * be as large from any other, so it ends the call without failover.
 */
export class NodeFailure extends UpstreamFailure {
  override name = 'NodeFailure';
  constructor(
    message: string,
    readonly skip: boolean,
  ) {
    super(502, message, skip);
  }
}

/** The origin of a node URL, for logs and messages (a path or query may carry the provider's key). */
export function nodeLabel(url: string): string {
  return new URL(url).origin;
}

const NODE_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/**
 * A node over HTTP. Bun's fetch keeps connections alive and reuses them per origin, so
 * consecutive calls to a node share a connection; the deadline covers the whole answer.
 */
export function httpNode(url: string, doFetch: typeof fetch): RpcNode {
  const label = nodeLabel(url);
  return {
    label,
    async send(body, o) {
      const abort = new AbortController();
      const onClientAbort = () => abort.abort(o.signal.reason);
      if (o.signal.aborted) throw o.signal.reason ?? new Error('aborted');
      o.signal.addEventListener('abort', onClientAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(function rpcNodeTimeout() {
        timedOut = true;
        abort.abort();
      }, o.timeoutMs);
      try {
        const res = await doFetch(url, {
          method: 'POST',
          headers: o.traceparent ? { ...NODE_HEADERS, traceparent: o.traceparent } : NODE_HEADERS,
          body,
          signal: abort.signal,
          keepalive: true,
        });
        if (!res.ok) {
          res.body?.cancel().catch(() => {});
          throw new NodeFailure(`node ${label} answered HTTP ${res.status}`, true);
        }
        return await responseTextUpTo(res, o.maxBytes);
      } catch (error) {
        if (error instanceof NodeFailure) throw error;
        if (o.signal.aborted) throw error;
        if (timedOut) throw new NodeFailure(`node ${label} did not answer within ${o.timeoutMs} ms`, true);
        if (error instanceof BodyTooLarge)
          throw new NodeFailure(`the node's answer is larger than ${o.maxBytes} bytes (rpc.maxResponseBytes)`, false);
        throw new NodeFailure(`node ${label} could not be reached`, true);
      } finally {
        clearTimeout(timer);
        o.signal.removeEventListener('abort', onClientAbort);
      }
    },
  };
}
