import { cpus, totalmem } from 'node:os';
import { loadTool } from '../load/http-load';
import type { CacheResult } from '../phases/cache';
import type { ImagesResult } from '../phases/images';
import type { OpenStreamsResult } from '../phases/open-streams';
import type { PeerResult } from '../phases/peers';
import type { SoakResult } from '../phases/soak';
import type { ThroughputResult } from '../phases/throughput';
import type { TtfbResult } from '../phases/ttfb';
import type { FamilyRowData } from './family-rows';
import type { FeatureRowData } from './feature-rows';
import type { ValidationResult } from './image-inputs';

/** Everything a run collected, as written to bench/results/latest.json. */
export interface RunData extends FamilyRowData, FeatureRowData {
  meta: {
    date: string;
    mode: string;
    machine: { cores: number; cpu: string; memGB: number };
    versions: Record<string, string>;
    note: string;
  };
  /** svc backends that served the probe and were measured. */
  backends: string[];
  /** svc backends that could not be measured, with the reason. */
  unavailable: Record<string, string>;
  /** RSS (MB) per target right after start, settled, before any request (svc: on a fresh data dir). */
  idleRssMB: Record<string, number>;
  throughput: Record<string, ThroughputResult>;
  /** svc targets: the response cache's hits and misses under load (bench/phases/cache.ts). */
  cache: Record<string, CacheResult>;
  /** Per target name. */
  images: Record<string, ImagesResult>;
  /** The largest accepted upload validated in isolation (src/images/input.ts, its own process). */
  imageValidation: ValidationResult | null;
  ttfb: TtfbResult | null;
  /** Per stream count ("1000", "10000"), per target name. */
  openStreams: Record<string, Record<string, OpenStreamsResult>>;
  soak: SoakResult | null;
  /** svc started the plain way (env var unset): streams the upstream saw at once. */
  fetchLimitTrap: { streams: number; opened: number; upstreamPeakOpen: number; note: string | null } | null;
  /** With --peers: other gateways' CPU per request, and its ratio to svc's (memory+pglite) in the same run. */
  peers: Record<string, PeerResult> | null;
  notes: string[];
}

/** A run's data before any phase: its meta (date, mode, machine, versions) and empty results. */
export async function newRunData(mode: 'quick' | 'full'): Promise<RunData> {
  return {
    meta: {
      date: new Date().toISOString(),
      mode,
      machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memGB: Math.round(totalmem() / 2 ** 30) },
      versions: {
        bun: Bun.version,
        elysia: (await Bun.file('node_modules/elysia/package.json').json()).version,
        loadTool: loadTool().name,
      },
      note: 'Figures are noisy: one 2-core machine runs the load driver, the upstream and the proxy at once.',
    },
    backends: [],
    unavailable: {},
    idleRssMB: {},
    throughput: {},
    cache: {},
    features: {},
    families: {},
    rssAroundLoad: {},
    ttfb: null,
    images: {},
    imageValidation: null,
    openStreams: {},
    soak: null,
    fetchLimitTrap: null,
    peers: null,
    notes: [],
  };
}
