import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { ledgerEntries, walletPayments } from '../../src/db/schema';
import { createLogger } from '../../src/log';
import type { FacilitatorBehaviour } from '../fixtures/x402-facilitator';
import { BACKENDS } from '../helpers/backends';
import { newPayer, signedTopUp, startPaymentsApp, topUpRequest } from './helpers';

/** svc's limit on a facilitator answer, in bytes. */
const LIMIT = 64 * 1024;
const TOKEN = 'facilitator-token-never-logged';
/** Far above how long a refused answer may take, so "quickly" is not "at the timeout". */
const TIMEOUT_MS = 10_000;

describe.each(BACKENDS)('facilitator answers over the size limit on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  const logged: string[] = [];
  beforeAll(async () => {
    const payments = { facilitatorToken: TOKEN, verifyTimeoutMs: TIMEOUT_MS, settleTimeoutMs: TIMEOUT_MS };
    s = await startPaymentsApp(
      backend,
      payments,
      {},
      createLogger('warn', (line) => void logged.push(line)),
    );
  });
  afterAll(() => s.close());

  const paymentsOf = (payer: string) =>
    s.t.deps.storage.db.select().from(walletPayments).where(eq(walletPayments.payer, payer.toLowerCase()));
  const creditsOf = (paymentId: string) =>
    s.t.deps.storage.db
      .select()
      .from(ledgerEntries)
      .where(eq(ledgerEntries.requestId, `x402:${paymentId}`));

  /** Sends a signed top-up with the facilitator answering as `mode` says; expects a prompt 502 logged without secrets. */
  async function refusedPromptly(mode: Partial<FacilitatorBehaviour>, logMsg: string) {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    Object.assign(s.facilitator.behaviour, mode);
    logged.length = 0;
    const started = Date.now();
    try {
      const res = await topUpRequest(s.t, { header });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 4);
      expect(res.status).toBe(502);
      expect((await res.json()).error).toBe('FACILITATOR_UNAVAILABLE');
    } finally {
      Object.assign(s.facilitator.behaviour, { verify: 'ok', settle: 'ok' });
    }
    const line = logged.find((l) => l.includes(logMsg));
    expect(line).toContain(`larger than ${LIMIT} bytes`);
    expect(logged.join('\n')).not.toContain(TOKEN);
    expect(logged.join('\n')).not.toContain(s.facilitator.url);
    return account.address;
  }

  // First: /supported is asked once, by the first offer, and kept once it answers.
  test('an endless /supported: the offer is a prompt 502, and the next one is asked again', async () => {
    s.facilitator.behaviour.supported = 'endless';
    logged.length = 0;
    const hungUp = s.facilitator.nextHangUp();
    const started = Date.now();
    try {
      const res = await topUpRequest(s.t);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 4);
      expect(res.status).toBe(502);
      expect((await res.json()).error).toBe('FACILITATOR_UNAVAILABLE');
    } finally {
      s.facilitator.behaviour.supported = 'ok';
    }
    await hungUp;
    // The warning names why /supported failed (the library's own error only says it could not initialise).
    expect(logged.find((l) => l.includes('x402: facilitator /supported failed'))).toContain(`larger than ${LIMIT} bytes`);
    expect((await topUpRequest(s.t)).status).toBe(402);
  });

  test('answers within the limit: the top-up is credited as before, the token sent as a bearer', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    const res = await topUpRequest(s.t, { header });
    expect(res.status).toBe(200);
    expect((await res.json()).data.amountCredited).toBe(5);
    expect(s.facilitator.authorization).toBe(`Bearer ${TOKEN}`);
  });

  test('a /verify approval padded to 1 MiB (with Content-Length) is not read: 502, nothing stored or credited', async () => {
    const payer = await refusedPromptly({ verify: 'huge' }, 'x402: facilitator /verify failed');
    expect(await paymentsOf(payer)).toHaveLength(0);
  });

  test('a /verify answer that never ends: a prompt 502, svc hangs up, nothing stored', async () => {
    const hungUp = s.facilitator.nextHangUp();
    const payer = await refusedPromptly({ verify: 'endless' }, 'x402: facilitator /verify failed');
    expect(await paymentsOf(payer)).toHaveLength(0);
    await hungUp;
  });

  const settleAnswers = { huge: 'padded to 1 MiB', endless: 'that never ends' } as const;
  for (const [settle, what] of Object.entries(settleAnswers) as [keyof typeof settleAnswers, string][])
    test(`a /settle answer ${what}: a prompt 502, nothing credited, the payment stays pending for recovery`, async () => {
      const payer = await refusedPromptly({ settle }, 'x402: settlement outcome unknown');
      const [row] = await paymentsOf(payer);
      expect(row?.status).toBe('pending');
      expect(await creditsOf(row!.paymentId)).toHaveLength(0);
    });
});
