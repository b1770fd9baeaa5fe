import { invalidField } from '../http/errors';
import { flacSeconds } from './flac-frames';
import { mpegFrameSeconds } from './mpeg-frames';
import { oggPacketSeconds } from './ogg-packets';
import { readWav } from './wav-format';

/**
 * The lowest byte rate each container's codecs are encoded at, for the uploads whose length
 * svc reads from the container rather than from every frame: Ogg other than Opus and Vorbis
 * (Speex, 2.15 kbit/s), WebM and MP4 (Opus or HE-AAC, 6 kbit/s). N bytes play at most N over it.
 */
const LOWEST_BYTES_PER_SECOND: Record<string, number> = { ogg: 250, webm: 750, m4a: 750, mp4: 750 };

/** How long an upload plays, as billed, and the longest it could play (what is reserved). */
export interface MeasuredAudio {
  /** What a decoder plays, read from the content (never a header field alone). */
  seconds: number;
  /** At least `seconds`: the most a decoder could play from these bytes. */
  longestSeconds: number;
}

/**
 * Measures an upload of a recognised format from its content: PCM WAV from the data bytes over
 * the byte rate its validated format implies; MP3 and AAC (ADTS) frame by frame; FLAC from
 * its frames or STREAMINFO, whichever is longer; Ogg Opus and Vorbis packet by packet, or
 * their last granule position when that is more. Other Ogg codecs, WebM and MP4 take the
 * container's length (`containerSeconds`, music-metadata's reading of granule positions and
 * track durations) and reserve as if the bytes played at the codec's lowest bit rate.
 */
export function measureAudio(bytes: Uint8Array, format: string, containerSeconds: number | undefined, field = 'file'): MeasuredAudio {
  let seconds: number;
  if (format === 'wav') seconds = readWav(bytes, field).seconds;
  else if (format === 'mp3' || format === 'aac') {
    const scan = mpegFrameSeconds(bytes, format);
    if (scan.frames === 0) throw invalidField(field, `the ${format} file has no audio frames`);
    seconds = scan.seconds;
  } else if (format === 'flac') seconds = flacSeconds(bytes, field).seconds;
  else {
    const packets = format === 'ogg' ? oggPacketSeconds(bytes) : undefined;
    if (packets !== undefined) return counted(Math.max(packets, containerSeconds ?? 0), field);
    seconds = containerSeconds ?? 0;
  }
  counted(seconds, field);
  const lowest = LOWEST_BYTES_PER_SECOND[format];
  return { seconds, longestSeconds: lowest ? Math.max(seconds, bytes.byteLength / lowest) : seconds };
}

/** A measure of every frame: what is billed is also the longest the upload plays. */
function counted(seconds: number, field: string): MeasuredAudio {
  if (!Number.isFinite(seconds) || seconds <= 0) throw invalidField(field, 'the audio file has no readable duration');
  return { seconds, longestSeconds: seconds };
}
