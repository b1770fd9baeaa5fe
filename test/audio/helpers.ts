import { Mp3Encoder } from '@breezystack/lamejs';
import { eq } from 'drizzle-orm';
import { ledgerLines } from '../../src/db/schema';
import type { TestApp } from '../helpers/app';

/** A 16-bit mono PCM WAV of `seconds` of a 440 Hz tone at `rate` Hz, written by hand (the format is 44 bytes of header). */
export function toneWav(seconds: number, rate = 16_000): Uint8Array<ArrayBuffer> {
  const samples = Math.round(seconds * rate);
  const view = new DataView(new ArrayBuffer(44 + samples * 2));
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + samples * 2, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) view.setInt16(44 + i * 2, Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), true);
  return new Uint8Array(view.buffer);
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
