/**
 * The document parser's worker: pdf.js (through unpdf) and the OOXML reader run here, off
 * svc's thread, because a hostile document can hold a parser in a synchronous loop that no
 * abort signal reaches (a PDF page tree of 200,000 pages blocked a thread for minutes,
 * measured); the pool (pool.ts) terminates a worker past its time limit instead.
 */
import { checkPdfStreams } from './pdf-streams';
import { DocumentRefused } from './zip-parts';
import type { ParseReply, ParseTask } from './pool';

// The worker's global scope: the messages it takes and sends.
declare const self: { onmessage: ((event: MessageEvent<ParseTask>) => void) | null; postMessage(reply: ParseReply): void };

/** A PDF's text: each page's text items in reading order, a line per page; its streams are checked against the limits first. */
async function pdfText(bytes: Uint8Array, limits: ParseTask['limits']): Promise<string> {
  checkPdfStreams(bytes, limits);
  const { extractText } = await import('unpdf');
  const { text } = await extractText(bytes, { mergePages: false });
  return text.join('\n');
}

self.onmessage = async function parseDocumentTask(event: MessageEvent<ParseTask>) {
  const { id, bytes, kind, limits } = event.data;
  let reply: ParseReply;
  try {
    const text = kind === 'pdf' ? await pdfText(bytes, limits) : (await import('./ooxml-text')).ooxmlText(bytes, kind, limits);
    reply = { id, ok: true, text };
  } catch (error) {
    const e = error as { name?: string } | null;
    reply = { id, ok: false, code: error instanceof DocumentRefused ? error.code : undefined, name: e?.name };
  }
  self.postMessage(reply);
};
