import type { Capability, Provider } from './types';

/** Told of each call a provider made: its id, the seconds to its answer, and what it threw (undefined on success). */
export type CallObserver = (providerId: string, seconds: number, error: unknown) => void;

const CALLS: readonly Capability[] = ['chat', 'embed', 'images', 'speech', 'transcribe', 'rpc', 'jobs'];

/**
 * The provider with each of its calls timed to its answer (a stream: to its start) and told
 * to `observe`. For providers that make no HTTP call (the simulator): the others are timed
 * by the fetch they are given, and wrapping them too would count each call twice.
 */
export function observedCalls(provider: Provider, observe: CallObserver): Provider {
  const out: Record<string, unknown> = { ...provider };
  for (const name of CALLS) {
    const call = provider[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (typeof call !== 'function') continue;
    out[name] = async function observedCall(...args: unknown[]) {
      const started = performance.now();
      try {
        const result = await call.apply(provider, args);
        observe(provider.id, (performance.now() - started) / 1000, undefined);
        return result;
      } catch (error) {
        observe(provider.id, (performance.now() - started) / 1000, error);
        throw error;
      }
    };
  }
  return out as Provider;
}
