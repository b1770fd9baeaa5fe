/** Sample rate of simulated speech: 24 kHz, the rate OpenAI's `pcm` format is defined at. */
export const SPEECH_SAMPLE_RATE = 24_000;

/** Seconds of audio per character of text at speed 1 (about 14 characters a second, a talking pace). */
const SECONDS_PER_CHARACTER = 0.07;

const hash32 = (text: string) => Number(Bun.hash.wyhash(text) & 0xffffffffn);

/** Total samples of the speech for `text` at `speed`: the length follows the text and the speed. */
export function speechSamples(text: string, speed: number): number {
  const seconds = Math.max(0.25, (text.length * SECONDS_PER_CHARACTER) / speed);
  return Math.round(seconds * SPEECH_SAMPLE_RATE);
}

/**
 * A deterministic tone sequence standing for `text` spoken by `voice`: one tone per word,
 * its pitch from the word and the voice, a short silence between words, each word's length
 * in proportion to its characters. 16-bit mono samples, produced in blocks so a stream can
 * send the first ones before the rest exist.
 */
export function* toneBlocks(text: string, voice: string, speed: number, blockSamples = 6000): Generator<Int16Array> {
  const total = speechSamples(text, speed);
  const words = text.split(/\s+/).filter(Boolean);
  const chars = Math.max(
    1,
    words.reduce((n, w) => n + w.length + 1, 0),
  );
  const base = 110 + (hash32(voice) % 120);
  // The word each sample belongs to, as boundaries in samples.
  const bounds: { end: number; freq: number }[] = [];
  let at = 0;
  for (const word of words.length ? words : ['']) {
    at += Math.round(((word.length + 1) / chars) * total);
    bounds.push({ end: Math.min(at, total), freq: base * (1 + (hash32(word) % 12) / 12) });
  }
  let index = 0;
  let phase = 0;
  for (let start = 0; start < total; start += blockSamples) {
    const block = new Int16Array(Math.min(blockSamples, total - start));
    for (let i = 0; i < block.length; i++) {
      const n = start + i;
      while (index < bounds.length - 1 && n >= bounds[index]!.end) index++;
      const { end, freq } = bounds[index]!;
      // The last 40 ms of each word are silent, so words are heard apart.
      const silent = end - n < SPEECH_SAMPLE_RATE * 0.04;
      phase += (2 * Math.PI * freq) / SPEECH_SAMPLE_RATE;
      block[i] = silent ? 0 : Math.round(9000 * Math.sin(phase));
    }
    yield block;
  }
}
