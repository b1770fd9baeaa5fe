import { Inflate } from 'fflate';

/** How far one inflate may go: bytes out, and bytes out per byte in. */
export interface InflateCaps {
  maxBytes: number;
  maxRatio: number;
}

/** Why an inflate was stopped: too many bytes out, or too many per byte in. */
export type InflateStop = 'bytes' | 'ratio';

/**
 * Compressed bytes handed to the inflater at once. DEFLATE writes at most 1,032 bytes per byte
 * in, so a push of 1 KiB yields at most ~1 MB and one of 16 KiB ~16 MB: the caps are seen before
 * more is made (a whole part in one push is inflated whole before any callback can stop it).
 * A slice starts small and grows while the data inflates modestly, as honest XML does.
 */
const MIN_SLICE = 1024;
const MAX_SLICE = 16 * 1024;
/** Output one push aims at: the next slice is sized by the ratio seen so far. */
const PUSH_OUTPUT = 1024 * 1024;
/** Output below this is never refused by the ratio: a small part may compress very well. */
const RATIO_GRACE_BYTES = 1024 * 1024;

/**
 * Inflates raw DEFLATE `data` a slice at a time, giving each piece of output to `onChunk`,
 * and stops as soon as the output passes `caps.maxBytes` or, past the first MB, `caps.maxRatio`
 * times the input read so far; returns the bytes out and why it stopped, if it did. Throws
 * fflate's error on data that is not DEFLATE. Synchronous, memory bounded by the slice.
 */
export function inflateBounded(
  data: Uint8Array,
  caps: InflateCaps,
  onChunk: (chunk: Uint8Array) => void = () => {},
): { bytes: number; stop: InflateStop | null } {
  let bytes = 0;
  let read = 0;
  let stop: InflateStop | null = null;
  const inflater = new Inflate(function onInflated(chunk) {
    if (stop) return;
    bytes += chunk.length;
    if (bytes > caps.maxBytes) stop = 'bytes';
    else if (bytes > RATIO_GRACE_BYTES && bytes > caps.maxRatio * read) stop = 'ratio';
    else if (chunk.length) onChunk(chunk);
  });
  while (!stop && read < data.length) {
    const ratio = read === 0 ? 1032 : Math.max(1, bytes / read);
    const size = Math.min(MAX_SLICE, Math.max(MIN_SLICE, Math.floor(PUSH_OUTPUT / ratio)));
    const slice = data.subarray(read, read + size);
    read += slice.length;
    inflater.push(slice, read >= data.length);
  }
  return { bytes, stop };
}
