import { BENCH_EMBED_MODEL, BENCH_MODEL } from '../servers/svc-config';
import type { Backing } from './backing-cpu';
import type { FamilyRoutes } from '../phases/families';

/** A proxy under test (or the upstream itself, for direct TTFB): where to POST and which process to watch. */
export interface Target {
  /** `direct`, `bare` or `svc:<backend>`. */
  name: string;
  chatUrl: string;
  /** Where embeddings go (the upstream's, the bare proxy's or svc's /embeddings). */
  embeddingsUrl: string;
  headers: Record<string, string>;
  pid: number;
  /** Where its event-loop delay histogram is scraped (svc's /metrics, the bare proxy's); absent for the upstream. */
  metricsUrl?: string;
  /** POST /images/generations and POST /image/edit (svc's paths; the bare proxy maps them to the upstream's). */
  imagesUrl?: string;
  imageEditUrl?: string;
  /** svc on Redis + Postgres: reads redis-server's and its Postgres backends' CPU around a phase. */
  backing?: Backing;
  /** Speech, responses, JSON-RPC and media jobs (the families phase); absent for the upstream. */
  families?: FamilyRoutes;
}

const messages = [{ role: 'user', content: 'Say hello.' }];

/** Request bodies the phases send; the same bytes go to every target. */
export const BODIES = {
  json: JSON.stringify({ model: BENCH_MODEL, messages, max_tokens: 64 }),
  embeddings: JSON.stringify({ model: BENCH_EMBED_MODEL, input: 'The quick brown fox jumps over the lazy dog.' }),
  stream: JSON.stringify({ model: BENCH_MODEL, messages, max_tokens: 64, stream: true }),
  streamStripThinking: JSON.stringify({
    model: BENCH_MODEL,
    messages,
    max_tokens: 64,
    stream: true,
    svc_parameters: { strip_thinking_response: true },
  }),
};

/** Controls the bench upstream between phases. */
export function upstreamControl(baseUrl: string) {
  return {
    /** Sets chunks per stream and delay per chunk for the next requests, and whether streams report usage when asked. */
    async shape(chunks: number, delayMs: number, usage: 'asked' | 'never' = 'asked') {
      const res = await fetch(`${baseUrl}/__bench/config`, { method: 'POST', body: JSON.stringify({ chunks, delayMs, usage }) });
      if (!res.ok) throw new Error(`upstream config: HTTP ${res.status}`);
    },
    /** Open streams now, the peak since the last reset, and requests served. */
    async stats(reset = false): Promise<{ open: number; peakOpen: number; requests: number }> {
      const res = await fetch(`${baseUrl}/__bench/stats${reset ? '?reset' : ''}`);
      return (await res.json()) as { open: number; peakOpen: number; requests: number };
    },
  };
}

/** The upstream controller type. */
export type UpstreamControl = ReturnType<typeof upstreamControl>;
