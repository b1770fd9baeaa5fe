import { Elysia } from 'elysia';
import { brotliCompressSync, constants } from 'node:zlib';

// Bodies smaller than this gain nothing from compression and would only cost CPU.
const MIN_BYTES = 1024;

function pickEncoding(accept: string | null): 'br' | 'gzip' | null {
  if (!accept) return null;
  if (/\bbr\b/.test(accept)) return 'br';
  if (/\bgzip\b/.test(accept)) return 'gzip';
  return null;
}

/**
 * Compresses non-streaming JSON and text bodies when the client sent Accept-Encoding
 * (spec 9). Streams (Response objects, SSE) are left alone so they reach the client as
 * they are produced.
 */
export function compression() {
  // onAfterHandle, not mapResponse: in Elysia 1.4.30 a mapResponse hook that returns nothing on
  // the error path empties the error body. Errors are small and need no compression anyway.
  return new Elysia({ name: 'svc.http.compression' }).onAfterHandle(
    { as: 'global' },
    function compressBody({ request, responseValue, set }) {
      if (responseValue instanceof Response || responseValue === undefined || responseValue === null) return;
      const encoding = pickEncoding(request.headers.get('accept-encoding'));
      if (!encoding) return;
      const isText = typeof responseValue === 'string';
      const text = isText ? (responseValue as string) : JSON.stringify(responseValue);
      if (text.length < MIN_BYTES) return;
      const bytes =
        encoding === 'br' ? brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }) : Bun.gzipSync(Buffer.from(text));
      const headers = new Headers(set.headers as Record<string, string>);
      headers.set('content-encoding', encoding);
      headers.set('vary', 'accept-encoding');
      if (!headers.has('content-type')) headers.set('content-type', isText ? 'text/plain; charset=utf-8' : 'application/json');
      return new Response(bytes as Uint8Array<ArrayBuffer>, { status: typeof set.status === 'number' ? set.status : 200, headers });
    },
  );
}
