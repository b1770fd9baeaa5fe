import { inflateBounded } from './inflate';
import { entryData, zipEntries, type ZipEntry } from './zip-directory';

/**
 * What makes a compressed document hostile, bounded: parts in a zip, bytes out of one part
 * (or PDF stream) and of all together, and bytes out per compressed byte.
 */
export interface ZipLimits {
  maxUncompressedBytes: number;
  maxPartBytes: number;
  maxInflateRatio: number;
  maxZipEntries: number;
}

/** Why a document was refused; the client's message is chosen by it. */
export type RefusalCode =
  | 'ZIP_SIZE_LIMIT_EXCEEDED'
  | 'PART_SIZE_LIMIT_EXCEEDED'
  | 'INFLATE_RATIO_EXCEEDED'
  | 'DECLARED_SIZE_EXCEEDED'
  | 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED'
  | 'TABLE_CELL_LIMIT_EXCEEDED'
  | 'UNREADABLE';

/** A document refused by a limit or unreadable, with the code the client's message is chosen by. */
export class DocumentRefused extends Error {
  override name = 'DocumentRefused';
  constructor(readonly code: RefusalCode) {
    super(code);
  }
}

/** Refuses before inflating when what the directory declares already breaks a limit. */
function checkDeclared(parts: ZipEntry[], limits: ZipLimits): void {
  let total = 0;
  for (const part of parts) {
    if (part.encrypted || (part.method !== 0 && part.method !== 8)) throw new DocumentRefused('UNREADABLE');
    if (part.uncompressedSize > limits.maxPartBytes) throw new DocumentRefused('PART_SIZE_LIMIT_EXCEEDED');
    if ((total += part.uncompressedSize) > limits.maxUncompressedBytes) throw new DocumentRefused('ZIP_SIZE_LIMIT_EXCEEDED');
    if (part.uncompressedSize > 1024 * 1024 && part.uncompressedSize > limits.maxInflateRatio * part.compressedSize)
      throw new DocumentRefused('INFLATE_RATIO_EXCEEDED');
  }
}

/** One part's bytes, inflated up to its declared size and no further (a part that goes on lied about its size). */
function partBytes(bytes: Uint8Array, part: ZipEntry, limits: ZipLimits): Uint8Array {
  const data = entryData(bytes, part);
  if (part.method === 0) return data;
  const chunks: Uint8Array[] = [];
  // Past the checks above, the declared size is the smallest cap: the output may not exceed it.
  const { bytes: made, stop } = inflateBounded(data, { maxBytes: part.uncompressedSize, maxRatio: limits.maxInflateRatio }, (c) =>
    chunks.push(c),
  );
  if (stop === 'ratio') throw new DocumentRefused('INFLATE_RATIO_EXCEEDED');
  if (stop === 'bytes') throw new DocumentRefused('DECLARED_SIZE_EXCEEDED');
  if (made !== part.uncompressedSize) throw new DocumentRefused('UNREADABLE');
  return Buffer.concat(chunks);
}

/**
 * The parts of a zip archive whose names `wanted` accepts, inflated, as UTF-8 text. The
 * central directory is read first: more than `maxZipEntries` parts, or wanted parts whose
 * declared sizes or ratio pass the limits, are refused before anything is inflated. Each part
 * is then inflated a slice at a time and stopped at its declared size (which the checks bound),
 * so time and memory follow the limits, never the part's real size. Synchronous.
 */
export function readZipParts(bytes: Uint8Array, wanted: (name: string) => boolean, limits: ZipLimits): Map<string, string> {
  const tooMany = () => new DocumentRefused('ZIP_ENTRY_COUNT_LIMIT_EXCEEDED');
  const decoder = new TextDecoder();
  const out = new Map<string, string>();
  try {
    const parts = zipEntries(bytes, limits.maxZipEntries, tooMany).filter((entry) => wanted(entry.name));
    checkDeclared(parts, limits);
    for (const part of parts) out.set(part.name, decoder.decode(partBytes(bytes, part, limits)));
  } catch (error) {
    throw error instanceof DocumentRefused ? error : new DocumentRefused('UNREADABLE');
  }
  return out;
}
