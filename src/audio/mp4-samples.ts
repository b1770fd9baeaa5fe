import { invalidField } from '../http/errors';

/** An ISO-BMFF box: its four-character type and where its content lies. */
interface Box {
  type: string;
  /** The first byte after the header (size, type, largesize). */
  start: number;
  end: number;
}

/** The boxes between `start` and `end`, one after another; 400 naming a box whose size runs past them. */
function boxes(b: Uint8Array, view: DataView, start: number, end: number, field: string): Box[] {
  const out: Box[] = [];
  for (let at = start; at + 8 <= end;) {
    const type = String.fromCharCode(b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!);
    let size = view.getUint32(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) throw invalidField(field, `the mp4 box ${type} runs past the end of the file`);
      size = Number(view.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) size = end - at; // "to the end of the file"
    if (size < header || at + size > end) throw invalidField(field, `the mp4 box ${type} runs past the end of the file`);
    out.push({ type, start: at + header, end: at + size });
    at += size;
  }
  return out;
}

/** The 32-bit field `offset` bytes into a box's content; 400 naming the box when it is shorter than that. */
function read32(view: DataView, box: Box, offset: number, field: string): number {
  if (box.start + offset + 4 > box.end) throw invalidField(field, `the mp4 box ${box.type} is shorter than its fields`);
  return view.getUint32(box.start + offset);
}

/** A track's sample tables, as far as they bear on its length. */
interface Track {
  id: number;
  sound: boolean;
  timescale: number;
  /** The sample rate in the sample entry, and the samples each of its codec's frames decodes to (0: not known). */
  sampleRate: number;
  frameLength: number;
  /** stts: samples and their summed durations (timescale units). */
  timedSamples: number;
  timedUnits: number;
  /** stsz: samples and their summed sizes. */
  sizedSamples: number;
  sizedBytes: number;
}

/** Samples per frame of the codecs whose frames are all one length: AAC (1024; MP3 in mp4a: 1152), AC-3 and E-AC-3 (1536). */
function frameLength(b: Uint8Array, view: DataView, entry: Box, field: string): number {
  if (entry.type === 'ac-3' || entry.type === 'ec-3') return 1536;
  if (entry.type !== 'mp4a') return 0;
  // esds: ES_Descriptor (tag 3: ES_ID, flags, optional fields), then DecoderConfigDescriptor (tag 4), whose first byte is the object type.
  const esds = boxes(b, view, entry.start + 28, entry.end, field).find((x) => x.type === 'esds');
  if (!esds) return 1024;
  const skipSize = (p: number) => {
    while (b[p]! & 0x80) p++;
    return p + 1;
  };
  let p = esds.start + 4;
  if (b[p] !== 0x03) return 1024;
  p = skipSize(p + 1);
  const flags = b[p + 2]!;
  p += 3 + (flags & 0x80 ? 2 : 0);
  if (flags & 0x40) p += 1 + b[p]!;
  if (flags & 0x20) p += 2;
  if (b[p] !== 0x04) return 1024;
  const objectType = b[skipSize(p + 1)];
  // 0x69 and 0x6B are MPEG-1/2 audio (MP3 in MP4).
  return objectType === 0x69 || objectType === 0x6b ? 1152 : 1024;
}

/** Reads one trak box: its id (tkhd), handler (hdlr), timescale (mdhd) and stbl's stsd, stts and stsz. */
function readTrack(b: Uint8Array, view: DataView, trak: Box, field: string): Track {
  const t: Track = {
    id: 0,
    sound: false,
    timescale: 0,
    sampleRate: 0,
    frameLength: 0,
    timedSamples: 0,
    timedUnits: 0,
    sizedSamples: 0,
    sizedBytes: 0,
  };
  const u32 = (box: Box, offset: number) => read32(view, box, offset, field);
  const find = (parent: Box, type: string) => boxes(b, view, parent.start, parent.end, field).find((x) => x.type === type);
  const tkhd = find(trak, 'tkhd');
  if (tkhd) t.id = u32(tkhd, b[tkhd.start] === 1 ? 20 : 12);
  const mdia = find(trak, 'mdia');
  if (!mdia) return t;
  const hdlr = find(mdia, 'hdlr');
  t.sound = hdlr !== undefined && String.fromCharCode(...b.subarray(hdlr.start + 8, hdlr.start + 12)) === 'soun';
  const mdhd = find(mdia, 'mdhd');
  if (mdhd) {
    t.timescale = u32(mdhd, b[mdhd.start] === 1 ? 20 : 12);
  }
  const minf = find(mdia, 'minf');
  const stbl = minf && find(minf, 'stbl');
  if (!stbl) return t;
  const stsd = find(stbl, 'stsd');
  if (stsd) {
    const [entry] = boxes(b, view, stsd.start + 8, stsd.end, field);
    if (entry && entry.start + 28 <= entry.end) {
      // AudioSampleEntry: 8 reserved/index bytes, 8 reserved, channels, size, 4 reserved, then the rate as 16.16.
      t.sampleRate = view.getUint16(entry.start + 24);
      t.frameLength = frameLength(b, view, entry, field);
    }
  }
  const stts = find(stbl, 'stts');
  if (stts) {
    const entries = u32(stts, 4);
    // The entries' count is checked against the box before the loop, so the loop is as long as the file.
    if (stts.start + 8 + entries * 8 > stts.end) throw invalidField(field, 'the mp4 box stts is shorter than its entries');
    for (let i = 0; i < entries; i++) {
      const count = u32(stts, 8 + i * 8);
      t.timedSamples += count;
      t.timedUnits += count * u32(stts, 12 + i * 8);
    }
  }
  const stsz = find(stbl, 'stsz');
  if (stsz) {
    const size = u32(stsz, 4);
    t.sizedSamples = u32(stsz, 8);
    if (size) t.sizedBytes = size * t.sizedSamples;
    else {
      if (stsz.start + 12 + t.sizedSamples * 4 > stsz.end) throw invalidField(field, 'the mp4 box stsz is shorter than its entries');
      for (let i = 0; i < t.sizedSamples; i++) t.sizedBytes += u32(stsz, 12 + i * 4);
    }
  }
  return t;
}

/** Adds a fragmented file's runs (moof, traf, trun) of track `t` to its tables, with trex's and tfhd's defaults. */
function addFragments(b: Uint8Array, view: DataView, top: Box[], moov: Box, t: Track, field: string): void {
  const children = (box: Box) => boxes(b, view, box.start, box.end, field);
  const u32 = (box: Box, offset: number) => read32(view, box, offset, field);
  let defaultDuration = 0;
  let defaultSize = 0;
  const mvex = children(moov).find((x) => x.type === 'mvex');
  for (const trex of mvex ? children(mvex).filter((x) => x.type === 'trex') : [])
    if (u32(trex, 4) === t.id) {
      defaultDuration = u32(trex, 12);
      defaultSize = u32(trex, 16);
    }
  for (const moof of top.filter((x) => x.type === 'moof'))
    for (const traf of children(moof).filter((x) => x.type === 'traf')) {
      const parts = children(traf);
      const tfhd = parts.find((x) => x.type === 'tfhd');
      if (!tfhd || u32(tfhd, 4) !== t.id) continue;
      const flags = u32(tfhd, 0) & 0xffffff;
      let at = 8 + (flags & 1 ? 8 : 0) + (flags & 2 ? 4 : 0);
      const duration = flags & 8 ? u32(tfhd, at) : defaultDuration;
      at += flags & 8 ? 4 : 0;
      const size = flags & 0x10 ? u32(tfhd, at) : defaultSize;
      for (const trun of parts.filter((x) => x.type === 'trun')) {
        const f = u32(trun, 0) & 0xffffff;
        const count = u32(trun, 4);
        const fields = [0x100, 0x200, 0x400, 0x800].filter((bit) => f & bit).length;
        const first = trun.start + 8 + (f & 1 ? 4 : 0) + (f & 4 ? 4 : 0);
        if (first + count * fields * 4 > trun.end) throw invalidField(field, 'the mp4 box trun is shorter than its samples');
        t.timedSamples += count;
        t.sizedSamples += count;
        // Without per-sample fields every sample takes the defaults: no loop over a count the file need not back.
        if (fields === 0) {
          t.timedUnits += count * duration;
          t.sizedBytes += count * size;
          continue;
        }
        for (let i = 0, p = first; i < count; i++) {
          t.timedUnits += f & 0x100 ? view.getUint32(p) : duration;
          t.sizedBytes += f & 0x200 ? view.getUint32(p + (f & 0x100 ? 4 : 0)) : size;
          p += fields * 4;
        }
      }
    }
}

/**
 * The seconds an MP4/M4A file's first sound track plays, from its sample tables, never from
 * mvhd's or mdhd's duration (the writer's word): the larger of stts's summed sample durations
 * over mdhd's timescale and, for codecs with one frame length (AAC, AC-3), stsz's sample count
 * times that length over the sample entry's rate. Fragmented files add their trun runs. 400
 * naming the box when a box runs past the file, or the tables list more samples or bytes than
 * the mdat boxes hold.
 */
export function mp4Seconds(bytes: Uint8Array, field: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const top = boxes(bytes, view, 0, bytes.byteLength, field);
  const moov = top.find((x) => x.type === 'moov');
  if (!moov) throw invalidField(field, 'the mp4 file has no moov box');
  const track = boxes(bytes, view, moov.start, moov.end, field)
    .filter((x) => x.type === 'trak')
    .map((trak) => readTrack(bytes, view, trak, field))
    .find((t) => t.sound);
  if (!track) throw invalidField(field, 'the mp4 file has no sound track');
  if (track.timescale === 0) throw invalidField(field, "the mp4 box mdhd's timescale is 0");
  addFragments(bytes, view, top, moov, track, field);
  const mdat = top.filter((x) => x.type === 'mdat').reduce((sum, x) => sum + x.end - x.start, 0);
  // Every sample is at least a byte of mdat: a table listing more cannot be played from this file.
  if (track.timedSamples > mdat)
    throw invalidField(field, `the mp4 box stts lists ${track.timedSamples} samples; mdat holds ${mdat} bytes`);
  if (track.sizedSamples > mdat || track.sizedBytes > mdat)
    throw invalidField(
      field,
      `the mp4 box stsz lists ${track.sizedSamples} samples of ${track.sizedBytes} bytes; mdat holds ${mdat} bytes`,
    );
  const rate = track.sampleRate || track.timescale;
  return Math.max(track.timedUnits / track.timescale, track.frameLength ? (track.sizedSamples * track.frameLength) / rate : 0);
}
