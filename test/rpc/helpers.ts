import { eq } from 'drizzle-orm';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { ledgerCharges, ledgerLines } from '../../src/db/schema';
import type { TestApp } from '../helpers/app';

/** A fresh account with `creditUsd` and an INFERENCE key, so each test has its own limits and balance. */
export async function newCaller(t: TestApp, creditUsd = '10') {
  const accountId = await createAccount(t.deps.storage.db, { creditUsd });
  const key = (await createApiKey(t.deps.storage.db, { accountId, type: 'INFERENCE' })).secret;
  return { accountId, key };
}

/** POSTs `body` (JSON-encoded unless a string) to /crypto/rpc/{network}. */
export function rpc(t: TestApp, network: string, body: unknown, o: { key?: string | null; headers?: Record<string, string> } = {}) {
  return t.request(`/crypto/rpc/${network}`, {
    method: 'POST',
    key: o.key,
    headers: { 'content-type': 'application/json', ...o.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The ledger line items of one request (after the batched writer flushed). */
export async function linesOf(t: TestApp, requestId: string | null) {
  await t.deps.meter.flush();
  return t.deps.storage.db
    .select()
    .from(ledgerLines)
    .where(eq(ledgerLines.requestId, requestId ?? ''));
}

/** An account's charges (`ledger_charges`: one row per settled request, its line items inside). */
export async function entriesOf(t: TestApp, accountId: string) {
  await t.deps.meter.flush();
  return t.deps.storage.db.select().from(ledgerCharges).where(eq(ledgerCharges.accountId, accountId));
}

/** The account's live USD balance in micro-USD. */
export async function usdOf(t: TestApp, accountId: string): Promise<number> {
  return (await t.deps.meter.balances(accountId)).USD ?? 0;
}

/** A JSON-RPC 2.0 call. */
export const call = (id: number | string, method: string, params?: unknown[]) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
