import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { guardedFetch, UrlRefused, type GuardOptions } from '../../src/net/guarded-fetch';
import { blockedReason } from '../../src/net/ip';
import { startWebPages, type WebPages } from '../fixtures/web-pages';

let site: WebPages;
beforeAll(() => {
  site = startWebPages();
});
afterAll(() => site.close());

const guarded: GuardOptions = { allowPrivate: false, timeoutMs: 2000, maxBytes: 1_000_000 };
const open: GuardOptions = { ...guarded, allowPrivate: true };

async function refusal(url: string, o: GuardOptions): Promise<UrlRefused> {
  const error = await guardedFetch(url, o).then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(UrlRefused);
  return error as UrlRefused;
}

/** A fetch that must never be called (the guard refuses before connecting). */
function forbiddenFetch() {
  const calls: string[] = [];
  const f = (async (url: string) => {
    calls.push(String(url));
    throw new Error('must not connect');
  }) as unknown as typeof fetch;
  return { calls, fetch: f };
}

/**
 * "Public" names resolved by an injected lookup, with connections to the pretend public IP
 * routed to the fixture site, so redirects and pinning are tested without leaving 127.0.0.1.
 */
const PUBLIC_IP = '93.184.216.34';
const lookup = async (host: string) =>
  ({ 'public.test': [PUBLIC_IP], 'internal.test': ['10.0.0.5'], 'mixed.test': [PUBLIC_IP, '192.168.1.10'], 'v6local.test': ['fd12::1'] })[
    host
  ] ?? [];
const seen: { url: string; host: string | null }[] = [];
const routedFetch = (async (input: string, init: RequestInit) => {
  const url = new URL(String(input));
  seen.push({ url: url.href, host: new Headers(init.headers).get('host') });
  if (url.hostname !== PUBLIC_IP) throw new Error(`unexpected connection to ${url.hostname}`);
  url.hostname = '127.0.0.1';
  url.port = String(site.port);
  return fetch(url, init);
}) as unknown as typeof fetch;
const viaPublic: GuardOptions = { ...guarded, lookup, fetch: routedFetch };

describe('address classification', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['fc00::5', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['::127.0.0.1', 'reserved'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });

  test.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001::200e'])(
    '%s is public',
    (address) => {
      expect(blockedReason(address)).toBeNull();
    },
  );
});

describe('guard on (allowPrivateUrls false)', () => {
  test.each([
    'http://127.0.0.1:PORT/article',
    'http://localhost:PORT/article',
    'http://[::1]:PORT/article',
    'http://[::ffff:127.0.0.1]:PORT/article',
    'http://2130706433:PORT/article',
    'http://0x7f.1:PORT/article',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://0.0.0.0/',
    'http://224.0.0.1/',
  ])('%s is refused before any connection', async (template) => {
    const f = forbiddenFetch();
    const error = await refusal(template.replace('PORT', String(site.port)), { ...guarded, fetch: f.fetch });
    expect(error.code).toBe('address');
    expect(f.calls).toEqual([]);
  });

  test('a name resolving to a private address (or to a mix) is refused', async () => {
    for (const host of ['internal.test', 'mixed.test', 'v6local.test']) {
      const error = await refusal(`http://${host}/article`, viaPublic);
      expect(error.code).toBe('address');
    }
  });

  test('http to a public name connects to the checked IP and keeps the Host header (no second DNS answer)', async () => {
    seen.length = 0;
    const doc = await guardedFetch('http://public.test/host', viaPublic);
    expect(new TextDecoder().decode(doc.body)).toBe('public.test');
    expect(seen[0]).toEqual({ url: `http://${PUBLIC_IP}/host`, host: 'public.test' });
  });

  test.each([
    ['loopback IPv4', 'http://127.0.0.1/article'],
    ['loopback IPv6', 'http://[::1]/article'],
    ['IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]/article'],
    ['a private name', 'http://internal.test/article'],
    ['metadata', 'http://169.254.169.254/'],
  ])('a redirect to %s is refused', async (_, to) => {
    seen.length = 0;
    const error = await refusal(`http://public.test/redirect?to=${encodeURIComponent(to)}`, viaPublic);
    expect(error.code).toBe('address');
    expect(seen).toHaveLength(1);
  });

  test('a redirect to another public page is followed', async () => {
    const doc = await guardedFetch('http://public.test/redirect?to=/article', viaPublic);
    expect(doc.url).toBe('http://public.test/article');
    expect(new TextDecoder().decode(doc.body)).toContain('Otters');
  });

  test.each(['file:///etc/passwd', 'ftp://example.com/x', 'gopher://x/', 'data:text/html,hi', 'not a url'])(
    '%s is refused (only http/https)',
    async (url) => {
      const error = await refusal(url, guarded);
      expect(error.code).toBe('protocol');
    },
  );
});

describe('limits (private URLs allowed for the fixture)', () => {
  test('allowPrivateUrls lets a loopback page through', async () => {
    const doc = await guardedFetch(`${site.origin}/article`, open);
    expect(doc.status).toBe(200);
    expect(doc.contentType).toContain('text/html');
  });

  test('three redirects are followed, a fourth is refused', async () => {
    expect((await guardedFetch(`${site.origin}/chain/2`, open)).url).toBe(`${site.origin}/article`);
    const error = await refusal(`${site.origin}/chain/3`, open);
    expect(error.code).toBe('redirects');
  });

  test('a streamed body over the size limit is refused without reading it all', async () => {
    const error = await refusal(`${site.origin}/big`, { ...open, maxBytes: 100_000 });
    expect(error.code).toBe('too_large');
  });

  test('a declared Content-Length over the limit is refused', async () => {
    const error = await refusal(`${site.origin}/big-declared`, { ...open, maxBytes: 100_000 });
    expect(error.code).toBe('too_large');
  });

  test('the time limit covers a body that never ends', async () => {
    const started = performance.now();
    const error = await refusal(`${site.origin}/slow`, { ...open, timeoutMs: 250 });
    expect(error.code).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(1500);
  });

  test('the time limit also covers a DNS lookup that never answers', async () => {
    const started = performance.now();
    const error = await refusal('http://stuck.test/', { ...guarded, timeoutMs: 200, lookup: () => new Promise<string[]>(() => {}) });
    expect(error.code).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test('a name that does not resolve is refused', async () => {
    const error = await refusal('http://nowhere.test/', { ...guarded, lookup: async () => [] });
    expect(error.code).toBe('dns');
  });

  test('a non-2xx answer is refused with its status', async () => {
    const error = await refusal(`${site.origin}/broken`, open);
    expect(error.code).toBe('status');
    expect(error.message).toContain('500');
  });
});
