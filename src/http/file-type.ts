/**
 * What a buffer's bytes say it is (file-type's sniff), the library loaded by the first upload
 * that needs it rather than at start: most starts never see a media job, a transcription or a
 * parsed document.
 */
export async function fileTypeOf(bytes: Uint8Array): Promise<{ ext: string; mime: string } | undefined> {
  const { fileTypeFromBuffer } = await import('file-type');
  return fileTypeFromBuffer(bytes);
}
