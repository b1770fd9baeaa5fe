import { lookup as dnsLookup } from 'node:dns/promises';
import { blockedReason, isIpLiteral } from './ip';
import { BodyTooLarge, responseBytesUpTo } from './limited-body';

/** Why a user-supplied URL was not fetched. */
export type RefusalCode = 'protocol' | 'address' | 'dns' | 'redirects' | 'too_large' | 'timeout' | 'status' | 'network';

/** A refused or failed guarded fetch; the message is safe to show (no secrets, no internals). */
export class UrlRefused extends Error {
  override name = 'UrlRefused';
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** Limits and injected pieces of a guarded fetch. */
export interface GuardOptions {
  /** Operator switch (config `allowPrivateUrls`): skip the address checks. */
  allowPrivate: boolean;
  /** Whole operation: connect, redirects and body. */
  timeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Redirects followed at most (each one re-checked); default 3. */
  maxRedirects?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** GET unless told (a plugin posting to an operator's classifier); a redirect of another method is refused. */
  method?: string;
  body?: string | Uint8Array;
  fetch?: typeof fetch;
  /** Resolves a host name to its addresses; tests inject one. */
  lookup?: (host: string) => Promise<string[]>;
}

/** A fetched document. */
export interface FetchedDocument {
  /** The final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Uint8Array;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const systemLookup = async (host: string) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** `promise`, or a rejection as soon as `signal` aborts (DNS lookups cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Checks one URL: http/https only; unless private addresses are allowed, every address the
 * host resolves to must be public. Returns the URL to connect to: for plain http the
 * checked IP itself (with the Host header kept), so a second DNS answer cannot swap in a
 * private address. https connects by name (the certificate needs it); the re-resolution
 * window there is a known residual risk.
 */
async function checkUrl(url: URL, o: GuardOptions, signal: AbortSignal): Promise<{ target: string; host?: string }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlRefused('protocol', `Only http and https URLs are fetched (got ${url.protocol})`);
  if (o.allowPrivate) return { target: url.href };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIpLiteral(host)) addresses = [host];
  else {
    try {
      addresses = await untilAborted((o.lookup ?? systemLookup)(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new UrlRefused('dns', `The host ${host} could not be resolved`);
    }
    if (addresses.length === 0) throw new UrlRefused('dns', `The host ${host} could not be resolved`);
  }
  for (const address of addresses) {
    const why = blockedReason(address);
    if (why) throw new UrlRefused('address', `The host ${host} resolves to a ${why} address, which is not allowed`);
  }
  if (url.protocol === 'https:' || isIpLiteral(host)) return { target: url.href };
  const pinned = new URL(url.href);
  const ip = addresses[0] as string;
  pinned.hostname = ip.includes(':') ? `[${ip}]` : ip;
  return { target: pinned.href, host: url.host };
}

/** Reads a body up to `maxBytes`; more is refused (and the rest is not downloaded). */
async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array> {
  try {
    return await responseBytesUpTo(res, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) throw new UrlRefused('too_large', `The document is larger than ${maxBytes} bytes`);
    throw error;
  }
}

/**
 * Fetches a user-supplied URL under the SSRF guard (DESIGN "Security"): only http/https,
 * only public addresses unless the operator allows private ones, redirects followed by
 * hand and re-checked (at most 3), a size limit and one time limit over everything.
 */
export async function guardedFetch(input: string, o: GuardOptions): Promise<FetchedDocument> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new UrlRefused('protocol', 'Not a valid URL');
  }
  const timeout = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const doFetch = o.fetch ?? fetch;
  const maxRedirects = o.maxRedirects ?? 3;
  try {
    for (let hop = 0; ; hop++) {
      const { target, host } = await checkUrl(url, o, signal);
      const headers: Record<string, string> = {
        'user-agent': 'svc-scraper/1.0',
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
        ...o.headers,
      };
      if (host) headers.host = host;
      const res = await doFetch(target, { redirect: 'manual', signal, headers, method: o.method, body: o.body as BodyInit | undefined });
      if (REDIRECTS.has(res.status)) {
        void res.body?.cancel().catch(() => {});
        if (o.method && o.method !== 'GET') throw new UrlRefused('redirects', `A ${o.method} was redirected (${res.status})`);
        const location = res.headers.get('location');
        if (!location) throw new UrlRefused('status', `Redirect ${res.status} without a Location header`);
        if (hop >= maxRedirects) throw new UrlRefused('redirects', `More than ${maxRedirects} redirects`);
        url = new URL(location, url);
        continue;
      }
      if (res.status < 200 || res.status > 299) {
        void res.body?.cancel().catch(() => {});
        throw new UrlRefused('status', `The server answered ${res.status}`);
      }
      const body = await readLimited(res, o.maxBytes);
      return { url: url.href, status: res.status, contentType: res.headers.get('content-type') ?? '', body };
    }
  } catch (error) {
    if (error instanceof UrlRefused) throw error;
    if (timeout.aborted) throw new UrlRefused('timeout', `No complete answer within ${o.timeoutMs} ms`);
    if (o.signal?.aborted) throw new UrlRefused('network', 'The request was cancelled');
    throw new UrlRefused('network', 'The document could not be fetched');
  }
}
