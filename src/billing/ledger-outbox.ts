import { LedgerJournal, type JournalMark, type SettleIntent } from './ledger-journal';
import type { LedgerCharge } from './ledger-row';
import type { LedgerBatch } from './store';

/** A queued settlement; `intent` while it is deferred and not landed in the live store yet. */
export interface OutboxItem {
  readonly charge: LedgerCharge;
  readonly mark: JournalMark;
  /** Read back from a journal at start (its charge may already be in the ledger). */
  readonly replayed?: boolean;
  intent?: SettleIntent;
}

/**
 * This instance's settlements on their way to the ledger. Each store pushes a settlement
 * here when it charges; the ledger writer takes them in batches and acknowledges
 * after the database commit. Settlements never travel through Redis, so Redis losing its
 * data loses none of them, and no script needs a key outside the account's hash slot.
 * With a journal directory, each settlement is also appended to a local file before the
 * store returns (see LedgerJournal), so a crash of the process loses none either.
 *
 * A deferred settlement (queued here before the live store applied it) is not handed to the
 * ledger writer until it has landed there: the database then never holds a charge that the
 * live mirror may still lack, and a start after a crash knows the ones to apply (the journal's
 * landed lines). Batches stop at the first one still in flight, so the order stays the queue's.
 */
export class LedgerOutbox {
  private queue: OutboxItem[] = [];
  private inFlight = 0;
  private taking = false;
  private readonly journal: LedgerJournal | null;

  constructor(journalDir?: string) {
    this.journal = journalDir ? new LedgerJournal(journalDir) : null;
    if (this.journal)
      for (const item of this.journal.recovered) {
        this.queue.push({ ...item, replayed: true });
        if (item.intent) this.inFlight++;
      }
  }

  /**
   * Queues one settlement (journaled first when there is a journal); one with no line item is
   * not a ledger row (null). With `intent` it is deferred: held back from the ledger until {@link landed}.
   */
  push(charge: LedgerCharge, intent?: SettleIntent): OutboxItem | null {
    if (charge.lines.length === 0) return null;
    const mark = this.journal ? this.journal.append(charge, intent) : 0;
    const item: OutboxItem = intent ? { charge, mark, intent } : { charge, mark };
    if (intent) this.inFlight++;
    this.queue.push(item);
    return item;
  }

  /** Deferred settlements the live store has now applied: the ledger may take them (journaled as landed). */
  landed(items: readonly OutboxItem[]) {
    const done: string[] = [];
    for (const item of items)
      if (item.intent) {
        delete item.intent;
        this.inFlight--;
        done.push(item.charge.requestId);
      }
    if (done.length > 0) this.journal?.landed(done);
  }

  /** Settlements read back from the journal that a crash took before the live store applied them. */
  unlanded(): OutboxItem[] {
    return this.queue.filter((item) => item.replayed && item.intent);
  }

  /** Up to `max` settlements, or null when none is ready or a batch is already out. */
  takeBatch(max: number): LedgerBatch | null {
    if (this.taking || this.queue.length === 0) return null;
    let take = Math.min(max, this.queue.length);
    if (this.inFlight > 0)
      for (let i = 0; i < take; i++)
        if (this.queue[i]!.intent) {
          take = i;
          break;
        }
    if (take === 0) return null;
    this.taking = true;
    const items = this.queue.slice(0, take);
    return {
      charges: items.map((i) => i.charge),
      replayed: items.some((i) => i.replayed),
      ack: async () => {
        this.queue = this.queue.slice(items.length);
        this.taking = false;
        this.journal?.ack(items.map((i) => i.mark));
      },
      abandon: async () => {
        this.taking = false;
      },
    };
  }

  /** The journal's lasting name, or null without a journal (a crash loses the queue then anyway). */
  get writerId(): string | null {
    return this.journal?.writerId ?? null;
  }

  /** Whether the settlement of `requestId` is queued (read back from the journal, or pushed since). */
  holds(requestId: string): boolean {
    return this.queue.some((item) => item.charge.requestId === requestId);
  }

  /** Settlements of `accountId` not yet in the database. */
  queuedFor(accountId: string): number {
    let n = 0;
    for (const item of this.queue) if (item.charge.accountId === accountId) n++;
    return n;
  }

  /** Settlements not yet in the database. */
  get size(): number {
    return this.queue.length;
  }

  close() {
    this.journal?.close();
  }
}
