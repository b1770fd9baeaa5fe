import type { ChatChunk, ChunkTransformer } from '@svc/plugin-sdk';

/** Most characters of a streamed answer posted to the classifier (it caps its own body at 64 KiB of verdict). */
export const MAX_CLASSIFIED = 256 * 1024;

/**
 * A stream's tail held for a verdict on the whole answer: content flows to the client as it
 * comes (collected on the side, per choice), but the first chunk with a `finish_reason` and
 * every chunk after it are held; at the end `check` gets the answer's text, and only when it
 * passes are the held chunks released. A deny thrown by `check` ends the stream with
 * `content_filter` instead of the upstream's finish. The text already sent stays sent: this
 * checks the answer, it cannot unsay it.
 */
export function verdictAtEnd(check: (output: string) => Promise<void>): ChunkTransformer {
  const texts = new Map<number, string>();
  let size = 0;
  const held: ChatChunk[] = [];
  return {
    transform(chunk, emit) {
      for (const choice of chunk.choices) {
        const piece = choice.delta.content;
        if (typeof piece !== 'string' || piece === '' || size >= MAX_CLASSIFIED) continue;
        texts.set(choice.index, (texts.get(choice.index) ?? '') + piece);
        size += piece.length;
      }
      if (held.length > 0 || chunk.choices.some((c) => c.finish_reason !== null)) held.push(chunk);
      else emit(chunk);
    },
    async end(emit) {
      const output = [...texts.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, text]) => text)
        .join('\n');
      await check(output);
      for (const chunk of held.splice(0)) emit(chunk);
    },
  };
}
