import type { ChatCompletion, UpstreamChatRequest } from '../src/stream/wire';

/** How one upstream call is made: the model name the upstream knows, its deadline and the client's abort. */
export interface CallOptions {
  signal: AbortSignal;
  /** The model name this replica expects (the route's `model`, else the svc id). */
  upstreamModel: string;
  /** Time allowed before the first byte, in ms. */
  timeoutMs: number;
  /** The W3C `traceparent` header to send (tracing on): the upstream continues the client's trace. */
  traceparent?: string;
}

/** What a provider returns for a chat call. */
export type ProviderChatResult =
  /** Upstream SSE bytes (already `data: {chunk}\n\n` framed), passed on untouched when no plugin transforms. */
  { kind: 'stream'; body: ReadableStream<Uint8Array> } | { kind: 'json'; body: ChatCompletion };

/**
 * An embeddings request as sent upstream (OpenAI `/embeddings`), in the client's encoding.
 * A provider answers in that encoding, converting when its upstream ignored it.
 */
export interface UpstreamEmbeddingRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  dimensions?: number;
  encoding_format: 'float' | 'base64';
  user?: string;
}

/**
 * One vector of an upstream answer in the request's `encoding_format`, as JSON text: a
 * number array or a quoted base64 string of little-endian float32. It is the upstream's own
 * text when the upstream answered in that encoding (checked, then passed on untouched).
 */
export interface EmbeddingVector {
  index: number;
  json: string;
}

/** An embeddings answer (OpenAI `/embeddings`), its vectors in the request's encoding. */
export interface EmbeddingResult {
  data: EmbeddingVector[];
  /** Absent when the upstream does not count; svc then counts the input itself. */
  usage?: { prompt_tokens: number };
}

/** A JSON body to POST to a capability's path and the JSON that came back (images; typed by its family). */
export type JsonBody = Record<string, unknown>;

/** A binary answer (speech audio, an edited image): bytes and their media type. */
export interface BinaryResult {
  body: ReadableStream<Uint8Array>;
  contentType: string;
}

/** The two families of asynchronous media jobs. */
export type MediaKind = 'video' | 'audio';

/** One step of an asynchronous media job upstream: submit it, poll it, or download its result. */
export type MediaJobStep =
  | { op: 'submit'; kind: MediaKind; body: JsonBody }
  | { op: 'poll'; kind: MediaKind; id: string }
  | { op: 'download'; kind: MediaKind; id: string };

/** Where an upstream job stands: still running, done (ready to download), failed, or refused for content policy. */
export interface MediaJobStatus {
  state: 'pending' | 'done' | 'failed' | 'refused';
  /** The upstream's reason, for a failed or refused job. */
  reason?: string;
}

/** What each step answers: the upstream job id, its status, or its media bytes. */
export interface MediaJobAnswers {
  submit: { id: string };
  poll: MediaJobStatus;
  download: BinaryResult;
}

/**
 * The calls a provider may implement, one per capability. The OpenAI-compatible adapter
 * calls each capability's OpenAI path; the simulator implements what it can.
 */
export interface ProviderCalls {
  chat(req: UpstreamChatRequest, call: CallOptions): Promise<ProviderChatResult>;
  embed(req: UpstreamEmbeddingRequest, call: CallOptions): Promise<EmbeddingResult>;
  /** `/images/generations` and friends: JSON in, JSON out. */
  images(path: 'generations' | 'edits' | 'variations', body: JsonBody | FormData, call: CallOptions): Promise<JsonBody>;
  /** `/audio/speech`: JSON in, audio bytes out. */
  speech(body: JsonBody, call: CallOptions): Promise<BinaryResult>;
  /** `/audio/transcriptions`: multipart in, JSON out. */
  transcribe(body: FormData, call: CallOptions): Promise<JsonBody>;
  /** A JSON-RPC call to a blockchain node. */
  rpc(body: JsonBody, call: CallOptions): Promise<JsonBody>;
  /** Asynchronous media jobs (video, music and sound effects): submit, poll, download. */
  jobs<S extends MediaJobStep>(step: S, call: CallOptions): Promise<MediaJobAnswers[S['op']]>;
}

/** What a provider can do. */
export type Capability = keyof ProviderCalls;

/**
 * An upstream provider (DESIGN "Provider"): an id, whether it is the built-in simulator, and
 * the calls of the capabilities it declares. Errors before the first byte are thrown as
 * UpstreamFailure (providers/errors.ts); errors after it surface as a failing stream.
 */
export type Provider = {
  readonly id: string;
  /** True for the built-in simulator, so /models and logs can say so. */
  readonly simulated: boolean;
  readonly capabilities: ReadonlySet<Capability>;
} & Partial<ProviderCalls>;

/** A provider known to implement capability `C`. */
export type ProviderWith<C extends Capability> = Provider & Pick<ProviderCalls, C>;

/** Whether `provider` declares and implements `capability`. */
export function hasCapability<C extends Capability>(provider: Provider, capability: C): provider is ProviderWith<C> {
  return provider.capabilities.has(capability) && typeof provider[capability] === 'function';
}
