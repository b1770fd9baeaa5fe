/**
 * IP address classification for the SSRF guard: which addresses a user-supplied URL may
 * never reach (loopback, private, link-local, unique-local, multicast, unspecified, and the
 * other special-purpose ranges of the IANA registries), for IPv4 and IPv6, including IPv6
 * forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4).
 */

/** Parses dotted-quad IPv4 into a 32-bit unsigned number, or null. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

/** Parses IPv6 (with `::`, an embedded dotted quad, an optional `%zone`) into 8 groups, or null. */
export function parseIPv6(text: string): number[] | null {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (!s.includes(':')) return null;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    // Keep the part before the dotted quad; a trailing single ':' goes, a '::' stays.
    s = s.slice(0, lastColon + 1);
    if (!s.endsWith('::')) s = s.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0] as string);
  const rest = halves.length === 2 ? groups(halves[1] as string) : [];
  const parse = (g: string[]) => {
    const out: number[] = [];
    for (const x of g) {
      if (!/^[0-9a-f]{1,4}$/i.test(x)) return null;
      out.push(parseInt(x, 16));
    }
    return out;
  };
  const a = parse(head);
  const b = parse(rest);
  if (!a || !b) return null;
  const total = a.length + b.length + tail.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return null;
  return [...a, ...new Array(8 - total).fill(0), ...b, ...tail];
}

const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V4_RANGES = V4_BLOCKED.map(([base, bits, why]) => ({ base: parseIPv4(base) as number, size: 2 ** (32 - bits), why }));

function classifyV4(v: number): string | null {
  for (const r of V4_RANGES) if (v >= r.base && v < r.base + r.size) return r.why;
  return null;
}

const startsWith = (g: number[], prefix: number[], bits: number) => {
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((g[i] as number) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
};
const v4At = (g: number[], i: number) => (g[i] as number) * 65536 + (g[i + 1] as number);

function classifyV6(g: number[]): string | null {
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d reach the embedded IPv4 address.
  if (startsWith(g, [0, 0, 0, 0, 0, 0xffff], 96) || startsWith(g, [0x64, 0xff9b], 96)) return classifyV4(v4At(g, 6));
  if (startsWith(g, [0], 96)) return 'reserved'; // deprecated IPv4-compatible ::a.b.c.d
  if (startsWith(g, [0x2002], 16)) return classifyV4(v4At(g, 1)); // 6to4 embeds its IPv4 relay
  if (startsWith(g, [0x64, 0xff9b, 1], 48)) return 'private'; // local-use NAT64
  if (startsWith(g, [0x100], 64)) return 'reserved'; // discard-only
  if (startsWith(g, [0x2001, 0], 32)) return 'reserved'; // Teredo (obfuscated IPv4)
  if (startsWith(g, [0x2001, 0xdb8], 32)) return 'reserved'; // documentation
  if (startsWith(g, [0xfc00], 7)) return 'unique-local';
  if (startsWith(g, [0xfe80], 10)) return 'link-local';
  if (startsWith(g, [0xfec0], 10)) return 'private'; // deprecated site-local
  if (startsWith(g, [0xff00], 8)) return 'multicast';
  return null;
}

/**
 * Why `address` (an IP literal) must not be reached, e.g. 'loopback' or 'private'; null
 * when it is a public address. Anything that does not parse as an IP is refused.
 */
export function blockedReason(address: string): string | null {
  const v4 = parseIPv4(address);
  if (v4 !== null) return classifyV4(v4);
  const v6 = parseIPv6(address);
  if (v6 !== null) return classifyV6(v6);
  return 'not an IP address';
}

/** True when `host` is an IP literal (v4, or v6 with or without brackets). */
export const isIpLiteral = (host: string) => parseIPv4(host) !== null || parseIPv6(host) !== null;
