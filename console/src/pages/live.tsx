import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { TimeChart } from '../chart';
import { num } from '../format';

/** GET /console/api/live: figures over the last ~10 s of this instance's metrics. */
interface Live {
  at: string;
  windowSeconds: number;
  requestsPerSecond: number;
  serverErrorsPerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  openStreams: number;
  rateLimitRefusals: number;
  abuseBlocks: number;
  providers: {
    id: string;
    callsPerSecond: number;
    errors: number;
    errorsByReason: Record<string, number>;
    p50Ms: number | null;
    p99Ms: number | null;
  }[];
}

const REFRESH_MS = 3_000;
const HISTORY = 100; // five minutes of points
const ms = (v: number | null) => (v === null ? '–' : `${num(v, 1)} ms`);
const rate = (v: number) => num(v);

/** The live page: request rate, open streams, latency and upstream errors, refreshed every 3 s. */
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
      <h1 id="live-title" tabIndex={-1}>
        Live
      </h1>
      <div class="toolbar">
        <p class="muted">
          This instance, over the last {live ? num(live.windowSeconds, 0) : '…'} s; refreshed every {REFRESH_MS / 1000} s.
        </p>
        <button type="button" class="secondary" onClick={() => setPaused(!paused)} aria-pressed={paused}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {live && (
        <>
          <dl class="tiles" aria-live="off">
            <div>
              <dt>Requests / s</dt>
              <dd>{num(live.requestsPerSecond)}</dd>
            </div>
            <div>
              <dt>Open streams</dt>
              <dd>{live.openStreams}</dd>
            </div>
            <div>
              <dt>p50 latency</dt>
              <dd>{ms(live.p50Ms)}</dd>
            </div>
            <div>
              <dt>p99 latency</dt>
              <dd>{ms(live.p99Ms)}</dd>
            </div>
            <div>
              <dt>5xx / s</dt>
              <dd>{num(live.serverErrorsPerSecond)}</dd>
            </div>
            <div>
              <dt>Rate-limited</dt>
              <dd>{live.rateLimitRefusals}</dd>
            </div>
            <div>
              <dt>Abuse blocks</dt>
              <dd>{live.abuseBlocks}</dd>
            </div>
          </dl>
          <div class="charts">
            <TimeChart
              title="Requests per second"
              times={history.t}
              lines={[{ label: 'req/s', values: history.rps }]}
              format={rate}
              height={160}
              xRange={span}
            />
            <TimeChart
              title="p99 latency"
              times={history.t}
              lines={[{ label: 'p99', values: history.p99 }]}
              format={ms}
              height={160}
              xRange={span}
            />
          </div>
          <h2>Upstreams</h2>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Upstream calls by provider</caption>
              <thead>
                <tr>
                  <th scope="col">Provider</th>
                  <th scope="col">Calls / s</th>
                  <th scope="col">p50</th>
                  <th scope="col">p99</th>
                  <th scope="col">Errors</th>
                </tr>
              </thead>
              <tbody>
                {live.providers.map((p) => (
                  <tr key={p.id}>
                    <td class="mono">{p.id}</td>
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
                {live.providers.length === 0 && (
                  <tr>
                    <td colSpan={5} class="muted">
                      No upstream calls since this instance started.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
