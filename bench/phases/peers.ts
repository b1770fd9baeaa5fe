import { installPeer, peerCache, PEERS, type Peer } from '../lib/peers';
import { startChild, type Child } from '../lib/proc';
import type { Target } from '../lib/targets';
import { measureLoad, type Durations } from './throughput';

/** Waits until the peer answers 200 on `url` (polled every 100 ms), or throws after `timeoutMs`. */
async function waitHealthy(child: Child, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await Bun.sleep(100);
  }
  throw new Error(`no 200 from ${url} within ${timeoutMs} ms; last output:\n${child.tail()}`);
}

async function waitReady(peer: Peer, child: Child, port: number): Promise<void> {
  if (peer.ready instanceof RegExp) await child.waitFor(peer.ready, 30_000);
  else await waitHealthy(child, `http://127.0.0.1:${port}${peer.ready.healthPath}`, 30_000);
}

/** A peer's CPU per request (µs) and its ratio to svc's (embedded) in the same run; null where it failed. */
export interface PeerResult {
  version: string;
  runtime: string;
  /** Issue 50's target for cpuRatio; null where it sets none. */
  target: number | null;
  cpuPerRequestUs: { json: number | null; stream: number | null };
  /** The peer's CPU per request divided by svc's (memory+pglite), JSON and 50-chunk streams. */
  cpuRatio: { json: number | null; stream: number | null };
  notes: string[];
}

const ratio = (a: number | null, b: number | null | undefined) => (a != null && b ? Math.round((a / b) * 100) / 100 : null);

/**
 * Each peer against the same upstream, the same bodies and the same fixed-rate phases as svc
 * (JSON at 1,000 req/s, 50-chunk streams at 400/s, 16 connections, after a warm-up at full
 * speed). A phase where more than 1 % of the requests failed is not a figure: noted instead.
 */
export async function peersPhase(
  upstreamUrl: string,
  bodies: { json: string; stream: string },
  d: Durations,
  svc: { json: number | null | undefined; stream: number | null | undefined },
  freePort: () => Promise<number>,
  log: (msg: string) => void,
): Promise<Record<string, PeerResult>> {
  const out: Record<string, PeerResult> = {};
  for (const peer of PEERS) {
    const result: PeerResult = {
      version: peer.version,
      runtime: peer.runtime,
      target: peer.target,
      cpuPerRequestUs: { json: null, stream: null },
      cpuRatio: { json: null, stream: null },
      notes: [],
    };
    out[peer.name] = result;
    let child: Child | null = null;
    try {
      log(`peer ${peer.name}: installing ${peer.pkg}@${peer.version} into ${peerCache()} (once)`);
      const dir = installPeer(peer);
      const port = await freePort();
      child = startChild(`peer ${peer.name}`, peer.command(dir, port, upstreamUrl), {
        PORT: String(port),
        PEER_DIR: dir,
        NODE_ENV: 'production',
      });
      await waitReady(peer, child, port);
      const target: Target = {
        name: `peer:${peer.name}`,
        chatUrl: `http://127.0.0.1:${port}${peer.chatPath}`,
        embeddingsUrl: '',
        headers: peer.headers(upstreamUrl),
        pid: child.pid,
      };
      log(`peer ${peer.name}: JSON and stream phases`);
      for (const kind of ['json', 'stream'] as const) {
        const body = bodies[kind];
        await measureLoad(target, body, { connections: 16, durationS: d.settleS });
        const m = await measureLoad(target, body, { connections: 16, durationS: d.phaseS, rate: kind === 'json' ? 1000 : 400 });
        if (m.failureRate > 0.01) {
          result.notes.push(
            `${kind}: ${Math.round(m.failureRate * 100)} % of requests failed (${child.last(/error|Error/) ?? 'no error logged'})`,
          );
          continue;
        }
        result.cpuPerRequestUs[kind] = m.cpuPerRequestUs;
        result.cpuRatio[kind] = ratio(m.cpuPerRequestUs, svc[kind]);
      }
    } catch (error) {
      result.notes.push(String((error as Error).message).split('\n')[0]!);
    } finally {
      await child?.stop();
    }
  }
  return out;
}
