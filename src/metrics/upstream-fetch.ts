import { observeUpstream } from '.';

/** The part of a provider entry that says where it lives. */
interface ProviderAddress {
  id: string;
  baseURL?: string;
}

/** Why an upstream call counts as failed, from its status; null for a success or a client error of ours (4xx other than 429). */
function statusReason(status: number): string | null {
  if (status === 429) return 'http_429';
  return status >= 500 ? `http_${status}` : null;
}

/** Why a fetch threw: timeout, cancelled by us (client gone), or a network failure. */
function thrownReason(error: unknown): string {
  const name = (error as { name?: string })?.name;
  if (name === 'TimeoutError') return 'timeout';
  return name === 'AbortError' ? 'aborted' : 'network';
}

/**
 * Times one call of an in-process provider (the simulator) as an HTTP one is timed, so the
 * console's Upstreams table and /metrics show it. A failure counts as an answer with its
 * status would (a 4xx other than 429 is not the provider's failure), else as a thrown fetch.
 */
export function observeInProcessCall(provider: string, seconds: number, error: unknown): void {
  const status = (error as { status?: unknown } | undefined)?.status;
  const reason = error === undefined ? null : typeof status === 'number' ? statusReason(status) : thrownReason(error);
  observeUpstream(provider, seconds, reason);
}

/**
 * Wraps the fetch the providers use so each call to a configured provider's baseURL is
 * timed to its response headers and its failures counted, labelled with the provider id
 * (longest baseURL prefix wins). Calls to other URLs pass through untouched.
 */
export function observedUpstreamFetch(inner: typeof fetch, providers: readonly ProviderAddress[]): typeof fetch {
  const prefixes = providers
    .filter((p): p is Required<ProviderAddress> => !!p.baseURL)
    .map((p) => ({ id: p.id, prefix: p.baseURL.replace(/\/+$/, '') }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  if (prefixes.length === 0) return inner;
  // Providers call a handful of URLs (baseURL + a path per capability): remembered, bounded.
  const known = new Map<string, string | undefined>();
  function providerOf(url: string): string | undefined {
    if (known.has(url)) return known.get(url);
    const id = prefixes.find((p) => url === p.prefix || url.startsWith(`${p.prefix}/`))?.id;
    if (known.size > 1000) known.clear();
    known.set(url, id);
    return id;
  }

  async function observedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const provider = providerOf(url);
    if (!provider) return inner(input, init);
    const started = performance.now();
    try {
      const response = await inner(input, init);
      observeUpstream(provider, (performance.now() - started) / 1000, statusReason(response.status));
      return response;
    } catch (error) {
      observeUpstream(provider, (performance.now() - started) / 1000, thrownReason(error));
      throw error;
    }
  }
  return Object.assign(observedFetch, { preconnect: inner.preconnect }) as typeof fetch;
}
