import { invalidField, type ServiceError } from '../../http/errors';
import type { AugmentConfig } from '../config';
import { plainText, type DocumentKind } from './detect';
import { ParserPool, ParseStopped } from './pool';

/** The parser's limits per file. */
export type ParseLimits = Pick<AugmentConfig['textParser'], 'timeoutMs' | 'maxUncompressedBytes' | 'maxZipEntries' | 'maxTableCells'>;

/** Documents parsed at once per process; more wait for a worker (parsing is CPU work: a core each). */
const PARSERS = 2;
/** An idle parser worker exits after this long. */
const IDLE_MS = 60_000;
const pool = new ParserPool({ size: PARSERS, idleMs: IDLE_MS });

const fileError = (reason: string) => invalidField('file', reason, 'body');

/** The client's error for a document the parser refused or could not read: a 400 naming `file`. */
function refusal(reply: { code?: string; name?: string }, kind: DocumentKind, limits: ParseLimits): ServiceError {
  if (reply.code === 'ZIP_SIZE_LIMIT_EXCEEDED') return fileError(`the ${kind} expands beyond ${limits.maxUncompressedBytes} bytes`);
  if (reply.code === 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED') return fileError(`the ${kind} holds more than ${limits.maxZipEntries} parts`);
  if (reply.code === 'TABLE_CELL_LIMIT_EXCEEDED') return fileError(`the ${kind} holds more than ${limits.maxTableCells} cells`);
  if (reply.name === 'PasswordException') return fileError(`the ${kind} is encrypted`);
  return fileError(`the ${kind} is corrupt, encrypted or unreadable`);
}

/**
 * The text of a document whose kind was read from its content. Plain text is decoded here;
 * PDF, DOCX, PPTX and XLSX go to a parser worker (pdf.js through unpdf; the OOXML reader)
 * with the zip limits (a zip bomb stops at `maxUncompressedBytes` of actual output) and is
 * terminated at `timeoutMs` or when the client leaves, so a hostile document costs at most
 * that time and never blocks svc's thread. Nothing is written anywhere. Throws a 400
 * naming `file` (or the abort, when the client left).
 */
export async function extractText(bytes: Uint8Array, kind: DocumentKind, limits: ParseLimits, signal: AbortSignal): Promise<string> {
  if (kind === 'text') return (plainText(bytes) ?? '').replace(/^\uFEFF/, '').trim();
  const { maxUncompressedBytes, maxZipEntries, maxTableCells } = limits;
  let reply;
  try {
    reply = await pool.parse({ bytes, kind, limits: { maxUncompressedBytes, maxZipEntries, maxTableCells } }, limits.timeoutMs, signal);
  } catch (error) {
    if (error instanceof ParseStopped && error.timedOut) throw fileError(`the ${kind} could not be read within ${limits.timeoutMs} ms`);
    throw error;
  }
  if (!reply.ok) throw refusal(reply, kind, limits);
  return reply.text.trim();
}
