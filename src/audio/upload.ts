import { invalidField, ServiceError } from '../http/errors';
import { measureAudio } from './measure';
import { loadMusicMetadata } from './media';

/** Largest uploaded audio file: 25 MB (OpenAI's transcription limit; the reference's 413). */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

/** The upload formats of the reference (createTranscription's `file`), as the API names them. */
export const TRANSCRIPTION_FORMATS = ['wav', 'flac', 'm4a', 'aac', 'mp4', 'mp3', 'ogg', 'webm'] as const;

/** music-metadata's container names, read from the bytes, mapped to the accepted formats. */
const CONTAINERS: Record<string, string> = {
  WAVE: 'wav',
  FLAC: 'flac',
  MPEG: 'mp3',
  ADTS: 'aac',
  Ogg: 'ogg',
  'EBML/webm': 'webm',
  'EBML/matroska': 'webm',
};

/** Warnings music-metadata gives for a file cut short (a WAV whose data chunk runs past the end). */
const TRUNCATED = /exceeding file length|truncat|end of (file|stream)/i;

/** An uploaded audio file, checked: its bytes, its format (read from its content) and its real duration. */
export interface AudioUpload {
  bytes: Uint8Array<ArrayBuffer>;
  format: string;
  /** What a decoder plays, measured from the content (measure.ts). */
  durationSeconds: number;
  /** The most the bytes could play: what a charge by the second reserves. */
  longestSeconds: number;
  /** The name and type the client gave, passed on to an upstream that wants them. */
  name: string;
  mimeType: string;
}

/** 413 for an upload over the limit (the reference's PayloadTooLargeError). */
function tooLarge(field: string): ServiceError {
  return new ServiceError(413, { error: `${field}: the file must be at most ${MAX_AUDIO_BYTES} bytes`, code: 'PAYLOAD_TOO_LARGE' });
}

/** The accepted format of a container music-metadata recognised (MP4 family by its brand). */
function formatOf(container: string | undefined): string | undefined {
  if (!container) return undefined;
  if (CONTAINERS[container]) return CONTAINERS[container];
  // ADTS streams are reported with their MPEG version ("ADTS/MPEG-4").
  if (container.startsWith('ADTS/')) return 'aac';
  // MPEG-4 containers are reported by brand ("M4A/isom/mp42", "isom/iso2/mp41").
  if (/^(M4A|M4B|mp4|isom|iso\d|mp4\d|dash|M4V|3gp)/i.test(container)) return container.startsWith('M4A') ? 'm4a' : 'mp4';
  return undefined;
}

/**
 * Reads and checks an uploaded audio file before anything decodes it: a file upload (400
 * naming the field otherwise), at most MAX_AUDIO_BYTES (413), one of the accepted formats
 * recognised from its bytes by music-metadata (never its name or declared type), not cut
 * short, and with a duration measured from its content (measure.ts), never a header alone.
 */
export async function readAudioUpload(value: unknown, field = 'file'): Promise<AudioUpload> {
  if (!(value instanceof Blob)) throw invalidField(field, 'required: an audio file upload (multipart/form-data)');
  if (value.size > MAX_AUDIO_BYTES) throw tooLarge(field);
  if (value.size === 0) throw invalidField(field, 'the file is empty');
  const bytes = new Uint8Array(await value.arrayBuffer());
  // Outside the try: the parser failing to load is this server's fault (500), not an unreadable file.
  const { parseBuffer } = await loadMusicMetadata();
  let container: string | undefined;
  let duration: number | undefined;
  let warnings: { message: string }[] = [];
  try {
    // No mimeType: the parser picks the format from the bytes alone.
    const meta = await parseBuffer(bytes, { size: bytes.byteLength }, { duration: true, skipCovers: true });
    container = meta.format.container;
    duration = meta.format.duration;
    warnings = meta.quality?.warnings ?? [];
  } catch {
    throw invalidField(field, `not a readable audio file (accepted: ${TRANSCRIPTION_FORMATS.join(', ')})`);
  }
  const format = formatOf(container);
  if (!format)
    throw invalidField(field, `the format ${container ?? 'unknown'} is not accepted (accepted: ${TRANSCRIPTION_FORMATS.join(', ')})`);
  // WAV is read chunk by chunk below, streamed data chunks (size 0xFFFFFFFF) included.
  if (format !== 'wav' && warnings.some((w) => TRUNCATED.test(w.message))) throw invalidField(field, 'the audio file is truncated');
  const measured = measureAudio(bytes, format, duration, field);
  const name = value instanceof File && value.name ? value.name : `audio.${format}`;
  return {
    bytes,
    format,
    durationSeconds: measured.seconds,
    longestSeconds: measured.longestSeconds,
    name,
    mimeType: value.type || 'application/octet-stream',
  };
}

/** Whole seconds billed for a duration: rounded up, at least one. */
export const billedSeconds = (durationSeconds: number): number => Math.max(1, Math.ceil(durationSeconds));
