import { invalidField } from '../http/errors';

/** CRC-8 (polynomial 0x07) of FLAC frame headers, by byte. */
const CRC8 = Uint8Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let i = 0; i < 8; i++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
  return c;
});

/** A FLAC stream's STREAMINFO: what the encoder wrote about the whole stream. */
interface StreamInfo {
  sampleRate: number;
  totalSamples: number;
  /** The start of the first frame (after the last metadata block). */
  framesAt: number;
}

/** Reads `fLaC` and the metadata blocks up to the first frame; 400 when STREAMINFO is missing or has no sample rate. */
function streamInfo(b: Uint8Array, field: string): StreamInfo {
  if (b.byteLength < 42 || String.fromCharCode(b[0]!, b[1]!, b[2]!, b[3]!) !== 'fLaC') throw invalidField(field, 'not a FLAC stream');
  let at = 4;
  let info: Omit<StreamInfo, 'framesAt'> | undefined;
  for (let last = false; !last;) {
    if (at + 4 > b.byteLength) throw invalidField(field, 'the FLAC metadata runs past the end of the file');
    last = (b[at]! & 0x80) !== 0;
    const type = b[at]! & 0x7f;
    const length = (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!;
    if (type === 0 && length >= 34) {
      const s = at + 4;
      const sampleRate = (b[s + 10]! << 12) | (b[s + 11]! << 4) | (b[s + 12]! >> 4);
      // 36 bits: the low 4 bits of byte 13, then four bytes.
      const totalSamples = (b[s + 13]! & 0x0f) * 2 ** 32 + ((b[s + 14]! << 24) >>> 0) + (b[s + 15]! << 16) + (b[s + 16]! << 8) + b[s + 17]!;
      info = { sampleRate, totalSamples };
    }
    at += 4 + length;
  }
  if (!info) throw invalidField(field, 'the FLAC stream has no STREAMINFO block');
  if (info.sampleRate === 0) throw invalidField(field, "the FLAC STREAMINFO's sampleRate is 0");
  return { ...info, framesAt: at };
}

const BLOCK_SIZES = [0, 192, 576, 1152, 2304, 4608, -8, -16, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768];

/**
 * The block size (samples per channel) of the frame whose header starts at `at`, when the
 * bytes there are a frame header: the sync code, no reserved values, and its CRC-8 right.
 */
function frameSamples(b: Uint8Array, at: number): number | undefined {
  if (b[at] !== 0xff || (b[at + 1]! & 0xfe) !== 0xf8) return undefined;
  const blockCode = b[at + 2]! >> 4;
  const rateCode = b[at + 2]! & 0xf;
  const channels = b[at + 3]! >> 4;
  const depth = (b[at + 3]! >> 1) & 7;
  if (blockCode === 0 || rateCode === 15 || channels > 10 || depth === 3 || b[at + 3]! & 1) return undefined;
  // The coded frame or sample number: a UTF-8-like run of 1 to 7 bytes.
  let p = at + 4;
  const lead = b[p]!;
  const extra =
    lead < 0x80
      ? 0
      : lead >= 0xc0 && lead < 0xe0
        ? 1
        : lead < 0xf0
          ? 2
          : lead < 0xf8
            ? 3
            : lead < 0xfc
              ? 4
              : lead < 0xfe
                ? 5
                : lead === 0xfe
                  ? 6
                  : -1;
  if (extra < 0 || (lead >= 0x80 && lead < 0xc0)) return undefined;
  p++;
  for (let i = 0; i < extra; i++, p++) if ((b[p]! & 0xc0) !== 0x80) return undefined;
  let samples = BLOCK_SIZES[blockCode]!;
  if (samples === -8) samples = b[p++]! + 1;
  else if (samples === -16) samples = ((b[p++]! << 8) | b[p++]!) + 1;
  if (rateCode === 12) p += 1;
  else if (rateCode === 13 || rateCode === 14) p += 2;
  if (p >= b.byteLength) return undefined;
  let crc = 0;
  for (let i = at; i < p; i++) crc = CRC8[crc ^ b[i]!]!;
  return crc === b[p] ? samples : undefined;
}

/**
 * The seconds a FLAC stream plays: the frames' block sizes added up, every frame header
 * found by its sync code and CRC-8, at STREAMINFO's sample rate; or STREAMINFO's total
 * samples when that is more. The total is the encoder's word (anyone can write it); the
 * frames are what a decoder plays. A stray match inside audio data can only add a frame.
 */
export function flacSeconds(bytes: Uint8Array, field = 'file'): { frames: number; seconds: number; declaredSeconds: number } {
  const info = streamInfo(bytes, field);
  let frames = 0;
  let samples = 0;
  const end = bytes.byteLength - 6;
  for (let at = info.framesAt; at < end; at++) {
    const found = frameSamples(bytes, at);
    if (found === undefined) continue;
    frames++;
    samples += found;
    at += 5;
  }
  const declaredSeconds = info.totalSamples / info.sampleRate;
  return { frames, seconds: Math.max(samples / info.sampleRate, declaredSeconds), declaredSeconds };
}
