import { loadMusicMetadata } from '../../src/audio/media';
import { upstreamRejected } from '../errors';
import type { BinaryResult, JsonBody } from '../types';
import { simulatedEncoder } from './encoders';
import { toneBlocks, speechSamples } from './tones';

/**
 * `/audio/speech`: a tone sequence as long as the text at the asked speed, encoded in the
 * asked format (mp3, wav or pcm; another is refused as an upstream would) and produced as a
 * stream, block by block, so streamed speech really arrives before it is finished.
 */
export async function simulatedSpeech(body: JsonBody): Promise<BinaryResult> {
  const format = String(body.response_format ?? 'mp3');
  const encoder = await simulatedEncoder(format);
  if (!encoder) throw upstreamRejected(400, `the simulator does not encode ${format}`);
  const text = String(body.input ?? '');
  const speed = typeof body.speed === 'number' ? body.speed : 1;
  const voice = String(body.voice ?? 'default');
  const blocks = toneBlocks(text, voice, speed);
  let started = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!started) {
          started = true;
          const header = encoder.start(speechSamples(text, speed));
          if (header.byteLength) return controller.enqueue(header);
        }
        const next = blocks.next();
        if (next.done) {
          const tail = encoder.end();
          if (tail.byteLength) controller.enqueue(tail);
          return controller.close();
        }
        controller.enqueue(encoder.block(next.value));
      },
    },
    { highWaterMark: 0 },
  );
  return { body: stream, contentType: encoder.contentType };
}

const LEXICON = [
  'simulated',
  'audio',
  'transcript',
  'of',
  'the',
  'uploaded',
  'file',
  'with',
  'no',
  'model',
  'weights',
  'svc',
  'speech',
  'words',
  'follow',
  'its',
  'length',
];

/**
 * `/audio/transcriptions`: a deterministic transcript whose length follows the file's real
 * duration (read with music-metadata), in the verbose_json shape: text, duration, segments
 * and words with their times.
 */
export async function simulatedTranscription(form: FormData): Promise<JsonBody> {
  const file = form.get('file');
  if (!(file instanceof Blob)) throw upstreamRejected(400, 'file is required');
  const bytes = new Uint8Array(await file.arrayBuffer());
  const { parseBuffer } = await loadMusicMetadata();
  let duration = 0;
  try {
    duration = (await parseBuffer(bytes, { size: bytes.byteLength }, { duration: true })).format.duration ?? 0;
  } catch {
    throw upstreamRejected(400, 'the file is not readable audio');
  }
  // About two and a half words a second, starting with a label nobody mistakes for a real transcript.
  const count = Math.max(1, Math.round(duration * 2.5));
  const seed = Number(Bun.hash.wyhash(bytes.subarray(0, 4096)) & 0xffffn);
  const words = Array.from({ length: count }, (_, i) => (i === 0 ? '[simulated]' : LEXICON[(seed + i * 7) % LEXICON.length]!));
  const step = duration / count;
  const timed = words.map((word, i) => ({ word, start: round(i * step), end: round((i + 1) * step) }));
  const segments: { text: string; start: number; end: number }[] = [];
  for (let i = 0; i < timed.length; i += 10) {
    const part = timed.slice(i, i + 10);
    segments.push({ text: part.map((w) => w.word).join(' '), start: part[0]!.start, end: part[part.length - 1]!.end });
  }
  return { text: words.join(' '), duration: round(duration), segments, words: timed };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
