import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { path as ffprobePath } from '@ffprobe-installer/ffprobe';
import { toneMp3, toneWav } from './helpers';

/** Where ffmpeg is, when the machine has it (CI installs Debian's; the corpus's compressed files need it). */
export const FFMPEG = ['/usr/bin/ffmpeg', '/usr/local/bin/ffmpeg'].find((p) => spawnSync(p, ['-version']).status === 0);

/**
 * What ffprobe reads of a file: the container's duration (a header's word) and the end of the
 * last packet it demuxes (what plays); null when ffprobe cannot read the file at all.
 */
export function probe(bytes: Uint8Array): { headerSeconds: number | null; playedSeconds: number | null } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-probe-'));
  const file = join(dir, 'clip');
  writeFileSync(file, bytes);
  const out = spawnSync(
    ffprobePath,
    ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'format=duration:packet=pts_time,duration_time', '-of', 'json', file],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  rmSync(dir, { recursive: true, force: true });
  if (out.status === null) throw new Error(`ffprobe did not finish: ${out.signal ?? out.error}`);
  if (out.status !== 0) return { headerSeconds: null, playedSeconds: null };
  const json = JSON.parse(out.stdout || '{}') as {
    format?: { duration?: string };
    packets?: { pts_time?: string; duration_time?: string }[];
  };
  let played = 0;
  for (const p of json.packets ?? []) played = Math.max(played, Number(p.pts_time ?? 0) + Number(p.duration_time ?? 0));
  const header = Number(json.format?.duration);
  return { headerSeconds: Number.isFinite(header) ? header : null, playedSeconds: played };
}

/** The same sound through ffmpeg in another container and codec (`args` before the output name). */
export function encode(wav: Uint8Array, args: string[], ext: string): Uint8Array<ArrayBuffer> {
  if (!FFMPEG) throw new Error('ffmpeg is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'svc-encode-'));
  writeFileSync(join(dir, 'in.wav'), wav);
  const out = spawnSync(FFMPEG, ['-v', 'error', '-y', '-i', join(dir, 'in.wav'), ...args, join(dir, `out.${ext}`)]);
  if (out.status !== 0) throw new Error(`ffmpeg ${args.join(' ')}: ${out.stderr}`);
  const bytes = new Uint8Array(readFileSync(join(dir, `out.${ext}`)));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/** A copy of `bytes` with `edit` applied to a DataView of it. */
export function edited(bytes: Uint8Array<ArrayBuffer>, edit: (view: DataView) => void): Uint8Array<ArrayBuffer> {
  const copy = bytes.slice();
  edit(new DataView(copy.buffer));
  return copy;
}

/** `seconds` of tone as MP3 whose first frame is a Xing (or VBRI) header claiming one frame: the whole file, by its word. */
export function lyingMp3(seconds: number, tag: 'Xing' | 'VBRI'): Uint8Array<ArrayBuffer> {
  const mp3 = toneMp3(seconds);
  // lamejs writes MPEG-2 layer III mono at 16 kHz and 64 kbit/s: 288-byte frames, 9 bytes of side information.
  const frame = new Uint8Array(288);
  frame.set(mp3.subarray(0, 4));
  frame[2] = frame[2]! & 0xfd; // no padding
  const view = new DataView(frame.buffer);
  const at = tag === 'Xing' ? 4 + 9 : 4 + 32;
  for (let i = 0; i < 4; i++) frame[at + i] = tag.charCodeAt(i);
  if (tag === 'Xing') {
    view.setUint32(at + 4, 3); // flags: the frame and byte counts are present
    view.setUint32(at + 8, 1); // frames
    view.setUint32(at + 12, mp3.byteLength + frame.byteLength); // bytes
  } else {
    view.setUint16(at + 4, 1); // version
    view.setUint32(at + 10, mp3.byteLength); // bytes
    view.setUint32(at + 14, 1); // frames
  }
  const out = new Uint8Array(frame.byteLength + mp3.byteLength);
  out.set(frame);
  out.set(mp3, frame.byteLength);
  return out;
}

/** A FLAC copy whose STREAMINFO says `totalSamples` (the first metadata block opens at byte 4; its total is the 36 bits ending at byte 25). */
export function flacWithTotal(flac: Uint8Array<ArrayBuffer>, totalSamples: number): Uint8Array<ArrayBuffer> {
  return edited(flac, (v) => {
    v.setUint8(21, (v.getUint8(21) & 0xf0) | Math.floor(totalSamples / 2 ** 32));
    v.setUint32(22, totalSamples >>> 0);
  });
}

/** A FLAC copy whose STREAMINFO sample rate is 0 (20 bits from byte 18). */
export const flacWithoutRate = (flac: Uint8Array<ArrayBuffer>) =>
  edited(flac, (v) => {
    v.setUint16(18, 0);
    v.setUint8(20, v.getUint8(20) & 0x0f);
  });

/** `seconds` (whole) of the simulator's 16 kHz mono tone, one second made and repeated (440 cycles fit a second exactly). */
export function longWav(seconds: number): Uint8Array<ArrayBuffer> {
  const second = toneWav(1);
  const data = second.byteLength - 44;
  const out = new Uint8Array(44 + data * seconds);
  out.set(second.subarray(0, 44));
  for (let i = 0; i < seconds; i++) out.set(second.subarray(44), 44 + i * data);
  const view = new DataView(out.buffer);
  view.setUint32(4, 36 + data * seconds, true);
  view.setUint32(40, data * seconds, true);
  return out;
}

/** A WAV with a LIST chunk after its data, as many editors write: chunks after the audio are not audio. */
export function wavWithTrailingList(seconds: number): Uint8Array<ArrayBuffer> {
  const wav = longWav(seconds);
  const list = new TextEncoder().encode('LIST\x1a\0\0\0INFOISFT\x0e\0\0\0Lavf60.16.100\0');
  const out = new Uint8Array(wav.byteLength + list.byteLength);
  out.set(wav);
  out.set(list, wav.byteLength);
  new DataView(out.buffer).setUint32(4, out.byteLength - 8, true);
  return out;
}

/** The simulator's 16 kHz mono WAV with fields of its 44-byte header rewritten. */
export const lyingWav = (seconds: number, edit: (view: DataView) => void) => edited(longWav(seconds), edit);

const OGG_CRC = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n << 24;
  for (let i = 0; i < 8; i++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
  return c >>> 0;
});

/** An Ogg copy whose last page (or every page after the headers) says `granule`, its CRC made right again. */
export function oggWithGranule(ogg: Uint8Array<ArrayBuffer>, granule: number, pages: 'last' | 'all'): Uint8Array<ArrayBuffer> {
  const starts: [number, number][] = [];
  for (let at = 0; at + 27 <= ogg.byteLength;) {
    let length = 27 + ogg[at + 26]!;
    for (let i = 0; i < ogg[at + 26]!; i++) length += ogg[at + 27 + i]!;
    starts.push([at, length]);
    at += length;
  }
  return edited(ogg, (v) => {
    for (const [at, length] of pages === 'last' ? starts.slice(-1) : starts.slice(2)) {
      v.setBigUint64(at + 6, BigInt(granule), true);
      v.setUint32(at + 22, 0, true);
      let crc = 0;
      for (let i = at; i < at + length; i++) crc = ((crc << 8) ^ OGG_CRC[((crc >>> 24) ^ v.getUint8(i)) & 0xff]!) >>> 0;
      v.setUint32(at + 22, crc, true);
    }
  });
}

/** Where the content of the first box of `type` starts in an MP4 (after its 8-byte header). */
const mp4Box = (bytes: Uint8Array, type: string) => Buffer.from(bytes).indexOf(type) + 4;

/** An MP4 copy whose mvhd and mdhd durations say one second (their timescale); the sample tables are left as they are. */
export const mp4WithDuration1s = (mp4: Uint8Array<ArrayBuffer>) =>
  edited(mp4, (v) => {
    for (const type of ['mvhd', 'mdhd']) {
      const at = mp4Box(mp4, type);
      const wide = v.getUint8(at) === 1;
      const timescale = v.getUint32(at + (wide ? 20 : 12));
      if (wide) v.setBigUint64(at + 24, BigInt(timescale));
      else v.setUint32(at + 16, timescale);
    }
  });

/** An MP4 copy whose stts's first entry says 2^31 - 1 samples: more than the file's bytes can hold. */
export const mp4WithSampleCount = (mp4: Uint8Array<ArrayBuffer>) => edited(mp4, (v) => v.setUint32(mp4Box(mp4, 'stts') + 8, 0x7fffffff));

/** The first EBML element with this ID (its bytes), as the offset of its size. */
const ebml = (bytes: Uint8Array, id: number[]) => Buffer.from(bytes).indexOf(Buffer.from(id)) + id.length;

/** A WebM copy whose Segment Info Duration says one second (ffmpeg writes it as a float in milliseconds). */
export const webmWithDuration1s = (webm: Uint8Array<ArrayBuffer>) =>
  edited(webm, (v) => {
    const at = ebml(webm, [0x44, 0x89]);
    if (v.getUint8(at) === 0x88) v.setFloat64(at + 1, 1000);
    else v.setFloat32(at + 1, 1000);
  });

/** A WebM copy whose Segment's size (ffmpeg writes it in 8 bytes) runs far past the end of the file. */
export const webmWithLongSegment = (webm: Uint8Array<ArrayBuffer>) =>
  edited(webm, (v) => {
    const at = ebml(webm, [0x18, 0x53, 0x80, 0x67]);
    if (v.getUint8(at) !== 0x01) throw new Error('the Segment size is not 8 bytes long');
    v.setUint32(at + 1, 0x00ffffff);
    v.setUint32(at + 4, 0xfffffffe);
  });
