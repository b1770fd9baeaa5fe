/**
 * Where the answers of a JSON-RPC reply are, found by jumping rather than parsing: a string
 * is skipped with `indexOf` to its closing quote (native speed over a long hex result), a
 * container by counting brackets outside strings. Only what the relay needs is read: each
 * answer's span, its `id` (parsed alone) and whether it has `result` or `error`. The
 * answers' contents are not validated here: they come from the operator's node and are
 * relayed as it wrote them.
 */

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, skipSpace } from '../http/json-chars';

/** One answer object of a reply: where it is, its id key (see request.ts idKey) and whether it is an error. */
export interface AnswerSpan {
  start: number;
  end: number;
  id: unknown;
  error: boolean;
}

/** A reply that is not JSON-RPC answers (the node is broken, not the client). */
export class GarbledAnswer extends Error {
  override name = 'GarbledAnswer';
}

/** The end of the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) throw new GarbledAnswer('an unclosed string');
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    // An even run of backslashes escapes itself, not the quote.
    if ((q - 1 - b) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The end of the object or array at `at`, its brackets matched. */
function containerEnd(text: string, at: number): number {
  const closers: number[] = [text.charCodeAt(at) === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET];
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i) - 1;
    else if (c === OPEN_BRACE) closers.push(CLOSE_BRACE);
    else if (c === OPEN_BRACKET) closers.push(CLOSE_BRACKET);
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (closers.pop() !== c) throw new GarbledAnswer('a mismatched bracket');
      if (closers.length === 0) return i + 1;
    }
  }
  throw new GarbledAnswer('an unclosed container');
}

/** The end of the value at `at`: a string, a container, or a scalar (up to the next delimiter). */
function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringEnd(text, at);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return containerEnd(text, at);
  let i = at;
  for (;;) {
    const d = text.charCodeAt(i);
    if (Number.isNaN(d) || d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09)
      break;
    i++;
  }
  if (i === at) throw new GarbledAnswer('a missing value');
  return i;
}

const ID = 1;
const ERROR = 2;
const RESULT = 3;

const INTEGER = /^-?(0|[1-9]\d{0,15})$/;

/** An answer's id: the one value parsed (a plain integer or string directly, anything else by JSON.parse). */
function idValue(text: string, start: number, end: number): unknown {
  // Small non-negative integers, the usual ids, without a substring.
  if (end - start <= 15) {
    let n = 0;
    let i = start;
    for (; i < end; i++) {
      const d = text.charCodeAt(i) - 0x30;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    if (i === end && (end - start === 1 || text.charCodeAt(start) !== 0x30)) return n;
  }
  const raw = text.slice(start, end);
  if (text.charCodeAt(start) === QUOTE) return raw.includes('\\') ? JSON.parse(raw) : raw.slice(1, -1);
  return INTEGER.test(raw) ? Number(raw) : JSON.parse(raw);
}

/** The answer object at `at`: its members' keys read, its id parsed, the rest skipped. */
function answerAt(text: string, at: number): AnswerSpan {
  if (text.charCodeAt(at) !== OPEN_BRACE) throw new GarbledAnswer('an answer that is not an object');
  let id: unknown;
  let hasId = false;
  let error = false;
  let result = false;
  let i = skipSpace(text, at + 1);
  if (text.charCodeAt(i) !== CLOSE_BRACE)
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) throw new GarbledAnswer('a member without a key');
      const keyEnd = stringEnd(text, i);
      // Keys compared in place (no substring per member): only three matter.
      const keyLength = keyEnd - i - 2;
      const key =
        keyLength === 2 && text.startsWith('id', i + 1)
          ? ID
          : keyLength === 5 && text.startsWith('error', i + 1)
            ? ERROR
            : keyLength === 6 && text.startsWith('result', i + 1)
              ? RESULT
              : 0;
      i = skipSpace(text, keyEnd);
      if (text.charCodeAt(i) !== COLON) throw new GarbledAnswer('a member without a colon');
      const start = skipSpace(text, i + 1);
      const end = valueEnd(text, start);
      if (key === ID) {
        id = idValue(text, start, end);
        hasId = true;
      } else if (key === ERROR) error = true;
      else if (key === RESULT) result = true;
      i = skipSpace(text, end);
      const c = text.charCodeAt(i);
      if (c === CLOSE_BRACE) break;
      if (c !== COMMA) throw new GarbledAnswer('members without a comma');
      i = skipSpace(text, i + 1);
    }
  if (!hasId || (!error && !result)) throw new GarbledAnswer('an answer without an id, result or error');
  return { start: at, end: i + 1, id, error };
}

/** The answers of a reply: one object, or an array of them (`batch`), with nothing but whitespace around. */
export function scanAnswers(text: string, batch: boolean): AnswerSpan[] {
  const start = skipSpace(text, 0);
  const answers: AnswerSpan[] = [];
  let end: number;
  if (!batch) {
    const one = answerAt(text, start);
    answers.push(one);
    end = one.end;
  } else {
    if (text.charCodeAt(start) !== OPEN_BRACKET) throw new GarbledAnswer('a batch answered without an array');
    let i = skipSpace(text, start + 1);
    if (text.charCodeAt(i) === CLOSE_BRACKET) end = i + 1;
    else
      for (;;) {
        const one = answerAt(text, i);
        answers.push(one);
        i = skipSpace(text, one.end);
        const c = text.charCodeAt(i);
        if (c === CLOSE_BRACKET) {
          end = i + 1;
          break;
        }
        if (c !== COMMA) throw new GarbledAnswer('answers without a comma');
        i = skipSpace(text, i + 1);
      }
  }
  if (skipSpace(text, end) !== text.length) throw new GarbledAnswer('text after the answer');
  return answers;
}
