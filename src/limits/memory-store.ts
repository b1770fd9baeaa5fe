import { tokensExceeded, WINDOW_MS, type AdmitResult, type LimitKey, type LimitStore } from './store';

interface Counter {
  window: number;
  requests: number;
  tokens: number;
}

/**
 * The in-process store: a Map of fixed-window counters, with the same semantics as the
 * Redis store (fixed windows aligned on the epoch, refused requests consume nothing).
 * Honours the injected clock, so window resets are tested without waiting.
 */
export function createMemoryLimitStore(opts: { now?: () => number; windowMs?: number } = {}): LimitStore {
  const now = opts.now ?? Date.now;
  const windowMs = opts.windowMs ?? WINDOW_MS;
  const counters = new Map<string, Counter>();

  const sweep = setInterval(function sweepPastWindows() {
    const current = Math.floor(now() / windowMs);
    for (const [key, c] of counters) if (c.window < current) counters.delete(key);
  }, windowMs);
  sweep.unref?.();

  const name = (key: LimitKey) => `${key.account}:${key.scope}`;

  return {
    backend: 'memory',
    // Not async: counted at once, so the memory billing store reserves without an async step.
    admit(key, rpm, tokens): AdmitResult {
      const at = now();
      const window = Math.floor(at / windowMs);
      const id = name(key);
      let c = counters.get(id);
      if (!c || c.window !== window) {
        c = { window, requests: 0, tokens: 0 };
        counters.set(id, c);
      }
      let refused: AdmitResult['refused'] = null;
      if (c.requests + 1 > rpm) refused = 'RPM';
      else if (tokens && tokensExceeded(c.tokens, tokens.reserve, tokens.limit)) refused = 'TPM';
      else {
        c.requests++;
        if (tokens) c.tokens += tokens.reserve;
      }
      return { refused, requests: c.requests, tokens: c.tokens, window, resetAt: (window + 1) * windowMs, at };
    },
    // Done at once: the shared settled promise, not one per settlement.
    correctTokens(key, window, delta) {
      const c = counters.get(name(key));
      if (c && c.window === window) c.tokens = Math.max(0, c.tokens + delta);
    },
    async close() {
      clearInterval(sweep);
      counters.clear();
    },
  };
}
