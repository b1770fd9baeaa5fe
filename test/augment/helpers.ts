import { eq } from 'drizzle-orm';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { ledgerLines } from '../../src/db/schema';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app';

/** A test app with an INFERENCE key on a funded account and a key on an account without balance. */
export interface AugmentApp {
  t: TestApp;
  accountId: string;
  key: string;
  brokeKey: string;
  /** The ledger lines of one request (writes pending charges first). */
  ledgerOf(res: Response): Promise<(typeof ledgerLines.$inferSelect)[]>;
  /** The funded account's live USD balance, micro-units. */
  usd(): Promise<number>;
  post(path: string, json: unknown, key?: string | null): Promise<Response>;
}

/** Starts the app (abuse guard off: these suites send bad requests on purpose) with its keys. */
export async function startAugmentApp(opts: TestAppOptions = {}): Promise<AugmentApp> {
  const t = await startTestApp(opts);
  const db = t.deps.storage.db;
  const accountId = await createAccount(db, { creditUsd: '10' });
  const key = (await createApiKey(db, { accountId, type: 'INFERENCE' })).secret;
  const brokeAccount = await createAccount(db, { creditUsd: '0' });
  const brokeKey = (await createApiKey(db, { accountId: brokeAccount, type: 'INFERENCE' })).secret;
  return {
    t,
    accountId,
    key,
    brokeKey,
    async ledgerOf(res) {
      await t.deps.meter.flush();
      return db
        .select()
        .from(ledgerLines)
        .where(eq(ledgerLines.requestId, res.headers.get('cf-ray') as string));
    },
    async usd() {
      return (await t.deps.meter.balances(accountId)).USD ?? 0;
    },
    post(path, json, k = key) {
      return t.request(path, { method: 'POST', key: k, json });
    },
  };
}
