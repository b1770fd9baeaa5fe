import { createApiKey, hashSecret } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { ledgerEntries } from '../../src/db/schema';
import type { TestBackend } from '../helpers/backends';
import { startTestApp, type TestApp } from '../helpers/app';

/** A test app (abuse guard off: these suites send many bad requests on purpose) with keys of two accounts. */
export interface UsageFixture {
  t: TestApp;
  accountId: string;
  inferenceKey: string;
  /** ADMIN key of a second, non-operator account. */
  otherAdminKey: string;
  otherAccountId: string;
}

/** Starts the app and creates the extra keys. */
export async function startUsageApp(backend: TestBackend, config: Record<string, unknown> = {}): Promise<UsageFixture> {
  const t = await startTestApp({ backend, config: { abuseGuard: { enabled: false }, ...config } });
  const db = t.deps.storage.db;
  const accountId = (await t.deps.keys.lookup(hashSecret(t.adminKey)))!.accountId;
  const inferenceKey = (await createApiKey(db, { accountId, type: 'INFERENCE' })).secret;
  const otherAccountId = await createAccount(db, { creditUsd: '5' });
  const otherAdminKey = (await createApiKey(db, { accountId: otherAccountId, type: 'ADMIN' })).secret;
  return { t, accountId, inferenceKey, otherAdminKey, otherAccountId };
}

/** A ledger line to insert directly (charges are negative micro-units). */
export interface LineInput {
  accountId: string;
  at: Date;
  amountMicros: number;
  kind?: 'CHARGE' | 'CREDIT' | 'TOP_UP' | 'REFUND';
  currency?: 'USD' | 'DIEM' | 'VCU' | 'BUNDLED_CREDITS' | 'USDC';
  sku?: string;
  notes?: string | null;
  requestId?: string;
  inference?: boolean;
}

let serial = 0;

/** Inserts ledger lines as the meter's writer would, returning nothing. */
export async function insertLines(t: TestApp, lines: LineInput[]) {
  await t.deps.storage.db.insert(ledgerEntries).values(
    lines.map((l) => {
      const n = ++serial;
      const inference = l.inference ?? true;
      return {
        accountId: l.accountId,
        requestId: l.requestId ?? `req-${n}`,
        kind: l.kind ?? 'CHARGE',
        currency: l.currency ?? 'USD',
        sku: l.sku ?? 'llama-3.3-70b-llm-output-mtoken',
        modelId: inference ? 'llama-3.3-70b' : null,
        units: '0.000150',
        pricePerUnitUsd: '2.8',
        amountMicros: l.amountMicros,
        notes: l.notes ?? null,
        promptTokens: inference ? 12 : null,
        completionTokens: inference ? 150 : null,
        executionMs: inference ? 321 : null,
        createdAt: l.at,
      };
    }),
  );
}

/** A minimal RFC 4180 parser (quoted fields with doubled quotes, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') ((cell += '"'), i++);
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') (row.push(cell), (cell = ''));
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      (row.push(cell), rows.push(row), (row = []), (cell = ''));
    } else cell += ch;
  }
  if (cell !== '' || row.length) (row.push(cell), rows.push(row));
  return rows;
}

/** CSV rows back into usage entries (the JSON shape), for round-trip checks. */
export function csvEntries(text: string) {
  const [header, ...rows] = parseCsv(text);
  return rows.map((cells) => {
    const r = Object.fromEntries(header!.map((h, i) => [h, cells[i] ?? '']));
    return {
      timestamp: r.timestamp,
      sku: r.sku,
      pricePerUnitUsd: Number(r.pricePerUnitUsd),
      unit: Number(r.unit),
      amount: Number(r.amount),
      currency: r.currency,
      notes: r.notes,
      inferenceDetails:
        r.requestId === ''
          ? null
          : {
              requestId: r.requestId,
              inferenceExecutionTime: Number(r.inferenceExecutionTime),
              promptTokens: r.promptTokens !== '' ? Number(r.promptTokens) : null,
              completionTokens: r.completionTokens !== '' ? Number(r.completionTokens) : null,
            },
    };
  });
}
