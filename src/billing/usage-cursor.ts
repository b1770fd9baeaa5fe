import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a usage-history cursor carries: the first page's filters and the last line served. */
export interface UsageCursor {
  accountId: string;
  start: string | null;
  end: string | null;
  currency: string | null;
  pageSize: number;
  /** Timestamp (microseconds, UTC), id and line of the last line served. */
  ts: string;
  id: number;
  line: number;
  /** Epoch seconds after which the cursor is refused. */
  exp: number;
}

const MAC_BYTES = 16;

function mac(secret: Buffer, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update('usage-history-cursor\0').update(payload).digest().subarray(0, MAC_BYTES);
}

/** An opaque, tamper-evident cursor: base64url of the JSON state followed by a truncated HMAC. */
export function encodeCursor(secret: Buffer, cursor: UsageCursor): string {
  const payload = Buffer.from(
    JSON.stringify([
      cursor.accountId,
      cursor.start,
      cursor.end,
      cursor.currency,
      cursor.pageSize,
      cursor.ts,
      cursor.id,
      cursor.exp,
      cursor.line,
    ]),
  );
  return Buffer.concat([payload, mac(secret, payload)]).toString('base64url');
}

const str = (v: unknown): v is string => typeof v === 'string';
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const int = (v: unknown): v is number => Number.isSafeInteger(v);

/** The cursor's state, or null when it is malformed, forged, or expired at `nowSeconds`. */
export function decodeCursor(secret: Buffer, text: string, nowSeconds: number): UsageCursor | null {
  if (text.length > 512 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length <= MAC_BYTES) return null;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(bytes.length - MAC_BYTES), mac(secret, payload))) return null;
  let parts: unknown;
  try {
    parts = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  // A cursor of eight parts (before a charge's lines had a position) is refused: the client restarts from the first page.
  if (!Array.isArray(parts) || parts.length !== 9) return null;
  const [accountId, start, end, currency, pageSize, ts, id, exp, line] = parts;
  if (
    !str(accountId) ||
    !strOrNull(start) ||
    !strOrNull(end) ||
    !strOrNull(currency) ||
    !int(pageSize) ||
    !str(ts) ||
    !int(id) ||
    !int(exp) ||
    !int(line)
  )
    return null;
  if (exp <= nowSeconds) return null;
  return { accountId, start, end, currency, pageSize, ts, id, line, exp };
}
