import type { ExtraCharge } from '../../billing/meter';
import { invalidField, ServiceError } from '../../http/errors';
import type { MeteredCall } from '../../pipeline/metered-call';
import { textTokens } from '../../pipeline/tokens';
import type { AugmentConfig } from '../config';
import type { TextParserRequest } from '../schema';
import { documentKind } from './detect';
import { extractText } from './extract';

/** The line item of one parsed document. */
export const AUGMENT_TEXT_PARSER_SKU = 'augment-text-parser';

/** A parsed document: its text and svc's token count of it. */
export interface ParsedDocument {
  text: string;
  tokens: number;
}

/** 413 for a file above the parser's limit, naming `file`. */
function fileTooLarge(maxBytes: number): ServiceError {
  return new ServiceError(413, {
    error: `file: must be at most ${maxBytes} bytes`,
    code: 'PAYLOAD_TOO_LARGE',
    details: { _errors: [], file: { _errors: [`Must be at most ${maxBytes} bytes`] } },
  });
}

/**
 * POST /augment/text-parser on a call priced by its line item: the file is checked by size
 * (413) and then by content (400 for anything but PDF, DOCX, PPTX, XLSX or UTF-8 text)
 * before anything is reserved; one document is reserved, parsed within the configured
 * limits, and charged only when it gave its text. Nothing is stored.
 */
export async function parseDocument(
  req: TextParserRequest,
  call: MeteredCall,
  config: AugmentConfig['textParser'],
): Promise<ParsedDocument> {
  if (req.file.size > config.maxBytes) throw fileTooLarge(config.maxBytes);
  const bytes = new Uint8Array(await req.file.arrayBuffer());
  if (bytes.byteLength === 0) throw invalidField('file', 'is empty', 'body');
  const kind = await documentKind(bytes);
  if (!kind) throw invalidField('file', 'must be a PDF, DOCX, PPTX, XLSX or plain UTF-8 text file (read from its content)', 'body');
  const charge: ExtraCharge = { sku: AUGMENT_TEXT_PARSER_SKU, units: 1, unitPriceMicros: config.priceMicros };
  await call.reserve({ promptTokens: 0, completionTokens: 0, extras: [charge] });
  let text: string;
  try {
    text = await extractText(bytes, kind, config, call.signal);
  } catch (error) {
    return call.fail(error);
  }
  const tokens = textTokens(text);
  const executionMs = Math.round(performance.now() - call.request.startedAt);
  const settled = await call.settle({ promptTokens: 0, completionTokens: 0, executionMs, extras: [charge] });
  call.chargeBeforeHeaders(settled);
  return { text, tokens };
}
