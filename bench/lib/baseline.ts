import { startChild, type Child } from './proc';

/** The bench upstream and the bare proxy in front of it: what every svc run is compared with. */
export interface Baseline {
  upstream: Child;
  /** The upstream's root (`/__bench/...` controls) and its OpenAI base URL. */
  upstreamRoot: string;
  upstreamUrl: string;
  bare: Child;
  /** The bare proxy's root URL. */
  bareUrl: string;
}

/** Starts the bench upstream, then the bare proxy forwarding to it (extra environment for the proxy in `bareEnv`). */
export async function startBaseline(bareEnv: Record<string, string> = {}): Promise<Baseline> {
  const upstream = startChild('upstream', [process.execPath, 'bench/servers/upstream.ts']);
  const [, upPort] = await upstream.waitFor(/upstream listening on (\d+)/, 10_000);
  const upstreamRoot = `http://127.0.0.1:${upPort}`;
  const upstreamUrl = `${upstreamRoot}/v1`;
  const bare = startChild('bare proxy', [process.execPath, 'bench/servers/bare-proxy.ts'], {
    UPSTREAM_URL: upstreamUrl,
    PORT: '0',
    ...bareEnv,
  });
  const [, barePort] = await bare.waitFor(/bare proxy listening on (\d+)/, 10_000);
  return { upstream, upstreamRoot, upstreamUrl, bare, bareUrl: `http://127.0.0.1:${barePort}` };
}
