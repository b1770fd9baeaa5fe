import type { Deadlines } from './deadlines';
import { payloadTooLarge } from './errors';

/** The body reads of a Request that parsers call (Elysia's parsers and the image routes' own). */
const READS = ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'] as const;

type Read = (this: Request) => Promise<unknown>;

/**
 * Property descriptors that make a request's own body reads reject once `timeoutMs` has
 * passed since the read began. The native reads stay (no copy of the body); a parser calling
 * `request.json()` gets the bounded one, and the Request object stays the one Bun gave (its
 * signal and client address are read later).
 */
export function deadlineReads(deadlines: Deadlines, timeoutMs: number): PropertyDescriptorMap {
  const map: PropertyDescriptorMap = {};
  for (const name of READS) {
    const native = Request.prototype[name] as Read;
    map[name] = {
      configurable: true,
      value: function boundedRead(this: Request) {
        return deadlines.race(native.call(this), Date.now() + timeoutMs);
      },
    };
  }
  return map;
}

/**
 * Reads a body whose length was not declared (Transfer-Encoding: chunked), counting bytes:
 * past `maxBytes` it stops with a 413, past `at` with the deadline's error. Bun would cut it
 * at `maxRequestBodySize` with an empty 413, so svc counts it itself (src/http/serve-options.ts).
 */
export async function readCounted(body: ReadableStream<Uint8Array>, maxBytes: number, deadlines: Deadlines, at: number) {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await deadlines.race(reader.read(), at);
      if (done) return Bun.concatArrayBuffers(parts);
      total += value.byteLength;
      if (total > maxBytes) throw payloadTooLarge(maxBytes);
      parts.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
}

/** Makes the request's body reads answer from `bytes`, already read (its stream cannot be read twice). */
export function serveReadsFrom(request: Request, bytes: ArrayBuffer) {
  const type = request.headers.get('content-type');
  const buffered = new Response(bytes, type === null ? {} : { headers: { 'content-type': type } });
  const map: PropertyDescriptorMap = {};
  for (const name of READS) {
    const read = Response.prototype[name] as (this: Response) => Promise<unknown>;
    map[name] = { configurable: true, value: () => read.call(buffered) };
  }
  Object.defineProperties(request, map);
}
