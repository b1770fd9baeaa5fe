/** A deferred settlement as the pending sums see it: its charge and its token correction. */
export interface PendingItem {
  readonly currency: string;
  readonly amount: number;
  /** The rate-limit window hash its token correction goes to, or null. */
  readonly window: string | null;
  readonly tokens: number;
}

/** One account's group on its way to Redis: its send number and its sums, until its reply. */
export interface SentGroup {
  readonly seq: number;
  readonly items: readonly PendingItem[];
  readonly charges: Map<string, number>;
}

interface AccountPending {
  count: number;
  sums: Map<string, number>;
  sent: SentGroup[];
}

interface WindowPending {
  count: number;
  delta: number;
  sent: { seq: number; delta: number }[];
}

/**
 * The charges this instance has answered but not yet applied to the live mirrors (deferred
 * settlements, src/billing/settle-batcher.ts), per account and currency: the balances it
 * reports (headers, 402 bodies, the balance endpoint) subtract them, so they stay what they
 * would be had each settlement landed before its answer. The same for the rate limiter's token
 * corrections, per window hash: the x-ratelimit headers count them.
 *
 * Which of them a mirror read already holds is decided by send order, not by when replies are
 * handled: one connection carries an account's scripts and reads in the order they were
 * written, so a read holds exactly the groups sent before it. Each group gets a send number
 * when its script is written ({@link sent}), each read the number of the last group sent when
 * it is written ({@link stamp}); a read subtracts the groups not yet sent and those sent after
 * it. Deciding by reply order instead was wrong: a group's reply is handled a few promise hops
 * after it arrives, and a read answered right after it was handled first, so it saw the charge
 * in the mirror and subtracted it again (a balance low by a few requests, on a Redis Cluster).
 * A script re-sent after NOSCRIPT (a restarted Redis) lands later than its number says; what
 * that skews is a header until its reply, never an admission, which Redis decides.
 */
export class PendingCharges {
  private lastSent = 0;
  private readonly byAccount = new Map<string, AccountPending>();
  private readonly byWindow = new Map<string, WindowPending>();

  /** The send number of the last group sent: take it in the same tick as the read is written. */
  stamp(): number {
    return this.lastSent;
  }

  /** A deferred settlement of the account, waiting for its group. */
  add(accountId: string, item: PendingItem) {
    let account = this.byAccount.get(accountId);
    if (account === undefined) this.byAccount.set(accountId, (account = { count: 0, sums: new Map(), sent: [] }));
    account.count++;
    account.sums.set(item.currency, (account.sums.get(item.currency) ?? 0) + item.amount);
    if (item.window === null) return;
    const window = this.byWindow.get(item.window);
    if (window === undefined) this.byWindow.set(item.window, { count: 1, delta: item.tokens, sent: [] });
    else (window.count++, (window.delta += item.tokens));
  }

  /** Marks one account's group as sent; call in the same tick as its script is written. */
  sent(accountId: string, items: readonly PendingItem[]): SentGroup {
    const seq = ++this.lastSent;
    const charges = new Map<string, number>();
    for (const item of items) {
      charges.set(item.currency, (charges.get(item.currency) ?? 0) + item.amount);
      if (item.window !== null) this.byWindow.get(item.window)?.sent.push({ seq, delta: item.tokens });
    }
    const group = { seq, items, charges };
    this.byAccount.get(accountId)?.sent.push(group);
    return group;
  }

  /** The group's reply arrived (applied, or handed to the replays): its sums are no longer on their way. */
  landed(accountId: string, group: SentGroup) {
    const account = this.byAccount.get(accountId);
    if (account !== undefined) {
      account.count -= group.items.length;
      if (account.count <= 0) this.byAccount.delete(accountId);
      else {
        for (const [currency, amount] of group.charges) account.sums.set(currency, account.sums.get(currency)! - amount);
        account.sent.splice(account.sent.indexOf(group), 1);
      }
    }
    for (const item of group.items) {
      if (item.window === null) continue;
      const window = this.byWindow.get(item.window);
      if (window === undefined) continue;
      if (--window.count === 0) this.byWindow.delete(item.window);
      else {
        window.delta -= item.tokens;
        const at = window.sent.findIndex((s) => s.seq === group.seq && s.delta === item.tokens);
        if (at >= 0) window.sent.splice(at, 1);
      }
    }
  }

  /** Whether the account has settlements waiting or on their way. */
  has(accountId: string): boolean {
    return this.byAccount.has(accountId);
  }

  /**
   * A mirror's value, read by a command written at `stamp`, less the account's charges in that
   * currency that the read does not hold (null: not mirrored).
   */
  less(accountId: string, currency: string, value: number | null, stamp: number): number | null {
    if (value === null) return null;
    const account = this.byAccount.get(accountId);
    if (account === undefined) return value;
    let missing = account.sums.get(currency) ?? 0;
    for (const group of account.sent) if (group.seq <= stamp) missing -= group.charges.get(currency) ?? 0;
    return value - missing;
  }

  /** The token corrections to the window hash `key` that a read written at `stamp` does not hold (0 for none). */
  tokens(key: string, stamp: number): number {
    const window = this.byWindow.get(key);
    if (window === undefined) return 0;
    let missing = window.delta;
    for (const s of window.sent) if (s.seq <= stamp) missing -= s.delta;
    return missing;
  }
}
