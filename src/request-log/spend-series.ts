import { addSpend, dropSpend } from '../metrics';
import type { ObservabilityConfig } from './config';

/** The label of every id that has no series of its own. */
export const OTHER = 'other';
// Ids whose spend one interval remembers to pick the next top N; beyond it they are only `other`.
const MAX_TRACKED = 100_000;

type Kind = 'key' | 'account';

/**
 * Which ids get their own spend series, for one kind (keys or accounts): the allow-list always,
 * plus up to `topN` others. While fewer than N have a series, a new spender gets one at once;
 * at each interval's end the N biggest spenders of that interval keep theirs and the others'
 * series are removed, their amounts added to `other` (the family's sum never goes down). So the series never exceed |allow-list| + N + 1 per currency.
 */
class BoundedLabels {
  private readonly allowed: ReadonlySet<string>;
  private labelled = new Set<string>();
  private interval = new Map<string, number>();
  // What each top-N series holds, so a series removed at a rollover moves its amount to `other`.
  private held = new Map<string, Map<string, number>>();

  constructor(
    private readonly kind: Kind,
    allowList: readonly string[],
    private readonly topN: number,
  ) {
    this.allowed = new Set(allowList);
  }

  add(id: string, currency: string, micros: number): void {
    const label = this.labelOf(id, micros);
    addSpend(this.kind, label, currency, micros);
    if (label === OTHER || this.allowed.has(id)) return;
    const held = this.held.get(id) ?? new Map<string, number>();
    held.set(currency, (held.get(currency) ?? 0) + micros);
    this.held.set(id, held);
  }

  private labelOf(id: string, micros: number): string {
    if (this.allowed.has(id)) return id;
    if (this.topN === 0) return OTHER;
    if (this.interval.has(id) || this.interval.size < MAX_TRACKED) this.interval.set(id, (this.interval.get(id) ?? 0) + micros);
    if (this.labelled.has(id)) return id;
    if (this.labelled.size < this.topN) {
      this.labelled.add(id);
      return id;
    }
    return OTHER;
  }

  /** Ends an interval: the N biggest spenders of it keep their series, the others' are removed. */
  rollover(): void {
    if (this.topN === 0) return;
    const top = new Set(
      [...this.interval]
        .sort((a, b) => b[1] - a[1])
        .slice(0, this.topN)
        .map(([id]) => id),
    );
    for (const id of this.labelled) {
      if (top.has(id)) continue;
      // The counter's total is kept: the amount moves to `other` with the series' removal.
      for (const [currency, micros] of this.held.get(id) ?? []) {
        dropSpend(this.kind, id, currency);
        addSpend(this.kind, OTHER, currency, micros);
      }
      this.held.delete(id);
    }
    this.labelled = top;
    this.interval = new Map();
  }
}

/** The spend series of /metrics, bounded per observability.spendMetrics. */
export interface SpendSeries {
  /** Adds one settled charge. */
  record(keyId: string | null, accountId: string, currency: string, micros: number): void;
  /** Ends the interval now (the timer does it every `intervalMs`; tests call it). */
  rollover(): void;
  close(): void;
}

/** Starts the bounded spend series (an unref'd timer ends each interval). */
export function startSpendSeries(config: ObservabilityConfig['spendMetrics']): SpendSeries {
  const keys = new BoundedLabels('key', config.keys, config.topN);
  const accounts = new BoundedLabels('account', config.accounts, config.topN);
  const rollover = () => {
    keys.rollover();
    accounts.rollover();
  };
  const timer = setInterval(rollover, config.intervalMs);
  timer.unref?.();
  return {
    record(keyId, accountId, currency, micros) {
      if (micros <= 0) return;
      if (keyId) keys.add(keyId, currency, micros);
      accounts.add(accountId, currency, micros);
    },
    rollover,
    close: () => clearInterval(timer),
  };
}
