import { describe, expect, test } from 'bun:test';
import { checkPdfStreams } from '../../src/augment/text-parser/pdf-streams';
import { DocumentRefused, type ZipLimits } from '../../src/augment/text-parser/zip-parts';
import { pdfBomb, pdfWithContent, streamObject, zlibZeros } from './bombs';
import { manyPagesPdf, pdf } from './documents';

const MiB = 1024 * 1024;
const LIMITS: ZipLimits = { maxUncompressedBytes: 20 * MiB, maxPartBytes: 10 * MiB, maxInflateRatio: 500, maxZipEntries: 100 };
const refusal = (bytes: Uint8Array, limits = LIMITS) => {
  try {
    checkPdfStreams(bytes, limits);
  } catch (error) {
    return error instanceof DocumentRefused ? error.code : String(error);
  }
  return null;
};

describe('PDF streams, checked before pdf.js inflates them', () => {
  test('honest PDFs pass', async () => {
    expect(refusal(await pdf(['Sea otters use rocks as tools.', 'Page two.']))).toBeNull();
    expect(refusal(await manyPagesPdf(1000))).toBeNull();
  });

  test('a FlateDecode bomb: the ratio stops it first, then the stream cap, then the total', () => {
    const bomb = pdfBomb(64);
    expect(refusal(bomb)).toBe('INFLATE_RATIO_EXCEEDED');
    expect(refusal(bomb, { ...LIMITS, maxInflateRatio: 2000 })).toBe('PART_SIZE_LIMIT_EXCEEDED');
    expect(refusal(bomb, { ...LIMITS, maxInflateRatio: 2000, maxPartBytes: 30 * MiB })).toBe('ZIP_SIZE_LIMIT_EXCEEDED');
  });

  test('filters before Flate are decoded (ASCIIHex, also by reference), abbreviations and RunLength are counted', () => {
    const hex = Buffer.from(`${Buffer.from(zlibZeros(64)).toString('hex')}>`);
    expect(refusal(pdfWithContent('/Filter [/AHx /Fl]', hex))).toBe('INFLATE_RATIO_EXCEEDED');
    // The chain written as an object of its own.
    expect(refusal(pdfWithContent('/Filter 5 0 R', hex, ['[/ASCIIHexDecode /FlateDecode]']))).toBe('INFLATE_RATIO_EXCEEDED');
    // RunLength: two bytes make 128; 64 times past the input, under the ratio, over the stream cap.
    const runs = new Uint8Array(200_000).map((_, i) => (i % 2 ? 0 : 129));
    expect(refusal(pdfWithContent('/Filter /RunLengthDecode', runs))).toBe('PART_SIZE_LIMIT_EXCEEDED');
  });

  test('an image is not inflated (pdf.js reads none for text) unless pages, fonts or CMaps refer to it; a stream that is not DEFLATE counts nothing', () => {
    const content = zlibZeros(1).subarray(0, 0);
    const image = streamObject('/Type /XObject /Subtype /Image /Width 1 /Height 1 /Filter /FlateDecode', zlibZeros(64));
    expect(refusal(pdfWithContent('', content, [image]))).toBeNull();
    // The page's contents, whatever their dictionary says: pdf.js inflates them.
    expect(refusal(pdfWithContent('/Subtype /Image /Width 1 /Height 1 /Filter /FlateDecode', zlibZeros(64)))).toBe(
      'INFLATE_RATIO_EXCEEDED',
    );
    expect(refusal(pdfWithContent('', content, [image, '<< /Type /Font /FontFile2 5 0 R >>']))).toBe('INFLATE_RATIO_EXCEEDED');
    expect(refusal(pdfWithContent('/Filter /FlateDecode', new Uint8Array(4096).fill(7)))).toBeNull();
  });
});
