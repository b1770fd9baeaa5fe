import { arrayElements, objectMembers, type Span } from '../../providers/openai-compatible/json-spans';
import { idKey, type RpcRequest } from './request';

/** A node's answer checked against the request: the text to relay, and which calls it answered with an error. */
export interface RpcAnswer {
  text: string;
  /** Per call, in request order: true when its answer is a JSON-RPC `error`. */
  errors: boolean[];
}

/** A node answer that is not a JSON-RPC answer to this request (the node is broken, not the client). */
export class GarbledAnswer extends Error {
  override name = 'GarbledAnswer';
}

const BLANK_END = /\s*$/y;

/** The id key and error flag of one answer object at `at`; throws GarbledAnswer when it is not one. */
function itemOf(text: string, at: number): { key: string; error: boolean; end: number } {
  const { members, end } = objectMembers(text, at);
  const id = members.get('id');
  const error = members.has('error');
  if (!id || (!error && !members.has('result'))) throw new GarbledAnswer('an answer without an id, result or error');
  return { key: idKey(JSON.parse(text.slice(id.start, id.end))), error, end };
}

function atEnd(text: string, end: number): boolean {
  BLANK_END.lastIndex = end;
  return BLANK_END.test(text) && BLANK_END.lastIndex === text.length;
}

/**
 * Checks a node's answer and puts it in the request's order, reading only the answers' `id`
 * and whether they hold an `error` (json-spans): each `result` goes on as the node wrote it.
 * A batch whose answers come in another order is rejoined from the node's own item texts.
 * Throws GarbledAnswer (or a SyntaxError) for anything else: not JSON, an id not asked, a call
 * left unanswered.
 */
export function relayAnswer(request: RpcRequest, text: string): RpcAnswer {
  const start = text.search(/\S/);
  if (start < 0) throw new GarbledAnswer('an empty answer');
  if (!request.batch) {
    const item = itemOf(text, start);
    if (!atEnd(text, item.end)) throw new GarbledAnswer('text after the answer');
    if (item.key !== idKey(request.calls[0]!.id)) throw new GarbledAnswer('an answer to another id');
    return { text, errors: [item.error] };
  }
  const { elements, end } = arrayElements(text, start);
  if (!atEnd(text, end)) throw new GarbledAnswer('text after the answer');
  const byKey = new Map<string, { span: Span; error: boolean; index: number }>();
  for (const [index, span] of elements.entries()) {
    const item = itemOf(text, span.start);
    byKey.set(item.key, { span, error: item.error, index });
  }
  const errors: boolean[] = [];
  let inOrder = elements.length === request.calls.length;
  const parts: string[] = [];
  for (const [i, call] of request.calls.entries()) {
    const found = byKey.get(idKey(call.id));
    if (!found) throw new GarbledAnswer(`no answer for id ${JSON.stringify(call.id)}`);
    errors.push(found.error);
    if (found.index !== i) inOrder = false;
    parts.push(text.slice(found.span.start, found.span.end));
  }
  return { text: inOrder ? text : `[${parts.join(',')}]`, errors };
}
