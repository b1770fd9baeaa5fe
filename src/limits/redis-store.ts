import type { RedisCommands } from '../kv/redis-link';
import { runScript } from '../kv/scripts';
import { ADMIT_RATE, CORRECT_TOKENS, pushRateArgs, rateKey, rateResult, rateTtl } from './redis-scripts';
import { WINDOW_MS, type AdmitResult, type LimitStore } from './store';

/**
 * The store for many instances: requests and tokens of a key and window in one hash,
 * checked and counted by one script (one round trip), corrected in the window the tokens
 * were reserved in. Uses the real clock, as every instance must agree on the windows.
 * The meter does not call it per request: it folds the same count into its billing script.
 */
export function createRedisLimitStore(client: RedisCommands, prefix: string, opts: { windowMs?: number } = {}): LimitStore {
  const windowMs = opts.windowMs ?? WINDOW_MS;
  const ttl = rateTtl(windowMs);

  return {
    backend: 'redis',
    async admit(key, rpm, tokens): Promise<AdmitResult> {
      const at = Date.now();
      const window = Math.floor(at / windowMs);
      const args: string[] = [];
      pushRateArgs(args, { key, rpm, tokens }, ttl);
      const reply = (await runScript(client, ADMIT_RATE, [rateKey(prefix, key, window)], args)) as unknown[];
      return rateResult(reply, 0, at, window, windowMs);
    },
    async correctTokens(key, window, delta) {
      if (delta === 0 || window < Math.floor(Date.now() / windowMs)) return;
      await runScript(client, CORRECT_TOKENS, [rateKey(prefix, key, window)], [String(delta)]);
    },
    async close() {},
  };
}
