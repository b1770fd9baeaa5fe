/**
 * Waits until svc's ledger has written every settlement it holds and its request log every
 * record (`svc_ledger_backlog` and `svc_request_log_backlog` 0 on its /metrics), so a measured
 * phase is charged for its own rows and for no earlier phase's:
 * at full speed svc can serve requests faster than the embedded ledger writes them (the writer
 * gets about a third of the thread, src/billing/slice-pacer.ts), and a backlog left by one phase
 * would be written, and counted, in the next. Measured on the bench's own sequence, the wait
 * before a phase is a few ms and the one after it 100-220 ms (the writer's next tick). A target
 * without the gauge (the bare proxy, a peer) returns at once. Polls every 100 ms: a scrape costs
 * svc well under a millisecond. Returns how long it waited, in ms.
 */
export async function ledgerSettled(metricsUrl: string | undefined, timeoutMs = 60_000): Promise<number> {
  if (!metricsUrl) return 0;
  const started = performance.now();
  const deadline = started + timeoutMs;
  for (;;) {
    const backlog = await scrapeBacklog(metricsUrl);
    if (backlog === null || backlog === 0) return Math.round(performance.now() - started);
    if (performance.now() > deadline) throw new Error(`svc's ledger still held ${backlog} settlements after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

/** The `svc_ledger_backlog` gauge plus `svc_request_log_backlog`, or null when the target reports neither. */
export async function scrapeBacklog(metricsUrl: string): Promise<number | null> {
  const text = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })
    .then((r) => r.text())
    .catch(() => '');
  const ledger = /^svc_ledger_backlog (\S+)$/m.exec(text);
  const requestLog = /^svc_request_log_backlog (\S+)$/m.exec(text);
  if (!ledger && !requestLog) return null;
  return Number(ledger?.[1] ?? 0) + Number(requestLog?.[1] ?? 0);
}
