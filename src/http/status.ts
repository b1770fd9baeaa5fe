import { StatusMap } from 'elysia';

/** The status a response goes out with: a Response's own, else Elysia's `set.status` (a code or a status name), else 200. */
export function statusOf(set: { status?: number | string }, response?: unknown): number {
  if (response instanceof Response) return response.status;
  if (typeof set.status === 'number') return set.status;
  return set.status === undefined ? 200 : (StatusMap[set.status as keyof typeof StatusMap] ?? 200);
}
