import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { connect } from 'node:net';
import { ledgerLines } from '../../src/db/schema';
import { serveOptions } from '../../src/http/serve-options';
import { startTestApp, type TestApp } from '../helpers/app';
import { form, png } from '../images/helpers';

// Bodies over a real socket: Bun's own limits (maxRequestBodySize, the idle timeout) only act
// on a listening server, and a stalled or chunked body needs a raw client to send it.
// A stalled request waits out the body timeout; a loaded machine may add seconds.
setDefaultTimeout(15_000);
const MAX_BODY = 4096;
const BODY_TIMEOUT_MS = 1500;
let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ config: { maxBodyBytes: MAX_BODY, bodyTimeoutMs: BODY_TIMEOUT_MS } });
  t.app.listen({ ...serveOptions({ port: 0, host: '127.0.0.1' }) });
  port = t.app.server?.port as number;
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `head` then each part of `parts`, `gapMs` apart, on a raw socket; stops sending once
 * an answer arrives, and reads until the server closes or 10 s pass.
 */
function rawRequest(head: string, parts: (string | Uint8Array)[], gapMs = 10): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let closed = false;
    const finish = () => {
      clearTimeout(giveUp);
      const [top = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = top.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      if (!statusLine) reject(new Error(`no answer (closed: ${closed})`));
      else resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), closed });
    };
    const giveUp = setTimeout(() => {
      socket.destroy();
      finish();
    }, 10_000);
    socket.on('data', (chunk) => (received += chunk));
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', () => {});
    void (async () => {
      socket.write(head);
      for (const part of parts) {
        await sleep(gapMs);
        if (received || socket.destroyed) return;
        socket.write(part);
      }
    })();
  });
}

const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
const LAST_CHUNK = '0\r\n\r\n';
const chatJson = (content: string) => JSON.stringify({ model: 'default', messages: [{ role: 'user', content }], max_tokens: 8 });
const head = (headers: string) =>
  `POST /api/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.adminKey}\r\n` +
  `Content-Type: application/json\r\nConnection: close\r\n${headers}\r\n`;
/** `text` cut into `n` pieces. */
const pieces = (text: string, n: number) =>
  Array.from({ length: n }, (_, i) => text.slice((i * text.length) / n, ((i + 1) * text.length) / n));

/** What the account was charged so far: USD balance and ledger rows. */
async function charges() {
  await t.deps.meter.flush();
  const balance = (await (await t.request('/billing/balance')).json()).balances.usd as number;
  return { balance, ledgerRows: (await t.deps.storage.db.select().from(ledgerLines)).length };
}

function expectErrorAnswer(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toContain('application/json');
  expect(answer.headers['cf-ray']).toBeTruthy();
  expect(answer.headers['x-svc-version']).toBeTruthy();
  expect(answer.closed).toBe(true);
  const body = JSON.parse(answer.body);
  expect(body.code).toBe(code);
  return body.error as string;
}

describe('an oversized body is a 413 with {error}', () => {
  test('a chunked body that grows past maxBodyBytes', async () => {
    const body = chatJson('x'.repeat(3 * MAX_BODY));
    const answer = await rawRequest(head('Transfer-Encoding: chunked\r\n'), [...pieces(body, 12).map(chunk), LAST_CHUNK]);
    expect(expectErrorAnswer(answer, 413, 'PAYLOAD_TOO_LARGE')).toContain(`${MAX_BODY} bytes`);
  });

  test('a declared Content-Length over the limit, and one far over it (which Bun would refuse with an empty 413)', async () => {
    for (const length of [MAX_BODY + 1, 10 * 1024 ** 3]) {
      const answer = await rawRequest(head(`Content-Length: ${length}\r\n`), ['{"model":']);
      expect(expectErrorAnswer(answer, 413, 'PAYLOAD_TOO_LARGE')).toContain('exceeds');
    }
  });

  test('a chunked body under the limit is served', async () => {
    const answer = await rawRequest(head('Transfer-Encoding: chunked\r\n'), [...pieces(chatJson('Hi'), 3).map(chunk), LAST_CHUNK]);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).choices[0].message.content).toBeString();
  });
});

describe('a stalled body is a 408 with {error} after bodyTimeoutMs', () => {
  test('with a Content-Length, half the body sent', async () => {
    const body = chatJson('Hello');
    const answer = await rawRequest(head(`Content-Length: ${body.length}\r\n`), [body.slice(0, body.length >> 1)]);
    expect(expectErrorAnswer(answer, 408, 'REQUEST_TIMEOUT')).toContain(`${BODY_TIMEOUT_MS} ms`);
  });

  test('chunked, the last chunk never sent', async () => {
    const body = chatJson('Hello');
    const answer = await rawRequest(head('Transfer-Encoding: chunked\r\n'), pieces(body, 2).map(chunk));
    expectErrorAnswer(answer, 408, 'REQUEST_TIMEOUT');
  });

  test('a multipart upload that stops half-way', async () => {
    const encoded = new Response(form({ image: await png(256, 256) }));
    const upload = new Uint8Array(await encoded.arrayBuffer());
    const answer = await rawRequest(
      `POST /api/v1/image/background-remove HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.adminKey}\r\n` +
        `Content-Type: ${encoded.headers.get('content-type')}\r\nContent-Length: ${upload.length}\r\n\r\n`,
      [upload.subarray(0, upload.length >> 1)],
    );
    expectErrorAnswer(answer, 408, 'REQUEST_TIMEOUT');
  });

  test('a slow but steady body that ends within the time is served', async () => {
    const body = chatJson('Hello');
    // About a third of the timeout in all; the deadline ticker checks it several times meanwhile.
    const steady = await rawRequest(head(`Content-Length: ${body.length}\r\n`), pieces(body, 5), BODY_TIMEOUT_MS / 15);
    expect(steady.status).toBe(200);
    const chunked = await rawRequest(
      head('Transfer-Encoding: chunked\r\n'),
      [...pieces(body, 4).map(chunk), LAST_CHUNK],
      BODY_TIMEOUT_MS / 15,
    );
    expect(chunked.status).toBe(200);
  });
});

describe('bodies within the limits', () => {
  test('a JSON chat request and a multipart upload are served over the socket', async () => {
    const base = `http://127.0.0.1:${port}/api/v1`;
    const authorization = `Bearer ${t.adminKey}`;
    const chat = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: chatJson('Hi'),
    });
    expect(chat.status).toBe(200);
    const upload = await fetch(`${base}/image/background-remove`, {
      method: 'POST',
      headers: { authorization },
      body: form({ image: await png(256, 256) }),
    });
    expect(upload.status).toBe(200);
    expect(upload.headers.get('content-type')).toBe('image/png');
  });

  test('a refused or cut body is never charged; a served one is', async () => {
    const before = await charges();
    const body = chatJson('x'.repeat(2 * MAX_BODY));
    expect((await rawRequest(head('Transfer-Encoding: chunked\r\n'), [...pieces(body, 8).map(chunk), LAST_CHUNK])).status).toBe(413);
    expect((await rawRequest(head(`Content-Length: ${body.length}\r\n`), [body.slice(0, 100)])).status).toBe(413);
    const half = chatJson('Hello');
    expect((await rawRequest(head(`Content-Length: ${half.length}\r\n`), [half.slice(0, 20)])).status).toBe(408);
    expect(await charges()).toEqual(before);
    expect((await rawRequest(head(`Content-Length: ${half.length}\r\n`), [half])).status).toBe(200);
    const after = await charges();
    expect(after.balance).toBeLessThan(before.balance);
    expect(after.ledgerRows).toBeGreaterThan(before.ledgerRows);
  });
});
