import type { Deadlines } from './deadlines';
import { payloadTooLarge } from './errors';
import { BodyTooLarge, readStreamUpTo } from '../net/limited-body';
import { requireJsonContentType } from './json-content-type';
import { parseJsonBody } from './json-shape';

/** The body reads of a Request that parsers call (Elysia's parsers, the image routes' own). */
export type BodyReads = Pick<Request, 'arrayBuffer' | 'blob' | 'bytes' | 'formData' | 'json' | 'text'>;

/**
 * Makes the parsers read the request's body through `reads`. Plain assignments of own
 * properties: the Request object stays the one Bun gave (its signal and client address are
 * read later), and `Object.defineProperties` cost three times as much per request.
 */
export function readThrough(request: Request, reads: BodyReads) {
  request.arrayBuffer = reads.arrayBuffer;
  request.blob = reads.blob;
  request.bytes = reads.bytes;
  request.formData = reads.formData;
  request.json = reads.json;
  request.text = reads.text;
}

/**
 * The native body reads, each cut with the deadline's error once `timeoutMs` has passed since
 * it began. One set serves every request (they read `this`), so binding costs no allocation.
 * `json` reads the text and checks its shape (depth, item counts) before parsing it: the
 * native parse would build any nesting first, and validating that nesting took seconds and
 * gigabytes, or overflowed the stack. A JSON read of a body declared as another type (text/plain,
 * XML, a form) is a 415 (json-content-type.ts): every route that parses JSON reads it here.
 */
export function deadlineReads(deadlines: Deadlines, timeoutMs: number): BodyReads {
  const { arrayBuffer, blob, bytes, formData, text } = Request.prototype;
  const bounded = <T>(native: (this: Request) => Promise<T>) =>
    function boundedRead(this: Request): Promise<T> {
      return deadlines.race(native.call(this), Date.now() + timeoutMs);
    };
  const boundedText = bounded(text);
  return {
    arrayBuffer: bounded(arrayBuffer),
    blob: bounded(blob),
    bytes: bounded(bytes) as BodyReads['bytes'],
    formData: bounded(formData),
    json: function boundedJson(this: Request) {
      requireJsonContentType(this.headers.get('content-type'));
      return boundedText.call(this).then(parseJsonBody);
    },
    text: boundedText,
  };
}

/**
 * Reads for a body whose length was not declared (Transfer-Encoding: chunked): the first read
 * takes the whole body, counting bytes (past `maxBytes` a 413) against the deadline, and
 * answers from the bytes. Bun would cut it at `maxRequestBodySize` with an empty 413.
 */
export function countedReads(request: Request, maxBytes: number, deadlines: Deadlines, timeoutMs: number): BodyReads {
  let buffered: Promise<Response> | undefined;
  const body = () => {
    buffered ??= readCounted(request.body, maxBytes, deadlines, Date.now() + timeoutMs).then((bytes) => {
      const type = request.headers.get('content-type');
      return new Response(bytes, type === null ? {} : { headers: { 'content-type': type } });
    });
    return buffered;
  };
  return {
    arrayBuffer: () => body().then((r) => r.arrayBuffer()),
    blob: () => body().then((r) => r.blob()),
    bytes: () => body().then((r) => r.bytes()),
    formData: () => body().then((r) => r.formData()),
    json: () => {
      requireJsonContentType(request.headers.get('content-type'));
      return body().then((r) => r.text().then(parseJsonBody));
    },
    text: () => body().then((r) => r.text()),
  };
}

async function readCounted(body: ReadableStream<Uint8Array> | null, maxBytes: number, deadlines: Deadlines, at: number) {
  try {
    return await readStreamUpTo(body, maxBytes, { race: (read) => deadlines.race(read, at) });
  } catch (error) {
    throw error instanceof BodyTooLarge ? payloadTooLarge(maxBytes) : error;
  }
}
