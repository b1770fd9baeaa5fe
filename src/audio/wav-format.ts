import { invalidField } from '../http/errors';

/** The WAV codecs whose byte rate follows from the format: PCM, IEEE float, A-law and µ-law. */
const CODECS: Record<number, { name: string; bits: readonly number[] }> = {
  1: { name: 'PCM', bits: [8, 16, 24, 32] },
  3: { name: 'IEEE float', bits: [32, 64] },
  6: { name: 'A-law', bits: [8] },
  7: { name: 'µ-law', bits: [8] },
};
const EXTENSIBLE = 0xfffe;
/** Sample rates a recording can have: below 1 kHz is no speech, above 768 kHz no converter. */
const MIN_RATE = 1_000;
const MAX_RATE = 768_000;
const MAX_CHANNELS = 64;
/** A data size of 0 or 0xFFFFFFFF is a stream writer's "until the end of the file" (ffmpeg reads it so). */
const STREAMED = new Set([0, 0xffffffff]);

/** A WAV file's validated format and the bytes of audio it holds. */
export interface WavAudio {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** channels × bits / 8 × sample rate: derived, never the header's own byteRate. */
  byteRate: number;
  dataBytes: number;
  seconds: number;
}

const ascii = (b: Uint8Array, at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

/** Checks the `fmt ` chunk's fields against each other; 400 naming the first that disagrees. */
function readFormat(view: DataView, at: number, size: number, field: string) {
  const bad = (name: string, reason: string) => invalidField(field, `the WAV header's ${name} ${reason}`);
  if (size < 16) throw bad('fmt chunk', `is ${size} bytes (at least 16)`);
  let codec = view.getUint16(at, true);
  const channels = view.getUint16(at + 2, true);
  const sampleRate = view.getUint32(at + 4, true);
  const byteRate = view.getUint32(at + 8, true);
  const blockAlign = view.getUint16(at + 12, true);
  const bits = view.getUint16(at + 14, true);
  // WAVE_FORMAT_EXTENSIBLE names its codec in the first two bytes of the sub-format GUID.
  if (codec === EXTENSIBLE && size >= 40) codec = view.getUint16(at + 24, true);
  const known = CODECS[codec];
  if (!known) throw bad('format', `0x${codec.toString(16)} is not accepted (PCM, IEEE float, A-law or µ-law)`);
  if (channels < 1 || channels > MAX_CHANNELS) throw bad('channels', `(${channels}) must be 1 to ${MAX_CHANNELS}`);
  if (sampleRate < MIN_RATE || sampleRate > MAX_RATE) throw bad('sampleRate', `(${sampleRate}) must be ${MIN_RATE} to ${MAX_RATE} Hz`);
  if (!known.bits.includes(bits)) throw bad('bitsPerSample', `(${bits}) must be ${known.bits.join(', ')} for ${known.name}`);
  const frame = channels * (bits / 8);
  if (blockAlign !== frame) throw bad('blockAlign', `(${blockAlign}) must be channels × bytes per sample (${frame})`);
  if (byteRate !== sampleRate * frame) throw bad('byteRate', `(${byteRate}) must be sampleRate × blockAlign (${sampleRate * frame})`);
  return { channels, sampleRate, bitsPerSample: bits, byteRate: sampleRate * frame };
}

/**
 * Reads a RIFF WAVE file's chunks: the format validated field by field (400 naming the field
 * that disagrees) and the audio measured from the data chunks' bytes over the byte rate the
 * format implies, so no header field can shorten what a decoder will play. A chunk that runs
 * past the end of the file is a 400 (the file is cut short), unless it is a streamed data
 * chunk (size 0 or 0xFFFFFFFF), which runs to the end.
 */
export function readWav(bytes: Uint8Array, field = 'file'): WavAudio {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE')
    throw invalidField(field, 'not a RIFF WAVE file (RF64 and big-endian RIFX are not accepted)');
  let format: ReturnType<typeof readFormat> | undefined;
  let dataBytes = 0;
  let sawData = false;
  // Trailing bytes too few for a chunk header are padding some writers leave.
  for (let at = 12; at + 8 <= bytes.byteLength;) {
    const id = ascii(bytes, at);
    const size = view.getUint32(at + 4, true);
    const start = at + 8;
    const left = bytes.byteLength - start;
    if (id === 'data') {
      if (!format) throw invalidField(field, 'the WAV data chunk comes before its fmt chunk');
      sawData = true;
      if (size > left && !STREAMED.has(size))
        throw invalidField(
          field,
          `the WAV data chunk's size (${size} bytes) runs past the end of the file (${left} bytes left): the file is truncated`,
        );
      const length = size > left || size === 0 ? left : size;
      dataBytes += length;
      at = start + length + (length & 1);
      continue;
    }
    // The last chunk may lack its pad byte; any other overrun is a cut or forged size.
    if (size > left) throw invalidField(field, `the WAV ${JSON.stringify(id)} chunk's size (${size} bytes) runs past the end of the file`);
    if (id === 'fmt ') format = readFormat(view, start, size, field);
    at = start + size + (size & 1);
  }
  if (!format) throw invalidField(field, 'the WAV file has no fmt chunk');
  if (!sawData) throw invalidField(field, 'the WAV file has no data chunk');
  // Whole sample frames only: a decoder drops a partial last one.
  const frame = (format.channels * format.bitsPerSample) / 8;
  dataBytes -= dataBytes % frame;
  return { ...format, dataBytes, seconds: dataBytes / format.byteRate };
}
