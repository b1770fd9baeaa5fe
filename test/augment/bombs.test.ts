import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { GiB, officeBomb, officeDocx, pdfBomb, pdfWithContent, zlibZeros } from './bombs';
import { docx, manyPagesPdf, pdf } from './documents';
import { startAugmentApp, type AugmentApp } from './helpers';

/**
 * Decompression bombs against a running svc: each is a 400 naming the limit it broke, well
 * within 2 s, and the process (whose RSS holds the parser workers too) grows by a bounded
 * amount. The parser's queue and memory budget are pinned below.
 */

const MB = 1024 * 1024;
/** RSS growth allowed per bomb: the bound is generous for a busy machine; a bomb inflated in full costs GBs. */
const RSS_BOUND = 150 * MB;
const TIME_BOUND_MS = 2_000;
const WORDS = 'sea otters float on their backs and hold paws while they sleep in kelp beds near the shore'.split(' ');

function form(bytes: Uint8Array) {
  const body = new FormData();
  body.append('file', new File([bytes as Uint8Array<ArrayBuffer>], 'upload.bin'));
  return body;
}

const BOMBS: [string, () => Uint8Array, string][] = [
  ['a DOCX whose body inflates to 1 GiB', () => officeBomb('docx', 1024), 'bytes (maxPartBytes)'],
  [
    'an XLSX whose shared strings inflate to 1 GiB, declaring 1,000 bytes',
    () => officeBomb('xlsx', 1024, { declaredSize: 1000 }),
    'declares',
  ],
  ['a PPTX whose slide inflates to 1 GiB, declaring 60 MB', () => officeBomb('pptx', 1024, { declaredSize: 60 * MB }), 'maxInflateRatio'],
  ['a zip64 DOCX whose body inflates to 5 GiB', () => officeBomb('docx', 5 * 1024, { zip64: true }), 'maxPartBytes'],
  ['a PDF whose content stream inflates to 1 GiB', () => pdfBomb(1024), 'a stream of the pdf'],
  [
    'a PDF whose content stream inflates to 1 GiB, its dictionary saying image',
    () => pdfWithContent('/Subtype /Image /Width 1 /Height 1 /Filter /FlateDecode', zlibZeros(1024)),
    'a stream of the pdf',
  ],
];

describe('POST /augment/text-parser: the memory budget', () => {
  // First in the file: memory freed by earlier tests would be reused before the process grows.
  test('a parse past workerMemoryBytes has its worker terminated: a 400 naming the budget, and the next document is read', async () => {
    const a = await startAugmentApp({ config: { augment: { textParser: { workerMemoryBytes: 16 * MB, timeoutMs: 120_000 } } } });
    try {
      let seed = 1;
      // An honest DOCX whose body is 60 MB of words (12 MB zipped): reading it takes far more than 16 MB.
      const block = Buffer.from(
        `<w:p><w:r><w:t>${Array.from({ length: 150_000 }, () => WORDS[(seed = (seed * 48271) % 2147483647) % WORDS.length]).join(' ')}</w:t></w:r></w:p>`,
      );
      const body = Buffer.concat([
        Buffer.from('<w:document><w:body>'),
        ...Array.from({ length: 60 }, () => block),
        Buffer.from('</w:body></w:document>'),
      ]);
      const big = officeDocx(body);
      const send = (bytes: Uint8Array) => a.t.request('/augment/text-parser', { method: 'POST', key: a.key, body: form(bytes) });
      const res = await send(big);
      expect(res.status).toBe(400);
      expect((await res.json()).details.file._errors[0]).toBe(
        `the docx needs more than ${16 * MB} bytes of memory to read (workerMemoryBytes)`,
      );
      const next = await send(docx(['A fresh worker.']));
      expect((await next.json()).text).toBe('A fresh worker.');
    } finally {
      await a.t.close();
    }
  }, 120_000);
});

describe('POST /augment/text-parser: decompression bombs', () => {
  let a: AugmentApp;
  const parse = (bytes: Uint8Array) => a.t.request('/augment/text-parser', { method: 'POST', key: a.key, body: form(bytes) });
  beforeAll(async () => {
    a = await startAugmentApp();
    // Warm: the workers, pdf.js and the OOXML reader loaded, so RSS counts the bomb alone.
    for (const doc of [await pdf(['warm']), docx(['warm']), await pdf(['warm']), docx(['warm'])])
      expect((await parse(doc)).status).toBe(200);
  }, 60_000);
  afterAll(() => a.t.close());

  const refusedFast = async (bytes: Uint8Array, reason: string) => {
    const started = performance.now();
    const res = await parse(bytes);
    const ms = performance.now() - started;
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body.error).toContain('file');
    expect(body.details.file._errors[0]).toContain(reason);
    expect(await a.ledgerOf(res)).toHaveLength(0);
    return ms;
  };

  test.each(BOMBS)(
    '%s is a 400 naming the limit within 2 s, RSS bounded',
    async (name, make, reason) => {
      const bytes = make();
      Bun.gc(true);
      const before = process.memoryUsage.rss();
      const ms = await refusedFast(bytes, reason);
      const grown = process.memoryUsage.rss() - before;
      console.log(`${name}: ${(bytes.length / MB).toFixed(1)} MB file, ${ms.toFixed(0)} ms, RSS +${(grown / MB).toFixed(0)} MB`);
      expect(ms).toBeLessThan(TIME_BOUND_MS);
      expect(grown).toBeLessThan(RSS_BOUND);
    },
    60_000,
  );

  test('six bombs at once are six 400s, quickly, RSS bounded; honest documents still parse', async () => {
    const bombs = BOMBS.map(([, make, reason]) => [make(), reason] as const);
    Bun.gc(true);
    const before = process.memoryUsage.rss();
    const times = await Promise.all(bombs.map(([bytes, reason]) => refusedFast(bytes, reason)));
    const grown = process.memoryUsage.rss() - before;
    console.log(`six bombs at once: ${times.map((t) => t.toFixed(0)).join(', ')} ms, RSS +${(grown / MB).toFixed(0)} MB`);
    // Two workers take them in turn: the last waits for two others on a machine shared by many.
    for (const ms of times) expect(ms).toBeLessThan(3 * TIME_BOUND_MS);
    expect(grown).toBeLessThan(RSS_BOUND);
    const res = await parse(docx(['Still reading.']));
    expect((await res.json()).text).toBe('Still reading.');
  }, 120_000);

  test('a 1 GiB bomb is as small as the test says: the limits, not the upload size, refuse it', () => {
    expect(officeBomb('docx', 1024).length).toBeLessThan(2 * MB);
    expect(GiB / pdfBomb(1024).length).toBeGreaterThan(1000);
  });
});

describe('POST /augment/text-parser: the parser queue', () => {
  test('past the workers and the queue, a 503 with Retry-After, nothing charged; the queued document is still read', async () => {
    const a = await startAugmentApp({ config: { augment: { textParser: { workers: 1, queueSize: 1, timeoutMs: 3_000 } } } });
    try {
      const slow = await manyPagesPdf(1_000_000);
      const send = (bytes: Uint8Array) => a.t.request('/augment/text-parser', { method: 'POST', key: a.key, body: form(bytes) });
      const before = await a.usd();
      const running = send(slow);
      await Bun.sleep(200);
      const queued = send(docx(['Queued, then read.']));
      await Bun.sleep(200);
      const refused = await send(docx(['No room.']));
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await refused.json()).error).toContain('queueSize');
      expect((await running).status).toBe(400);
      const read = await queued;
      expect(read.status).toBe(200);
      expect((await read.json()).text).toBe('Queued, then read.');
      expect(await a.ledgerOf(refused)).toHaveLength(0);
      expect(await a.usd()).toBe(before - 1_000);
    } finally {
      await a.t.close();
    }
  }, 60_000);
});
