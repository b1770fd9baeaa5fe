import { Elysia } from 'elysia';
import { payloadTooLarge } from '../http/errors';

/**
 * Refuses a request whose declared Content-Length exceeds the limit before its body is
 * read. Bodies without a length (chunked) are capped by Bun's `maxRequestBodySize`.
 */
export function bodyLimit(maxBodyBytes: number) {
  return new Elysia({ name: 'svc.gate.body-limit', seed: maxBodyBytes }).onRequest(function refuseOversizeBody({ request }) {
    const length = request.headers.get('content-length');
    if (length !== null && Number(length) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
  });
}
