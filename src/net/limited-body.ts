/** A body larger than the limit it was read under; the rest was not downloaded (the stream was cancelled). */
export class BodyTooLarge extends Error {
  override name = 'BodyTooLarge';
  constructor(readonly limitBytes: number) {
    super(`the body is larger than ${limitBytes} bytes`);
  }
}

/** Shared: `decode` without `stream` keeps no state between calls, and one decoder per read is one more object. */
const UTF8 = new TextDecoder();

/** Wraps each read of the stream, e.g. a race against a deadline. */
export type ReadRace = <T>(read: Promise<T>) => Promise<T>;

/** How `readStreamUpTo` reads: `cut` returns the first `maxBytes` instead of throwing; `race` wraps each read. */
export interface StreamReadOptions {
  cut?: boolean;
  race?: ReadRace;
}

const noRace: ReadRace = (read) => read;

/**
 * The bytes of `body`, counted as they arrive: past `maxBytes` the stream is cancelled and
 * BodyTooLarge is thrown (or, with `cut`, the first `maxBytes` are returned). Any failure
 * cancels the stream, so the connection is not left half read.
 */
export async function readStreamUpTo(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  o?: StreamReadOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!body) return new Uint8Array(0);
  const race = o?.race ?? noRace;
  const reader = body.getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = (await race(reader.read())) as ReadableStreamReadResult<Uint8Array<ArrayBuffer>>;
      if (done) break;
      if (total + value.byteLength > maxBytes) {
        if (!o?.cut) throw new BodyTooLarge(maxBytes);
        parts.push(value.subarray(0, maxBytes - total));
        reader.cancel().catch(() => {});
        break;
      }
      total += value.byteLength;
      parts.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  return parts.length === 1 ? (parts[0] as Uint8Array<ArrayBuffer>) : new Uint8Array(Bun.concatArrayBuffers(parts));
}

/**
 * The length the body will have as read, when the response declares it: Content-Length
 * without a content coding (a compressed body is inflated by fetch, so its declared length
 * says nothing of what will be read).
 */
function declaredLength(res: Response): number | undefined {
  const length = res.headers.get('content-length');
  if (length === null) return undefined;
  const coding = res.headers.get('content-encoding');
  if (coding !== null && coding !== 'identity') return undefined;
  const n = Number(length);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * Whether `res` may be read natively: its declared length is within `maxBytes`. A larger
 * declared length cancels the body and throws BodyTooLarge; no declared length means the
 * body must be counted as it arrives.
 */
function readsNatively(res: Response, maxBytes: number): boolean {
  const declared = declaredLength(res);
  if (declared === undefined) return false;
  if (declared <= maxBytes) return true;
  res.body?.cancel().catch(() => {});
  throw new BodyTooLarge(maxBytes);
}

/** UTF-8 text of read bytes; a function of the module, so a read's `then` takes no closure. */
const utf8Text = (bytes: Uint8Array): string => UTF8.decode(bytes);
const utf8Json = (bytes: Uint8Array): unknown => JSON.parse(UTF8.decode(bytes));

/**
 * Reads `res` natively when its declared length allows, else counted as it arrives and
 * finished by `then`. Not async: a body read natively (the usual answer, which declares its
 * length) costs no async step of its own, a counted one a `then`. A refusal before reading
 * (a declared length over the limit) is a rejection, as from an async function.
 */
function readUpTo<T>(res: Response, maxBytes: number, native: (res: Response) => Promise<T>, then: (bytes: Uint8Array) => T): Promise<T> {
  try {
    if (readsNatively(res, maxBytes)) return native(res);
  } catch (error) {
    return Promise.reject(error);
  }
  return readStreamUpTo(res.body, maxBytes).then(then);
}

const nativeBytes = (res: Response) => res.bytes() as Promise<Uint8Array<ArrayBuffer>>;
const asBytes = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;
const nativeText = (res: Response) => res.text();
const nativeJson = (res: Response) => res.json();

/** A response body's bytes, at most `maxBytes` (BodyTooLarge past it). */
export function responseBytesUpTo(res: Response, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  return readUpTo(res, maxBytes, nativeBytes, asBytes);
}

/** A response body as UTF-8 text, at most `maxBytes` (BodyTooLarge past it). */
export function responseTextUpTo(res: Response, maxBytes: number): Promise<string> {
  return readUpTo(res, maxBytes, nativeText, utf8Text);
}

/** A response body parsed as JSON, at most `maxBytes` (BodyTooLarge past it). */
export function responseJsonUpTo<T>(res: Response, maxBytes: number): Promise<T> {
  return readUpTo(res, maxBytes, nativeJson, utf8Json) as Promise<T>;
}

/** The first `maxBytes` of a response body as text, the rest cancelled unread ('' when it cannot be read): for error details. */
export async function responseTextPrefix(res: Response, maxBytes: number): Promise<string> {
  try {
    return UTF8.decode(await readStreamUpTo(res.body, maxBytes, { cut: true }));
  } catch {
    return '';
  }
}
