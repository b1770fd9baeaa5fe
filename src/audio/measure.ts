import { invalidField } from '../http/errors';
import { flacSeconds } from './flac-frames';
import { mp4Seconds } from './mp4-samples';
import { mpegFrameSeconds } from './mpeg-frames';
import { oggPacketSeconds } from './ogg-packets';
import { readWav } from './wav-format';
import { webmSeconds } from './webm-blocks';

/**
 * The lowest byte rate each container's codecs are encoded at, for the uploads whose length
 * svc reads from the container rather than from every frame: Ogg other than Opus and Vorbis
 * (Speex, 2.15 kbit/s). N bytes play at most N over it.
 */
const LOWEST_BYTES_PER_SECOND: Record<string, number> = { ogg: 250 };

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
 * their last granule position when that is more; MP4 from its sample tables (mp4-samples.ts);
 * WebM from its blocks (webm-blocks.ts). Other Ogg codecs take the container's length
 * (`containerSeconds`, music-metadata's last granule position) and reserve as if the bytes
 * played at the codec's lowest bit rate.
 */
export function measureAudio(bytes: Uint8Array, format: string, containerSeconds: number | undefined, field = 'file'): MeasuredAudio {
  let seconds: number;
  if (format === 'wav') seconds = readWav(bytes, field).seconds;
  else if (format === 'mp3' || format === 'aac') {
    const scan = mpegFrameSeconds(bytes, format);
    if (scan.frames === 0) throw invalidField(field, `the ${format} file has no audio frames`);
    seconds = scan.seconds;
  } else if (format === 'flac') seconds = flacSeconds(bytes, field).seconds;
  else if (format === 'm4a' || format === 'mp4') return counted(mp4Seconds(bytes, field), field);
  else if (format === 'webm') return counted(webmSeconds(bytes, field), field);
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
