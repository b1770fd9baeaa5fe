import { env } from './env';

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
}

/** The abuse guard's block (spec 7): too many failures in 30 s, which this suite's bad-input checks cause on purpose. */
const isAbuseBlock = (a: Answer) => a.status === 429 && /Too many failed attempts/i.test(a.text);

/**
 * Calls `path` (relative to the base URL) over the network and reads the whole answer. When
 * the deployment's abuse guard blocks the suite for its own deliberate failures, it waits the
 * block out (Retry-After, 30 s at most) and sends the request again, so a deployment with the
 * guard on passes too, only slower.
 */
export async function call(path: string, init: CallInit = {}): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const a = await send(path, init);
    if (!isAbuseBlock(a) || attempt >= 2) return a;
    const wait = Math.min(31, Number(a.headers.get('retry-after') ?? 31) || 31);
    process.stdout.write(`contract: the abuse guard blocks this key for failures the suite made on purpose; waiting ${wait} s\n`);
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
