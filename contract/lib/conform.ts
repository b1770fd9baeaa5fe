import { expect } from 'bun:test';
import { deployment } from './deployment';
import { skipped } from './env';
import { describe as show, type Answer } from './http';
import { errorsOf } from './spec';

const d = await deployment();

/** Checks an answer's status, then its body against the operation's schema in svc's own description. */
export function expectAnswer(operationId: string, a: Answer, status = 200): void {
  expect(a.status === status ? '' : `${operationId}: ${show(a)}`).toBe('');
  const fn = d.own.response(operationId, a.status);
  if (!fn) return skipped(operationId, `no schema for ${a.status}`);
  expect(fn(a.json) ? '' : `${operationId}: ${errorsOf(fn)}`).toBe('');
}
