import { lazyModule } from '../../src/lifecycle/lazy-module';
import { SPEECH_SAMPLE_RATE } from './tones';

/** A streaming encoder of 16-bit mono samples: a header, each block, and the tail. */
export interface BlockEncoder {
  contentType: string;
  start(totalSamples: number): Uint8Array;
  block(samples: Int16Array): Uint8Array;
  end(): Uint8Array;
}

const EMPTY = new Uint8Array(0);
/** A copy of a view's bytes as a Uint8Array (lamejs answers Int8Arrays, whatever its types say). */
const bytesOf = (view: ArrayBufferView) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice();

/** A 44-byte RIFF/WAVE header for `totalSamples` 16-bit mono samples (the length is known before the first block). */
function wavHeader(totalSamples: number): Uint8Array {
  const data = totalSamples * 2;
  const header = new DataView(new ArrayBuffer(44));
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => header.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  header.setUint32(4, 36 + data, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, 1, true); // mono
  header.setUint32(24, SPEECH_SAMPLE_RATE, true);
  header.setUint32(28, SPEECH_SAMPLE_RATE * 2, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  ascii(36, 'data');
  header.setUint32(40, data, true);
  return new Uint8Array(header.buffer);
}

/** lamejs, loaded by the first simulated MP3. */
const loadLame = lazyModule(() => import('@breezystack/lamejs'));

/**
 * The encoders the simulator really has: WAV and raw PCM (24 kHz, 16-bit little-endian mono,
 * as OpenAI's `pcm`) written by hand, MP3 with lamejs (64 kbit/s). The catalog claims exactly
 * these formats for simulated speech models; any other is undefined.
 */
export async function simulatedEncoder(format: string): Promise<BlockEncoder | undefined> {
  switch (format) {
    case 'wav':
      return { contentType: 'audio/wav', start: wavHeader, block: bytesOf, end: () => EMPTY };
    case 'pcm':
      return { contentType: 'audio/pcm', start: () => EMPTY, block: bytesOf, end: () => EMPTY };
    case 'mp3': {
      const encoder = new (await loadLame()).Mp3Encoder(1, SPEECH_SAMPLE_RATE, 64);
      return {
        contentType: 'audio/mpeg',
        start: () => EMPTY,
        block: (s) => bytesOf(encoder.encodeBuffer(s)),
        end: () => bytesOf(encoder.flush()),
      };
    }
    default:
      return undefined;
  }
}
