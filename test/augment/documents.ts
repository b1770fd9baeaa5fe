import { strToU8, zipSync, type Zippable } from 'fflate';
import { PDFDocument, PDFName, PDFNumber, StandardFonts } from 'pdf-lib';

/**
 * Real documents made in the test: PDFs with pdf-lib, and the smallest valid OOXML packages
 * (DOCX, PPTX, XLSX) zipped with fflate, part names and content types as Office writes them.
 */

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** A PDF with one page per text. */
export async function pdf(pages: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) doc.addPage().drawText(text, { x: 50, y: 700, font, size: 16 });
  return doc.save();
}

/** A PDF whose page tree lists one page `pages` times: a few MB that hold a parser for minutes. */
export async function manyPagesPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage();
  page.drawText('The same page, again and again.', { x: 50, y: 700, font: await doc.embedFont(StandardFonts.Helvetica), size: 16 });
  const tree = doc.catalog.Pages();
  const kids = tree.Kids();
  for (let i = 1; i < pages; i++) kids.push(page.ref);
  tree.set(PDFName.of('Count'), PDFNumber.of(pages));
  return doc.save({ useObjectStreams: false });
}

function contentTypes(overrides: Record<string, string>): string {
  const parts = Object.entries(overrides)
    .map(([name, type]) => `<Override PartName="/${name}" ContentType="${type}"/>`)
    .join('');
  return (
    `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    `<Default Extension="xml" ContentType="application/xml"/>${parts}</Types>`
  );
}

function rels(targets: { id: string; type: string; target: string }[]): string {
  const items = targets.map((r) => `<Relationship Id="${r.id}" Type="${REL}/${r.type}" Target="${r.target}"/>`).join('');
  return `${XML}<Relationships xmlns="${PKG_REL}">${items}</Relationships>`;
}

// Level 1: a zip bomb of 150 MB compresses in a fraction of the time level 6 takes, and about as small.
function zip(files: Record<string, string | Uint8Array>): Uint8Array {
  const entries: Zippable = {};
  for (const [name, data] of Object.entries(files)) entries[name] = [typeof data === 'string' ? strToU8(data) : data, { level: 1 }];
  return zipSync(entries);
}

/** The parts of a DOCX with one paragraph per text. */
function docxParts(paragraphs: string[]): Record<string, string> {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${esc(p)}</w:t></w:r></w:p>`).join('');
  return {
    '[Content_Types].xml': contentTypes({
      'word/document.xml': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    }),
    '_rels/.rels': rels([{ id: 'rId1', type: 'officeDocument', target: 'word/document.xml' }]),
    'word/document.xml': `${XML}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  };
}

/** A DOCX with one paragraph per text. */
export function docx(paragraphs: string[]): Uint8Array {
  return zip(docxParts(paragraphs));
}

/** A PPTX with one slide per text. */
export function pptx(slides: string[]): Uint8Array {
  const P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
  const A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"';
  const R = `xmlns:r="${REL}"`;
  const files: Record<string, string> = {};
  const overrides: Record<string, string> = {
    'ppt/presentation.xml': 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
  };
  slides.forEach((text, i) => {
    const n = i + 1;
    overrides[`ppt/slides/slide${n}.xml`] = 'application/vnd.openxmlformats-officedocument.presentationml.slide+xml';
    files[`ppt/slides/slide${n}.xml`] =
      `${XML}<p:sld ${P} ${A} ${R}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>${esc(text)}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
  });
  const ids = slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`).join('');
  return zip({
    '[Content_Types].xml': contentTypes(overrides),
    '_rels/.rels': rels([{ id: 'rId1', type: 'officeDocument', target: 'ppt/presentation.xml' }]),
    'ppt/presentation.xml': `${XML}<p:presentation ${P} ${R}><p:sldIdLst>${ids}</p:sldIdLst></p:presentation>`,
    'ppt/_rels/presentation.xml.rels': rels(
      slides.map((_, i) => ({ id: `rId${i + 1}`, type: 'slide', target: `slides/slide${i + 1}.xml` })),
    ),
    ...files,
  });
}

/** An XLSX with one sheet whose rows are `rows` (strings as shared strings, numbers as numbers). */
export function xlsx(rows: (string | number)[][]): Uint8Array {
  const strings: string[] = [];
  const col = (i: number) => String.fromCharCode(65 + i);
  const sheetRows = rows
    .map((row, r) => {
      const cells = row
        .map((v, c) => {
          const ref = `${col(c)}${r + 1}`;
          if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
          strings.push(v);
          return `<c r="${ref}" t="s"><v>${strings.length - 1}</v></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${cells}</row>`;
    })
    .join('');
  const S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  return zip({
    '[Content_Types].xml': contentTypes({
      'xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
      'xl/worksheets/sheet1.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml',
      'xl/sharedStrings.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml',
    }),
    '_rels/.rels': rels([{ id: 'rId1', type: 'officeDocument', target: 'xl/workbook.xml' }]),
    'xl/workbook.xml': `${XML}<workbook ${S} xmlns:r="${REL}"><sheets><sheet name="Survey" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': rels([
      { id: 'rId1', type: 'worksheet', target: 'worksheets/sheet1.xml' },
      { id: 'rId2', type: 'sharedStrings', target: 'sharedStrings.xml' },
    ]),
    'xl/worksheets/sheet1.xml': `${XML}<worksheet ${S}><sheetData>${sheetRows}</sheetData></worksheet>`,
    'xl/sharedStrings.xml': `${XML}<sst ${S} count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t>${esc(s)}</t></si>`).join('')}</sst>`,
  });
}

/** A DOCX whose document part inflates to about `bytes` (one run of letters): a zip bomb of a few hundred KB. */
export function zipBombDocx(bytes: number): Uint8Array {
  const head = strToU8(`${XML}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`);
  const tail = strToU8('</w:t></w:r></w:p></w:body></w:document>');
  const part = new Uint8Array(head.length + bytes + tail.length).fill(0x61);
  part.set(head, 0);
  part.set(tail, head.length + bytes);
  return zip({ ...docxParts([]), 'word/document.xml': part });
}
