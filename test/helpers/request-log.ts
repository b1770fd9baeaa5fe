import { expect } from 'bun:test';
import type { TestApp } from './app';

/** Waits until `t`'s request log has written what was answered: the after-response hooks run in a setImmediate, then the meter's and the log's batches. */
export async function requestLogWritten(t: TestApp): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await t.deps.meter.flush();
  await t.deps.observability!.recorder!.flush();
}

/** GET /admin/requests/{id} with the bootstrap ADMIN key; a 200 is expected. */
export async function requestDetail<T>(t: TestApp, id: string): Promise<T> {
  const res = await t.request(`/admin/requests/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}
