import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { startChild, type Child } from '../lib/proc';
import type { Target } from '../lib/targets';
import { measureLoad, type Durations } from './throughput';

/** Another gateway measured in the same run as svc, installed on demand (never into package.json). */
interface Peer {
  name: string;
  pkg: string;
  version: string;
  /** How its users run it. */
  runtime: 'node' | 'bun';
  /** Its command, given its install directory and port. */
  command(dir: string, port: number): string[];
  /** The headers that route a request to an OpenAI-compatible upstream at `upstreamUrl`. */
  headers(upstreamUrl: string): Record<string, string>;
  /** Output line that says it listens. */
  ready: RegExp;
}

/**
 * Portkey's gateway on Node (`npx @portkey-ai/gateway`, which its README gives), and
 * `@llmops/gateway`, a fork of it that exports the Hono app, served on Bun. Both route a
 * request to any OpenAI-compatible server with a provider and a custom-host header.
 */
export const PEERS: Peer[] = [
  {
    name: 'portkey',
    pkg: '@portkey-ai/gateway',
    version: '1.15.2',
    runtime: 'node',
    command: (dir, port) => ['node', join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js'), `--port=${port}`, '--headless'],
    headers: (url) => ({ 'x-portkey-provider': 'openai', 'x-portkey-custom-host': url, authorization: 'Bearer bench' }),
    ready: /Ready for connections|running at/,
  },
  {
    name: 'llmops',
    pkg: '@llmops/gateway',
    version: '0.6.10',
    runtime: 'bun',
    command: () => [process.execPath, 'bench/servers/peer-llmops.ts'],
    headers: (url) => ({ 'x-llmops-provider': 'openai', 'x-llmops-custom-host': url, authorization: 'Bearer bench' }),
    ready: /peer listening on/,
  },
];

/** Where peers are installed: SVC_BENCH_PEERS_DIR, else ~/.cache/svc-bench-peers (one folder per peer and version). */
export const peerCache = () => process.env.SVC_BENCH_PEERS_DIR ?? join(homedir(), '.cache', 'svc-bench-peers');

/** Installs a peer with npm into its own folder of the cache, once; returns the folder. */
function install(peer: Peer): string {
  const dir = join(peerCache(), `${peer.name}-${peer.version}`);
  if (existsSync(join(dir, 'node_modules', peer.pkg, 'package.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `svc-bench-peer-${peer.name}`, private: true }));
  const r = Bun.spawnSync(['npm', 'install', '--no-audit', '--no-fund', '--ignore-scripts', `${peer.pkg}@${peer.version}`], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if (r.exitCode !== 0) throw new Error(`npm install ${peer.pkg}@${peer.version}: ${r.stderr.toString().trim().split('\n').pop()}`);
  return dir;
}

/** A peer's CPU per request (µs) and its ratio to svc's (embedded) in the same run; null where it failed. */
export interface PeerResult {
  version: string;
  runtime: string;
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
      cpuPerRequestUs: { json: null, stream: null },
      cpuRatio: { json: null, stream: null },
      notes: [],
    };
    out[peer.name] = result;
    let child: Child | null = null;
    try {
      log(`peer ${peer.name}: installing ${peer.pkg}@${peer.version} into ${peerCache()} (once)`);
      const dir = install(peer);
      const port = await freePort();
      child = startChild(`peer ${peer.name}`, peer.command(dir, port), { PORT: String(port), PEER_DIR: dir, NODE_ENV: 'production' });
      await child.waitFor(peer.ready, 30_000);
      const target: Target = {
        name: `peer:${peer.name}`,
        chatUrl: `http://127.0.0.1:${port}/v1/chat/completions`,
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
