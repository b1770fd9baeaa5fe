import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { EVENT_LOOP_DELAY_BUCKETS, sampleEventLoopDelay } from './event-loop';
import { HotCounter, HotHistogram, type CounterSeries, type HistogramSeries } from './hot';

/**
 * The process's Prometheus metrics (prom-client). One registry per process: the counters
 * describe the process, whatever number of apps a test builds in it. Other modules call
 * the named functions below, one call site each, and never touch prom-client themselves.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'svc_' });
// The per-space heap gauges call v8.getHeapSpaceStatistics(), which in Bun walks the whole
// JavaScriptCore heap: 35-55 ms of svc's thread per scrape under load (measured), every
// request in flight waiting behind it. The heap totals (svc_nodejs_heap_size_*) stay.
const SLOW_DEFAULT_METRICS = ['total', 'used', 'available'].map((part) => `svc_nodejs_heap_space_size_${part}_bytes`);
for (const name of SLOW_DEFAULT_METRICS) metricsRegistry.removeSingleMetric(name);
// The event-loop delay is exported once, as svc_event_loop_delay_seconds below: prom-client's
// own lag gauges are reset by each scrape, so two scrapers read different numbers.
for (const metric of metricsRegistry.getMetricsAsArray())
  if (metric.name.startsWith('svc_nodejs_eventloop_lag')) metricsRegistry.removeSingleMetric(metric.name);

// Request latency from a health check (~0.1 ms) to a long non-streaming completion.
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

// The three metrics touched on every request are HotCounter/HotHistogram (./hot.ts): prom-client
// validates and hashes a label object on each update, a cost paid on every request otherwise.
const httpRequests = new HotCounter(
  metricsRegistry,
  'svc_http_requests_total',
  'HTTP requests answered, by method, route pattern and status',
  ['method', 'route', 'status'],
);
const httpDuration = new HotHistogram(
  metricsRegistry,
  'svc_http_request_duration_seconds',
  'Time from the request to the response headers (a stream is timed to its first byte), by method and route pattern; unmatched paths are counted, not timed',
  LATENCY_BUCKETS,
  ['method', 'route'],
);
const upstreamDuration = new HotHistogram(
  metricsRegistry,
  'svc_upstream_response_seconds',
  'Time from an upstream call to its response headers, by provider id and outcome (ok, error)',
  LATENCY_BUCKETS,
  ['provider', 'outcome'],
);
const upstreamErrors = new Counter({
  name: 'svc_upstream_errors_total',
  help: 'Upstream calls that failed, by provider id and reason: network, timeout, aborted (the client left), http_429, or http_ and the status of a 5xx (http_503)',
  labelNames: ['provider', 'reason'] as const,
  registers: [metricsRegistry],
});
const tokens = new Counter({
  name: 'svc_tokens_total',
  help: 'Tokens billed, by model and direction (prompt, completion), counted when the ledger row is written',
  labelNames: ['model', 'direction'] as const,
  registers: [metricsRegistry],
});
const charged = new Counter({
  name: 'svc_charged_micros_total',
  help: 'Amount charged in micro-units of the currency (1 USD = 1,000,000), counted when the ledger row is written',
  labelNames: ['currency'] as const,
  registers: [metricsRegistry],
});
const rateLimitRefusals = new Counter({
  name: 'svc_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit, by limit type',
  labelNames: ['type'] as const,
  registers: [metricsRegistry],
});
const abuseBlocks = new Counter({
  name: 'svc_abuse_blocks_total',
  help: 'Requests refused because their account, key or address is blocked by the abuse guard',
  registers: [metricsRegistry],
});

// A cumulative histogram reads the same for every scraper, and a diff of two scrapes gives
// the delay over any window (the bench reads one before and after each saturation phase).
const eventLoopDelay = new HotHistogram(
  metricsRegistry,
  'svc_event_loop_delay_seconds',
  'How late a 20 ms timer fires (200 ms while the process is quiet): how long the event loop was busy before it could run a ready callback (one sample per 20 ms; a stall counts every tick it swallowed)',
  EVENT_LOOP_DELAY_BUCKETS,
);
const NO_LABELS = () => ({});
sampleEventLoopDelay((seconds) => eventLoopDelay.observe('', NO_LABELS, seconds));

let openStreamCount: () => number = () => 0;
new Gauge({
  name: 'svc_open_streams',
  help: 'Streaming responses in progress',
  registers: [metricsRegistry],
  collect() {
    this.set(openStreamCount());
  },
});

let ledgerBacklog: (() => Promise<number>) | null = null;
new Gauge({
  name: 'svc_ledger_backlog',
  help: 'Settlements queued for the ledger writer and not yet in the database',
  registers: [metricsRegistry],
  async collect() {
    this.set(ledgerBacklog ? await ledgerBacklog().catch(() => Number.NaN) : 0);
  },
});

let requestLogBacklog: (() => number) | null = null;
new Gauge({
  name: 'svc_request_log_backlog',
  help: 'Request-log records queued or being written, not yet in the database',
  registers: [metricsRegistry],
  collect() {
    this.set(requestLogBacklog ? requestLogBacklog() : 0);
  },
});

const deadLetters = new Counter({
  name: 'svc_ledger_dead_letters_total',
  help: 'Settlements the database refused, moved to ledger_dead_letters so later ones are written',
  registers: [metricsRegistry],
});

const requestLogDropped = new Counter({
  name: 'svc_request_log_dropped_total',
  help: 'Request log rows dropped: the queue was full, or the database refused the row',
  registers: [metricsRegistry],
});
const keySpend = new Counter({
  name: 'svc_key_spend_micros_total',
  help: 'Amount settled per API key id in micro-units of the currency; keys outside the allow-list and the top N are counted as `other` (observability.spendMetrics)',
  labelNames: ['key', 'currency'] as const,
  registers: [metricsRegistry],
});
const accountSpend = new Counter({
  name: 'svc_account_spend_micros_total',
  help: 'Amount settled per account id in micro-units of the currency; accounts outside the allow-list and the top N are counted as `other` (observability.spendMetrics)',
  labelNames: ['account', 'currency'] as const,
  registers: [metricsRegistry],
});

/** Counts request log rows dropped. */
export function countRequestLogDropped(n: number): void {
  requestLogDropped.inc(n);
}

/** Adds a settled amount to a key's or an account's spend series (the label already bounded by the caller). */
export function addSpend(kind: 'key' | 'account', label: string, currency: string, micros: number): void {
  if (kind === 'key') keySpend.labels({ key: label, currency }).inc(micros);
  else accountSpend.labels({ account: label, currency }).inc(micros);
}

/** Removes a key's or an account's spend series (it left the top N). */
export function dropSpend(kind: 'key' | 'account', label: string, currency: string): void {
  if (kind === 'key') keySpend.remove({ key: label, currency });
  else accountSpend.remove({ account: label, currency });
}

let ledgerFailing: (() => boolean) | null = null;
new Gauge({
  name: 'svc_ledger_write_failing',
  help: '1 while the ledger writer cannot write (its last attempt failed), else 0',
  registers: [metricsRegistry],
  collect() {
    this.set(ledgerFailing?.() ? 1 : 0);
  },
});

/** Counts settlements moved to the dead letters. */
export function countDeadLetters(n: number): void {
  deadLetters.inc(n);
}

/** Where the ledger-failing gauge reads its state; null when no writer runs. */
export function reportLedgerFailing(failing: (() => boolean) | null): void {
  ledgerFailing = failing;
}

/** What /metrics shows of the media jobs: counts by state, the oldest running job's age and the runner's poll lag. */
export interface MediaJobGauges {
  counts: Record<string, number>;
  oldestRunningSeconds: number;
  pollLagSeconds: number;
}

let mediaJobGauges: (() => Promise<MediaJobGauges>) | null = null;
/** One read per scrape, shared by the three job gauges (each collect asks; the first one reads). */
let mediaJobRead: Promise<MediaJobGauges | null> | null = null;
const readMediaJobs = () => {
  mediaJobRead ??= (mediaJobGauges ? mediaJobGauges().catch(() => null) : Promise.resolve(null)).finally(() =>
    setTimeout(() => (mediaJobRead = null), 0),
  );
  return mediaJobRead;
};
new Gauge({
  name: 'svc_media_jobs',
  help: 'Media jobs (video, async audio) by state',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
  async collect() {
    const read = await readMediaJobs();
    for (const status of ['PROCESSING', 'COMPLETED', 'FAILED', 'REFUSED', 'DELETED']) this.set({ status }, read?.counts[status] ?? 0);
  },
});
new Gauge({
  name: 'svc_media_job_oldest_running_seconds',
  help: 'Age of the oldest media job still running (0 when none)',
  registers: [metricsRegistry],
  async collect() {
    this.set((await readMediaJobs())?.oldestRunningSeconds ?? 0);
  },
});
new Gauge({
  name: 'svc_media_job_poll_lag_seconds',
  help: "How late this instance's job runner started its last round",
  registers: [metricsRegistry],
  async collect() {
    this.set((await readMediaJobs())?.pollLagSeconds ?? 0);
  },
});

/** Tells /metrics where to read the media-job gauges (the last app built in the process wins). */
export function watchMediaJobs(read: () => Promise<MediaJobGauges>): void {
  mediaJobGauges = read;
}

/** Counts and times one answered request (`route` is the route pattern, never the raw path; `seconds` null: untimed). */
export function observeRequest(method: string, route: string, status: number, seconds: number | null): void {
  const series = requestSeriesOf(method, route);
  if (seconds !== null) httpDuration.record(series.duration, seconds);
  let answered = series.byStatus.get(status);
  if (!answered) {
    answered = httpRequests.seriesOf(`${method} ${route} ${status}`, { method, route, status: String(status) });
    series.byStatus.set(status, answered);
  }
  answered.value++;
}

/** A route's series of one method: its latency histogram and its counts by status. */
interface RequestSeries {
  duration: HistogramSeries;
  byStatus: Map<number, CounterSeries>;
}

// By route pattern, then method: a request finds its series with no key string or label closure built.
const requestSeries = new Map<string, Map<string, RequestSeries>>();

function requestSeriesOf(method: string, route: string): RequestSeries {
  let byMethod = requestSeries.get(route);
  if (!byMethod) requestSeries.set(route, (byMethod = new Map()));
  let series = byMethod.get(method);
  if (!series) {
    series = { duration: httpDuration.seriesOf(`${method} ${route}`, { method, route }), byStatus: new Map() };
    byMethod.set(method, series);
  }
  return series;
}

/** Times one upstream call to its response headers; a failure (`reason` set) is also counted. */
export function observeUpstream(provider: string, seconds: number, reason: string | null): void {
  upstreamDuration.record(upstreamSeriesOf(provider, reason ? 'error' : 'ok'), seconds);
  if (reason) upstreamErrors.inc({ provider, reason });
}

// By provider, then outcome: an upstream call builds no key string or label closure.
const upstreamSeries = new Map<string, { ok?: HistogramSeries; error?: HistogramSeries }>();

function upstreamSeriesOf(provider: string, outcome: 'ok' | 'error'): HistogramSeries {
  let byOutcome = upstreamSeries.get(provider);
  if (!byOutcome) upstreamSeries.set(provider, (byOutcome = {}));
  return (byOutcome[outcome] ??= upstreamDuration.seriesOf(`${provider} ${outcome}`, { provider, outcome }));
}

/** What a written charge contributes to the token and charge counters (src/billing/ledger-row.ts). */
export interface BilledCharge {
  /** Null for a call priced without a catalog model (RPC credits, augment calls). */
  modelId: string | null;
  currency: string;
  /** Signed micro-units: a charge is negative. */
  amount: number;
  promptTokens: number;
  completionTokens: number;
}

/** Counts the tokens and charges of the settlements the ledger writer has just stored (one per request). */
export function countBilledCharges(charges: readonly BilledCharge[]): void {
  // Summed per batch first: a batch holds hundreds of charges and a few distinct label sets.
  const byCurrency = new Map<string, number>();
  const byModel = new Map<string, { prompt: number; completion: number }>();
  for (const c of charges) {
    if (c.amount < 0) byCurrency.set(c.currency, (byCurrency.get(c.currency) ?? 0) - c.amount);
    const model = c.modelId ?? 'none';
    const sums = byModel.get(model) ?? { prompt: 0, completion: 0 };
    sums.prompt += c.promptTokens;
    sums.completion += c.completionTokens;
    byModel.set(model, sums);
  }
  for (const [currency, amount] of byCurrency) charged.inc({ currency }, amount);
  for (const [model, sums] of byModel) {
    if (sums.prompt > 0) tokens.inc({ model, direction: 'prompt' }, sums.prompt);
    if (sums.completion > 0) tokens.inc({ model, direction: 'completion' }, sums.completion);
  }
}

/** Counts one request refused by a rate limit of `type` (requests, tokens, ...). */
export function countRateLimitRefusal(type: string): void {
  rateLimitRefusals.inc({ type });
}

/** Counts one request refused by an abuse-guard block. */
export function countAbuseBlock(): void {
  abuseBlocks.inc();
}

/** Where the open-streams gauge reads its value (src/stream/open-streams.ts). */
export function reportOpenStreams(count: () => number): void {
  openStreamCount = count;
}

/** Where the request-log backlog gauge reads its value; null when no writer runs. */
export function reportRequestLogBacklog(queued: (() => number) | null): void {
  requestLogBacklog = queued;
}

/** Where the ledger backlog gauge reads its value; null when no writer runs. */
export function reportLedgerBacklog(queued: (() => Promise<number>) | null): void {
  ledgerBacklog = queued;
}
