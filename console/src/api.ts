/** The API base path svc serves under, written into the page by the server. */
export const BASE = document.querySelector<HTMLMetaElement>('meta[name="svc-base-path"]')?.content ?? '/api/v1';

/** An API answer that was not 2xx: its status and the service's `error` string. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';
let sessionEnded: (reason: string) => void = () => {};

/** Keeps the session's CSRF token in memory (never in storage) for state-changing calls. */
export function useCsrfToken(token: string): void {
  csrfToken = token;
}

/** What to do when the server says the session is over (401): back to sign-in. */
export function onSessionEnd(handler: (reason: string) => void): void {
  sessionEnded = handler;
}

/** Options of one call: method, JSON body, or a CSV answer. */
export interface CallOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  json?: unknown;
  csv?: boolean;
}

/**
 * Calls svc with the session cookie: `/console/...` paths as they are, others under the API
 * base path. State-changing calls carry the CSRF token. A 401 ends the session in the page.
 */
export async function call<T>(path: string, opts: CallOptions = {}): Promise<T> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { accept: opts.csv ? 'text/csv' : 'application/json' };
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path.startsWith('/console/') ? path : BASE + path, {
    method,
    headers,
    credentials: 'same-origin',
    body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    const message = body.error ?? `${res.status} ${res.statusText}`;
    if (res.status === 401 && path !== '/console/session') sessionEnded(message);
    throw new ApiError(res.status, message);
  }
  return (opts.csv ? await res.text() : await res.json()) as T;
}

/** The message to show for a failed call. */
export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
