/**
 * The document parser's worker: officeparser (and pdf.js inside it) runs here, off svc's
 * thread, because a hostile document can hold a parser in a synchronous loop that no abort
 * signal reaches (a PDF page tree of 200,000 pages blocked a thread for minutes, measured);
 * the pool (pool.ts) terminates a worker past its time limit instead.
 */
import type { ParseReply, ParseTask } from './pool';

// The worker's global scope: the messages it takes and sends.
declare const self: { onmessage: ((event: MessageEvent<ParseTask>) => void) | null; postMessage(reply: ParseReply): void };

self.onmessage = async function parseDocumentTask(event: MessageEvent<ParseTask>) {
  const { id, bytes, kind, limits } = event.data;
  let reply: ParseReply;
  try {
    const { parseOffice } = await import('officeparser');
    const ast = await parseOffice(Buffer.from(bytes), {
      fileType: kind,
      ocr: false,
      extractAttachments: false,
      outputErrorToConsole: false,
      decompressionLimits: limits,
    });
    const text = (await ast.to('text')).value;
    reply = { id, ok: true, text: typeof text === 'string' ? text : '' };
  } catch (error) {
    const e = error as { name?: string; officeIssue?: { code?: string } } | null;
    reply = { id, ok: false, code: e?.officeIssue?.code, name: e?.name };
  }
  self.postMessage(reply);
};
