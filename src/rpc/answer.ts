import { idKey, type RpcRequest } from './request';
import { GarbledAnswer, scanAnswers } from './scan';

/** A node's answer checked against the request: the text to relay, and which calls it answered with an error. */
export interface RpcAnswer {
  text: string;
  /** Per call, in request order: true when its answer is a JSON-RPC `error`. */
  errors: boolean[];
}

/**
 * Checks a node's answer and puts it in the request's order, reading only the answers' `id`
 * and whether they hold an `error` (scan.ts): each `result` goes on as the node wrote it. A
 * batch whose answers come in another order is rejoined from the node's own answer texts.
 * Throws GarbledAnswer (or a SyntaxError) for anything else: not JSON, an id not asked, a
 * call left unanswered.
 */
export function relayAnswer(request: RpcRequest, text: string): RpcAnswer {
  const answers = scanAnswers(text, request.batch);
  const { calls } = request;
  // The common case: one answer per call, in order; the text goes on untouched.
  let inOrder = answers.length === calls.length;
  for (let i = 0; inOrder && i < calls.length; i++) inOrder = answers[i]!.id === calls[i]!.id;
  if (inOrder) return { text, errors: answers.map((a) => a.error) };
  if (!request.batch) throw new GarbledAnswer('an answer to another id');
  const byKey = new Map(answers.map((a) => [idKey(a.id), a]));
  const errors: boolean[] = [];
  const parts: string[] = [];
  for (const call of calls) {
    const found = byKey.get(idKey(call.id));
    if (!found) throw new GarbledAnswer(`no answer for id ${JSON.stringify(call.id)}`);
    errors.push(found.error);
    parts.push(text.slice(found.start, found.end));
  }
  return { text: `[${parts.join(',')}]`, errors };
}
