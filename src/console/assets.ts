import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { compressBytes, type ContentCoding } from '../http/compression';

/** Where the committed bundle lives (built by `npm run console:build`). */
export const DIST_DIR = join(import.meta.dir, '../../console/dist');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};

/** One bundle file: its type and its bytes per content coding, compressed once on first use. */
export interface ConsoleAsset {
  type: string;
  bytes(coding: ContentCoding | null): Uint8Array;
}

/**
 * The bundle's files by name, read once at start. A missing bundle leaves the map empty and
 * the page says how to build it, rather than failing the service's start.
 */
export function loadConsoleAssets(dir = DIST_DIR): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const raw = new Uint8Array(readFileSync(join(dir, name)));
    const encoded = new Map<string, Uint8Array>();
    assets.set(name, {
      type,
      bytes(coding) {
        if (!coding) return raw;
        let out = encoded.get(coding);
        if (!out) encoded.set(coding, (out = compressBytes(raw, coding)));
        return out;
      },
    });
  }
  return assets;
}
