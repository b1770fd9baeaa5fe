import { upstreamUnavailable } from '../../providers/errors';
import type { JsonBody } from '../../providers/types';
import type { TranscriptFormat, TranscriptionResponse } from './transcription-schema';

/** A timed span of a transcript. */
interface Timed {
  text: string;
  start: number;
  end: number;
}

/** What svc keeps of an upstream transcript: the text and, when sent, its segments and words. */
export interface Transcript {
  text: string;
  segments: Timed[];
  words: Timed[];
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The timed items of an upstream list (`segments` with `text`, `words` with `word`), malformed ones dropped. */
function timed(list: unknown, key: 'text' | 'word'): Timed[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((x): x is Record<string, unknown> => !!x && typeof x === 'object' && typeof (x as Record<string, unknown>)[key] === 'string')
    .map((x) => ({ text: x[key] as string, start: num(x.start), end: num(x.end) }));
}

/** Reads an upstream transcription answer (OpenAI json or verbose_json); one without text is a broken answer (502, nothing charged). */
export function transcriptOf(answer: JsonBody): Transcript {
  if (typeof answer.text !== 'string') throw upstreamUnavailable('the upstream answered a transcription without text');
  return { text: answer.text, segments: timed(answer.segments, 'text'), words: timed(answer.words, 'word') };
}

/** The segments, or one segment spanning the whole file when the upstream sent none. */
const segmentsOf = (t: Transcript, duration: number) => (t.segments.length ? t.segments : [{ text: t.text, start: 0, end: duration }]);

/** `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT). */
function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** The transcript as SubRip or WebVTT cues, one per segment. */
function subtitles(t: Transcript, duration: number, kind: 'srt' | 'vtt'): string {
  const sep = kind === 'srt' ? ',' : '.';
  const cues = segmentsOf(t, duration).map(
    (s, i) => `${kind === 'srt' ? `${i + 1}\n` : ''}${clock(s.start, sep)} --> ${clock(s.end, sep)}\n${s.text.trim()}\n`,
  );
  return (kind === 'vtt' ? 'WEBVTT\n\n' : '') + cues.join('\n');
}

/**
 * The client's answer in the asked format: text for text, srt and vtt; for json the
 * reference's `{text, duration, timestamps?}`; for verbose_json OpenAI's shape. `duration` is
 * always svc's own reading of the file.
 */
export function renderTranscript(
  t: Transcript,
  o: { format: TranscriptFormat; duration: number; timestamps: boolean; language?: string },
): string | TranscriptionResponse {
  const duration = Math.round(o.duration * 1000) / 1000;
  switch (o.format) {
    case 'text':
      return t.text;
    case 'srt':
    case 'vtt':
      return subtitles(t, duration, o.format);
    case 'verbose_json':
      return {
        task: 'transcribe',
        language: o.language ?? 'en',
        duration,
        text: t.text,
        segments: segmentsOf(t, duration).map((s, id) => ({ id, ...s })),
        ...(t.words.length ? { words: t.words.map((w) => ({ word: w.text, start: w.start, end: w.end })) } : {}),
      };
    default:
      return {
        text: t.text,
        duration,
        ...(o.timestamps
          ? {
              timestamps: {
                word: t.words.map((w) => ({ word: w.text, start: w.start, end: w.end })),
                segment: segmentsOf(t, duration),
              },
            }
          : {}),
      };
  }
}
