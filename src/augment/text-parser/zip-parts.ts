import { Unzip, UnzipInflate } from 'fflate';

/** What makes a zip hostile, bounded: parts in the archive and bytes actually inflated. */
export interface ZipLimits {
  maxUncompressedBytes: number;
  maxZipEntries: number;
}

/** A document refused by a limit or unreadable, with the code the client's message is chosen by. */
export class DocumentRefused extends Error {
  override name = 'DocumentRefused';
  constructor(readonly code: 'ZIP_SIZE_LIMIT_EXCEEDED' | 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED' | 'TABLE_CELL_LIMIT_EXCEEDED' | 'UNREADABLE') {
    super(code);
  }
}

/**
 * The parts of a zip archive whose names `wanted` accepts, inflated, as UTF-8 text. Every
 * part counts against `maxZipEntries`; the bytes actually inflated (not the sizes the
 * archive declares, which a zip bomb fakes) count against `maxUncompressedBytes`, and
 * inflating stops as soon as they pass it. fflate's streaming reader, synchronous.
 */
export function readZipParts(bytes: Uint8Array, wanted: (name: string) => boolean, limits: ZipLimits): Map<string, string> {
  const chunks = new Map<string, Uint8Array[]>();
  let entries = 0;
  let inflated = 0;
  let failure: DocumentRefused | null = null;
  const unzip = new Unzip(function onPart(file) {
    if (failure) return;
    if (++entries > limits.maxZipEntries) {
      failure = new DocumentRefused('ZIP_ENTRY_COUNT_LIMIT_EXCEEDED');
      return;
    }
    if (!wanted(file.name)) return;
    const parts: Uint8Array[] = [];
    chunks.set(file.name, parts);
    file.ondata = function onChunk(error, chunk) {
      if (failure) return;
      if (error) failure = new DocumentRefused('UNREADABLE');
      else if ((inflated += chunk.length) > limits.maxUncompressedBytes) {
        failure = new DocumentRefused('ZIP_SIZE_LIMIT_EXCEEDED');
        file.terminate();
      } else parts.push(chunk);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    unzip.push(bytes, true);
  } catch {
    failure ??= new DocumentRefused('UNREADABLE');
  }
  if (failure) throw failure;
  const decoder = new TextDecoder();
  const out = new Map<string, string>();
  for (const [name, parts] of chunks) out.set(name, decoder.decode(Buffer.concat(parts)));
  return out;
}
