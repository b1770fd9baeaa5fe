import { DocumentRefused, readZipParts, type ZipLimits } from './zip-parts';

/** The limits of one OOXML document: the zip's, and the cells a workbook may hold. */
export interface OoxmlLimits extends ZipLimits {
  maxTableCells: number;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character data with its five entities and character references decoded. */
function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

// A tag (its closing slash, its name, and whether it closes itself) or the text between tags.
const TOKENS = /<(\/?)([\w:.-]+)[^>]*?(\/?)>|([^<]+)/g;

/**
 * The text of an OOXML part, walking its tags once: character data inside `textTag`
 * elements, a line per `lineTag` element, a tab or a line break where the format writes one.
 * Other markup (properties, drawings, field codes) adds nothing.
 */
function partText(xml: string, textTag: string, lineTag: string, breaks: Record<string, string>): string {
  const lines: string[] = [];
  let line = '';
  let inText = false;
  for (const [, closing, name, selfClosing, text] of xml.matchAll(TOKENS)) {
    if (text !== undefined) {
      if (inText) line += unescapeXml(text);
    } else if (name === textTag) inText = !closing && !selfClosing;
    else if (name === lineTag && closing) {
      lines.push(line);
      line = '';
    } else if (!closing && breaks[name!] !== undefined) line += breaks[name!];
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** Part names numbered like `ppt/slides/slide12.xml`, in their numbers' order. */
function numbered(names: Iterable<string>, pattern: RegExp): string[] {
  const number = (name: string) => Number(pattern.exec(name)?.[1]);
  return [...names].filter((n) => pattern.test(n)).sort((a, b) => number(a) - number(b));
}

function docxText(bytes: Uint8Array, limits: OoxmlLimits): string {
  const parts = readZipParts(bytes, (n) => n === 'word/document.xml', limits);
  const body = parts.get('word/document.xml');
  if (body === undefined) throw new DocumentRefused('UNREADABLE');
  return partText(body, 'w:t', 'w:p', { 'w:tab': '\t', 'w:br': '\n', 'w:cr': '\n' });
}

const SLIDE = /^ppt\/slides\/slide(\d+)\.xml$/;

function pptxText(bytes: Uint8Array, limits: OoxmlLimits): string {
  const parts = readZipParts(bytes, (n) => SLIDE.test(n), limits);
  if (parts.size === 0) throw new DocumentRefused('UNREADABLE');
  return numbered(parts.keys(), SLIDE)
    .map((name) => partText(parts.get(name)!, 'a:t', 'a:p', { 'a:br': '\n' }))
    .join('\n');
}

const SHEET = /^xl\/worksheets\/sheet(\d+)\.xml$/;
const CELL = /<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g;
const ROW = /<row\b[^>]*?(?:\/>|>([\s\S]*?)<\/row>)/g;

/** The strings a workbook's cells refer to by index (rich text runs joined). */
function sharedStrings(xml: string | undefined): string[] {
  if (!xml) return [];
  return [...xml.matchAll(/<si>([\s\S]*?)<\/si>/g)].map(([, item]) => partText(item!, 't', '', {}));
}

/** A cell's shown value: a shared string, an inline string, or its `<v>` as written. */
function cellText(attributes: string, content: string, strings: string[]): string {
  const type = /\bt="(\w+)"/.exec(attributes)?.[1];
  if (type === 'inlineStr') return partText(content, 't', '', {});
  const value = /<v>([\s\S]*?)<\/v>/.exec(content)?.[1];
  if (value === undefined) return '';
  return type === 's' ? (strings[Number(value)] ?? '') : unescapeXml(value);
}

function xlsxText(bytes: Uint8Array, limits: OoxmlLimits): string {
  const parts = readZipParts(bytes, (n) => SHEET.test(n) || n === 'xl/sharedStrings.xml', limits);
  const sheets = numbered(parts.keys(), SHEET);
  if (sheets.length === 0) throw new DocumentRefused('UNREADABLE');
  const strings = sharedStrings(parts.get('xl/sharedStrings.xml'));
  let cells = 0;
  const lines: string[] = [];
  for (const sheet of sheets)
    for (const [, row = ''] of parts.get(sheet)!.matchAll(ROW)) {
      const values: string[] = [];
      for (const [, attributes = '', content = ''] of row.matchAll(CELL)) {
        if (++cells > limits.maxTableCells) throw new DocumentRefused('TABLE_CELL_LIMIT_EXCEEDED');
        values.push(cellText(attributes, content, strings));
      }
      lines.push(values.join('\t'));
    }
  return lines.join('\n');
}

/**
 * The text of a DOCX (paragraphs of the body), a PPTX (the slides' paragraphs, in slide
 * order) or an XLSX (each sheet's rows, cells tab-separated), read from the zip's XML parts
 * within the limits. Throws DocumentRefused.
 */
export function ooxmlText(bytes: Uint8Array, kind: 'docx' | 'pptx' | 'xlsx', limits: OoxmlLimits): string {
  if (kind === 'docx') return docxText(bytes, limits);
  if (kind === 'pptx') return pptxText(bytes, limits);
  return xlsxText(bytes, limits);
}
