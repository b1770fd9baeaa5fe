import { invalidField, serviceUnavailable, type ServiceError } from '../../http/errors';
import type { AugmentConfig } from '../config';
import { plainText, type DocumentKind } from './detect';
import { ParserBusy, ParserPool, ParseStopped } from './pool';

/** The parser's limits per file, and the pool's bounds. */
export type ParseLimits = Pick<
  AugmentConfig['textParser'],
  | 'timeoutMs'
  | 'maxUncompressedBytes'
  | 'maxPartBytes'
  | 'maxInflateRatio'
  | 'maxZipEntries'
  | 'maxTableCells'
  | 'workers'
  | 'queueSize'
  | 'workerMemoryBytes'
>;

/** An idle parser worker exits after this long. */
const IDLE_MS = 60_000;
/** One pool per set of bounds (in practice one per process: the config's). */
const pools = new Map<string, ParserPool>();

function poolFor({ workers, queueSize, workerMemoryBytes }: ParseLimits): ParserPool {
  const key = `${workers}/${queueSize}/${workerMemoryBytes}`;
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = new ParserPool({ size: workers, queueSize, idleMs: IDLE_MS, memoryBytes: workerMemoryBytes })));
  return pool;
}

const fileError = (reason: string) => invalidField('file', reason, 'body');

/** The client's error for a document the parser refused or could not read: a 400 naming `file` and the limit. */
function refusal(reply: { code?: string; name?: string }, kind: DocumentKind, limits: ParseLimits): ServiceError {
  const part = kind === 'pdf' ? 'a stream' : 'a part';
  switch (reply.code) {
    case 'ZIP_SIZE_LIMIT_EXCEEDED':
      return fileError(`the ${kind} expands beyond ${limits.maxUncompressedBytes} bytes (maxUncompressedBytes)`);
    case 'PART_SIZE_LIMIT_EXCEEDED':
      return fileError(`${part} of the ${kind} expands beyond ${limits.maxPartBytes} bytes (maxPartBytes)`);
    case 'INFLATE_RATIO_EXCEEDED':
      return fileError(
        `${part} of the ${kind} inflates to more than ${limits.maxInflateRatio} times its compressed size (maxInflateRatio)`,
      );
    case 'DECLARED_SIZE_EXCEEDED':
      return fileError(`${part} of the ${kind} inflates beyond the size its zip directory declares`);
    case 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED':
      return fileError(`the ${kind} holds more than ${limits.maxZipEntries} parts`);
    case 'TABLE_CELL_LIMIT_EXCEEDED':
      return fileError(`the ${kind} holds more than ${limits.maxTableCells} cells`);
  }
  if (reply.name === 'PasswordException') return fileError(`the ${kind} is encrypted`);
  return fileError(`the ${kind} is corrupt, encrypted or unreadable`);
}

/**
 * The text of a document whose kind was read from its content. Plain text is decoded here;
 * PDF, DOCX, PPTX and XLSX go to a parser worker (pdf.js through unpdf; the OOXML reader)
 * with the decompression limits (a zip part or PDF stream stops inflating at its cap, see
 * zip-parts.ts and pdf-streams.ts), terminated at `timeoutMs`, past `workerMemoryBytes` or when
 * the client leaves, so a hostile document costs at most that and never blocks svc's thread.
 * Nothing is written anywhere. Throws a 400 naming `file`, a 503 with Retry-After when every
 * worker is busy and the queue full, or the abort when the client left.
 */
export async function extractText(bytes: Uint8Array, kind: DocumentKind, limits: ParseLimits, signal: AbortSignal): Promise<string> {
  if (kind === 'text') return (plainText(bytes) ?? '').replace(/^\uFEFF/, '').trim();
  const { maxUncompressedBytes, maxPartBytes, maxInflateRatio, maxZipEntries, maxTableCells } = limits;
  let reply;
  try {
    const taskLimits = { maxUncompressedBytes, maxPartBytes, maxInflateRatio, maxZipEntries, maxTableCells };
    reply = await poolFor(limits).parse({ bytes, kind, limits: taskLimits }, limits.timeoutMs, signal);
  } catch (error) {
    if (error instanceof ParserBusy)
      throw serviceUnavailable(
        `file: every document parser is busy and ${limits.queueSize} documents are waiting (queueSize); retry shortly`,
        error.retryAfterSeconds,
      );
    if (error instanceof ParseStopped && error.reason === 'timeout')
      throw fileError(`the ${kind} could not be read within ${limits.timeoutMs} ms`);
    if (error instanceof ParseStopped && error.reason === 'memory')
      throw fileError(`the ${kind} needs more than ${limits.workerMemoryBytes} bytes of memory to read (workerMemoryBytes)`);
    throw error;
  }
  if (!reply.ok) throw refusal(reply, kind, limits);
  return reply.text.trim();
}
