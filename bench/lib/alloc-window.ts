import { heapStats } from 'bun:jsc';

const nextImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What a window of requests allocated on the JavaScript heap, per request. */
export interface AllocationWindow {
  requests: number;
  /** JavaScript objects allocated per request (every type; JSC counts cells not yet swept). */
  objectsTotal: number;
  /**
   * Growth of the memory JSC is told objects hold outside its heap (buffers, native objects)
   * per request. (JSC's heapSize does not move with new cells until a sweep, so it is no
   * measure of bytes allocated; with PGlite's heap the GC log's per-cycle byte counts cover
   * too few cycles to sum either.)
   */
  extraBytes: number;
  /**
   * Bytes of JavaScript heap per request: the growth of JSC's `heapCapacity` (the blocks its
   * allocator took to hold the new cells; in 16 KB blocks, so a window of a few hundred
   * requests rounds it to tens of bytes a request). Cells and their property storage; mimalloc's
   * own count was tried and dropped: its net figure moved by ±20 KB a request with PGlite's
   * and Bun's threads freeing in the window.
   */
  heapBytes: number;
  /** Objects allocated per request by JSC type name, the largest counts first. */
  objects: [string, number][];
}

/**
 * Allocation per request from Bun's heap statistics around a window: a full collection first,
 * then `n` requests, then the objects counted by type without collecting. Valid only if no
 * collection ran inside the window (a weakly held canary tells): the window halves until
 * none does (an eden collection starts after ~8 MB of allocation).
 */
export async function allocationWindow(run: (n: number) => Promise<void>, n: number): Promise<AllocationWindow> {
  for (let size = n; size >= 10; size = Math.floor(size / 2)) {
    // Elysia runs the after-response hooks (the request log, the request metrics) in a
    // setImmediate, which requests answered in microtasks alone reach only after them: one turn
    // of the immediates before the window (the earlier requests' hooks) and one after (its own).
    await nextImmediate();
    Bun.gc(true);
    const before = heapStats();
    let canary: WeakRef<object> | null = new WeakRef({ canary: true });
    await run(size);
    await nextImmediate();
    const after = heapStats();
    const collected = canary.deref() === undefined;
    canary = null;
    if (collected) continue;
    const objects: [string, number][] = [];
    for (const [type, count] of Object.entries(after.objectTypeCounts)) {
      const grew = count - (before.objectTypeCounts[type] ?? 0);
      if (grew > 0) objects.push([type, Math.round((grew / size) * 10) / 10]);
    }
    objects.sort((a, b) => b[1] - a[1]);
    return {
      requests: size,
      objectsTotal: Math.round(objects.reduce((sum, [, c]) => sum + c, 0)),
      extraBytes: Math.round((after.extraMemorySize - before.extraMemorySize) / size),
      heapBytes: Math.round((after.heapCapacity - before.heapCapacity) / size),
      objects,
    };
  }
  throw new Error('a collection ran inside every window down to 10 requests');
}
