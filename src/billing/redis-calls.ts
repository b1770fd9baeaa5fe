import { pushRateArgs, rateKey, rateTtl } from '../limits/redis-scripts';
import { WINDOW_MS, type TokenCorrection } from '../limits/store';
import type { Currency } from './credit';
import type { LedgerCharge } from './ledger-row';
import type { Charged, ReserveInput, SettleInput } from './store';

/**
 * How long an account's unwritten-charge marks outlive their last settlement: a mark whose
 * writer died with it in its journal lapses then, and the account can be deleted again.
 */
const UNWRITTEN_TTL_MS = 24 * 3_600_000;
const RATE_TTL = rateTtl(WINDOW_MS);

/** The ARGV of RESERVE's rate part when it has none. */
const NO_RATE = ['', '', '0', '0'] as const;

/** A token correction, unless its window is over (a request that outlived its minute leaves the next one alone). */
export const current = (t: TokenCorrection | null | undefined) => (t && t.window >= Math.floor(Date.now() / WINDOW_MS) ? t : null);

/** RESERVE's KEYS and ARGV (see the script): each mirror once, counters only for limited candidates. */
export function reserveCall(k: AccountKeys, input: ReserveInput, rateHash: string | null, prefix: string) {
  const { candidates, report } = input;
  const keys = [k.hsum, k.hreq, k.hexp, k.ix, rateHash ?? k.hsum];
  const args = [input.requestId, String(input.now), String(input.expiresAt)];
  if (input.rate && rateHash) pushRateArgs(args, input.rate, RATE_TTL);
  else args.push(...NO_RATE);
  const n = candidates.length;
  const extra: Currency[] = [];
  const positions: string[] = [];
  for (const currency of report) {
    let at = candidates.findIndex((c) => c.currency === currency);
    if (at < 0) at = n + extra.push(currency) - 1;
    positions.push(String(at + 1));
  }
  args.push(String(n), String(extra.length));
  for (const c of candidates) keys.push(k.bal(c.currency));
  for (const currency of extra) keys.push(k.bal(currency));
  for (const c of candidates) args.push(c.currency);
  for (const c of candidates) args.push(String(c.amount));
  for (const c of candidates) args.push(String(c.floor ?? 0));
  if (candidates.some((c) => c.counter))
    for (const c of candidates) {
      args.push(c.counter ? String(c.limit) : '');
      if (c.counter) keys.push(prefix + c.counter);
    }
  args.push(...positions);
  return { keys, args };
}

/**
 * Appends one settlement's KEYS and ARGV to a SETTLE call (see the script; `journaled`: in the journal already, so its unwritten mark need not carry it): the counter only
 * with one, the rate window's hash only with a correction to apply.
 */
export function pushSettle(
  keys: string[],
  args: string[],
  prefix: string,
  k: AccountKeys,
  input: SettleInput,
  onlyIfHeld: boolean,
  writerId: string | null,
  journaled = false,
) {
  const tokens = current(input.tokens);
  const delta = tokens && tokens.delta !== 0 ? String(tokens.delta) : '0';
  keys.push(k.done(input.requestId), k.bal(input.currency));
  if (input.counter) keys.push(prefix + input.counter);
  if (delta !== '0') keys.push(rateKey(prefix, tokens!.key, tokens!.window));
  args.push(
    input.requestId,
    input.currency,
    String(input.amount),
    input.counter ? String(input.counterTtlMs) : '',
    String(input.settledTtlMs),
    onlyIfHeld ? '1' : '0',
    delta,
    // A replayed settlement's row went to the outbox long ago (maybe written already): no mark.
    input.charge.lines.length > 0 && !onlyIfHeld ? String(UNWRITTEN_TTL_MS) : '0',
    // The mark carries the charge for a start after a crash between Redis and the journal; a
    // deferred settlement was journaled before Redis saw it, so a bare mark does.
    writerId && !journaled ? JSON.stringify({ writer: writerId, charge: input.charge }) : '1',
  );
}

/** SETTLE's KEYS and ARGV for settlements of one account. */
export function settleCall(
  prefix: string,
  k: AccountKeys,
  inputs: readonly SettleInput[],
  onlyIfHeld: boolean,
  writerId: string | null,
  journaled = false,
) {
  const keys = [k.hsum, k.hreq, k.hexp, k.unwritten];
  const args: string[] = [];
  for (const input of inputs) pushSettle(keys, args, prefix, k, input, onlyIfHeld, writerId, journaled);
  return { keys, args };
}

export const STATUS = ['held', 'missing', 'insufficient', 'limit', 'rated'] as const;

export function parseCharged(reply: unknown): Charged | null {
  if (typeof reply !== 'string') return null;
  const bar = reply.indexOf('|');
  return { currency: reply.slice(0, bar) as Currency, amount: Number(reply.slice(bar + 1)) };
}

/** The account's key names: every one carries the `{account}` hash tag (one cluster slot). */
export class AccountKeys {
  readonly hsum: string;
  readonly hreq: string;
  readonly hexp: string;
  /** The expiry at which the account was last written to the global hold index. */
  readonly ix: string;
  /** Request ids of charges settled but not yet in the database (any instance's outbox). */
  readonly unwritten: string;
  private readonly base: string;
  private readonly mirrors = new Map<string, string>();

  constructor(prefix: string, accountId: string) {
    this.base = `${prefix}bill:{${accountId}}:`;
    this.hsum = `${this.base}hsum`;
    this.hreq = `${this.base}hreq`;
    this.hexp = `${this.base}hexp`;
    this.ix = `${this.base}ix`;
    this.unwritten = `${this.base}unw`;
  }

  bal(currency: string): string {
    let key = this.mirrors.get(currency);
    if (key === undefined) this.mirrors.set(currency, (key = `${this.base}bal:${currency}`));
    return key;
  }

  done(requestId: string): string {
    return `${this.base}done:${requestId}`;
  }

  applied(requestId: string): string {
    return `${this.base}applied:${requestId}`;
  }
}

/** The key names of an account's billing state. */
export const accountKeys = (prefix: string, accountId: string) => new AccountKeys(prefix, accountId);

/** The accounts a journal's instance settled charges of (the set the next start on that journal reads). */
export const writerIndexKey = (prefix: string, writerId: string) => `${prefix}bill:writer:{${writerId}}`;

/** An unwritten mark's value: the charge and the journal of the instance that queued it; null for a bare mark. */
export function parseMark(value: string): { writer: string; charge: LedgerCharge } | null {
  try {
    const mark = JSON.parse(value) as { writer?: unknown; charge?: LedgerCharge };
    return typeof mark.writer === 'string' && mark.charge ? { writer: mark.writer, charge: mark.charge } : null;
  } catch {
    return null;
  }
}

/** [field, value] pairs of a flat HGETALL reply. */
export function pairs(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** The index of accounts with holds (account -> earliest expiry) that the hold sweep reads. */
export const holdIndexKey = (prefix: string) => `${prefix}bill:holds`;
