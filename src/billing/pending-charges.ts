/**
 * The charges this instance has answered but not yet applied to the live mirrors (deferred
 * settlements on their way, src/billing/settle-batcher.ts), per account and currency: the
 * balances it reports (headers, 402 bodies, the balance endpoint) subtract them, so they
 * stay what they would be had each settlement landed before its answer. One connection
 * carries the scripts in order, so a mirror read answered before a group's reply does not
 * hold that group yet, and one answered after it does: a charge is removed here when its
 * group's reply arrives. The same for the rate limiter's token corrections, per window hash:
 * the x-ratelimit headers count them.
 */
export class PendingCharges {
  private readonly byAccount = new Map<string, { count: number; sums: Map<string, number> }>();
  private readonly byWindow = new Map<string, { count: number; delta: number }>();

  /** A token correction on its way to the rate-limit window hash `key`. */
  addTokens(key: string, delta: number) {
    const window = this.byWindow.get(key);
    if (window === undefined) this.byWindow.set(key, { count: 1, delta });
    else (window.count++, (window.delta += delta));
  }

  removeTokens(key: string, delta: number) {
    const window = this.byWindow.get(key);
    if (window === undefined) return;
    if (--window.count === 0) this.byWindow.delete(key);
    else window.delta -= delta;
  }

  /** The token corrections on their way to the window hash `key` (0 for none). */
  tokens(key: string): number {
    return this.byWindow.get(key)?.delta ?? 0;
  }

  add(accountId: string, currency: string, amount: number) {
    let account = this.byAccount.get(accountId);
    if (account === undefined) this.byAccount.set(accountId, (account = { count: 0, sums: new Map() }));
    account.count++;
    account.sums.set(currency, (account.sums.get(currency) ?? 0) + amount);
  }

  remove(accountId: string, currency: string, amount: number) {
    const account = this.byAccount.get(accountId);
    if (account === undefined) return;
    if (--account.count === 0) this.byAccount.delete(accountId);
    else account.sums.set(currency, account.sums.get(currency)! - amount);
  }

  /** Whether the account has settlements on their way. */
  has(accountId: string): boolean {
    return this.byAccount.has(accountId);
  }

  /** A mirror's value less the account's charges on their way in that currency (null: not mirrored). */
  less(accountId: string, currency: string, value: number | null): number | null {
    if (value === null) return null;
    return value - (this.byAccount.get(accountId)?.sums.get(currency) ?? 0);
  }
}
