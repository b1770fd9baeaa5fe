import { Elysia, t } from 'elysia';
import { createHash } from 'node:crypto';
import { hashSecret } from '../auth/api-keys';
import { loadConsoleAssets } from '../console/assets';
import {
  checkCsrf,
  checkOrigin,
  clearedCookie,
  consoleSessions,
  cookieOf,
  SESSION_COOKIE,
  sessionCookie,
  type ConsoleSession,
} from '../console/session';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { clientIp, type RequestIpSource } from '../x402/ip-limit';
import { negotiateCoding } from '../http/compression';
import { abuseGuardOf } from '../gates/abuse-guard';
import { forbidden, notFound, tooManyRequests, unauthorized } from '../http/errors';
import { wholeBody } from '../http/large-body';
import { consoleApiRoutes } from './console-api';

const ErrorBody = t.Object({ error: t.String() });
const SessionBody = t.Object({
  data: t.Object({
    accountId: t.String(),
    operator: t.Boolean({ description: "Whether the key is an ADMIN key of the operator's account (the Accounts page)" }),
    keyId: t.String(),
    csrfToken: t.String({ description: 'Send as x-csrf-token on every state-changing request' }),
    expiresAt: t.String({ format: 'date-time', description: 'When the session ends unless used (each use extends it)' }),
  }),
});
/** Failed sign-ins a client address may make per minute before it has to wait (keys are 256 bits: this stops noise, not guessing). */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;
// The page runs only its own script; styles may be set inline by the chart library.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The HTML shell: the bundle's script and styles, with a content hash so browsers may cache them for good. */
function shell(basePath: string, version: (name: string) => string, missing: boolean): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="svc-base-path" content="${basePath}" />
    <title>svc console</title>
    <link rel="icon" href="/console/assets/favicon.svg?v=${version('favicon.svg')}" />
    <link rel="stylesheet" href="/console/assets/app.css?v=${version('app.css')}" />
  </head>
  <body>
    <div id="app">${missing ? '<p>The console bundle is missing: run <code>npm run console:build</code>.</p>' : '<noscript>The svc console needs JavaScript.</noscript>'}</div>
    <script type="module" src="/console/assets/app.js?v=${version('app.js')}"></script>
  </body>
</html>
`;
}

/**
 * The operator console at `/console` (docs/console.md): the page and its bundle, the sign-in
 * that swaps an ADMIN key for a session cookie, and the few JSON summaries the public API
 * does not give (./console-api.ts). Everything else the page reads through the API itself,
 * with the cookie (src/gates/auth.ts).
 */
export function consoleRoutes(deps: AppDeps, stages: Stages) {
  const assets = loadConsoleAssets();
  const sessions = consoleSessions(deps);
  const version = (name: string) => {
    const bytes = assets.get(name)?.bytes(null);
    return bytes ? createHash('sha256').update(bytes).digest('hex').slice(0, 12) : '0';
  };
  const html = shell(deps.config.basePath, version, assets.size === 0);
  const trustForwardedFor = abuseGuardOf(deps).config.trustForwardedFor;

  /**
   * Refuses a sign-in from an address with too many recent failures; returns the function that
   * counts one more and turns the failure into the 429 once it is past the budget. The count is
   * one atomic increment compared after the fact: concurrent wrong keys each get their own
   * number, so at most the budget of them are answered 401 (a read-then-write let 100 through).
   */
  async function failureBudget(request: Request, server: RequestIpSource | null) {
    const minute = Math.floor(deps.now() / 60_000);
    const key = `console:sign-in-failures:${clientIp(request, server, trustForwardedFor)}:${minute}`;
    const limited = () =>
      tooManyRequests(
        `Rate limit exceeded: at most ${SIGN_IN_FAILURES_PER_MINUTE} failed console sign-ins per minute from one address`,
        {},
        (minute + 1) * 60_000 - deps.now(),
      );
    if (Number((await deps.kv.get(key)) ?? 0) >= SIGN_IN_FAILURES_PER_MINUTE) throw limited();
    return async function countFailure(refusal: Error): Promise<never> {
      throw (await deps.kv.incrBy(key, 1, 61_000)) > SIGN_IN_FAILURES_PER_MINUTE ? limited() : refusal;
    };
  }

  async function described(session: ConsoleSession, csrfToken: string) {
    const key = await deps.keys.lookup(session.keyHash);
    if (!key) throw unauthorized('Authentication failed: the key of this console session was deleted');
    return {
      data: {
        accountId: key.accountId,
        operator: key.operator,
        keyId: key.id,
        csrfToken,
        expiresAt: new Date(session.expiresAt).toISOString(),
      },
    };
  }

  function consolePage({ set }: { set: { headers: Record<string, string | number> } }) {
    set.headers['content-type'] = 'text/html; charset=utf-8';
    set.headers['cache-control'] = 'no-cache';
    set.headers['content-security-policy'] = CSP;
    set.headers['x-frame-options'] = 'DENY';
    set.headers['referrer-policy'] = 'no-referrer';
    return html;
  }

  return new Elysia({ name: 'svc.routes.console' })
    .get('/console', consolePage, { detail: { hide: true } })
    .get('/console/', consolePage, { detail: { hide: true } })
    .get(
      '/console/assets/:file',
      function consoleAsset({ params, request, set }) {
        const asset = assets.get(params.file);
        if (!asset) throw notFound(assets.size ? 'Not found' : 'The console bundle is missing: run npm run console:build');
        set.headers['content-type'] = asset.type;
        set.headers['cache-control'] = 'public, max-age=31536000, immutable';
        set.headers.vary = 'accept-encoding';
        const coding = asset.type.startsWith('image/') ? null : negotiateCoding(request.headers.get('accept-encoding'));
        if (coding) set.headers['content-encoding'] = coding;
        return new Response(wholeBody(asset.bytes(coding)));
      },
      { detail: { hide: true } },
    )
    .post(
      '/console/session',
      async function signInToConsole({ body, request, set, server }) {
        checkOrigin(request);
        const failed = await failureBudget(request, server as RequestIpSource | null);
        const keyHash = hashSecret(body.key.trim());
        const key = await deps.keys.lookup(keyHash);
        const refusal = !key
          ? unauthorized('Authentication failed: key: not a valid API key')
          : key.expiresAt && key.expiresAt.getTime() <= deps.now()
            ? unauthorized('Authentication failed: key: API key has expired')
            : key.type !== 'ADMIN'
              ? forbidden('Forbidden: key: the console needs an ADMIN API key; INFERENCE keys are refused')
              : null;
        if (refusal) await failed(refusal);
        const { id, session } = await sessions.open(keyHash);
        set.headers['set-cookie'] = sessionCookie(request, id);
        set.headers['cache-control'] = 'no-store';
        return described(session, session.csrf);
      },
      {
        body: t.Object({ key: t.String({ minLength: 1, maxLength: 256, description: 'An ADMIN API key; it is not kept' }) }),
        response: { 200: SessionBody, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        detail: { hide: true },
      },
    )
    .get(
      '/console/session',
      async function readConsoleSession({ request, set }) {
        const id = cookieOf(request, SESSION_COOKIE);
        const session = id ? await sessions.read(id) : null;
        if (!session) throw unauthorized('Authentication failed: no console session (sign in with an ADMIN key)');
        set.headers['cache-control'] = 'no-store';
        return described(session, session.csrf);
      },
      { response: { 200: SessionBody, 401: ErrorBody }, detail: { hide: true } },
    )
    .delete(
      '/console/session',
      async function signOutOfConsole({ request, set }) {
        const id = cookieOf(request, SESSION_COOKIE);
        const session = id ? await sessions.read(id) : null;
        if (id && session) {
          checkCsrf(request, session);
          await sessions.close(id);
        }
        set.headers['set-cookie'] = clearedCookie(request);
        return { success: true };
      },
      { detail: { hide: true } },
    )
    .use(consoleApiRoutes(deps, stages));
}
