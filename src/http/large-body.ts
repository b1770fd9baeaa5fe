/**
 * Bun's server (uWS) buffers a response's status line and headers in a 16 KB cork buffer
 * and sends them in one write. When a handler answers after an await (every proxied call)
 * with a body of 15 KiB or more given whole (a string, bytes or a Blob), each piece of each
 * header ("x-svc-balance-usd", ": ", the value, "\r\n") goes out as its own send() instead:
 * ~70 system calls per response with svc's headers. A body given as a stream goes out with
 * its headers in one write (chunked: Elysia rebuilds the Response and Bun does not keep a
 * stream's length). `bun bench/tools/cork-repro.ts --strace` reproduces it on a bare Bun server:
 * 15,356 bytes go out in one send, 15,360 in 63 (12 headers); 16 connections get 8k responses
 * a second of a 20 KB string against 37k of the same bytes as a stream. In svc: embeddings
 * 553 -> 369 µs of CPU per request, a 20 KB chat answer 264 -> 203.
 */
export const UNCORKED_BODY_BYTES = 15 * 1024;

/** Whether a string body would go out uncorked: at least UNCORKED_BODY_BYTES of UTF-8 (counted only when its length cannot tell). */
export function goesOutUncorked(text: string): boolean {
  if (text.length >= UNCORKED_BODY_BYTES) return true;
  // A UTF-16 unit is at most three bytes of UTF-8.
  return text.length * 3 >= UNCORKED_BODY_BYTES && Buffer.byteLength(text) >= UNCORKED_BODY_BYTES;
}

/** `bytes` as a one-chunk stream, sent with the response's headers in one write. */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * A Response body for bytes a route holds whole (an image, a compressed answer, an asset):
 * the bytes, or from UNCORKED_BODY_BYTES a one-chunk stream of them. Measured with
 * `bench/tools/cork-repro.ts` on an AMD EPYC machine, 16 connections: 1 MB of bytes 1.9k responses/s
 * against 3.5k as a stream; 20 KB 3.9k against 37.9k. The cost: the answer is chunked, with no
 * Content-Length (Bun drops a declared length for a stream body).
 */
export function wholeBody(bytes: Uint8Array): BodyInit {
  return bytes.byteLength >= UNCORKED_BODY_BYTES ? streamOf(bytes) : (bytes as Uint8Array<ArrayBuffer>);
}

/** `wholeBody` for text: the string itself, or from UNCORKED_BODY_BYTES of UTF-8 a one-chunk stream of it. */
export function wholeText(text: string): BodyInit {
  return goesOutUncorked(text) ? streamOf(Buffer.from(text)) : text;
}
