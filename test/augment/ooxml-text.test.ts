import { describe, expect, test } from 'bun:test';
import { ooxmlText, type OoxmlLimits } from '../../src/augment/text-parser/ooxml-text';
import { DocumentRefused } from '../../src/augment/text-parser/zip-parts';
import { docx, pptx, xlsx, zipBombDocx } from './documents';

const LIMITS: OoxmlLimits = {
  maxUncompressedBytes: 10 * 1024 * 1024,
  maxPartBytes: 10 * 1024 * 1024,
  maxInflateRatio: 500,
  maxZipEntries: 100,
  maxTableCells: 1000,
};
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof DocumentRefused ? error.code : String(error);
  }
  return null;
};

describe('OOXML text', () => {
  test('paragraphs, slides in their numbers’ order and tab-separated rows, entities decoded', () => {
    expect(ooxmlText(docx(['a &amp; b', 'x < y & "z"']), 'docx', LIMITS)).toBe('a &amp; b\nx < y & "z"');
    const slides = Array.from({ length: 11 }, (_, i) => `Slide ${i + 1}`);
    expect(ooxmlText(pptx(slides), 'pptx', LIMITS)).toBe(slides.join('\n'));
    expect(
      ooxmlText(
        xlsx([
          ['a', 1, 'a'],
          ['b & c', 2.5, ''],
        ]),
        'xlsx',
        LIMITS,
      ),
    ).toBe('a\t1\ta\nb & c\t2.5\t');
  });

  test('the limits: declared and inflated bytes per part and in total, the ratio, parts, table cells', () => {
    const bomb = zipBombDocx(20 * 1024 * 1024);
    expect(refusal(() => ooxmlText(bomb, 'docx', LIMITS))).toBe('PART_SIZE_LIMIT_EXCEEDED');
    expect(refusal(() => ooxmlText(bomb, 'docx', { ...LIMITS, maxPartBytes: 30 * 1024 * 1024 }))).toBe('ZIP_SIZE_LIMIT_EXCEEDED');
    const roomy = { ...LIMITS, maxPartBytes: 30 * 1024 * 1024, maxUncompressedBytes: 30 * 1024 * 1024 };
    expect(refusal(() => ooxmlText(bomb, 'docx', roomy))).toBe('INFLATE_RATIO_EXCEEDED');
    expect(refusal(() => ooxmlText(docx(['x']), 'docx', { ...LIMITS, maxZipEntries: 2 }))).toBe('ZIP_ENTRY_COUNT_LIMIT_EXCEEDED');
    const rows = Array.from({ length: 40 }, (_, i) => Array.from({ length: 26 }, () => i));
    expect(refusal(() => ooxmlText(xlsx(rows), 'xlsx', LIMITS))).toBe('TABLE_CELL_LIMIT_EXCEEDED');
    expect(refusal(() => ooxmlText(xlsx(rows.slice(0, 38)), 'xlsx', LIMITS))).toBeNull();
  }, 30_000);

  test('a zip without the format’s main part, or not a zip, is unreadable', () => {
    expect(refusal(() => ooxmlText(pptx(['x']), 'docx', LIMITS))).toBe('UNREADABLE');
    expect(refusal(() => ooxmlText(new TextEncoder().encode('PK not really'), 'xlsx', LIMITS))).toBe('UNREADABLE');
  });
});
