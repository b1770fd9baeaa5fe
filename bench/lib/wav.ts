import { wavFile } from '../../providers/simulator/wav';

// WAV bytes of a tone: the speech the bench's upstreams answer (bench/audio.ts, bench/servers/upstream-families.ts).

/** 16-bit mono PCM of a 440 Hz tone. */
export function tone(seconds: number, rate: number): Int16Array {
  const s = new Int16Array(Math.round(seconds * rate));
  for (let i = 0; i < s.length; i++) s[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate));
  return s;
}

/** A WAV file of `samples`, written by the simulator's own WAV writer. */
export function wav(samples: Int16Array, rate: number): Uint8Array<ArrayBuffer> {
  return wavFile(
    Float32Array.from(samples, (s) => s / 32767),
    rate,
  );
}
