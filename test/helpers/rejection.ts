/**
 * The error `promise` rejects with; fails when it resolves. Tests use this instead of
 * `expect(promise).rejects`: bun:test waits for that promise by ticking the event loop inside
 * the current setImmediate batch, so an immediate queued in the same batch (postgres.js sends
 * queries from one) waits with it, and an in-process server's call hangs until its deadline
 * (Bun PR 39103). test/ops/no-nested-expect-waits.test.ts keeps the suite free of them.
 */
export async function rejectionOf(promise: PromiseLike<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
