import { expect, test } from 'bun:test';
import { badInputs, formCases, toForm } from './bad-input';
import { deployment } from './deployment';
import { skipped } from './env';
import { names, shapeProblem } from './error-shape';
import { call, describe as show, type Answer } from './http';

const d = await deployment();

/** How one operation's bad-input checks are sent. */
export interface BadInputOptions {
  method?: string;
  /** Why none of the cases can run here (printed once), if so. */
  skip?: string;
  /** The key to send (read when the check runs), or a reason to skip; the ADMIN key by default. */
  key?: () => string | { skip: string };
  /** Send each case as multipart form data (from the operation's multipart schema). */
  form?: boolean;
  /** Undoes what a case the deployment wrongly accepted made (a 2xx), so a failing run leaves nothing behind either. */
  undo?: (a: Answer) => Promise<void>;
}

/**
 * One test per invalid variant of `valid`, generated from the operation's published request
 * schema (JSON, or multipart with `form`): each must be a 400 in the spec's error shape that
 * names the field, never a 500.
 */
export function badInputSuite(operationId: string, path: string, valid: Record<string, unknown>, o: BadInputOptions = {}): void {
  if (o.skip) return skipped(`${operationId} bad input`, o.skip);
  const op = d.own.byId.get(operationId)?.op;
  const type = o.form ? 'multipart/form-data' : 'application/json';
  const schema = op?.requestBody?.content?.[type]?.schema;
  if (!schema) return skipped(`${operationId} bad input`, `no ${type} request schema published`);
  const all = badInputs(d.own.deref(schema), valid, d.own);
  const label = o.form ? `${operationId} (multipart)` : operationId;
  for (const c of o.form ? formCases(all) : all)
    test(`${label}: ${c.field} ${c.what} is a 400 naming it`, async () => {
      const key = o.key?.();
      if (key && typeof key !== 'string') return skipped(`${label} ${c.field}`, key.skip);
      const a = await call(path, { method: o.method ?? 'POST', key, ...(o.form ? { form: toForm(c.body) } : { json: c.body }) });
      if (a.status >= 200 && a.status < 300) await o.undo?.(a);
      expect(a.status === 400 ? '' : `${label} ${c.field} (${c.what}): ${show(a)}`).toBe('');
      expect(shapeProblem(a.json) ? `${label} ${c.field}: ${shapeProblem(a.json)}` : '').toBe('');
      expect(names(a.json, c.field) ? '' : `${label}: the error does not name ${c.field}: ${a.text.slice(0, 300)}`).toBe('');
    });
}
