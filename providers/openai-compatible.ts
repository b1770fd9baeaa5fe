import type { ChatCompletion, ChatProvider, ProviderChatResult, UpstreamChatRequest } from '../src/pipeline/types';
import { prefetchedStream, type ByteReader } from '../src/stream/prefetched';
import { upstreamAtCapacity, upstreamRejected, upstreamTimeout, upstreamUnavailable } from './errors';

/** What an OpenAI-compatible upstream needs: where it is, its key, and how to fetch. */
export interface OpenAICompatibleOptions {
  id: string;
  baseURL: string;
  apiKey?: string;
  /** Injected so tests point providers at fixture servers. */
  fetch: typeof fetch;
}

/** Reads at most `limit` characters of an error body, for a message that never echoes secrets. */
async function errorDetail(res: Response): Promise<string> {
  const text = (await res.text().catch(() => '')).slice(0, 2000);
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: string };
    const msg = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message ?? body.detail);
    if (typeof msg === 'string') return msg.slice(0, 500);
  } catch {}
  return `HTTP ${res.status}`;
}

/** Turns a non-2xx upstream status into the error the router and client see. */
async function statusError(res: Response) {
  const detail = await errorDetail(res);
  if (res.status === 429 || res.status === 503) return upstreamAtCapacity(res.headers.get('retry-after'));
  // 401/403/404 mean svc's key or model mapping is wrong for this replica, not the client's
  // request: a 502 that another replica may not have.
  if (res.status >= 500 || res.status === 401 || res.status === 403 || res.status === 404)
    return upstreamUnavailable(`the upstream answered ${res.status}`);
  return upstreamRejected(res.status, detail);
}

/**
 * Any OpenAI-compatible chat server (vLLM, SGLang, llama.cpp, Ollama, hosted APIs): the
 * normalized request is already its wire format, so this only adds the upstream model name,
 * auth and the timeout. Streams are held until their first byte, so that a failure before it
 * is still a retryable JSON error; after it, the body is passed on as raw bytes.
 */
export function openAICompatible(o: OpenAICompatibleOptions): ChatProvider {
  const url = `${o.baseURL.replace(/\/+$/, '')}/chat/completions`;
  const baseHeaders: Record<string, string> = { 'content-type': 'application/json' };
  if (o.apiKey) baseHeaders.authorization = `Bearer ${o.apiKey}`;

  return {
    id: o.id,
    simulated: false,
    async chat(req: UpstreamChatRequest, opts): Promise<ProviderChatResult> {
      const abort = new AbortController();
      const onClientAbort = () => abort.abort(opts.signal.reason);
      if (opts.signal.aborted) abort.abort(opts.signal.reason);
      else opts.signal.addEventListener('abort', onClientAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(function upstreamFirstByteTimeout() {
        timedOut = true;
        abort.abort();
      }, opts.timeoutMs);
      const fail = (error: unknown): never => {
        clearTimeout(timer);
        opts.signal.removeEventListener('abort', onClientAbort);
        if (timedOut) throw upstreamTimeout(opts.timeoutMs);
        if (opts.signal.aborted) throw error;
        throw upstreamUnavailable('the upstream could not be reached');
      };

      let res: Response;
      try {
        res = await o.fetch(url, {
          method: 'POST',
          headers: req.stream ? { ...baseHeaders, accept: 'text/event-stream' } : baseHeaders,
          body: JSON.stringify({ ...req, model: opts.upstreamModel }),
          signal: abort.signal,
        });
      } catch (error) {
        return fail(error);
      }
      if (!res.ok) {
        clearTimeout(timer);
        opts.signal.removeEventListener('abort', onClientAbort);
        throw await statusError(res);
      }

      if (!req.stream) {
        try {
          const body = (await res.json()) as ChatCompletion;
          clearTimeout(timer);
          opts.signal.removeEventListener('abort', onClientAbort);
          return { kind: 'json', body, replica: o.id };
        } catch (error) {
          return fail(error);
        }
      }

      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let first: Awaited<ReturnType<typeof reader.read>>;
      try {
        first = await reader.read();
      } catch (error) {
        return fail(error);
      }
      clearTimeout(timer);
      if (first.done) throw upstreamUnavailable('the upstream closed the stream before sending anything');
      const body = prefetchedStream(
        first.value,
        {
          read: () => reader.read() as ReturnType<ByteReader['read']>,
          cancel() {
            abort.abort();
            return reader.cancel().catch(() => {});
          },
        },
        () => opts.signal.removeEventListener('abort', onClientAbort),
      );
      return { kind: 'stream', body, replica: o.id };
    },
  };
}
