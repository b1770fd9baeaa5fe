import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Another gateway measured in the same run as svc, installed on demand (never into package.json). */
export interface Peer {
  name: string;
  pkg: string;
  version: string;
  /** How its users run it. */
  runtime: 'node' | 'bun';
  /**
   * npm `overrides` for its install folder: the dependency versions its own deployment pins
   * where a range in its published package.json resolves to one that breaks it.
   */
  overrides?: Record<string, string>;
  /** Its command, given its install directory, its port and the upstream's OpenAI base URL. */
  command(dir: string, port: number, upstreamUrl: string): string[];
  /** Its OpenAI-compatible chat completions path. */
  chatPath: string;
  /** The headers that route a request to an OpenAI-compatible upstream at `upstreamUrl`. */
  headers(upstreamUrl: string): Record<string, string>;
  /** Output line that says it listens, or a path that answers 200 once it does (for a peer that logs nothing at `warn`). */
  ready: RegExp | { healthPath: string };
  /** Issue 50's target for its CPU per request over svc's; null where the issue sets none. */
  target: number | null;
}

/**
 * The config file `llm-gateway start -c` reads: one default model on the OpenAI provider at the
 * bench upstream, logging at `warn` (its default `info` writes a line per request to stdout).
 */
function nullplatformConfig(dir: string, port: number, upstreamUrl: string): string {
  const path = join(dir, `gateway-${port}.json`);
  const config = {
    server: { host: '127.0.0.1', port },
    models: [
      {
        name: 'bench-model',
        isDefault: true,
        provider: { type: 'openai', config: { baseUrl: upstreamUrl, apiKey: 'bench', model: 'bench-model' } },
      },
    ],
    logging: { level: 'warn' },
  };
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/**
 * Portkey's gateway on Node (`npx @portkey-ai/gateway`, which its README gives, on the Node 20
 * its Docker image uses), `@llmops/gateway`, a fork of it that exports the Hono app, served on
 * Bun, and `@nullplatform/llm-gateway` (Express and axios on Node, its `llm-gateway start` CLI).
 * Which other gateways were tried and why they are not here: docs/benchmarks.md.
 */
export const PEERS: Peer[] = [
  {
    name: 'portkey',
    pkg: '@portkey-ai/gateway',
    version: '1.15.2',
    runtime: 'node',
    // Its package.json asks for @hono/node-server ^1.3.3, which npm resolves to 1.19.x. From 1.14.2
    // on in the 1.x line (1.14.1 and 2.1.9 work; 1.14.2 and 1.19.19 fail; 1.19.19 on Node 20.20
    // and 22.23 alike) that adapter's Response, built from a fetched one, hands back the fetched
    // Response's immutable Headers, so Portkey's `headers.append` on a relayed stream throws
    // "TypeError: immutable" (Portkey issues 1389, 1550). Its Docker image (node:20) installs
    // from its lockfile and patch-package; the patch in its repository is made for 1.13.5, the
    // version pinned here.
    overrides: { '@hono/node-server': '1.13.5' },
    command: (dir, port) => ['node', join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js'), `--port=${port}`, '--headless'],
    chatPath: '/v1/chat/completions',
    headers: (url) => ({ 'x-portkey-provider': 'openai', 'x-portkey-custom-host': url, authorization: 'Bearer bench' }),
    ready: /Ready for connections|running at/,
    target: 8,
  },
  {
    name: 'llmops',
    pkg: '@llmops/gateway',
    version: '0.6.10',
    runtime: 'bun',
    command: () => [process.execPath, 'bench/servers/peer-llmops.ts'],
    chatPath: '/v1/chat/completions',
    headers: (url) => ({ 'x-llmops-provider': 'openai', 'x-llmops-custom-host': url, authorization: 'Bearer bench' }),
    ready: /peer listening on/,
    target: 1.2,
  },
  {
    name: 'nullplatform',
    pkg: '@nullplatform/llm-gateway',
    version: '2.0.11',
    runtime: 'node',
    // Its SDK 2.0.2 (the only version published) depends on itself at ^1.0.0, which does not exist.
    overrides: { '@nullplatform/llm-gateway-sdk': '2.0.2' },
    command: (dir, port, url) => [
      'node',
      join(dir, 'node_modules/@nullplatform/llm-gateway/dist/cli.js'),
      'start',
      '-c',
      nullplatformConfig(dir, port, url),
    ],
    chatPath: '/openai/v1/chat/completions',
    headers: () => ({}),
    ready: { healthPath: '/health' },
    target: null,
  },
];

/** Where peers are installed: SVC_BENCH_PEERS_DIR, else ~/.cache/svc-bench-peers (one folder per peer and version). */
export const peerCache = () => process.env.SVC_BENCH_PEERS_DIR ?? join(homedir(), '.cache', 'svc-bench-peers');

/**
 * Installs a peer with npm into its own folder of the cache; again only when its package.json
 * (name and overrides) changed, so a folder from before an override was added is redone.
 */
export function installPeer(peer: Peer): string {
  const dir = join(peerCache(), `${peer.name}-${peer.version}`);
  const manifest = JSON.stringify({ name: `svc-bench-peer-${peer.name}`, private: true, overrides: peer.overrides ?? {} });
  const manifestPath = join(dir, 'svc-bench-peer.json');
  const installed = existsSync(join(dir, 'node_modules', peer.pkg, 'package.json'));
  if (installed && existsSync(manifestPath) && readFileSync(manifestPath, 'utf8') === manifest) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), manifest);
  const r = Bun.spawnSync(['npm', 'install', '--no-audit', '--no-fund', '--ignore-scripts', `${peer.pkg}@${peer.version}`], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if (r.exitCode !== 0) throw new Error(`npm install ${peer.pkg}@${peer.version}: ${r.stderr.toString().trim().split('\n').pop()}`);
  // Written last: a failed install is retried next run.
  writeFileSync(manifestPath, manifest);
  return dir;
}
