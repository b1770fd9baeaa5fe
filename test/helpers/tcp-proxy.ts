import type { Socket, TCPSocketListener } from 'bun';

/**
 * How the proxy treats traffic: pass it, refuse it (connections accepted, then closed), hold
 * it (a host that stopped answering: bytes wait, as TCP retransmits them, and flow again on
 * `open`), or be down (nothing listens: connections fail with ECONNREFUSED, as with a stopped
 * server; the port is listened on again by the next mode).
 */
export type ProxyMode = 'open' | 'refuse' | 'blackhole' | 'down';

/** A TCP proxy on 127.0.0.1 in front of a server this test must not stop (the shared Postgres), cut on demand. */
export interface TcpProxy {
  port: number;
  /** Changes the mode; `refuse` and `down` also close every open connection, `blackhole` keeps them open and silent. */
  set(mode: ProxyMode): void;
  close(): void;
}

interface Pair {
  client: Socket<Pair>;
  server: Socket<Pair> | null;
  /** Bytes from the client waiting for the server connection. */
  pending: Uint8Array[];
  /** Bytes held while the proxy is a black hole, by direction. */
  held: { up: Uint8Array[]; down: Uint8Array[] };
}

/** Writes all of `data` (Bun's write may take part of it; the rest is kept for `drain`). */
function send(socket: Socket<unknown>, data: Uint8Array, backlog: Map<Socket<unknown>, Uint8Array[]>) {
  const queued = backlog.get(socket);
  if (queued) return void queued.push(data);
  const wrote = socket.write(data);
  if (wrote < data.length) backlog.set(socket, [data.subarray(wrote)]);
}

function drain(socket: Socket<unknown>, backlog: Map<Socket<unknown>, Uint8Array[]>) {
  const queued = backlog.get(socket);
  if (!queued) return;
  while (queued.length) {
    const head = queued[0]!;
    const wrote = socket.write(head);
    if (wrote < head.length) {
      queued[0] = head.subarray(wrote);
      return;
    }
    queued.shift();
  }
  backlog.delete(socket);
}

/** Starts a proxy from a free port to `target` on 127.0.0.1. */
export function startTcpProxy(targetPort: number): TcpProxy {
  let mode: ProxyMode = 'open';
  const pairs = new Set<Pair>();
  const backlog = new Map<Socket<unknown>, Uint8Array[]>();
  const end = (p: Pair) => {
    pairs.delete(p);
    p.client.end();
    p.server?.end();
  };

  const listen = (port: number): TCPSocketListener<Pair> =>
    Bun.listen<Pair>({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(client) {
          if (mode === 'refuse') return void client.end();
          const pair: Pair = { client, server: null, pending: [], held: { up: [], down: [] } };
          client.data = pair;
          pairs.add(pair);
          Bun.connect<Pair>({
            hostname: '127.0.0.1',
            port: targetPort,
            data: pair,
            socket: {
              open(server) {
                pair.server = server;
                for (const chunk of pair.pending) send(server, chunk, backlog);
                pair.pending = [];
              },
              data(_server, chunk) {
                if (mode === 'open') send(pair.client, new Uint8Array(chunk), backlog);
                else pair.held.down.push(new Uint8Array(chunk));
              },
              drain: (s) => drain(s, backlog),
              close: () => end(pair),
              error: () => end(pair),
            },
          }).catch(() => end(pair));
        },
        data(client, chunk) {
          const pair = client.data;
          if (mode !== 'open') pair.held.up.push(new Uint8Array(chunk));
          else if (pair.server) send(pair.server, new Uint8Array(chunk), backlog);
          else pair.pending.push(new Uint8Array(chunk));
        },
        drain: (s) => drain(s, backlog),
        close: (client) => client.data && end(client.data),
        error: (client) => client.data && end(client.data),
      },
    });
  let listener: TCPSocketListener<Pair> | null = listen(0);
  const port = listener.port;

  return {
    port,
    set(next) {
      mode = next;
      if (next === 'down') {
        listener?.stop(true);
        listener = null;
      } else listener ??= listen(port);
      if (next === 'refuse' || next === 'down') for (const p of [...pairs]) end(p);
      if (next === 'open')
        for (const p of pairs) {
          if (p.server) for (const chunk of p.held.up.splice(0)) send(p.server, chunk, backlog);
          else p.pending.push(...p.held.up.splice(0));
          for (const chunk of p.held.down.splice(0)) send(p.client, chunk, backlog);
        }
    },
    close() {
      for (const p of [...pairs]) end(p);
      listener?.stop(true);
    },
  };
}
