import { LedgerJournal, type JournalMark } from './ledger-journal';
import type { LedgerRow } from './ledger-row';
import type { LedgerBatch } from './store';

/**
 * This instance's settlements on their way to the ledger. Each store pushes the rows of a
 * settlement here when it charges; the ledger writer takes them in batches and acknowledges
 * after the database commit. Settlements never travel through Redis, so Redis losing its
 * data loses none of them, and no script needs a key outside the account's hash slot.
 * With a journal directory, each settlement is also appended to a local file before the
 * store returns (see LedgerJournal), so a crash of the process loses none either.
 */
export class LedgerOutbox {
  private queue: { rows: LedgerRow[]; mark: JournalMark }[] = [];
  private taking = false;
  private readonly journal: LedgerJournal | null;

  constructor(journalDir?: string) {
    this.journal = journalDir ? new LedgerJournal(journalDir) : null;
    if (this.journal) this.queue.push(...this.journal.recovered);
  }

  /** Queues one settlement's rows (journaled first when there is a journal). */
  push(rows: LedgerRow[]) {
    if (rows.length === 0) return;
    this.queue.push({ rows, mark: this.journal ? this.journal.append(rows) : 0 });
  }

  /** Up to `max` settlements, or null when empty or a batch is already out. */
  takeBatch(max: number): LedgerBatch | null {
    if (this.taking || this.queue.length === 0) return null;
    this.taking = true;
    const items = this.queue.slice(0, max);
    const rows: LedgerRow[] = [];
    for (const item of items) for (const row of item.rows) rows.push(row);
    return {
      rows,
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

  /** Settlements not yet in the database. */
  get size(): number {
    return this.queue.length;
  }

  close() {
    this.journal?.close();
  }
}
