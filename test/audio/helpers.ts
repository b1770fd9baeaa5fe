import { Mp3Encoder } from '@breezystack/lamejs';
import { eq } from 'drizzle-orm';
import { ledgerLines } from '../../src/db/schema';
import type { TestApp } from '../helpers/app';
import { wavFile } from '../../providers/simulator/wav';

/** A 16-bit mono PCM WAV of `seconds` of a 440 Hz tone at `rate` Hz (the simulator's WAV writer). */
export function toneWav(seconds: number, rate = 16_000): Uint8Array<ArrayBuffer> {
  const samples = Float32Array.from(
    { length: Math.round(seconds * rate) },
    (_, i) => (8000 / 32767) * Math.sin((2 * Math.PI * 440 * i) / rate),
  );
  return wavFile(samples, rate);
}

/** `seconds` of a tone as MP3 (lamejs), for the routes that take MP3. */
export function toneMp3(seconds: number): Uint8Array<ArrayBuffer> {
  const wav = toneWav(seconds);
  const samples = new Int16Array(wav.buffer, 44);
  const encoder = new Mp3Encoder(1, 16_000, 64);
  // lamejs answers Int8Arrays, whatever its types say.
  const parts = [encoder.encodeBuffer(samples), encoder.flush()].map((p) => new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
  return new Uint8Array(Buffer.concat(parts));
}

/** A multipart body with `file` (bytes under `name`) and string fields. */
export function uploadForm(bytes: Uint8Array<ArrayBuffer> | null, fields: Record<string, string> = {}, name = 'clip.wav'): FormData {
  const form = new FormData();
  if (bytes) form.append('file', new File([bytes], name, { type: 'audio/wav' }));
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

/** The ledger lines of the request that answered `res` (after the meter's writes are flushed). */
export async function ledgerOf(t: TestApp, res: Response) {
  await t.deps.meter.flush();
  const requestId = res.headers.get('cf-ray') as string;
  return t.deps.storage.db.select().from(ledgerLines).where(eq(ledgerLines.requestId, requestId));
}

/** The caller's USD balance. */
export async function usdOf(t: TestApp, key?: string): Promise<number> {
  return (await (await t.request('/billing/balance', { key })).json()).balances.usd as number;
}

/** The caller's USD balance with the meter flushed (settlements written). */
export async function settledUsd(t: TestApp, key?: string): Promise<number> {
  await t.deps.meter.flush();
  return usdOf(t, key);
}
