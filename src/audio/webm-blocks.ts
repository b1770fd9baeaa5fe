import { invalidField } from '../http/errors';
import { opusPacketSamples } from './ogg-packets';

/** The EBML IDs read (Matroska's element table), markers included. */
const ID = {
  segment: 0x18538067,
  cluster: 0x1f43b675,
  clusterTimestamp: 0xe7,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  blockDuration: 0x9b,
  info: 0x1549a966,
  timestampScale: 0x2ad7b1,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackNumber: 0xd7,
  trackType: 0x83,
  codecId: 0x86,
  defaultDuration: 0x23e383,
} as const;

/** Masters walked into rather than over: what their children say is read, in file order. */
const MASTERS = new Set<number>([ID.segment, ID.cluster, ID.blockGroup, ID.info, ID.tracks, ID.trackEntry]);

/** A Matroska track, as far as its blocks' lengths go. */
interface Track {
  number: number;
  audio: boolean;
  opus: boolean;
  /** Nanoseconds per frame (DefaultDuration), 0 when not given. */
  frameNs: number;
  /** Where its last block started, for a codec that says no frame length (Vorbis): the next block's distance stands in. */
  lastStartNs?: number;
}

/** An EBML variable-length integer at `at`: its value and length; `unknown` when every value bit is set (a size "to the end"). */
function vint(b: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number; unknown: boolean } | undefined {
  const first = b[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (at + length > b.byteLength) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i]!;
    allOnes &&= b[at + i] === 0xff;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

const uint = (b: Uint8Array, start: number, end: number) => {
  let v = 0;
  for (let i = start; i < end; i++) v = v * 256 + b[i]!;
  return v;
};

/**
 * The seconds a WebM/Matroska file's audio plays, from its blocks, never from the Segment
 * Info's Duration (the writer's word): the end of the last audio block (cluster timestamp plus
 * the block's relative timestamp, plus its BlockDuration, its track's DefaultDuration or, for
 * Opus, its TOC's length; else the distance from the block before), or the audio blocks' lengths added up when that is more. Elements
 * are walked in file order with their sizes checked (a cluster of unknown size is read to the
 * next top-level element); 400 when one runs past the end of the file.
 */
export function webmSeconds(b: Uint8Array, field: string): number {
  const tracks: Track[] = [];
  let scale = 1_000_000;
  let cluster = 0;
  let endNs = 0;
  let summedNs = 0;
  // The block of the BlockGroup being read, so that a BlockDuration after it can extend it.
  let groupBlock: { startNs: number; track: Track } | undefined;
  const trackOf = (n: number) => tracks.find((t) => t.number === n);
  const block = (start: number, end: number) => {
    const number = vint(b, start, false);
    if (!number || start + number.length + 3 > end) throw invalidField(field, 'the webm block is shorter than its header');
    const track = trackOf(number.value);
    // Tracks before the clusters, in any file a muxer writes; a block of an unlisted track is not audio.
    if (!track?.audio) return undefined;
    const at = start + number.length;
    const relative = (((b[at]! << 8) | b[at + 1]!) << 16) >> 16;
    const startNs = (cluster + relative) * scale;
    const lacing = (b[at + 2]! >> 1) & 3;
    if (lacing && at + 4 > end) throw invalidField(field, 'the webm block is shorter than its lacing header');
    const frames = lacing ? b[at + 3]! + 1 : 1;
    const data = lacing ? at + 4 : at + 3;
    // An Opus packet says its own length; DefaultDuration is the writer's word, so the longer counts.
    const opusNs = track.opus && data < end ? (opusPacketSamples(b.subarray(data, end)) * 1e9) / 48_000 : 0;
    const gapNs = track.lastStartNs === undefined ? 0 : Math.max(0, startNs - track.lastStartNs);
    const frameNs = Math.max(track.frameNs, opusNs) || gapNs / frames;
    track.lastStartNs = startNs;
    endNs = Math.max(endNs, startNs + frames * frameNs);
    summedNs += frames * frameNs;
    return { startNs, track };
  };
  for (let at = 0; at < b.byteLength;) {
    const id = vint(b, at, true);
    const size = id && vint(b, at + id.length, false);
    if (!id || !size) throw invalidField(field, `the webm element at byte ${at} is not readable`);
    const start = at + id.length + size.length;
    const end = size.unknown ? b.byteLength : start + size.value;
    if (end > b.byteLength) throw invalidField(field, `the webm element 0x${id.value.toString(16)} runs past the end of the file`);
    if (MASTERS.has(id.value)) {
      if (id.value === ID.trackEntry) tracks.push({ number: 0, audio: false, opus: false, frameNs: 0 });
      if (id.value === ID.blockGroup) groupBlock = undefined;
      at = start;
      continue;
    }
    const track = tracks.at(-1);
    if (id.value === ID.timestampScale) scale = uint(b, start, end);
    else if (id.value === ID.clusterTimestamp) cluster = uint(b, start, end);
    else if (id.value === ID.simpleBlock) block(start, end);
    else if (id.value === ID.block) groupBlock = block(start, end);
    else if (id.value === ID.blockDuration && groupBlock) {
      const durationNs = uint(b, start, end) * scale;
      endNs = Math.max(endNs, groupBlock.startNs + durationNs);
    } else if (track && id.value === ID.trackNumber) track.number = uint(b, start, end);
    else if (track && id.value === ID.trackType) track.audio = uint(b, start, end) === 2;
    else if (track && id.value === ID.codecId) track.opus = new TextDecoder().decode(b.subarray(start, end)) === 'A_OPUS';
    else if (track && id.value === ID.defaultDuration) track.frameNs = uint(b, start, end);
    at = end;
  }
  return Math.max(endNs, summedNs) / 1e9;
}
