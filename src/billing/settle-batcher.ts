/**
 * Groups settlements per account for a few milliseconds, so the settlements of many requests
 * go to the live store as one script call (one round trip, one command for Redis to read,
 * dispatch and answer instead of one per request). Per account, because a Redis Cluster runs
 * a script on one slot and every key of an account carries its hash tag.
 *
 * A group goes when its window ends or when it reaches `max`; `flush` sends every group now
 * and waits for all that are on their way.
 */
export class SettleBatcher<T> {
  private groups = new Map<string, T[]>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly windowMs: number,
    private readonly max: number,
    /** Applies one account's group; must not reject (it handles its own failures). */
    private readonly send: (key: string, group: T[]) => Promise<void>,
  ) {}

  /** Queues one settlement of the account `key`. */
  add(key: string, item: T) {
    const group = this.groups.get(key);
    if (group === undefined) this.groups.set(key, [item]);
    else if (group.push(item) >= this.max) {
      this.groups.delete(key);
      this.start(key, group);
      return;
    }
    if (this.timer === null) this.timer = setTimeout(this.sendAll, this.windowMs);
  }

  /**
   * Sends every group now and waits until every group sent so far has been applied. Only those:
   * under steady load new groups keep starting, and a wait for none to be on their way could
   * last as long as the load (the ledger writer waits here).
   */
  async flush(): Promise<void> {
    this.sendAll();
    await Promise.all([...this.sending]);
  }

  /** Settlements waiting or on their way. */
  get size(): number {
    let n = this.sending.size;
    for (const group of this.groups.values()) n += group.length;
    return n;
  }

  close() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly sendAll = () => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const groups = this.groups;
    if (groups.size === 0) return;
    this.groups = new Map();
    for (const [key, group] of groups) this.start(key, group);
  };

  private start(key: string, group: T[]) {
    const sent: Promise<void> = this.send(key, group).finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }
}
