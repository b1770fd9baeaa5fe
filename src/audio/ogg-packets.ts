/** Opus frame sizes in 1/48,000 s by TOC configuration (RFC 6716 section 3.1): SILK, hybrid, CELT. */
function opusFrameSamples(config: number): number {
  if (config < 12) return [480, 960, 1920, 2880][config % 4]!;
  if (config < 16) return [480, 960][config % 2]!;
  return [120, 240, 480, 960][config % 4]!;
}

/** The samples (at 48 kHz) an Opus packet decodes to, from its TOC byte and frame count. */
export function opusPacketSamples(p: Uint8Array): number {
  if (p.byteLength === 0) return 0;
  const code = p[0]! & 3;
  const frames = code === 0 ? 1 : code < 3 ? 2 : (p[1] ?? 0) & 0x3f;
  return frames * opusFrameSamples(p[0]! >> 3);
}

/**
 * The block flag of each Vorbis mode, read from the end of the setup header as ffmpeg's
 * parser does: the modes are its last fields (flag, 16 zero bits, 16 zero bits, a mapping),
 * then the framing bit, and only their count precedes them.
 */
function vorbisModeFlags(setup: Uint8Array): boolean[] | undefined {
  // Bits from the last one backwards (Vorbis packs bits from each byte's low end).
  const total = setup.byteLength * 8;
  const bit = (i: number) => (setup[setup.byteLength - 1 - (i >> 3)]! >> (7 - (i & 7))) & 1;
  const read = (at: number, n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++) v = (v << 1) | bit(at + i);
    return v;
  };
  let at = 0;
  while (at < 8 && !bit(at)) at++;
  if (at === 8) return undefined;
  const modesAt = ++at;
  let count = 0;
  let found = 0;
  for (let p = modesAt; total - p >= 97 && count < 64;) {
    if (read(p, 8) > 63 || read(p + 8, 16) || read(p + 24, 16)) break;
    p += 41;
    count++;
    if (read(p, 6) + 1 === count) found = count;
  }
  if (found === 0) return undefined;
  // Backwards, the last mode comes first: each one's flag is the bit after its 40 others.
  return Array.from({ length: found }, (_, i) => bit(modesAt + (found - 1 - i) * 41 + 40) === 1);
}

/** A codec's reading of its packets: the header packets it needs, then each audio packet's samples. */
interface PacketReader {
  rate: number;
  samples(packet: Uint8Array, index: number): number;
}

function opusReader(): PacketReader {
  // Packet 0 is OpusHead, packet 1 OpusTags; Opus always decodes at 48 kHz.
  return { rate: 48_000, samples: (p, i) => (i < 2 ? 0 : opusPacketSamples(p)) };
}

function vorbisReader(id: Uint8Array): PacketReader | undefined {
  const rate = new DataView(id.buffer, id.byteOffset, id.byteLength).getUint32(12, true);
  const sizes = [1 << (id[28]! & 0xf), 1 << (id[28]! >> 4)];
  let flags: boolean[] | undefined;
  let previous = 0;
  return rate === 0
    ? undefined
    : {
        rate,
        samples(p, i) {
          if (i === 2) flags = vorbisModeFlags(p);
          if (i < 3 || p.byteLength === 0 || p[0]! & 1) return 0;
          // Without the modes, every block counts as a long one: more, never less.
          const modeBits = flags ? Math.ceil(Math.log2(flags.length)) : 0;
          const mode = modeBits ? (p[0]! >> 1) & ((1 << modeBits) - 1) : 0;
          const size = sizes[flags ? (flags[mode] ? 1 : 0) : 1]!;
          // Each block overlaps the one before by half of each: a quarter of both is new output.
          const out = previous ? (previous + size) / 4 : size / 2;
          previous = size;
          return out;
        },
      };
}

const startsWith = (p: Uint8Array, text: string) => [...text].every((c, i) => p[i] === c.charCodeAt(0));

/**
 * The seconds an Ogg Opus or Ogg Vorbis stream decodes to, added up packet by packet (Opus
 * from each packet's TOC, Vorbis from each packet's mode and the block sizes), never from
 * the pages' granule positions, which are the writer's word. Only the first logical stream is
 * read; a page that breaks off is skipped to the next capture pattern. Undefined for another
 * codec (Speex, FLAC in Ogg) or a stream without its headers.
 */
export function oggPacketSeconds(bytes: Uint8Array): number | undefined {
  let serial: number | undefined;
  let reader: PacketReader | undefined;
  let packet: Uint8Array[] = [];
  let index = 0;
  let samples = 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const finish = () => {
    const p = packet.length === 1 ? packet[0]! : new Uint8Array(Buffer.concat(packet));
    packet = [];
    if (index === 0) reader = startsWith(p, 'OpusHead') ? opusReader() : startsWith(p, '\x01vorbis') ? vorbisReader(p) : undefined;
    if (!reader) return false;
    samples += reader.samples(p, index++);
    return true;
  };
  for (let at = 0; at + 27 <= bytes.byteLength;) {
    if (!startsWith(bytes.subarray(at, at + 4), 'OggS')) {
      at++;
      continue;
    }
    const segments = bytes[at + 26]!;
    const pageSerial = view.getUint32(at + 14, true);
    let body = at + 27 + segments;
    if (body > bytes.byteLength) break;
    serial ??= pageSerial;
    if (pageSerial !== serial) {
      for (let i = 0; i < segments; i++) body += bytes[at + 27 + i]!;
      at = body;
      continue;
    }
    let start = body;
    for (let i = 0; i < segments; i++) {
      const lace = bytes[at + 27 + i]!;
      const end = Math.min(body + lace, bytes.byteLength);
      packet.push(bytes.subarray(start, end));
      body = start = end;
      if (lace < 255 && !finish()) return undefined;
    }
    at = body;
  }
  return reader ? samples / reader.rate : undefined;
}
