import { LedgerJournal, type JournalMark } from './ledger-journal';
import type { LedgerCharge } from './ledger-row';
import type { LedgerBatch } from './store';

/**
 * This instance's settlements on their way to the ledger. Each store pushes a settlement
 * here when it charges; the ledger writer takes them in batches and acknowledges
 * after the database commit. Settlements never travel through Redis, so Redis losing its
 * data loses none of them, and no script needs a key outside the account's hash slot.
 * With a journal directory, each settlement is also appended to a local file before the
 * store returns (see LedgerJournal), so a crash of the process loses none either.
 */
export class LedgerOutbox {
  /** `replayed`: read back from a journal at start (its charge may already be in the ledger). */
  private queue: { charge: LedgerCharge; mark: JournalMark; replayed?: boolean }[] = [];
  private taking = false;
  private readonly journal: LedgerJournal | null;

  constructor(journalDir?: string) {
    this.journal = journalDir ? new LedgerJournal(journalDir) : null;
    if (this.journal) for (const item of this.journal.recovered) this.queue.push({ ...item, replayed: true });
  }

  /** Queues one settlement (journaled first when there is a journal); one with no line item is not a ledger row. */
  push(charge: LedgerCharge) {
    if (charge.lines.length === 0) return;
    this.queue.push({ charge, mark: this.journal ? this.journal.append(charge) : 0 });
  }

  /** Up to `max` settlements, or null when empty or a batch is already out. */
  takeBatch(max: number): LedgerBatch | null {
    if (this.taking || this.queue.length === 0) return null;
    this.taking = true;
    const items = this.queue.slice(0, max);
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
