import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { EMBEDDED } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startAudioUpstream, type AudioUpstream } from '../fixtures/audio-upstream';
import {
  encode,
  FFMPEG,
  flacWithoutRate,
  flacWithTotal,
  longWav,
  lyingMp3,
  lyingWav,
  mp4WithDuration1s,
  mp4WithSampleCount,
  oggWithGranule,
  probe,
  wavWithTrailingList,
  webmWithDuration1s,
  webmWithLongSegment,
} from './corpus';
import { ledgerOf, toneMp3, uploadForm } from './helpers';

/** fx-asr: 0.001 USD (1,000 micro-USD) per audio second, so the ledger line reads as seconds. */
const MODELS = [fixtureModel('fx-asr', ['up'], { type: 'asr', pricing: { perUnit: '0.001' } })];
const fixture = async (name: string) => new Uint8Array(await Bun.file(new URL(`../fixtures/audio/${name}`, import.meta.url)).arrayBuffer());

/** A file of the corpus and what it must get: billed at least what ffprobe plays, or a 400 whose error says `refused`. */
interface Case {
  name: string;
  bytes: () => Uint8Array<ArrayBuffer> | Promise<Uint8Array<ArrayBuffer>>;
  refused?: RegExp;
  /**
   * The honest file a lie was made from, when ffprobe's reading of the lie itself is no measure:
   * Ogg packets take their times from the granule positions, so a lying Vorbis stream "plays"
   * 268,436 s in ffprobe while its decoder outputs the same 60 s as the original.
   */
  original?: () => Uint8Array<ArrayBuffer> | Promise<Uint8Array<ArrayBuffer>>;
}

/** `make` run once, on first use. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

const seconds = (s: number | null) => (s === null ? 'nothing (unreadable)' : `${s.toFixed(3)} s`);
const WAV30 = () => longWav(30);
/** The compressed containers, from ffmpeg when the machine has it (30 s), else the committed 1.5 s fixtures. */
const ENCODED: [string, string[], string, string][] = [
  ['FLAC', [], 'flac', 'tone.flac'],
  ['Ogg Vorbis', ['-c:a', 'libvorbis', '-q:a', '0'], 'ogg', 'tone.ogg'],
  ['Ogg Opus', ['-c:a', 'libopus', '-b:a', '16k'], 'ogg', 'tone-opus.ogg'],
  ['M4A (AAC)', ['-c:a', 'aac', '-b:a', '32k'], 'm4a', 'tone.m4a'],
  ['AAC (ADTS)', ['-c:a', 'aac', '-b:a', '32k', '-f', 'adts'], 'aac', 'tone.aac'],
  ['WebM (Opus)', ['-c:a', 'libopus', '-b:a', '16k'], 'webm', 'tone.webm'],
  ['fragmented MP4 (AAC)', ['-c:a', 'aac', '-b:a', '32k', '-movflags', 'frag_keyframe+empty_moov'], 'mp4', ''],
  ['WebM (Vorbis, no frame length in the container)', ['-c:a', 'libvorbis', '-q:a', '0'], 'webm', ''],
  ['WebM (Opus, live: clusters of unknown size)', ['-c:a', 'libopus', '-b:a', '16k', '-live', '1', '-f', 'webm'], 'webm', ''],
  ['MP3 (LAME, with its Info header)', ['-c:a', 'libmp3lame', '-b:a', '64k'], 'mp3', ''],
];
const encoded = (args: string[], ext: string, name: string) => () => (FFMPEG ? encode(WAV30(), args, ext) : fixture(name));
const flac60 = () => (FFMPEG ? encode(longWav(60), [], 'flac') : fixture('tone.flac'));
const opus60 = once(() => (FFMPEG ? encode(longWav(60), ['-c:a', 'libopus', '-b:a', '16k'], 'ogg') : fixture('tone-opus.ogg')));
const m4a60 = once(() => (FFMPEG ? encode(longWav(60), ['-c:a', 'aac', '-b:a', '32k'], 'm4a') : fixture('tone.m4a')));
const webm60 = once(() => (FFMPEG ? encode(longWav(60), ['-c:a', 'libopus', '-b:a', '16k'], 'webm') : fixture('tone.webm')));
const vorbis60 = once(() => (FFMPEG ? encode(longWav(60), ['-c:a', 'libvorbis', '-q:a', '0'], 'ogg') : fixture('tone.ogg')));

const CASES: Case[] = [
  { name: 'honest WAV, 30 s', bytes: WAV30 },
  { name: 'honest WAV with a LIST chunk after the data, 30 s', bytes: () => wavWithTrailingList(30) },
  { name: 'honest MP3 (lamejs), 30 s', bytes: () => toneMp3(30) },
  ...ENCODED.filter(([, , , name]) => FFMPEG || name).map(([label, args, ext, name]) => ({
    name: `honest ${label}`,
    bytes: encoded(args, ext, name),
  })),
  // 600 s at 16 kHz with blockAlign 65535: read as 1 s by the header's block size.
  { name: 'WAV, blockAlign 65535', bytes: () => lyingWav(600, (v) => v.setUint16(32, 65535, true)), refused: /blockAlign/ },
  { name: 'WAV, sample rate 0xFFFFFFFF', bytes: () => lyingWav(60, (v) => v.setUint32(24, 0xffffffff, true)), refused: /sampleRate/ },
  { name: 'WAV, sample rate 0', bytes: () => lyingWav(60, (v) => v.setUint32(24, 0, true)), refused: /sampleRate/ },
  { name: 'WAV, byteRate 2^31', bytes: () => lyingWav(60, (v) => v.setUint32(28, 2 ** 31, true)), refused: /byteRate/ },
  { name: 'WAV, 7 bits per sample', bytes: () => lyingWav(60, (v) => v.setUint16(34, 7, true)), refused: /bitsPerSample/ },
  { name: 'WAV, data size past the end', bytes: () => lyingWav(60, (v) => v.setUint32(40, 10 * 1024 * 1024, true)), refused: /truncated/ },
  // Says 1 s of a 60 s file; the rest of the samples read as no valid chunk.
  { name: 'WAV, data size 1 s of 60 s', bytes: () => lyingWav(60, (v) => v.setUint32(40, 32_000, true)), refused: /runs past the end/ },
  { name: 'MP3, Xing header: 1 frame of 30 s', bytes: () => lyingMp3(30, 'Xing') },
  { name: 'MP3, VBRI header: 1 frame of 30 s', bytes: () => lyingMp3(30, 'VBRI') },
  { name: 'FLAC, total samples 1 s of 60 s', bytes: async () => flacWithTotal(await flac60(), 16_000) },
  { name: 'FLAC, total samples 0 (unknown)', bytes: async () => flacWithTotal(await flac60(), 0) },
  { name: 'FLAC, sample rate 0', bytes: async () => flacWithoutRate(await flac60()), refused: /sampleRate/ },
  // Granule 16,000: a third of a second of Opus (48 kHz), one second of 16 kHz Vorbis.
  { name: 'Ogg Opus, last granule 1/3 s of 60 s', bytes: async () => oggWithGranule(await opus60(), 16_000, 'last'), original: opus60 },
  { name: 'Ogg Opus, every granule 1/3 s of 60 s', bytes: async () => oggWithGranule(await opus60(), 16_000, 'all'), original: opus60 },
  { name: 'Ogg Vorbis, last granule 1 s of 60 s', bytes: async () => oggWithGranule(await vorbis60(), 16_000, 'last'), original: vorbis60 },
  { name: 'Ogg Vorbis, every granule 1 s of 60 s', bytes: async () => oggWithGranule(await vorbis60(), 16_000, 'all'), original: vorbis60 },
  // mvhd and mdhd say 1 s; the sample tables (stts, stsz) still list 60 s of AAC frames.
  { name: 'M4A, mvhd and mdhd duration 1 s of 60 s', bytes: async () => mp4WithDuration1s(await m4a60()), original: m4a60 },
  { name: 'M4A, stts lists 2^31 - 1 samples', bytes: async () => mp4WithSampleCount(await m4a60()), refused: /stts/ },
  { name: 'WebM, Info Duration 1 s of 60 s', bytes: async () => webmWithDuration1s(await webm60()), original: webm60 },
  {
    name: 'WebM, Segment size past the end',
    bytes: async () => webmWithLongSegment(await webm60()),
    refused: /runs past the end|truncated/,
  },
];

describe('transcription bills what a decoder plays (ffprobe), never a header field', () => {
  let t: TestApp;
  let up: AudioUpstream;
  const rows: string[] = [];
  beforeAll(async () => {
    up = startAudioUpstream();
    t = await startTestApp({ backend: EMBEDDED, config: { providers: [fixtureProvider('up', up.url, 30_000)], models: MODELS } });
  });
  afterAll(async () => {
    if (process.env.SVC_CORPUS_REPORT) process.stderr.write(`\n${rows.join('\n')}\n`);
    await t.close();
    await up.close();
  });

  if (!FFMPEG)
    test.skip('FLAC, Ogg, M4A, AAC and WebM of 30 s and the LAME MP3 need ffmpeg (not installed): the 1.5 s fixtures stand in', () => {});

  for (const c of CASES)
    test(
      c.name,
      async () => {
        const bytes = await c.bytes();
        const ffprobe = probe(c.original ? await c.original() : bytes);
        const lie = c.original ? ` (the lie itself: ${seconds(probe(bytes).playedSeconds)})` : '';
        const res = await t.request('/audio/transcriptions', { method: 'POST', body: uploadForm(bytes, { model: 'fx-asr' }, 'clip.bin') });
        const body = await res.json();
        if (c.refused) {
          rows.push(
            `${c.name}\tffprobe played ${seconds(ffprobe.playedSeconds)} (header ${ffprobe.headerSeconds}) -> ${res.status} ${body.error}`,
          );
          expect({ status: res.status, error: body.error }).toMatchObject({ status: 400, error: expect.stringMatching(c.refused) });
          expect(body.error).toContain('file: the ');
          return;
        }
        expect({ status: res.status, body }).toMatchObject({ status: 200 });
        const billed = -(await ledgerOf(t, res)).reduce((sum, r) => sum + r.amountMicros, 0) / 1000;
        rows.push(
          `${c.name}\tffprobe played ${seconds(ffprobe.playedSeconds)} (header ${ffprobe.headerSeconds})${lie} -> billed ${billed} s, answered duration ${body.duration}`,
        );
        const played = ffprobe.playedSeconds ?? 0;
        expect(played).toBeGreaterThan(1);
        expect(billed).toBeGreaterThanOrEqual(played);
        // Honest or not, no more than the frames a decoder drops (encoder delay, padding) and the rounding up.
        expect(billed).toBeLessThanOrEqual(Math.ceil(played) + 1);
      },
      60_000,
    );
});
