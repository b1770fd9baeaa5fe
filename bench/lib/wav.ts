// WAV bytes of a tone: the speech the bench's upstreams answer (bench/audio.ts, bench/servers/upstream-families.ts).

/** 16-bit mono PCM of a 440 Hz tone. */
export function tone(seconds: number, rate: number): Int16Array {
  const s = new Int16Array(Math.round(seconds * rate));
  for (let i = 0; i < s.length; i++) s[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate));
  return s;
}

/** A WAV file of `samples`. */
export function wav(samples: Int16Array, rate: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(44 + samples.byteLength);
  const v = new DataView(out.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  v.setUint32(4, 36 + samples.byteLength, true);
  ascii(8, 'WAVEfmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, rate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  ascii(36, 'data');
  v.setUint32(40, samples.byteLength, true);
  out.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength), 44);
  return out;
}
