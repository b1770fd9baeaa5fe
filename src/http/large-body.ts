/**
 * Bun's server (uWS) buffers a response's status line and headers in a 16 KB cork buffer
 * and sends them in one write. When the body is a string, bytes or a Blob larger than that
 * buffer, each piece of each header ("x-svc-balance-usd", ": ", the value, "\r\n") goes out
 * as its own send() instead: ~70 system calls per response with svc's headers (strace, a
 * 22 KB embeddings answer). A body given as a stream goes out with its headers in one write
 * (chunked: Elysia rebuilds the Response and Bun does not keep a stream's length). Measured
 * on a bare Bun server, 12 headers, a 20 KB body, 16 connections: 9-10k responses in 4 s as a
 * string, 31-33k as a stream; svc's embeddings, 553 -> 369 µs of CPU per request.
 */
export const CORK_BUFFER_BYTES = 16 * 1024;

/** Whether a string body is surely larger than the cork buffer (a UTF-16 unit is at least one UTF-8 byte). */
export const exceedsCorkBuffer = (text: string) => text.length > CORK_BUFFER_BYTES;

/** `bytes` as a one-chunk stream, sent with the response's headers in one write. */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
