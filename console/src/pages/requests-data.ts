import { call } from '../api';
import type { RequestDetailBody, RequestRowBody, StagesBody } from '../../../src/routes/admin-requests';

// The server's own response schemas (type-only: nothing of the server is bundled into the console).
/** One row of GET /admin/requests. */
export type RequestRow = RequestRowBody;
/** Stage timings of a request in ms; any may be missing or null (older rows, stages a route does not run). */
export type Stages = Partial<StagesBody>;
/** GET /admin/requests/{id}: the row, its ledger rows, and the bodies when captured. */
export type RequestDetail = RequestDetailBody;

/** The filters of the page, as the API names them; empty strings are unset. */
export const FILTERS = ['key', 'account', 'model', 'route', 'status', 'since', 'until', 'minLatencyMs', 'error'] as const;
/** The page's filter values. */
export type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/** The page's state in the URL hash (`#/requests?key=…&id=…`), so a link opens it filtered or on one request. */
export function readHash(): { filters: Filters; id: string | null } {
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const filters: Filters = {};
  for (const name of FILTERS) {
    const v = query.get(name);
    if (v) filters[name] = v;
  }
  return { filters, id: query.get('id') };
}

/** The hash of the page with these filters and, optionally, one request open. */
export function hashOf(filters: Filters, id: string | null = null): string {
  const query = new URLSearchParams();
  for (const name of FILTERS) if (filters[name]) query.set(name, filters[name]!);
  if (id) query.set('id', id);
  const text = query.toString();
  return `#/requests${text ? `?${text}` : ''}`;
}

/** A `datetime-local` value (the browser's local time) as the ISO instant the API takes. */
const instant = (local: string) => new Date(local).toISOString();

/** The API query of the filters, plus paging. */
function queryOf(filters: Filters, extra: Record<string, string>): string {
  const query = new URLSearchParams();
  for (const name of FILTERS) {
    const v = filters[name]?.trim();
    if (v) query.set(name, name === 'since' || name === 'until' ? instant(v) : v);
  }
  for (const [k, v] of Object.entries(extra)) query.set(k, v);
  return query.toString();
}

/** One page of the log, newest first; `after` is the previous page's `next`. */
export function listRequests(filters: Filters, after?: string, limit = 50) {
  const q = queryOf(filters, { limit: String(limit), ...(after ? { after } : {}) });
  return call<{ data: RequestRow[]; next: string | null }>(`/admin/requests?${q}`);
}

const HEAD_LIMIT = 200;

/**
 * Rows newer than the newest shown: the head of the log from `since` (inclusive, the newest
 * row's time, so none in the same millisecond is missed), those already shown dropped. `full`
 * says the head held more than one page: rows may lie between it and the table.
 */
export async function newerThan(
  filters: Filters,
  newest: RequestRow,
  shown: ReadonlySet<string>,
): Promise<{ rows: RequestRow[]; full: boolean }> {
  const since = filters.since && Date.parse(instant(filters.since)) > Date.parse(newest.at) ? instant(filters.since) : newest.at;
  const q = queryOf({ ...filters, since: undefined }, { since, limit: String(HEAD_LIMIT) });
  const page = await call<{ data: RequestRow[] }>(`/admin/requests?${q}`);
  return { rows: page.data.filter((r) => !shown.has(r.requestId)), full: page.data.length === HEAD_LIMIT };
}

/** One request with its ledger rows. */
export const requestDetail = (id: string) => call<RequestDetail>(`/admin/requests/${encodeURIComponent(id)}`);

/** The status class of a status, for the table's colour. */
export const statusClass = (status: number) => (status >= 500 ? 'error-text' : status >= 400 ? 'warn-text' : 'ok-text');
