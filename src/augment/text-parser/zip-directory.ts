/** One file of a zip archive, as its central directory declares it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; anything else is not read. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  /** The size the archive declares; a zip bomb may lie, so inflating stops here. */
  uncompressedSize: number;
  /** Where the local header starts. */
  localOffset: number;
}

/** The archive is not a zip svc can read (no directory, truncated, spanned). */
export class ZipUnreadable extends Error {
  override name = 'ZipUnreadable';
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

/** A 64-bit field as a number; sizes past 2^53 are as good as infinite here. */
const u64 = (view: DataView, at: number) => Number(view.getBigUint64(at, true));

/** The end-of-central-directory record: the last signature within the final 64 KB + 22 bytes (the comment may hold one). */
function findEocd(view: DataView): number {
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - U16_MAX); at--)
    if (view.getUint32(at, true) === EOCD) return at;
  throw new ZipUnreadable('no end of central directory');
}

/** Where the central directory starts and how many entries it declares (zip64 records when the classic ones overflow). */
function directory(view: DataView): { offset: number; count: number } {
  const at = findEocd(view);
  let count = view.getUint16(at + 10, true);
  let offset = view.getUint32(at + 16, true);
  if (count === U16_MAX || offset === U32_MAX) {
    const locator = at - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) throw new ZipUnreadable('zip64 without its locator');
    const record = u64(view, locator + 8);
    if (record + 56 > view.byteLength || view.getUint32(record, true) !== ZIP64_EOCD) throw new ZipUnreadable('no zip64 record');
    count = u64(view, record + 32);
    offset = u64(view, record + 48);
  }
  return { offset, count };
}

/** The zip64 extended-information extra field: the 64-bit values of the fields written as all ones, in their order. */
function zip64Sizes(view: DataView, extra: number, end: number, entry: ZipEntry): void {
  for (let at = extra; at + 4 <= end;) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        if (field + 8 > at + 4 + size) throw new ZipUnreadable('short zip64 field');
        const value = u64(view, field);
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === U32_MAX) entry.uncompressedSize = next();
      if (entry.compressedSize === U32_MAX) entry.compressedSize = next();
      if (entry.localOffset === U32_MAX) entry.localOffset = next();
      return;
    }
    at += 4 + size;
  }
}

/**
 * The entries of a zip archive read from its central directory (zip64 included), without
 * inflating anything: a caller checks the declared count and sizes first. Refuses with
 * `tooMany` when the directory declares more than `maxEntries`, before reading them.
 */
export function zipEntries(bytes: Uint8Array, maxEntries: number, tooMany: () => Error): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { offset, count } = directory(view);
  if (count > maxEntries) throw tooMany();
  const entries: ZipEntry[] = [];
  const decoder = new TextDecoder();
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL) throw new ZipUnreadable('central directory cut short');
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const nameEnd = at + 46 + nameLength;
    if (nameEnd + extraLength > view.byteLength) throw new ZipUnreadable('central directory cut short');
    const entry: ZipEntry = {
      name: decoder.decode(bytes.subarray(at + 46, nameEnd)),
      method: view.getUint16(at + 10, true),
      encrypted: (view.getUint16(at + 8, true) & 1) === 1,
      compressedSize: view.getUint32(at + 20, true),
      uncompressedSize: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    };
    zip64Sizes(view, nameEnd, nameEnd + extraLength, entry);
    entries.push(entry);
    at = nameEnd + extraLength + commentLength;
  }
  return entries;
}

/** The compressed bytes of an entry, found through its local header (whose name and extra lengths may differ from the directory's). */
export function entryData(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localOffset;
  if (at + 30 > view.byteLength || view.getUint32(at, true) !== LOCAL) throw new ZipUnreadable('no local header');
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.compressedSize > view.byteLength) throw new ZipUnreadable('entry cut short');
  return bytes.subarray(start, start + entry.compressedSize);
}
