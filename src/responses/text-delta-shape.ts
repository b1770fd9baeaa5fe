import { utf8 } from '../stream/encoder';
import type { SseEvent } from '../stream/events';
import type { ChatChunk } from '../stream/wire';

const bufCompare = Buffer.prototype.compare;
const DATA = 'data: ';

/** The delta field a shape's string is: the content, or the reasoning some upstreams send beside it (DeepSeek, vLLM). */
export type DeltaField = 'content' | 'reasoning_content';

/**
 * The field a decoded chunk is a plain delta of: one choice (index 0), not finishing, whose
 * delta carries that field as a non-empty string and nothing else the Responses encoder, the
 * billing count or the finish reasons read (no tool calls; `role` may ride along, and a
 * reasoning delta's `content` may be null). Null for any other chunk.
 */
export function plainDeltaField(chunk: ChatChunk): DeltaField | null {
  if (chunk.choices.length !== 1) return null;
  const choice = chunk.choices[0]!;
  if (choice.index !== 0 || choice.finish_reason != null) return null;
  const d = choice.delta as Record<string, unknown> | undefined;
  if (!d) return null;
  const field: DeltaField = typeof d.content === 'string' ? 'content' : 'reasoning_content';
  const text = d[field];
  if (typeof text !== 'string' || text === '') return null;
  for (const key in d) if (key !== field && key !== 'role' && !(key === 'content' && d.content === null)) return null;
  return field;
}

/**
 * The bytes of an upstream's plain text deltas around their content, learned from one it sent
 * (upstreams write every such chunk alike: the same id, model, created and field order). An
 * event that is these bytes around one JSON string means what the learned chunk meant with
 * that string as its content, so it needs no parse: `match` compares the bytes and checks that
 * what lies between is one JSON string. It refuses a string with `<` in it (possibly a
 * `<think>` tag), with an escape it cannot vouch for, or with bytes that are not valid UTF-8 (a
 * decode would have replaced them), so what it passes is what a decode and an escape would write.
 */
export class TextDeltaShape {
  /** `data: ` and the chunk up to the content's opening quote, included. */
  private readonly head: Uint8Array;
  /** From the content's closing quote, included, to the end of the event's line. */
  private readonly tail: Uint8Array;

  private constructor(
    /** The delta field the string between head and tail is. */
    readonly field: DeltaField,
    private readonly headText: string,
    private readonly tailText: string,
  ) {
    this.head = utf8.encode(DATA + headText);
    this.tail = utf8.encode(tailText);
  }

  /** Whether an event's data has this shape's text around its content (nothing new to learn from it). */
  covers(data: string): boolean {
    return data.length > this.headText.length + this.tailText.length && data.startsWith(this.headText) && data.endsWith(this.tailText);
  }

  /**
   * The shape of a decoded event's chunk when it is a plain delta (plainDeltaField) on one
   * `data:` line whose field is the only `"<field>":"` in it, else null. A second parse with
   * another string in the field's place checks that the place is the delta's field.
   */
  static learn(event: SseEvent, chunk: ChatChunk): TextDeltaShape | null {
    const data = event.data;
    const field = plainDeltaField(chunk);
    if (event.event !== null || field === null || data.includes('\n')) return null;
    const key = `"${field}":"`;
    const at = data.indexOf(key);
    if (at === -1 || data.lastIndexOf(key) !== at) return null;
    const start = at + key.length;
    const end = stringEnd(data, start);
    if (end === -1) return null;
    const head = data.slice(0, start);
    const tail = data.slice(end);
    try {
      const probe = JSON.parse(`${head}\\u0001${tail}`) as ChatChunk;
      if (plainDeltaField(probe) !== field || (probe.choices[0]!.delta as Record<string, unknown>)[field] !== '\u0001') return null;
    } catch {
      return null;
    }
    return new TextDeltaShape(field, head, tail);
  }

  /** Where the content of the event `bytes[start, end)` begins when the event has this shape, else -1 (it ends at `end - tail.length`). */
  match(bytes: Uint8Array, start: number, end: number): number {
    const { head, tail } = this;
    const from = start + head.length;
    const to = end - tail.length;
    if (to <= from) return -1;
    // Native comparisons: a loop over the ~120 bytes of a head cost three times as much.
    if (bufCompare.call(head, bytes, start, from) !== 0 || bufCompare.call(tail, bytes, to, end) !== 0) return -1;
    return plainString(bytes, from, to) ? from : -1;
  }

  /** The length of the tail after the content. */
  get tailLength(): number {
    return this.tail.length;
  }
}

/** The index of the closing quote of the JSON string whose text starts at `from`, or -1. */
function stringEnd(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}

const hex = (c: number) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);

/** The escapes after `\` that stand for one character each: `" \ / b f n r t`. */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

/**
 * Whether `bytes[from, to)` is the text of one JSON string (no unescaped quote or control
 * character, every escape whole), in valid UTF-8, with no `<` in it, written or escaped.
 */
function plainString(bytes: Uint8Array, from: number, to: number): boolean {
  let i = from;
  while (i < to) {
    const c = bytes[i]!;
    if (c >= 0x80) {
      i = utf8Char(bytes, i, to);
      if (i === -1) return false;
    } else if (c === 0x5c) {
      const e = bytes[i + 1];
      if (i + 1 >= to || e === undefined) return false;
      if (e === 0x75 /* u */) {
        if (i + 6 > to) return false;
        let code = 0;
        for (let k = 2; k < 6; k++) {
          const h = hex(bytes[i + k]!);
          if (h < 0) return false;
          code = code * 16 + h;
        }
        if (code === 0x3c) return false;
        i += 6;
      } else if (e < 128 && SHORT_ESCAPE[e] === 1) i += 2;
      else return false;
    } else if (c < 0x20 || c === 0x22 || c === 0x3c) return false;
    else i++;
  }
  return true;
}

const between = (b: number | undefined, lo: number, hi: number) => b !== undefined && b >= lo && b <= hi;

/** The index after the UTF-8 character starting at `i` (a lead byte), or -1 when it is not one well-formed character before `to`. */
function utf8Char(bytes: Uint8Array, i: number, to: number): number {
  const c = bytes[i]!;
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 1;
  else if (c >= 0xe0 && c <= 0xef) {
    n = 2;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 3;
    if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
  } else return -1;
  if (i + n >= to) return -1;
  if (!between(bytes[i + 1], lo, hi)) return -1;
  for (let k = 2; k <= n; k++) if (!between(bytes[i + k], 0x80, 0xbf)) return -1;
  return i + n + 1;
}
