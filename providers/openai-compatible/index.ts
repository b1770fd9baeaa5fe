import type { ChatCompletion, UpstreamChatRequest } from '../../src/stream/wire';
import type { Logger } from '../../src/log';
import { DEFAULT_MAX_RESPONSE_BYTES, type ResponseLimits } from '../../src/models/provider-config';
import { BodyTooLarge, responseJsonUpTo, responseTextUpTo } from '../../src/net/limited-body';
import { InBandOpeningError, readOpening } from '../../src/stream/opening';
import { prefetchedStream, type ByteReader } from '../../src/stream/prefetched';
import { UpstreamFailure, upstreamUnavailable } from '../errors';
import type {
  BinaryResult,
  CallOptions,
  Capability,
  EmbeddingResult,
  JsonBody,
  Provider,
  ProviderChatResult,
  UpstreamEmbeddingRequest,
} from '../types';
import { parseEmbeddingsAnswer } from './embeddings-answer';
import { failureForStatus, upstreamCall, type UpstreamAttempt } from './upstream-call';

/** What an OpenAI-compatible upstream needs: where it is, its key, and how to fetch. */
export interface OpenAICompatibleOptions {
  id: string;
  baseURL: string;
  apiKey?: string;
  /** The capabilities this upstream serves (config `capabilities`); all OpenAI paths by default. */
  capabilities?: readonly Capability[];
  /** Injected so tests point providers at fixture servers. */
  fetch: typeof fetch;
  /** Largest answer read per capability (config `maxResponseBytes`); DEFAULT_MAX_RESPONSE_BYTES for the rest. */
  maxResponseBytes?: Partial<ResponseLimits>;
  /** Where an answer over its limit is reported. */
  log?: Logger;
}

/**
 * A chat stream's opening bytes (readOpening): an error event before any content fails the
 * call like the same error as an HTTP status would, and the rest of the stream is dropped.
 */
async function openingOf(first: Uint8Array, reader: ByteReader): Promise<Uint8Array> {
  try {
    return await readOpening(first, reader);
  } catch (error) {
    if (!(error instanceof InBandOpeningError)) throw error;
    await reader.cancel();
    throw failureForStatus(error.status, error.message.slice(0, 500), null);
  }
}

/** A chat stream's native reader as the proxy reads it (one object, no closures per stream); a cancel also aborts the call. */
class ChatStreamReader implements ByteReader {
  constructor(
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly attempt: UpstreamAttempt,
  ) {}

  read(): ReturnType<ByteReader['read']> {
    return this.reader.read() as ReturnType<ByteReader['read']>;
  }

  cancel(): Promise<void> {
    this.attempt.abort.abort();
    return this.reader.cancel().catch(() => {});
  }
}

/** The capabilities whose OpenAI paths this adapter knows. */
export const OPENAI_CAPABILITIES: readonly Capability[] = ['chat', 'embed', 'images', 'speech', 'transcribe'];

/**
 * Any OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, hosted APIs): each
 * capability is its OpenAI path (`/chat/completions`, `/embeddings`, `/images/...`,
 * `/audio/speech`, `/audio/transcriptions`), the normalized request is already the wire
 * format, and the adapter adds the upstream model name, auth and the deadline. Streams are
 * held until their first byte (chat streams until their first content, see readOpening), so
 * a failure before it is still a retryable JSON error; after it, the body is passed on as raw bytes.
 */
export function openAICompatible(o: OpenAICompatibleOptions): Provider {
  const base = o.baseURL.replace(/\/+$/, '');
  const auth: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
  const jsonHeaders = { ...auth, 'content-type': 'application/json' };
  const sseHeaders = { ...jsonHeaders, accept: 'text/event-stream' };
  const capabilities = new Set(o.capabilities ?? OPENAI_CAPABILITIES);
  const limits: ResponseLimits = { ...DEFAULT_MAX_RESPONSE_BYTES, ...o.maxResponseBytes };

  /**
   * The error a failed read of an answer is reported as: over its limit, a broken answer (a
   * retryable 502 that names the limit, logged with the provider and path only, never the
   * URL, which may hold a key); any other as it is. Called from the reader's own catch, so a
   * read builds no closure for it.
   */
  function readFailure(path: string, error: unknown): unknown {
    if (!(error instanceof BodyTooLarge)) return error;
    o.log?.warn('upstream answer over its size limit, not read', { provider: o.id, path, limitBytes: error.limitBytes });
    return upstreamUnavailable(`the upstream answer is larger than ${error.limitBytes} bytes`);
  }

  /** POSTs `body` with the replica's model name and returns the answer as `decode` reads it (under its size limit). */
  function post<T>(path: string, body: JsonBody | FormData, call: CallOptions, decode: (res: Response) => Promise<T>): Promise<T> {
    const form = body instanceof FormData;
    const sent = form ? withModel(body, call.upstreamModel) : JSON.stringify({ ...body, model: call.upstreamModel });
    return upstreamCall(o.fetch, `${base}${path}`, form ? auth : jsonHeaders, sent, call, async (res, attempt) => {
      let answer: T;
      try {
        answer = await decode(res);
      } catch (error) {
        throw readFailure(path, error);
      }
      attempt.end();
      return answer;
    });
  }

  // Set once this upstream refused a base64 request that it then answered as floats.
  let refusesBase64 = false;

  /**
   * `/embeddings`, read as text and scanned, not parsed: the vectors reach the client as the
   * upstream wrote them. A base64 request refused with a 400 (a server that takes floats
   * only) is asked again for floats, converted by the scan, and later ones ask for floats.
   */
  async function embed(req: UpstreamEmbeddingRequest, call: CallOptions): Promise<EmbeddingResult> {
    const ask = (encoding_format: UpstreamEmbeddingRequest['encoding_format']) =>
      post('/embeddings', { ...req, encoding_format }, call, async (res) =>
        parseEmbeddingsAnswer(await responseTextUpTo(res, limits.embed), req.encoding_format),
      );
    if (req.encoding_format === 'float' || refusesBase64) return ask('float');
    try {
      return await ask('base64');
    } catch (error) {
      if (!(error instanceof UpstreamFailure && error.status === 400)) throw error;
      const answer = await ask('float');
      refusesBase64 = true;
      return answer;
    }
  }

  const chatUrl = `${base}/chat/completions`;

  /** A chat answer as JSON, under its size limit. Once per provider, not a closure per call. */
  async function readChatJson(res: Response, attempt: UpstreamAttempt): Promise<ProviderChatResult> {
    let body: ChatCompletion;
    try {
      body = await responseJsonUpTo<ChatCompletion>(res, limits.chat);
    } catch (error) {
      throw readFailure('/chat/completions', error);
    }
    attempt.end();
    return { kind: 'json', body };
  }

  /** A chat stream, held until its first content (readOpening), then passed on as raw bytes. */
  async function readChatStream(res: Response, attempt: UpstreamAttempt): Promise<ProviderChatResult> {
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    if (first.done) throw upstreamUnavailable('the upstream closed the stream before sending anything');
    const direct = new ChatStreamReader(reader, attempt);
    // The end learnt once from the reader, not checked on every read (a promise per chunk).
    const end = () => attempt.end();
    reader.closed.then(end, end);
    return { kind: 'stream', body: prefetchedStream(await openingOf(first.value, direct), direct) };
  }

  return {
    id: o.id,
    simulated: false,
    capabilities,
    chat(req: UpstreamChatRequest, call): Promise<ProviderChatResult> {
      const body = JSON.stringify({ ...req, model: call.upstreamModel });
      return upstreamCall(o.fetch, chatUrl, req.stream ? sseHeaders : jsonHeaders, body, call, req.stream ? readChatStream : readChatJson);
    },
    embed,
    images: (path, body, call) => post(`/images/${path}`, body, call, (res) => responseJsonUpTo<JsonBody>(res, limits.images)),
    transcribe: (body, call) => post('/audio/transcriptions', body, call, (res) => responseJsonUpTo<JsonBody>(res, limits.transcribe)),
    speech(body, call): Promise<BinaryResult> {
      const sent = JSON.stringify({ ...body, model: call.upstreamModel });
      return upstreamCall(o.fetch, `${base}/audio/speech`, jsonHeaders, sent, call, async (res, attempt) => {
        // The first chunk is read under the deadline (a failure before it is a retryable error);
        // the rest is passed on as the upstream sends it, counted against the size limit.
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        const first = await reader.read();
        if (first.done) throw upstreamUnavailable('the upstream answered speech without audio');
        if (first.value.byteLength > limits.speech) throw speechTooLarge(o.log);
        const contentType = res.headers.get('content-type') ?? 'application/octet-stream';
        return {
          body: prefetchedStream(first.value, cappedReader(reader, attempt.abort, limits.speech - first.value.byteLength, o.log), () =>
            attempt.end(),
          ),
          contentType,
        };
      });
    },
  };
}

/** A speech answer past its size limit: a broken answer (502, nothing charged), logged without the URL. */
function speechTooLarge(log?: Logger) {
  log?.warn('upstream speech over its size limit, cut');
  return upstreamUnavailable('the upstream speech is larger than its size limit');
}

/**
 * A reader of the rest of a speech answer that fails the stream past `remaining` bytes (a
 * broken answer: the route charges nothing) and aborts the upstream when cancelled.
 */
function cappedReader(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  abort: AbortController,
  remaining: number,
  log?: Logger,
): ByteReader {
  return {
    async read() {
      const r = await reader.read();
      if (!r.done && (remaining -= r.value.byteLength) < 0) {
        abort.abort();
        throw speechTooLarge(log);
      }
      return r as Awaited<ReturnType<ByteReader['read']>>;
    },
    cancel() {
      abort.abort();
      return reader.cancel().catch(() => {});
    },
  };
}

/** A copy of a multipart body with `model` set to the replica's model name. */
function withModel(form: FormData, model: string): FormData {
  const out = new FormData();
  for (const [key, value] of form.entries()) if (key !== 'model') out.append(key, value);
  out.append('model', model);
  return out;
}
