/** Kilobits per second by bitrate index (1-14): MPEG-1 layers I-III, then MPEG-2/2.5 layer I and layers II-III. */
const BITRATES = {
  v1l1: [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  v1l2: [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  v1l3: [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l1: [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  v2l23: [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
/** Sample rates by version bits (0: MPEG-2.5, 2: MPEG-2, 3: MPEG-1) and rate index. */
const MPEG_RATES: Record<number, number[]> = { 0: [11025, 12000, 8000], 2: [22050, 24000, 16000], 3: [44100, 48000, 32000] };
/** ADTS sampling frequency indexes (ISO 14496-3). */
const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

/** A frame found at an offset: its length in bytes and the seconds it plays. */
interface Frame {
  length: number;
  seconds: number;
}

/** The MPEG audio frame (layers I-III) whose header starts at `at`, if one does. */
function mpegFrame(b: Uint8Array, at: number): Frame | undefined {
  if (b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return undefined;
  const version = (b[at + 1]! >> 3) & 3;
  const layer = (b[at + 1]! >> 1) & 3;
  const rateIndex = (b[at + 2]! >> 2) & 3;
  const bitrateIndex = b[at + 2]! >> 4;
  // Reserved version, layer or rate; free-format (0) and bad (15) bitrates have no computable length.
  if (version === 1 || layer === 0 || rateIndex === 3 || bitrateIndex === 0 || bitrateIndex === 15) return undefined;
  const padding = (b[at + 2]! >> 1) & 1;
  const rate = MPEG_RATES[version]![rateIndex]!;
  const v1 = version === 3;
  const table = v1 ? [BITRATES.v1l3, BITRATES.v1l2, BITRATES.v1l1][layer - 1]! : layer === 3 ? BITRATES.v2l1 : BITRATES.v2l23;
  const bitrate = table[bitrateIndex - 1]! * 1000;
  if (layer === 3) return { length: (Math.floor((12 * bitrate) / rate) + padding) * 4, seconds: 384 / rate };
  const samples = layer === 1 && !v1 ? 576 : 1152;
  return { length: Math.floor(((samples / 8) * bitrate) / rate) + padding, seconds: samples / rate };
}

/** The ADTS (AAC) frame whose header starts at `at`, if one does. */
function adtsFrame(b: Uint8Array, at: number): Frame | undefined {
  // Sync 0xFFF, then a layer of 00 (MPEG audio's layer 00 is reserved, so the two never overlap).
  if (b[at] !== 0xff || (b[at + 1]! & 0xf6) !== 0xf0) return undefined;
  const rate = ADTS_RATES[(b[at + 2]! >> 2) & 0xf];
  const length = ((b[at + 3]! & 3) << 11) | (b[at + 4]! << 3) | (b[at + 5]! >> 5);
  const headerLength = b[at + 1]! & 1 ? 7 : 9;
  if (!rate || length < headerLength) return undefined;
  const blocks = (b[at + 6]! & 3) + 1;
  return { length, seconds: (1024 * blocks) / rate };
}

/** Where the audio starts: after an ID3v2 tag (syncsafe size, optional footer), if the file opens with one. */
function afterId3(b: Uint8Array): number {
  if (b.byteLength < 10 || b[0] !== 0x49 || b[1] !== 0x44 || b[2] !== 0x33) return 0;
  const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f);
  return 10 + size + (b[5]! & 0x10 ? 10 : 0);
}

/**
 * The seconds an MPEG audio (MP3) or ADTS (AAC) stream plays, counted frame by frame as a
 * decoder walks it: each frame header gives its own length and sample count, bytes between
 * frames are skipped one at a time until the next header. A Xing, Info or VBRI header is
 * never read for this: it is the encoder's (or anyone's) word, and a decoder plays the frames.
 */
export function mpegFrameSeconds(bytes: Uint8Array, kind: 'mp3' | 'aac'): { frames: number; seconds: number } {
  const frameAt = kind === 'mp3' ? mpegFrame : adtsFrame;
  const end = bytes.byteLength - 7;
  let frames = 0;
  let seconds = 0;
  for (let at = afterId3(bytes); at < end;) {
    const frame = frameAt(bytes, at);
    if (!frame) {
      at++;
      continue;
    }
    frames++;
    seconds += frame.seconds;
    at += frame.length;
  }
  return { frames, seconds };
}
