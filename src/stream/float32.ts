// Used by the providers to write and read embedding answers: below the families, so that they may import it.
/** A vector as base64 of its little-endian float32 bytes (what the OpenAI SDKs decode). */
export function base64Float32(vector: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] as number, true);
  return Buffer.from(view.buffer).toString('base64');
}

/** The floats of base64 little-endian float32 (trailing bytes short of a float are ignored). */
export function float32OfBase64(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.byteLength >> 2 }, (_, i) => view.getFloat32(i * 4, true));
}
