import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { forbidden, unauthorized } from '../http/errors';
import type { KeyValueStore } from '../kv/store';

/** The console's session cookie: an opaque id; the session itself lives in the KV store. */
export const SESSION_COOKIE = 'svc_console';
/** The header every state-changing console request carries (synchronizer token). */
export const CSRF_HEADER = 'x-csrf-token';
/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** ...and after this long in any case, however busy. */
export const SESSION_MAX_MS = 12 * 3_600_000;

/** What the KV store holds for a session: the hash of the ADMIN key it was opened with, never the key. */
export interface ConsoleSession {
  keyHash: string;
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

/** Opens, reads (sliding the idle expiry) and closes console sessions. */
export interface ConsoleSessions {
  open(keyHash: string): Promise<{ id: string; session: ConsoleSession }>;
  read(id: string): Promise<ConsoleSession | null>;
  close(id: string): Promise<void>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();
// The KV key is the id's hash, so a dump of the store holds no usable cookie.
const kvKey = (id: string) => `console:session:${digest(id).toString('base64url')}`;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Console sessions in the KV store, so every instance behind a balancer knows them (Redis)
 * and a sign-out is seen at once everywhere. The clock is injected so tests can expire one.
 */
export function consoleSessions(deps: { kv: KeyValueStore; now: () => number }): ConsoleSessions {
  async function store(id: string, session: ConsoleSession) {
    await deps.kv.set(kvKey(id), JSON.stringify(session), Math.max(1, session.expiresAt - deps.now()));
  }
  return {
    async open(keyHash) {
      const id = randomBytes(32).toString('base64url');
      const now = deps.now();
      const session = { keyHash, csrf: randomBytes(32).toString('base64url'), createdAt: now, expiresAt: now + SESSION_IDLE_MS };
      await store(id, session);
      return { id, session };
    },
    async read(id) {
      const raw = await deps.kv.get(kvKey(id));
      if (!raw) return null;
      const session = JSON.parse(raw) as ConsoleSession;
      const now = deps.now();
      if (session.expiresAt <= now) return null;
      // Slide the idle expiry, at most once a minute (a KV write per page poll would be waste).
      const next = Math.min(now + SESSION_IDLE_MS, session.createdAt + SESSION_MAX_MS);
      if (next - session.expiresAt > 60_000) await store(id, { ...session, expiresAt: next });
      return { ...session, expiresAt: Math.max(next, session.expiresAt) };
    },
    close: (id) => deps.kv.del(kvKey(id)),
  };
}

/** The value of cookie `name` in the request, or null. */
export function cookieOf(request: Request, name: string): string | null {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** Whether the request came over HTTPS (directly or through a proxy that says so): the cookie is then Secure. */
function overHttps(request: Request): boolean {
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
}

/** The Set-Cookie value carrying a session id: httpOnly, SameSite=Strict, for the whole host. */
export function sessionCookie(request: Request, id: string): string {
  const secure = overHttps(request) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_MS / 1000}${secure}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedCookie(request: Request): string {
  const secure = overHttps(request) ? '; Secure' : '';
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure}`;
}

/**
 * 403 unless a cross-site page could not have sent the request: an `Origin` header, when
 * present, names this host (browsers send one on every cross-origin and every non-GET fetch).
 */
export function checkOrigin(request: Request): void {
  const origin = request.headers.get('origin');
  if (origin === null) return;
  const host = request.headers.get('x-forwarded-host')?.split(',')[0]?.trim() || request.headers.get('host') || new URL(request.url).host;
  let from: string;
  try {
    from = new URL(origin).host;
  } catch {
    from = '';
  }
  if (from !== host) throw forbidden('Forbidden: the Origin header does not match this host (cross-site request refused)');
}

/** 403 unless a state-changing request carries the session's CSRF token (compared in constant time) from this origin. */
export function checkCsrf(request: Request, session: ConsoleSession): void {
  if (SAFE_METHODS.has(request.method)) return;
  checkOrigin(request);
  const sent = request.headers.get(CSRF_HEADER);
  if (!sent || !timingSafeEqual(digest(sent), digest(session.csrf)))
    throw forbidden(`Forbidden: ${CSRF_HEADER} header missing or wrong (CSRF protection of the console session)`);
}

/**
 * For the auth gate: the key hash a request's console cookie stands for, or null without
 * the cookie. A cookie whose session has ended is 401 (the page goes back to sign-in); a
 * state-changing request without the CSRF token is 403.
 */
export function sessionKeyResolver(sessions: ConsoleSessions) {
  return async function consoleSessionKey(request: Request): Promise<string | null> {
    const id = cookieOf(request, SESSION_COOKIE);
    if (!id) return null;
    const session = await sessions.read(id);
    if (!session) throw unauthorized('Authentication failed: the console session has expired or was signed out');
    checkCsrf(request, session);
    return session.keyHash;
  };
}
