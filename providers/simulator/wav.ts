/**
 * A 16-bit PCM mono WAV file (RIFF header and samples) of `samples` in -1..1, at `rate` Hz.
 * Small enough to write here rather than add a dependency: the header is 44 fixed bytes.
 */
export function wavFile(samples: Float32Array, rate: number): Uint8Array<ArrayBuffer> {
  const data = samples.length * 2;
  const out = new Uint8Array(44 + data);
  const view = new DataView(out.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((ch, i) => view.setUint8(at + i, ch.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + data, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true); // bytes per second
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, data, true);
  for (let i = 0; i < samples.length; i++) view.setInt16(44 + i * 2, Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), true);
  return out;
}

/** A short melody (a rising arpeggio with a soft envelope) of `seconds`, deterministic from `seed`. */
export function melody(seconds: number, rate: number, seed: number): Float32Array {
  const notes = [261.63, 329.63, 392.0, 523.25, 392.0, 329.63];
  const samples = new Float32Array(Math.round(seconds * rate));
  const noteLength = Math.round(rate / 4);
  for (let i = 0; i < samples.length; i++) {
    const note = notes[(Math.floor(i / noteLength) + seed) % notes.length]!;
    const within = (i % noteLength) / noteLength;
    const envelope = Math.min(1, within * 20) * (1 - within) ** 0.5;
    samples[i] = 0.3 * envelope * Math.sin((2 * Math.PI * note * i) / rate);
  }
  return samples;
}
