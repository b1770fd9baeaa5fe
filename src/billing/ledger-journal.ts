import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { chargeOfJournal, type LedgerCharge } from './ledger-row';

/** Past this size the journal starts a new segment; a segment is deleted once all its settlements are in the database. */
const SEGMENT_BYTES = 8 * 1024 * 1024;

/** Where a journaled settlement is, so its acknowledgement can free the segment. */
export type JournalMark = number;

/**
 * What the live store still has to apply of a settlement journaled before it reached Redis
 * (a deferred settlement, src/billing/settle-batcher.ts): its key counter. Journaled with the
 * charge, so a start after a crash in between can apply it (the charge itself is in the line).
 */
export interface SettleIntent {
  counter: string;
  counterTtlMs: number;
}

/** A journal line that says these deferred settlements reached the live store. */
interface LandedLine {
  landed: string[];
}

/**
 * The local write-ahead journal of settlements (one JSON line each), for the ledger outbox:
 * a settlement is appended (written to the file, so a crash of the process cannot lose it)
 * before the client is told its cost, and its segment is deleted only after the database
 * committed every settlement in it. At start, segments left by a previous run are read back
 * and written again (idempotent by request id). The directory belongs to one instance: a
 * lock file with the owner's pid refuses a second live process.
 */
export class LedgerJournal {
  /**
   * Settlements read back from a previous run, oldest first, with their marks; `intent` on a
   * deferred settlement with no landed line: the crash came before the live store applied it.
   */
  readonly recovered: { charge: LedgerCharge; mark: JournalMark; intent?: SettleIntent }[] = [];
  /**
   * The journal's lasting name (kept in the directory, so the same after a restart): the
   * live store marks each unwritten charge with it, so that the next start on this journal
   * finds the charges a crash took before they reached the file.
   */
  readonly writerId: string;
  private readonly pending = new Map<JournalMark, number>();
  private fd = -1;
  private segment = 0;
  private bytes = 0;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.lock();
    const idFile = join(dir, 'writer-id');
    if (!existsSync(idFile)) writeFileSync(idFile, randomUUID());
    this.writerId = readFileSync(idFile, 'utf8').trim();
    const names = readdirSync(dir)
      .filter((n) => /^segment-\d+\.jsonl$/.test(n))
      .sort((a, b) => segmentNumber(a) - segmentNumber(b));
    const landed = new Set<string>();
    const read: { charge: LedgerCharge; mark: JournalMark; intent?: SettleIntent }[] = [];
    for (const name of names) {
      const number = segmentNumber(name);
      this.segment = Math.max(this.segment, number);
      let count = 0;
      for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
        if (line === '') continue;
        try {
          const value = JSON.parse(line) as (LedgerCharge & { settle?: SettleIntent }) | LandedLine;
          if ('landed' in value) {
            for (const id of value.landed) landed.add(id);
            continue;
          }
          const intent = Array.isArray(value) ? undefined : value.settle;
          if (intent) delete (value as { settle?: SettleIntent }).settle;
          const charge = chargeOfJournal(value);
          if (charge) (read.push({ charge, mark: number, intent }), count++);
        } catch {
          // A line torn by a crash in the middle of its write: its settlement had not returned, so no client saw that cost.
        }
      }
      if (count === 0) unlinkSync(join(dir, name));
      else this.pending.set(number, count);
    }
    for (const item of read) {
      if (item.intent && landed.has(item.charge.requestId)) delete item.intent;
      this.recovered.push(item);
    }
    this.open();
  }

  /**
   * Appends one settlement, with what the live store has yet to apply of it when it is
   * deferred; returns its mark for {@link ack}. Synchronous: it is in the file when this returns.
   */
  append(charge: LedgerCharge, intent?: SettleIntent): JournalMark {
    const json = JSON.stringify(charge);
    this.write(intent ? `${json.slice(0, -1)},"settle":${JSON.stringify(intent)}}\n` : json + '\n');
    this.pending.set(this.segment, (this.pending.get(this.segment) ?? 0) + 1);
    return this.segment;
  }

  /** Records that these deferred settlements reached the live store (a start after a crash applies the others). */
  landed(requestIds: string[]) {
    const line: LandedLine = { landed: requestIds };
    this.write(JSON.stringify(line) + '\n');
  }

  /**
   * The settlements with these marks are committed: segments with nothing left are deleted
   * (the current one emptied), oldest first and only in order, so a landed line is never
   * deleted before the settlement it is about (which is in the same or an older segment).
   */
  ack(marks: JournalMark[]) {
    for (const mark of marks) this.pending.set(mark, (this.pending.get(mark) ?? 1) - 1);
    for (const [segment, left] of this.pending) {
      if (left > 0) break;
      this.pending.delete(segment);
      if (segment !== this.segment) rmSync(this.path(segment), { force: true });
      else if (this.bytes > 0) {
        ftruncateSync(this.fd, 0);
        this.bytes = 0;
      }
    }
  }

  close() {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    // Kept while any settlement is left: it may hold their landed lines.
    if ([...this.pending.values()].every((left) => left === 0)) rmSync(this.path(this.segment), { force: true });
    rmSync(join(this.dir, 'owner.pid'), { force: true });
  }

  private write(text: string) {
    if (this.bytes > SEGMENT_BYTES) this.open();
    const line = Buffer.from(text);
    writeSync(this.fd, line);
    this.bytes += line.length;
  }

  private open() {
    if (this.fd >= 0) closeSync(this.fd);
    this.segment++;
    this.fd = openSync(this.path(this.segment), 'a');
    this.bytes = fstatSync(this.fd).size;
  }

  private path(segment: number) {
    return join(this.dir, `segment-${segment}.jsonl`);
  }

  private lock() {
    const owner = join(this.dir, 'owner.pid');
    if (existsSync(owner)) {
      const pid = Number(readFileSync(owner, 'utf8'));
      if (pid && pid !== process.pid && alive(pid)) throw new Error(`billing: ledger journal ${this.dir} is in use by process ${pid}`);
    }
    writeFileSync(owner, String(process.pid));
  }
}

const segmentNumber = (name: string) => Number(name.slice('segment-'.length, -'.jsonl'.length));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
