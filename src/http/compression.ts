import { Elysia } from 'elysia';
import Negotiator from 'negotiator';
import { Duplex } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { goesOutUncorked, streamOf, UNCORKED_BODY_BYTES, wholeBody } from './large-body';
import { statusOf } from './status';
import type { RequestContext } from './request-context';

/** A content coding svc produces, best first (the order breaks ties between equal q-values). */
export type ContentCoding = 'br' | 'gzip';
const CODINGS: ContentCoding[] = ['br', 'gzip'];

// Bodies smaller than this gain nothing from compression and would only cost CPU.
const MIN_BYTES = 1024;
// Brotli's default quality (11) costs ~50x gzip's CPU for a few per cent; 4 is faster than gzip -6 and smaller.
const BROTLI_QUALITY = 4;
// SSE must reach the client chunk by chunk (a compressor buffers), and media is already compressed.
const INCOMPRESSIBLE = /^(text\/event-stream|image\/|audio\/|video\/|application\/(zip|gzip|octet-stream|x-protobuf))/i;

/**
 * The coding to answer `accept-encoding` with, or null for identity: RFC 9110 negotiation
 * (q-values, `q=0` refusals, `*`) by the `negotiator` library that Express and Koa use.
 */
export function negotiateCoding(acceptEncoding: string | null): ContentCoding | null {
  if (!acceptEncoding) return null;
  // negotiator 1.x takes the server's preference for ties; @types/negotiator still describes 0.6.
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as NegotiatorWithPreference;
  const chosen = negotiator.encoding([...CODINGS, 'identity'], { preferred: CODINGS });
  return chosen === 'br' || chosen === 'gzip' ? chosen : null;
}

interface NegotiatorWithPreference {
  encoding(available: string[], options: { preferred: string[] }): string | undefined;
}

/** Compresses a whole body at once (JSON, text, buffers). */
export function compressBytes(bytes: Uint8Array, coding: ContentCoding): Uint8Array {
  return coding === 'br'
    ? brotliCompressSync(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
      })
    : gzipSync(bytes);
}

/**
 * A Web transform stream compressing with node:zlib. Not CompressionStream: Bun's 'brotli'
 * format runs at quality 11, measured 1.35 s per MB of CSV against 23 ms at quality 4.
 */
function compressStream(coding: ContentCoding): ReadableWritablePair<Uint8Array, Uint8Array> {
  const zlib = coding === 'br' ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }) : createGzip();
  return Duplex.toWeb(zlib) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
}

/**
 * The JSON text of a plain object or array a handler returned, as Elysia would send it, or
 * null for anything else (bytes, streams, files, and class instances such as Elysia's own
 * status wrapper, which Elysia maps itself).
 */
function jsonOf(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return null;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && !Array.isArray(value)) return null;
  return JSON.stringify(value) ?? null;
}

/** The bytes and default type of a value a handler returned, or null for what is not a body (a Response is handled apart). */
function bodyOf(value: unknown): { bytes: Uint8Array; type: string } | null {
  if (typeof value === 'string') return { bytes: Buffer.from(value), type: 'text/plain;charset=utf-8' };
  if (value instanceof Uint8Array) return { bytes: value, type: 'application/octet-stream' };
  if (value instanceof ArrayBuffer) return { bytes: new Uint8Array(value), type: 'application/octet-stream' };
  const json = jsonOf(value);
  return json === null ? null : { bytes: Buffer.from(json), type: 'application/json;charset=utf-8' };
}

/** A long text body as a stream (see large-body.ts), with the type Elysia would have given it. */
function streamedText(text: string, type: string, set: { status?: number | string; headers: Record<string, string | number> }): Response {
  set.headers['content-type'] ??= type;
  return new Response(streamOf(Buffer.from(text)), { status: statusOf(set) });
}

/** A compressed copy of a handler's Response, streamed (CSV and other downloads), or null to leave it. */
function compressResponse(response: Response, coding: ContentCoding, routeType: string | undefined): Response | null {
  const { headers } = response;
  if (!response.body || headers.has('content-encoding') || response.status === 204 || response.status === 206) return null;
  if (INCOMPRESSIBLE.test(headers.get('content-type') ?? routeType ?? '')) return null;
  const length = headers.get('content-length');
  if (length !== null && Number(length) < MIN_BYTES) return null;
  const out = new Headers(headers);
  out.delete('content-length');
  out.set('content-encoding', coding);
  out.append('vary', 'accept-encoding');
  const body = response.body.pipeThrough(compressStream(coding));
  return new Response(body, { status: response.status, statusText: response.statusText, headers: out });
}

/**
 * Compresses response bodies for clients that accept br or gzip: JSON and text bodies at
 * once, Response bodies (YAML, HTML, CSV downloads) as a stream. Event streams, media,
 * small bodies and errors are left as they are. A large body that is not compressed, or
 * compressed whole, goes out as a one-chunk stream (large-body.ts).
 */
export function compression() {
  // onAfterHandle, not mapResponse: in Elysia 1.4.30 a mapResponse hook that returns nothing on
  // the error path empties the error body. Errors are small and need no compression anyway.
  return new Elysia({ name: 'svc.http.compression' }).onAfterHandle(
    { as: 'global' },
    function compressBody({
      request,
      responseValue,
      set,
      svc,
    }: {
      request: Request;
      responseValue: unknown;
      set: { status?: number | string; headers: Record<string, string | number> };
      svc?: RequestContext;
    }) {
      // A captured request's answer (src/gates/body-capture.ts), kept before it becomes bytes here.
      if (svc?.capture) svc.capture.response = responseValue;
      // A route that encoded its own body (precompressed assets) says so in set.headers.
      if (set.headers['content-encoding']) return;
      const coding = negotiateCoding(request.headers.get('accept-encoding'));
      const routeType = set.headers['content-type'] as string | undefined;
      if (responseValue instanceof Response) {
        if (!coding) return;
        return compressResponse(responseValue, coding, routeType) ?? undefined;
      }
      // A bare stream is a download only when its route named a type; without one Elysia may send it as SSE.
      if (responseValue instanceof ReadableStream) {
        if (!coding || !routeType) return;
        return compressResponse(new Response(responseValue), coding, routeType) ?? undefined;
      }
      // Without a coding to use, a body of 15 KiB or more goes as a stream, or every
      // header costs a system call (large-body.ts): a string already serialised (embeddings),
      // bytes, or an object's JSON (a long chat answer, image data, a usage page). A smaller object is left
      // to Elysia, which serialises it again (~0.25 µs for a chat answer) and validates it
      // against the route's response schema (a streamed one skips that, as a compressed one
      // always has); caches still learn that the body varies.
      if (!coding) {
        if (typeof responseValue === 'string' || (typeof responseValue === 'object' && responseValue !== null))
          set.headers.vary = 'accept-encoding';
        if (typeof responseValue === 'string') {
          return goesOutUncorked(responseValue) ? streamedText(responseValue, 'text/plain;charset=utf-8', set) : undefined;
        }
        if (responseValue instanceof Uint8Array || responseValue instanceof ArrayBuffer) {
          if (responseValue.byteLength < UNCORKED_BODY_BYTES) return;
          set.headers['content-type'] ??= 'application/octet-stream';
          const bytes = responseValue instanceof Uint8Array ? responseValue : new Uint8Array(responseValue);
          return new Response(streamOf(bytes), { status: statusOf(set) });
        }
        const json = jsonOf(responseValue);
        return json !== null && goesOutUncorked(json) ? streamedText(json, 'application/json;charset=utf-8', set) : undefined;
      }
      const body = bodyOf(responseValue);
      if (!body || body.bytes.length < MIN_BYTES) return;
      const type = routeType ?? body.type;
      if (INCOMPRESSIBLE.test(type)) return;
      set.headers.vary = 'accept-encoding';
      set.headers['content-encoding'] = coding;
      set.headers['content-type'] = type;
      return new Response(wholeBody(compressBytes(body.bytes, coding)), { status: statusOf(set) });
    },
  );
}
