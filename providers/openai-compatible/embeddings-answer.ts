import { base64Float32, float32OfBase64 } from '../../src/stream/float32';
import type { EmbeddingResult, EmbeddingVector, UpstreamEmbeddingRequest } from '../types';
import { arrayElements, documentMembers, objectMembers, type Span } from './json-spans';

type Encoding = UpstreamEmbeddingRequest['encoding_format'];

/**
 * The first ASCII character that cannot be in a JSON number array's body (a letter other
 * than e/E, a quote, a bracket, a colon...). JavaScriptCore searches a positive ASCII class
 * at memchr-like speed, about 1 us over a 1,024-float vector; a negated class took 13 us and
 * the full number grammar 46 us, more than the JSON.parse (31 us) it replaces.
 */
const NOT_IN_NUMBERS = /[\x00-\x08\x0b\x0c\x0e-\x1f!-*/:-DF-df-\x7f]/g;
/** The first ASCII character that cannot be in a base64 string's body (the closing quote, for one). */
const NOT_IN_BASE64 = /[\x00-\x2a\x2c-\x2e\x3a-\x3c\x3e-\x40\x5b-\x60\x7b-\x7f]/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The numbers of the array at `span`, or null when it holds anything else. */
function numbersOf(text: string, span: Span): number[] | null {
  const value: unknown = JSON.parse(text.slice(span.start, span.end));
  return Array.isArray(value) && value.every((x) => typeof x === 'number') ? value : null;
}

/**
 * Whether the array at `span` holds only number characters: NaN, Infinity, strings, nulls
 * and nesting are refused; a malformed number such as `1.2.3` is not (no encoder writes
 * one). Non-ASCII text escapes the fast class, so it is parsed instead.
 */
function numbersOnly(text: string, span: Span, ascii: boolean): boolean {
  if (!ascii) return numbersOf(text, span) !== null;
  NOT_IN_NUMBERS.lastIndex = span.start + 1;
  return NOT_IN_NUMBERS.exec(text)?.index === span.end - 1;
}

/** Whether base64 text is padded right and decodes to whole float32 values. */
function wholeFloats(base64: string): boolean {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const firstPad = base64.indexOf('=');
  if (firstPad !== -1 && firstPad !== base64.length - padding) return false;
  return base64.length % 4 === 0 && ((base64.length / 4) * 3 - padding) % 4 === 0;
}

/** The base64 of an `embedding` string value, or null when it is not float32 base64. */
function base64Of(text: string, span: Span, ascii: boolean): string | null {
  NOT_IN_BASE64.lastIndex = span.start + 1;
  if (ascii && NOT_IN_BASE64.exec(text)?.index === span.end - 1) {
    const value = text.slice(span.start + 1, span.end - 1);
    return wholeFloats(value) ? value : null;
  }
  // Escapes (an encoder that writes `/` as `\/`) or non-ASCII text: read by JSON.parse.
  const value = JSON.parse(text.slice(span.start, span.end)) as string;
  return BASE64.test(value) && wholeFloats(value) ? value : null;
}

/** An `embedding` value as JSON text in `encoding`: the upstream's own text when it is already in it. */
function vectorJson(text: string, span: Span, encoding: Encoding, ascii: boolean): string | null {
  const c = text.charCodeAt(span.start);
  if (c === 0x5b) {
    if (encoding === 'float') return numbersOnly(text, span, ascii) ? text.slice(span.start, span.end) : null;
    const floats = numbersOf(text, span);
    return floats && `"${base64Float32(floats)}"`;
  }
  if (c !== 0x22) return null;
  const base64 = base64Of(text, span, ascii);
  if (base64 === null) return null;
  return encoding === 'base64' ? `"${base64}"` : JSON.stringify(float32OfBase64(base64));
}

/** Item `position` of `data`: an object with an `embedding`; its `index` when an integer, else its position. */
function vectorOf(text: string, item: Span, position: number, encoding: Encoding, ascii: boolean): EmbeddingVector {
  const { members } = objectMembers(text, item.start);
  const embedding = members.get('embedding');
  const json = embedding && vectorJson(text, embedding, encoding, ascii);
  if (!json) throw new SyntaxError(`embeddings answer: data[${position}].embedding is not a vector`);
  const indexSpan = members.get('index');
  const index: unknown = indexSpan && JSON.parse(text.slice(indexSpan.start, indexSpan.end));
  return { index: Number.isInteger(index) && (index as number) >= 0 ? (index as number) : position, json };
}

/** The upstream's prompt token count, when it gave a usable one. */
function usageOf(text: string, span: Span | undefined): EmbeddingResult['usage'] {
  if (!span) return undefined;
  const usage: unknown = JSON.parse(text.slice(span.start, span.end));
  const tokens = typeof usage === 'object' && usage !== null ? (usage as { prompt_tokens?: unknown }).prompt_tokens : undefined;
  return Number.isInteger(tokens) && (tokens as number) >= 0 ? { prompt_tokens: tokens as number } : undefined;
}

/**
 * An OpenAI `/embeddings` answer read without building its vectors: the top level and each
 * `data` item are scanned, `index` and `usage` parsed, and each `embedding` checked to be a
 * number array or float32 base64, then kept as the upstream's text when it is in the asked
 * `encoding` (converted otherwise). Other fields (`model`, `object`, extras) are left
 * unread. Throws a SyntaxError for anything else, which the caller reports as a broken answer.
 */
export function parseEmbeddingsAnswer(text: string, encoding: Encoding): EmbeddingResult {
  const top = documentMembers(text);
  const data = top.get('data');
  if (!data || text.charCodeAt(data.start) !== 0x5b) throw new SyntaxError('embeddings answer: no data array');
  // One UTF-8 length count (SIMD) tells whether the fast ASCII class check is complete.
  const ascii = Buffer.byteLength(text, 'utf8') === text.length;
  const items = arrayElements(text, data.start).elements;
  const vectors = items.map((item, position) => vectorOf(text, item, position, encoding, ascii));
  return { data: vectors, usage: usageOf(text, top.get('usage')) };
}
