import type { Database } from '../db/database';
import { p80Ms } from './store';

/** How long one instance reuses a model's P80 before asking the database again. */
const TTL_MS = 30_000;

/**
 * The P80 time to finish of each model's recent jobs, as a running job's progress reports it.
 * Every poll of a running job asks for it (clients poll every second or so), so it is read
 * from the database at most once per model per TTL and instance: an estimate does not need
 * to be fresher, and the query reads up to `P80_WINDOW` rows.
 */
export class FinishTimes {
  private readonly known = new Map<string, { at: number; value: Promise<number | null> }>();

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  p80(modelId: string): Promise<number | null> {
    const hit = this.known.get(modelId);
    const now = this.now();
    if (hit && now - hit.at < TTL_MS) return hit.value;
    const value = p80Ms(this.db, modelId);
    this.known.set(modelId, { at: now, value });
    // A failed read is not kept: the next poll asks again.
    value.catch(() => this.known.get(modelId)?.value === value && this.known.delete(modelId));
    return value;
  }
}
