import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { serveOptions } from '../../src/http/serve-options';
import { startTestApp, type TestApp } from '../helpers/app';

/** Sends raw bytes to the listening app and returns everything it answers until it closes. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    socket.write(request);
  });
}

/**
 * What docs/limits.md says svc cannot shape: Bun's HTTP parser answers these requests from fixed
 * strings before any JavaScript runs (Bun.serve's `error` handler never sees them), so they
 * carry no `{ error }` body and no CF-RAY. If a Bun upgrade hands them to JavaScript, this fails
 * and they can be given svc's shape.
 */
describe("malformed requests Bun's parser answers itself", () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp();
    t.app.listen({ ...serveOptions({ port: 0, host: '127.0.0.1' }) });
    port = t.app.server!.port!;
  });
  afterAll(async () => {
    await t.app.server?.stop(true);
    await t.close();
  });

  test("a normal request on the same listener gets svc's answer with CF-RAY (the control)", async () => {
    const answer = await raw(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toStartWith('HTTP/1.1 200');
    expect(answer.toLowerCase()).toContain('cf-ray:');
  });

  test('a 64 KiB header is 431 with no body and no CF-RAY', async () => {
    const answer = await raw(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(65_536)}\r\n\r\n`);
    expect(answer).toBe('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n');
  });

  test('Content-Length with Transfer-Encoding is 400 with no body and no CF-RAY', async () => {
    const answer = await raw(
      port,
      'POST /api/v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    expect(answer).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
});
