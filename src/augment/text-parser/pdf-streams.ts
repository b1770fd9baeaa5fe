import { inflateBounded } from './inflate';
import { DocumentRefused, type ZipLimits } from './zip-parts';

const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');
const latin1 = new TextDecoder('latin1');
/** How far back from `stream` its dictionary is looked for. */
const DICT_WINDOW = 4096;

/** The caps left for one stream: its own, or what is left of the total when that is smaller. */
interface StreamCaps {
  maxBytes: number;
  maxRatio: number;
}

/** The names in a filter value: one name, or an array of them. */
const names = (value: string) => [...value.matchAll(/\/([^\s/[\]<>()]+)/g)].map((m) => m[1]!);

/** The file's top-level objects that are a name or an array of names (a filter chain written apart), by `id generation`; one pass. */
function nameObjects(bytes: Uint8Array): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const m of latin1.decode(bytes).matchAll(/(\d+)\s+(\d+)\s+obj\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+)/g))
    index.set(`${m[1]} ${m[2]}`, names(m[3]!));
  return index;
}

/**
 * The filter names of a stream dictionary, in order. An indirect `/Filter 5 0 R` is looked up
 * in `objects()` (indexed once, when first needed); null when it is not there (inside an
 * object stream).
 */
function filters(dict: string, objects: () => Map<string, string[]>): string[] | null {
  const found = /\/Filter\s*(\[[^\]]*\]|\/[^\s/[\]<>()]+|(\d+)\s+(\d+)\s+R)/.exec(dict);
  if (!found) return [];
  if (found[2] === undefined) return names(found[1]!);
  return objects().get(`${found[2]} ${found[3]}`) ?? null;
}

/** A zlib header as pdf.js's FlateDecode requires it: deflate, a window, a valid check. */
const looksZlib = (data: Uint8Array) => data.length > 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;

function asciiHex(data: Uint8Array): Uint8Array {
  const hex = latin1
    .decode(data)
    .replace(/>[\s\S]*$/, '')
    .replace(/[^0-9a-f]/gi, '');
  return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
}

function ascii85(data: Uint8Array): Uint8Array {
  const text = latin1
    .decode(data)
    .replace(/~>[\s\S]*$/, '')
    .replace(/\s/g, '');
  const out: number[] = [];
  let group: number[] = [];
  const flush = (count: number) => {
    while (group.length < 5) group.push(84);
    const value = group.reduce((n, c) => n * 85 + c, 0);
    for (let i = 0; i < count; i++) out.push((value >>> (24 - 8 * i)) & 0xff);
    group = [];
  };
  for (const ch of text) {
    if (ch === 'z' && group.length === 0) out.push(0, 0, 0, 0);
    else if (ch >= '!' && ch <= 'u') {
      group.push(ch.charCodeAt(0) - 33);
      if (group.length === 5) flush(4);
    }
  }
  if (group.length > 1) flush(group.length - 1);
  return Uint8Array.from(out);
}

/** RunLengthDecode's output length, counted without writing it (at most 128 bytes per 2 in). */
function runLengthBytes(data: Uint8Array): number {
  let bytes = 0;
  for (let i = 0; i < data.length;) {
    const n = data[i]!;
    if (n === 128) break;
    if (n < 128) ((bytes += n + 1), (i += n + 2));
    else ((bytes += 257 - n), (i += 2));
  }
  return bytes;
}

/** LZWDecode's output length, counted from the codes and the table's entry lengths alone (no strings built). */
function lzwBytes(data: Uint8Array, earlyChange: number): number {
  const lengths = new Uint32Array(4096);
  let next = 258;
  let width = 9;
  let previous = -1;
  let bits = 0;
  let buffer = 0;
  let bytes = 0;
  for (const byte of data) {
    buffer = ((buffer << 8) | byte) >>> 0;
    bits += 8;
    while (bits >= width) {
      const code = (buffer >>> (bits - width)) & ((1 << width) - 1);
      bits -= width;
      if (code === 256) ((next = 258), (width = 9), (previous = -1));
      else if (code === 257) return bytes;
      else {
        const length = code < 256 ? 1 : code < next ? lengths[code]! : previous >= 0 ? (previous < 256 ? 1 : lengths[previous]!) + 1 : 0;
        if (length === 0) return bytes;
        bytes += length;
        if (previous >= 0 && next < 4096) lengths[next++] = (previous < 256 ? 1 : lengths[previous]!) + 1;
        if (next + earlyChange >= 1 << width && width < 12) width++;
        previous = code;
      }
    }
  }
  return bytes;
}

/** A refusal for a stream that went past `caps` (its own cap, or what was left of the total). */
function tooLarge(caps: StreamCaps, limits: ZipLimits): DocumentRefused {
  return new DocumentRefused(caps.maxBytes === limits.maxPartBytes ? 'PART_SIZE_LIMIT_EXCEEDED' : 'ZIP_SIZE_LIMIT_EXCEEDED');
}

/** The decoded length of one stream through its filters, throwing when it passes `caps`; filters that cannot expand a bomb end the walk. */
function decodedBytes(
  data: Uint8Array,
  names: string[],
  dict: string,
  caps: StreamCaps,
  limits: ZipLimits,
  keep?: (chunk: Uint8Array) => void,
): number {
  let input = data;
  for (const [i, name] of names.entries()) {
    const last = i === names.length - 1;
    let bytes: number;
    if (name === 'ASCIIHexDecode' || name === 'AHx') input = asciiHex(input);
    else if (name === 'ASCII85Decode' || name === 'A85') input = ascii85(input);
    else if (name === 'FlateDecode' || name === 'Fl') {
      const chunks: Uint8Array[] = [];
      let result;
      try {
        // pdf.js reads the two-byte zlib header itself; what follows is raw DEFLATE.
        result = inflateBounded(input.subarray(2), caps, last ? keep : (c) => chunks.push(c));
      } catch {
        return 0; // Not DEFLATE: pdf.js cannot inflate it either.
      }
      if (result.stop === 'ratio') throw new DocumentRefused('INFLATE_RATIO_EXCEEDED');
      if (result.stop === 'bytes') throw tooLarge(caps, limits);
      if (last) return result.bytes;
      input = Buffer.concat(chunks);
      continue;
    } else if (name === 'RunLengthDecode' || name === 'RL') bytes = runLengthBytes(input);
    else if (name === 'LZWDecode' || name === 'LZW') bytes = lzwBytes(input, /\/EarlyChange\s+0/.test(dict) ? 0 : 1);
    else return input.length;
    if (name === 'RunLengthDecode' || name === 'RL' || name === 'LZWDecode' || name === 'LZW') {
      if (bytes! > caps.maxBytes) throw tooLarge(caps, limits);
      if (bytes! > 1024 * 1024 && bytes! > caps.maxRatio * input.length) throw new DocumentRefused('INFLATE_RATIO_EXCEEDED');
      return bytes!;
    }
  }
  return input.length;
}

/** Object references pdf.js follows to a stream it decodes for text whatever the stream's dictionary says (page contents, fonts, CMaps). */
function readForText(texts: string[]): Set<string> {
  const refs = new Set<string>();
  for (const text of texts)
    for (const m of text.matchAll(/\/(?:Contents|FontFile[23]?|ToUnicode|UseCMap)\s*(\[[^\]]*\]|\d+\s+\d+\s+R)/g))
      for (const r of m[1]!.matchAll(/(\d+)\s+(\d+)\s+R/g)) refs.add(`${r[1]} ${r[2]}`);
  return refs;
}

/**
 * Refuses a PDF whose streams would decode past the limits, before pdf.js sees it: pdf.js
 * inflates a FlateDecode stream whole into memory (a 1 MB file holding a stream of 1 GiB took
 * a process to 2.4 GB), and no callback of it can stop that. Each stream (found by its
 * `stream` keyword; streams never sit inside object streams) is decoded through its filters
 * with bounded inflates, counting bytes out per stream (`maxPartBytes`), in total
 * (`maxUncompressedBytes`) and per byte in (`maxInflateRatio`); only object streams are kept.
 * Images are skipped (pdf.js decodes none for text, and an honest scan's pages cost nothing
 * here) unless a page's contents, a font or a CMap refers to one, in the file or in its
 * object streams: pdf.js would inflate that whatever its dictionary says. Encrypted streams do
 * not inflate here and are left to the worker's memory budget. Throws DocumentRefused.
 */
export function checkPdfStreams(bytes: Uint8Array, limits: ZipLimits): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let index: Map<string, string[]> | undefined;
  let previousEnd = 0;
  const objects = () => (index ??= nameObjects(bytes));
  const objectStreams: string[] = [];
  const images: { id: string; data: Uint8Array; dict: string }[] = [];
  const count = (data: Uint8Array, dict: string, keep?: (chunk: Uint8Array) => void) => {
    const chain = filters(dict, objects) ?? (looksZlib(data) ? ['FlateDecode'] : []);
    const caps = { maxBytes: Math.min(limits.maxPartBytes, limits.maxUncompressedBytes - total), maxRatio: limits.maxInflateRatio };
    total += decodedBytes(data, chain, dict, caps, limits, keep);
  };
  for (let at = buf.indexOf(STREAM); at !== -1; at = buf.indexOf(STREAM, at)) {
    const keyword = at;
    at += STREAM.length;
    if (keyword >= 3 && buf.toString('latin1', keyword - 3, keyword) === 'end') continue;
    let start = at;
    if (buf[start] === 0x0d) start++;
    if (buf[start] === 0x0a) start++;
    if (start === at) continue; // `stream` not ending its line: a word in some data, not a keyword.
    const end = buf.indexOf(ENDSTREAM, start);
    // Never back past the previous stream's end: the text read for dictionaries stays within the file's size.
    const before = latin1.decode(buf.subarray(Math.max(previousEnd, keyword - DICT_WINDOW), keyword));
    at = previousEnd = end === -1 ? buf.length : end + ENDSTREAM.length;
    const header = [...before.matchAll(/(\d+)\s+(\d+)\s+obj\b/g)].at(-1);
    const dict = header ? before.slice(header.index) : before;
    const data = buf.subarray(start, end === -1 ? buf.length : end);
    if (/\/Subtype\s*\/Image\b/.test(dict)) {
      if (header) images.push({ id: `${header[1]} ${header[2]}`, data, dict });
      continue;
    }
    if (!/\/Type\s*\/ObjStm\b/.test(dict)) count(data, dict);
    else {
      const chunks: Uint8Array[] = [];
      count(data, dict, (chunk) => chunks.push(chunk));
      objectStreams.push(latin1.decode(Buffer.concat(chunks)));
    }
  }
  if (images.length === 0) return;
  const read = readForText([latin1.decode(bytes), ...objectStreams]);
  for (const image of images) if (read.has(image.id)) count(image.data, image.dict);
}
