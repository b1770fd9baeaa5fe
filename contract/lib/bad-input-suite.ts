import { expect, test } from 'bun:test';
import { toForm } from './bad-input';
import { badInputPlan, labelOf } from './bad-input-plan';
import { note, skipped } from './env';
import { names, shapeProblem } from './error-shape';
import { call, describe as show, type Answer } from './http';

const plan = await badInputPlan();
const printed = globalThis as { contractPlanPrinted?: boolean };
if (!printed.contractPlanPrinted) {
  printed.contractPlanPrinted = true;
  note(plan.summary);
}

/** What a test file adds to how an operation's bad-input checks are sent. */
export interface BadInputOptions {
  /** Its multipart variant (lib/bad-input-plan.ts lists both). */
  form?: boolean;
  /** The key to send (read when the check runs), or a reason to skip; the ADMIN key by default. */
  key?: () => string | { skip: string };
  /** Undoes what a case the deployment wrongly accepted made (a 2xx), so a failing run leaves nothing behind either. */
  undo?: (a: Answer) => Promise<void>;
}

/**
 * One test per chosen invalid variant of the operation's valid body (lib/bad-input-plan.ts),
 * generated from its published request schema: each must be a 400 in the spec's error shape
 * that names the field, never a 500. Each is a deliberate failure, paced under the abuse guard.
 */
export function badInputSuite(operationId: string, o: BadInputOptions = {}): void {
  const label = labelOf({ operationId, form: o.form });
  const op = plan.operations.get(label);
  if (!op) throw new Error(`contract: ${label} is not in lib/bad-input-plan.ts`);
  if (op.skip) return skipped(`${label} bad input`, op.skip);
  for (const c of plan.chosen.get(label) ?? [])
    test(`${label}: ${c.field} ${c.what} is a 400 naming it`, async () => {
      const key = o.key?.();
      if (key && typeof key !== 'string') return skipped(`${label} ${c.field}`, key.skip);
      const body = op.form ? { form: toForm(c.body) } : { json: c.body };
      const a = await call(op.path, { method: op.method, key, fails: true, ...body });
      if (a.status >= 200 && a.status < 300) await o.undo?.(a);
      expect(a.status === 400 ? '' : `${label} ${c.field} (${c.what}): ${show(a)}`).toBe('');
      expect(shapeProblem(a.json) ? `${label} ${c.field}: ${shapeProblem(a.json)}` : '').toBe('');
      expect(names(a.json, c.field) ? '' : `${label}: the error does not name ${c.field}: ${a.text.slice(0, 300)}`).toBe('');
    });
}
