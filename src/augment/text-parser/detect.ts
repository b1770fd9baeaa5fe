import { fileTypeOf } from '../../http/file-type';

/** The document kinds the text parser reads. */
export type DocumentKind = 'pdf' | 'docx' | 'pptx' | 'xlsx' | 'text';

const OFFICE: ReadonlySet<string> = new Set(['pdf', 'docx', 'pptx', 'xlsx']);
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
// C0 controls other than tab, line feed, form feed and carriage return: binary, not text.
const BINARY = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

/** The bytes as plain text: valid UTF-8 without binary control characters, else null. */
export function plainText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  return BINARY.test(text) ? null : text;
}

/**
 * What a file is by its content (magic bytes and, for DOCX, PPTX and XLSX, the zip's own
 * part names, as `file-type` reads them), never by its name or declared type; null when it
 * is none of the kinds the parser reads.
 */
export async function documentKind(bytes: Uint8Array): Promise<DocumentKind | null> {
  const type = await fileTypeOf(bytes);
  if (type) return OFFICE.has(type.ext) ? (type.ext as DocumentKind) : null;
  return plainText(bytes) === null ? null : 'text';
}
