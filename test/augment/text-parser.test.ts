import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { BACKENDS } from '../helpers/backends';
import { docx, manyPagesPdf, pdf, pptx, xlsx, zipBombDocx } from './documents';
import { startAugmentApp, type AugmentApp } from './helpers';

const PRICE = 1_000;
const MB = 1024 * 1024;

/** A multipart body with `file` (named `name`, declared as `type`) and the other fields. */
function form(bytes: Uint8Array | string, name = 'document.bin', type = 'application/octet-stream', fields: Record<string, string> = {}) {
  const body = new FormData();
  body.append('file', new File([bytes as Uint8Array<ArrayBuffer>], name, { type }));
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  return body;
}

for (const backend of BACKENDS) {
  describe(`POST /augment/text-parser, ${backend.name}`, () => {
    let a: AugmentApp;
    beforeAll(async () => {
      a = await startAugmentApp({ backend });
    });
    afterAll(() => a.t.close());

    const parse = (body: FormData, key: string | null = a.key) => a.t.request('/augment/text-parser', { method: 'POST', key, body });

    test.each([
      [
        'PDF',
        () => pdf(['Sea otters use rocks as tools.', 'Page two: kelp forests.']),
        'Sea otters use rocks as tools.\nPage two: kelp forests.',
      ],
      ['DOCX', () => docx(['Survey notes', 'Otters & urchins < 3 per m²']), 'Survey notes\nOtters & urchins < 3 per m²'],
      ['PPTX', () => pptx(['Slide one: the forest', 'Slide two: the count']), 'Slide one: the forest\nSlide two: the count'],
      [
        'XLSX',
        () =>
          xlsx([
            ['site', 'stipes'],
            ['north', 42],
          ]),
        'site\tstipes\nnorth\t42',
      ],
      ['plain text', () => new TextEncoder().encode('\uFEFFPlain notes: Grüße 🦦\nline two'), 'Plain notes: Grüße 🦦\nline two'],
    ])('a %s gives {text, tokens} (o200k tokens), charged once as one ledger line', async (_kind, make, text) => {
      const before = await a.usd();
      // The name and declared type say nothing true: the kind is read from the content.
      const res = await parse(form(await make(), 'upload.dat', 'image/png'));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ text, tokens: countTokens(text) });
      const lines = await a.ledgerOf(res);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ kind: 'CHARGE', sku: 'augment-text-parser', modelId: null, amountMicros: -PRICE });
      expect(await a.usd()).toBe(before - PRICE);
    });

    test('response_format text answers the text alone as text/plain', async () => {
      const res = await parse(form(docx(['Only the text.']), 'a.docx', '', { response_format: 'text' }));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toStartWith('text/plain');
      expect(await res.text()).toBe('Only the text.');
    });

    const refused = async (body: FormData, status: number, field: string, reason: string) => {
      const before = await a.usd();
      const res = await parse(body);
      expect(res.status).toBe(status);
      const err = await res.json();
      expect(err.error).toContain(field);
      expect(JSON.stringify(err.details?.[field] ?? err.details)).toContain(reason);
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(await a.usd()).toBe(before);
    };

    test('an unsupported, empty or binary file is a 400 naming file, whatever its name says', async () => {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
      await refused(form(png, 'report.pdf', 'application/pdf'), 400, 'file', 'must be a PDF, DOCX, PPTX, XLSX or plain UTF-8 text');
      await refused(form(new Uint8Array([1, 2, 3, 0, 255, 254]), 'notes.txt', 'text/plain'), 400, 'file', 'must be a PDF');
      await refused(form(new Uint8Array(0), 'notes.txt', 'text/plain'), 400, 'file', 'is empty');
    });

    test('a corrupt PDF or a truncated DOCX is a 400 naming file, nothing charged', async () => {
      const good = await pdf(['x']);
      const corrupt = new Uint8Array([...new TextEncoder().encode('%PDF-1.7\n'), ...good.slice(200, 400)]);
      await refused(form(corrupt), 400, 'file', 'the pdf is corrupt, encrypted or unreadable');
      const whole = docx(['A paragraph long enough to matter in the archive.']);
      await refused(form(whole.slice(0, Math.floor(whole.length * 0.6))), 400, 'file', 'docx');
    });

    test('a zip bomb (a DOCX inflating past the limit) is refused with a 400 naming file, nothing charged', async () => {
      await refused(form(zipBombDocx(150 * MB)), 400, 'file', 'a part of the docx expands beyond 67108864 bytes (maxPartBytes)');
    }, 60_000);

    test('a file over 25 MB is a 413 naming file, before it is read', async () => {
      await refused(form(new Uint8Array(25 * MB + 1).fill(0x61)), 413, 'file', 'at most 26214400 bytes');
    });

    test('missing or mistyped fields are 400s naming them', async () => {
      const noFile = new FormData();
      noFile.append('response_format', 'json');
      await refused(noFile, 400, 'file', '');
      const stringFile = new FormData();
      stringFile.append('file', 'not a file');
      await refused(stringFile, 400, 'file', 'Expected a file upload');
      await refused(form(docx(['x']), 'a.docx', '', { response_format: 'xml' }), 400, 'response_format', '');
      await refused(form(docx(['x']), 'a.docx', '', { colour: 'blue' }), 400, 'colour', 'Unknown field');
    });

    test('no key is a 401; a balance of zero is a 402', async () => {
      expect((await parse(form(docx(['x'])), null)).status).toBe(401);
      const broke = await parse(form(docx(['x'])), a.brokeKey);
      expect(broke.status).toBe(402);
    });
  });
}

describe('POST /augment/text-parser: the time bound', () => {
  test('a PDF of a million pages is refused at textParser.timeoutMs with a 400 naming file, svc still answering; nothing charged', async () => {
    // The memory bound far above what a second of parsing takes, so the time bound is the one met
    // (at the default 256 MB the memory bound could come first on a fast machine).
    const a = await startAugmentApp({ config: { augment: { textParser: { timeoutMs: 1000, workerMemoryBytes: 4 * 1024 ** 3 } } } });
    try {
      const before = await a.usd();
      const parsing = a.t.request('/augment/text-parser', { method: 'POST', key: a.key, body: form(await manyPagesPdf(1_000_000)) });
      // The parse runs in a worker: svc's own thread keeps answering meanwhile.
      expect((await a.t.request('/billing/balance')).status).toBe(200);
      const res = await parsing;
      expect(res.status).toBe(400);
      expect((await res.json()).details.file._errors[0]).toBe('the pdf could not be read within 1000 ms');
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(await a.usd()).toBe(before);
      // A worker that was stopped is replaced: the next document is read.
      const next = await a.t.request('/augment/text-parser', { method: 'POST', key: a.key, body: form(docx(['Still here.'])) });
      expect(await next.json()).toEqual({ text: 'Still here.', tokens: countTokens('Still here.') });
    } finally {
      await a.t.close();
    }
  }, 60_000);
});
