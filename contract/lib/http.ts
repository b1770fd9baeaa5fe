import { env, note } from './env';
import { paceFailure, recordFailure, type Identity } from './pacer';

/** One answer: the response, its text and its JSON (undefined when not JSON). */
export interface Answer {
  res: Response;
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** What a call sends: method, JSON body, key (null: none; default the ADMIN key), extra headers. */
export interface CallInit {
  method?: string;
  json?: unknown;
  body?: string;
  /** A multipart body (fetch sets its content type and boundary). */
  form?: FormData;
  key?: string | null;
  headers?: Record<string, string>;
  /** Keep the body compressed (to see Content-Encoding). */
  raw?: boolean;
  /** Meant to fail (a 4xx checked on purpose): first wait for room under the deployment's abuse guard. */
  fails?: boolean;
  /** Whose failure it is for the guard when the key does not say (an INFERENCE key of the same account: `account`). */
  identity?: Identity;
}

/** Whom the abuse guard charges a failure of this call: the ADMIN key's account, another key, or the IP. */
function identityOf(init: CallInit): Identity {
  if (init.identity) return init.identity;
  const key = init.key === undefined ? env.apiKey : init.key;
  if (!key) return 'ip';
  return key === env.apiKey || key === env.inferenceKey ? 'account' : `key:${key}`;
}

/** The answers the guard counts (src/gates/abuse-guard.ts): non-success, except 429, 499 and 503. */
const counted = (status: number) => status >= 400 && status !== 429 && status !== 499 && status !== 503;

/** The abuse guard's block (spec 7): more failures in its window than it allows. */
const isAbuseBlock = (a: Answer) => a.status === 429 && /Too many failed attempts/i.test(a.text);

/**
 * Calls `path` (relative to the base URL) over the network and reads the whole answer. A call
 * meant to fail waits first for room under the deployment's abuse guard (lib/pacer.ts), and
 * every failure the guard counts is recorded, so the suite never trips it. Should it be blocked
 * all the same (other clients of the account, or a guard stricter than the flags say), it says
 * so, waits the block out (Retry-After, 30 s at most) and sends the request again.
 */
export async function call(path: string, init: CallInit = {}): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    if (init.fails) await paceFailure(identityOf(init));
    const a = await send(path, init);
    if (counted(a.status)) recordFailure(identityOf(init));
    if (!isAbuseBlock(a) || attempt >= 2) return a;
    const wait = Math.min(31, Number(a.headers.get('retry-after') ?? 31) || 31);
    note(
      `contract: the abuse guard blocked ${identityOf(init).replace(/^key:.*/, 'a key')} (more failures than --abuse-max-failures allows); waiting ${wait} s`,
    );
    await Bun.sleep(wait * 1000);
  }
}

async function send(path: string, init: CallInit): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  const key = init.key === undefined ? env.apiKey : init.key;
  if (key) headers.authorization = `Bearer ${key}`;
  let body: string | FormData | undefined = init.form ?? init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${env.baseUrl}${path}`, { method: init.method ?? 'GET', headers, body, decompress: !init.raw } as RequestInit);
  const text = init.raw ? '' : await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { res, status: res.status, headers: res.headers, text, json };
}

/** A short description of an answer for failure messages (status and the start of the body). */
export const describe = (a: Answer) => `HTTP ${a.status}: ${a.text.slice(0, 300)}`;
