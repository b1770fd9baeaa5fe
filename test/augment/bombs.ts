import { strToU8 } from 'fflate';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';

/**
 * Decompression bombs made in the test, in milliseconds and about a MB each: DOCX, XLSX and
 * PPTX packages with one part that inflates to a GiB or more (zip64 too), and a PDF whose
 * content stream does. Nothing here is ever inflated by the test itself.
 */

const MiB = 1024 * 1024;
/** Bytes a bomb's part inflates to. */
export const GiB = 1024 * MiB;
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/**
 * Raw DEFLATE of `mibs` MiB of zeros without holding them: one MiB deflated and fully flushed
 * (so it ends on a byte boundary with no back-reference past it; about 1 KB) written `mibs`
 * times, then an empty final block.
 */
export function deflatedZeros(mibs: number): Uint8Array {
  const piece = deflateRawSync(new Uint8Array(MiB), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const out = new Uint8Array(piece.length * mibs + 2);
  for (let i = 0; i < mibs; i++) out.set(piece, i * piece.length);
  out.set(deflateRawSync(new Uint8Array(0)), piece.length * mibs);
  return out;
}

/** One file of a hand-made zip: its bytes as stored, the method, and the sizes its headers declare. */
export interface BombEntry {
  name: string;
  data: Uint8Array;
  method: 0 | 8;
  declaredSize: number;
}

/** A stored or deflated entry of small text, declared truthfully. */
export function textEntry(name: string, text: string): BombEntry {
  const raw = strToU8(text);
  return { name, data: deflateRawSync(raw), method: 8, declaredSize: raw.length };
}

/**
 * A zip of `entries` with the sizes they declare (a lie, when a test wants one). With `zip64`,
 * an entry declaring 4 GiB or more has its sizes and offset in the zip64 extra field (the
 * 32-bit fields all ones) and the archive ends with zip64 records, as zip tools write them.
 * CRCs are zero: no reader gets to the end of a bomb to check one.
 */
export function zipOf(entries: BombEntry[], zip64 = false): Uint8Array {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = strToU8(e.name);
    const wide = zip64 && e.declaredSize >= 0xffffffff;
    const extra = new Uint8Array(wide ? 28 : 0);
    if (wide) {
      const x = new DataView(extra.buffer);
      x.setUint16(0, 1, true);
      x.setUint16(2, 24, true);
      x.setBigUint64(4, BigInt(e.declaredSize), true);
      x.setBigUint64(12, BigInt(e.data.length), true);
      x.setBigUint64(20, BigInt(offset), true);
    }
    const u32 = (n: number) => (wide ? 0xffffffff : n);
    const local = new Uint8Array(30 + name.length + extra.length);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true);
    l.setUint16(4, wide ? 45 : 20, true);
    l.setUint16(8, e.method, true);
    l.setUint32(18, u32(e.data.length), true);
    l.setUint32(22, u32(e.declaredSize), true);
    l.setUint16(26, name.length, true);
    l.setUint16(28, extra.length, true);
    local.set(name, 30);
    local.set(extra, 30 + name.length);
    const header = new Uint8Array(46 + name.length + extra.length);
    const c = new DataView(header.buffer);
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, wide ? 45 : 20, true);
    c.setUint16(6, wide ? 45 : 20, true);
    c.setUint16(10, e.method, true);
    c.setUint32(20, u32(e.data.length), true);
    c.setUint32(24, u32(e.declaredSize), true);
    c.setUint16(28, name.length, true);
    c.setUint16(30, extra.length, true);
    c.setUint32(42, u32(offset), true);
    header.set(name, 46);
    header.set(extra, 46 + name.length);
    chunks.push(local, e.data);
    central.push(header);
    offset += local.length + e.data.length;
  }
  const directorySize = central.reduce((n, h) => n + h.length, 0);
  const tail: Uint8Array[] = [];
  if (zip64) {
    const record = new DataView(new ArrayBuffer(56));
    record.setUint32(0, 0x06064b50, true);
    record.setBigUint64(4, 44n, true);
    record.setUint16(12, 45, true);
    record.setUint16(14, 45, true);
    record.setBigUint64(24, BigInt(entries.length), true);
    record.setBigUint64(32, BigInt(entries.length), true);
    record.setBigUint64(40, BigInt(directorySize), true);
    record.setBigUint64(48, BigInt(offset), true);
    const locator = new DataView(new ArrayBuffer(20));
    locator.setUint32(0, 0x07064b50, true);
    locator.setBigUint64(8, BigInt(offset + directorySize), true);
    locator.setUint32(16, 1, true);
    tail.push(new Uint8Array(record.buffer), new Uint8Array(locator.buffer));
  }
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, zip64 ? 0xffff : entries.length, true);
  end.setUint16(10, zip64 ? 0xffff : entries.length, true);
  end.setUint32(12, zip64 ? 0xffffffff : directorySize, true);
  end.setUint32(16, zip64 ? 0xffffffff : offset, true);
  return Buffer.concat([...chunks, ...central, ...tail, new Uint8Array(end.buffer)]);
}

const CONTENT_TYPES = (main: string, type: string) =>
  `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/${main}" ContentType="${type}"/></Types>`;
const RELS = (target: string) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`;

/** The package parts `file-type` reads a DOCX, PPTX or XLSX by, before the bomb. */
const PACKAGES = {
  docx: { main: 'word/document.xml', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml' },
  pptx: { main: 'ppt/presentation.xml', type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml' },
  xlsx: { main: 'xl/workbook.xml', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml' },
};

/** The part each bomb fills: the body, the first slide, the shared strings. */
const TARGETS = { docx: 'word/document.xml', pptx: 'ppt/slides/slide1.xml', xlsx: 'xl/sharedStrings.xml' };

/**
 * A DOCX, PPTX or XLSX whose main text part inflates to `mibs` MiB of zeros, declaring
 * `declaredSize` (its real size by default; a small lie hides it from a size check).
 */
export function officeBomb(kind: keyof typeof PACKAGES, mibs: number, opts: { declaredSize?: number; zip64?: boolean } = {}): Uint8Array {
  const { main, type } = PACKAGES[kind];
  const entries = [textEntry('[Content_Types].xml', CONTENT_TYPES(main, type)), textEntry('_rels/.rels', RELS(main))];
  if (kind === 'xlsx')
    entries.push(
      textEntry('xl/workbook.xml', `${XML}<workbook/>`),
      textEntry('xl/worksheets/sheet1.xml', `${XML}<worksheet><sheetData/></worksheet>`),
    );
  if (kind === 'pptx') entries.push(textEntry('ppt/presentation.xml', `${XML}<p:presentation/>`));
  entries.push({ name: TARGETS[kind], data: deflatedZeros(mibs), method: 8, declaredSize: opts.declaredSize ?? mibs * MiB });
  return zipOf(entries, opts.zip64);
}

/** An honest DOCX whose body part is `xml`, deflated natively (fast, for large documents). */
export function officeDocx(xml: Uint8Array): Uint8Array {
  const { main, type } = PACKAGES.docx;
  const body = { name: main, data: deflateRawSync(xml, { level: 1 }), method: 8 as const, declaredSize: xml.length };
  return zipOf([textEntry('[Content_Types].xml', CONTENT_TYPES(main, type)), textEntry('_rels/.rels', RELS(main)), body]);
}

/** The zlib stream (as a PDF's FlateDecode holds it) of `mibs` MiB of zeros. */
export function zlibZeros(mibs: number): Uint8Array {
  const adler = new Uint8Array(4);
  new DataView(adler.buffer).setUint32(0, (((mibs * MiB) % 65521) << 16) | 1);
  return Buffer.concat([deflateSync(new Uint8Array(0)).subarray(0, 2), deflatedZeros(mibs), adler]);
}

/** A one-page PDF whose content stream inflates to `mibs` MiB of zeros (whitespace to PDF). */
export function pdfBomb(mibs: number): Uint8Array {
  return pdfWithContent('/Filter /FlateDecode', zlibZeros(mibs));
}

/** A one-page PDF whose content stream is `stream` with `entries` in its dictionary (its filters, a subtype); `more` are objects 5, 6, ... (bytes as they are). */
export function pdfWithContent(entries: string, stream: Uint8Array, more: (string | Uint8Array)[] = []): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
  ];
  const parts: Uint8Array[] = [strToU8('%PDF-1.7\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  const add = (bytes: Uint8Array) => (parts.push(bytes), (at += bytes.length));
  objects.forEach((body, i) => {
    offsets.push(at);
    add(strToU8(`${i + 1} 0 obj\n${body}\nendobj\n`));
  });
  offsets.push(at);
  add(strToU8(`4 0 obj\n<< /Length ${stream.length} ${entries} >>\nstream\n`));
  add(stream);
  add(strToU8('\nendstream\nendobj\n'));
  more.forEach((body, i) => {
    offsets.push(at);
    add(strToU8(`${i + 5} 0 obj\n`));
    add(typeof body === 'string' ? strToU8(body) : body);
    add(strToU8('\nendobj\n'));
  });
  const xref = at;
  const rows = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  add(
    strToU8(
      `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

/** A stream object's body: its dictionary with `entries` and its data. */
export function streamObject(entries: string, data: Uint8Array): Uint8Array {
  return Buffer.concat([strToU8(`<< /Length ${data.length} ${entries} >>\nstream\n`), data, strToU8('\nendstream')]);
}
