import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { TimeChart } from '../chart';
import type { LiveSummary } from '../../../src/console/live';
import { duration, num } from '../format';
import { Alert, DataTable, EmptyRow, PageHeading } from '../parts';
import { PluginTable } from './live-plugins';

/** GET /console/api/live: figures over the last ~10 s of this instance's metrics (the server's own type). */
type Live = LiveSummary;

const REFRESH_MS = 3_000;
const HISTORY = 100; // five minutes of points
const ms = (v: number | null) => (v === null ? '–' : `${num(v, 1)} ms`);
// Two significant digits below 1, so a quiet instance's axis does not read "0.01, 0.01".
const rate = (v: number) => (v > 0 && v < 1 ? String(Number(v.toPrecision(2))) : num(v));

/** The headline figures, as label and text. */
const tilesOf = (live: Live): [string, string][] => [
  ['Requests / s', num(live.requestsPerSecond)],
  ['Open streams', String(live.openStreams)],
  ['p50 latency', ms(live.p50Ms)],
  ['p99 latency', ms(live.p99Ms)],
  ['5xx / s', num(live.serverErrorsPerSecond)],
  ['Rate-limited', String(live.rateLimitRefusals)],
  ['Abuse blocks', String(live.abuseBlocks)],
];

/** The live page: request rate, open streams, latency, upstream errors and plugins, refreshed every 3 s. */
export function LivePage() {
  const [live, setLive] = useState<Live | null>(null);
  const [history, setHistory] = useState<{ t: number[]; rps: number[]; p99: (number | null)[] }>({ t: [], rps: [], p99: [] });
  const [error, setError] = useState('');
  const [paused, setPaused] = useState(false);

  useEffect(() => {
    if (paused) return;
    let stop = false;
    async function tick() {
      try {
        const r = await call<{ data: Live }>('/console/api/live');
        if (stop) return;
        setLive(r.data);
        setError('');
        setHistory((h) => ({
          t: [...h.t, Date.parse(r.data.at) / 1000].slice(-HISTORY),
          rps: [...h.rps, r.data.requestsPerSecond].slice(-HISTORY),
          p99: [...h.p99, r.data.p99Ms].slice(-HISTORY),
        }));
      } catch (e) {
        if (!stop) setError(messageOf(e));
      }
    }
    void tick();
    const timer = setInterval(tick, REFRESH_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [paused]);

  const last = history.t.at(-1) ?? 0;
  const span: [number, number] = [last - (HISTORY * REFRESH_MS) / 1000, last];
  return (
    <section aria-labelledby="live-title">
      <PageHeading id="live-title">Live</PageHeading>
      <div class="toolbar">
        <p class="muted">
          This instance, over the last {live ? duration(live.windowSeconds) : '…'}; refreshed every {REFRESH_MS / 1000} s.
        </p>
        <button type="button" class="secondary" onClick={() => setPaused(!paused)} aria-pressed={paused}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <a href="#/requests">Requests</a>
        <a href="#/requests?status=5xx">5xx requests</a>
      </div>
      <Alert message={error} />
      {live && (
        <>
          <dl class="tiles">
            {tilesOf(live).map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <div class="charts">
            {(
              [
                ['Requests per second', 'req/s', history.rps, rate],
                ['p99 latency', 'p99', history.p99, ms],
              ] as const
            ).map(([title, label, values, format]) => (
              <TimeChart
                key={title}
                title={title}
                times={history.t}
                lines={[{ label, values: [...values] }]}
                format={format}
                height={160}
                xRange={span}
              />
            ))}
          </div>
          <h2>Upstreams</h2>
          <DataTable caption="Upstream calls by provider" headers={['Provider', 'Calls / s', 'p50', 'p99', 'Errors']}>
            {live.providers.map((p) => (
              <tr key={p.id}>
                <td>
                  <span class="mono">{p.id}</span>
                  {p.simulated && <span class="badge">simulator</span>}
                </td>
                <td>{num(p.callsPerSecond)}</td>
                <td>{ms(p.p50Ms)}</td>
                <td>{ms(p.p99Ms)}</td>
                <td class={p.errors ? 'error-text' : ''}>
                  {p.errors === 0
                    ? '0'
                    : Object.entries(p.errorsByReason)
                        .map(([r, n]) => `${r}: ${n}`)
                        .join(', ')}
                </td>
              </tr>
            ))}
            {live.providers.length === 0 && <EmptyRow columns={5}>No upstream calls in this window.</EmptyRow>}
          </DataTable>
          <PluginTable plugins={live.plugins} />
        </>
      )}
    </section>
  );
}
