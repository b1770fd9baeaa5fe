/**
 * `bun bench/tools/cork-repro.ts [--strace]`: a standalone reproduction, for Bun's issue tracker, of
 * why svc sends large bodies as streams (src/http/large-body.ts). A Bun.serve response with 12
 * headers and a 20 KB body, answered after a turn of the event loop, is served as a string, as bytes, as a Blob and as a one-chunk
 * stream, then strings of 15 and 4 KB, each to 16 keep-alive connections for 3 s:
 * responses per second, and with --strace the send()/write() calls per response of the server.
 * A body larger than uWS's 16 KB cork buffer given whole goes out uncorked: each piece of each
 * header is its own system call.
 */
import { spawn } from 'bun';

const KB = 1024;
const HEADERS = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`x-header-${i}`, `value-${i}-${'v'.repeat(20)}`]));
const bodies: Record<string, () => BodyInit> = {
  'string 20 KB': () => 'a'.repeat(20 * KB),
  'bytes 20 KB': () => new Uint8Array(20 * KB).fill(97),
  'Blob 20 KB': () => new Blob(['a'.repeat(20 * KB)]),
  'stream 20 KB': () =>
    new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array(20 * KB).fill(97));
        c.close();
      },
    }),
  'string 15 KB': () => 'a'.repeat(15 * KB),
  'string 4 KB': () => 'a'.repeat(4 * KB),
};

if (process.env.CORK_REPRO_SERVER) {
  const make = bodies[process.env.CORK_REPRO_SERVER]!;
  // Answered after a turn of the event loop, as a proxy answers after its upstream call.
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return new Response(make(), { headers: HEADERS });
    },
  });
  process.stdout.write(`${server.port}\n`);
} else {
  const useStrace = Bun.argv.includes('--strace');
  for (const name of Object.keys(bodies)) {
    const server = spawn([process.execPath, import.meta.path], { env: { ...process.env, CORK_REPRO_SERVER: name }, stdout: 'pipe' });
    const reader = server.stdout.getReader();
    const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
    const trace = useStrace
      ? spawn(['strace', '-f', '-c', '-e', 'trace=sendto,write,sendmsg,writev', '-p', String(server.pid)], { stderr: 'pipe' })
      : null;
    if (trace) await Bun.sleep(300);
    let done = 0;
    const until = performance.now() + 3000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer();
          done++;
        }
      }),
    );
    let calls = '';
    if (trace) {
      trace.kill('SIGINT');
      const summary = await new Response(trace.stderr).text();
      // The summary's last line: % time, seconds, usecs/call, calls, [errors,] "total".
      const total = summary.trim().split('\n').at(-1)!.trim().split(/\s+/);
      calls = total.at(-1) === 'total' ? `, ${(Number(total[3]) / done).toFixed(1)} send/write calls per response` : '';
    }
    server.kill();
    console.log(`${name.padEnd(14)} ${Math.round(done / 3)} responses/s${calls}`);
  }
}
