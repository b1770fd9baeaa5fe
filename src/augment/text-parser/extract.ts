import { lazyModule } from '../../lifecycle/lazy-module';
import { invalidField, type ServiceError } from '../../http/errors';
import type { AugmentConfig } from '../config';
import { plainText, type DocumentKind } from './detect';

/** officeparser (and pdf.js inside it), loaded by the first document: tens of MB of code no other route needs. */
const loadOfficeParser = lazyModule(() => import('officeparser'));

/** The parser's limits per file. */
export type ParseLimits = Pick<AugmentConfig['textParser'], 'timeoutMs' | 'maxUncompressedBytes' | 'maxZipEntries' | 'maxTableCells'>;

const fileError = (reason: string) => invalidField('file', reason, 'body');

/** The client's error for a document the parser refused or could not read: always a 400 naming `file`. */
function refusal(error: unknown, kind: DocumentKind, limits: ParseLimits, timedOut: boolean): ServiceError {
  if (timedOut) return fileError(`the ${kind} could not be read within ${limits.timeoutMs} ms`);
  const code = (error as { officeIssue?: { code?: string } } | null)?.officeIssue?.code;
  if (code === 'ZIP_SIZE_LIMIT_EXCEEDED') return fileError(`the ${kind} expands beyond ${limits.maxUncompressedBytes} bytes`);
  if (code === 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED') return fileError(`the ${kind} holds more than ${limits.maxZipEntries} parts`);
  if ((error as { name?: string } | null)?.name === 'PasswordException') return fileError(`the ${kind} is encrypted`);
  return fileError(`the ${kind} is corrupt, encrypted or unreadable`);
}

/**
 * The text of a document whose kind was read from its content. Plain text is decoded; PDF,
 * DOCX, PPTX and XLSX go through officeparser with OCR and attachments off, its zip limits
 * (a zip bomb stops at `maxUncompressedBytes` of actual output) and an abort at `timeoutMs`
 * (checked between PDF pages, so a document of a million pages stops there). The answer
 * does not wait past the time limit even for a step that ignores the abort. Nothing is
 * written anywhere. Throws a 400 naming `file`.
 */
export async function extractText(bytes: Uint8Array, kind: DocumentKind, limits: ParseLimits, signal: AbortSignal): Promise<string> {
  if (kind === 'text') return (plainText(bytes) ?? '').replace(/^\uFEFF/, '');
  const { parseOffice } = await loadOfficeParser();
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const abort = AbortSignal.any([signal, timeout]);
  let stop: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    stop = () => reject(timeout.reason);
    abort.addEventListener('abort', stop, { once: true });
  });
  try {
    const parsing = (async () => {
      const ast = await parseOffice(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
        fileType: kind,
        ocr: false,
        extractAttachments: false,
        outputErrorToConsole: false,
        abortSignal: abort,
        decompressionLimits: {
          maxUncompressedBytes: limits.maxUncompressedBytes,
          maxZipEntries: limits.maxZipEntries,
          maxTableCells: limits.maxTableCells,
        },
      });
      return (await ast.to('text')).value;
    })();
    // A late rejection of the abandoned parse must not become an unhandled one.
    parsing.catch(() => {});
    const text = await Promise.race([parsing, stopped]);
    return typeof text === 'string' ? text.trim() : '';
  } catch (error) {
    if (signal.aborted) throw error;
    throw refusal(error, kind, limits, timeout.aborted);
  } finally {
    if (stop) abort.removeEventListener('abort', stop);
    stopped.catch(() => {});
  }
}
