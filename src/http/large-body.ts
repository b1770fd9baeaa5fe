/**
 * Bun's server (uWS) buffers a response's status line and headers in a 16 KB cork buffer
 * and sends them in one write. When a handler answers after an await (every proxied call)
 * with a body of 15 KiB or more given whole (a string, bytes or a Blob), each piece of each
 * header ("x-svc-balance-usd", ": ", the value, "\r\n") goes out as its own send() instead:
 * ~70 system calls per response with svc's headers. A body given as a stream goes out with
 * its headers in one write (chunked: Elysia rebuilds the Response and Bun does not keep a
 * stream's length). `bun bench/cork-repro.ts --strace` reproduces it on a bare Bun server:
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
