import { S3Client } from 'bun';
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { JobsConfig } from './config';

/** A stored media file: its size, and its bytes from `start` to `end` inclusive as a stream. */
export interface StoredMedia {
  size: number;
  stream(start: number, end: number): ReadableStream<Uint8Array>;
}

/**
 * Where finished job media is kept (DESIGN "Storage and scale"): files under the data folder
 * on one instance, an S3-compatible bucket for several. Keys are svc's own (the queue id), never a client's path.
 */
export interface MediaStorage {
  readonly kind: 'fs' | 's3';
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The media under `key`, or null when there is none. */
  get(key: string): Promise<StoredMedia | null>;
  delete(key: string): Promise<void>;
}

/** Keys are queue ids and a suffix: letters, digits, dashes and dots only, so a key never leaves its folder. */
function checkKey(key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(key)) throw new Error(`media storage: bad key "${key}"`);
  return key;
}

/** Media as files under `dir`. */
export function fileMediaStorage(dir: string): MediaStorage {
  const path = (key: string) => join(dir, checkKey(key));
  // The folder is made once, not per file (a mkdir per job); made again if it went meanwhile.
  let made = false;
  return {
    kind: 'fs',
    async put(key, bytes) {
      const target = path(key);
      if (!made) await mkdir(dirname(target), { recursive: true });
      made = true;
      // Written under a temporary name of its own and renamed, so a reader never sees half a
      // file and two writers of one key (a lease that ran out mid-write) never trip on each other.
      const part = `${target}.${randomUUID()}.part`;
      try {
        await Bun.write(part, bytes);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        await mkdir(dirname(target), { recursive: true });
        await Bun.write(part, bytes);
      }
      await rename(part, target);
    },
    async get(key) {
      const file = Bun.file(path(key));
      if (!(await file.exists())) return null;
      return { size: file.size, stream: (start, end) => file.slice(start, end + 1).stream() };
    },
    async delete(key) {
      await rm(path(key), { force: true });
    },
  };
}

/**
 * Media in an S3-compatible bucket through Bun's built-in S3 client (no dependency; signed
 * requests, ranged reads by `slice`, streaming bodies).
 */
export function s3MediaStorage(o: NonNullable<JobsConfig['s3']>): MediaStorage {
  const client = new S3Client({
    bucket: o.bucket,
    endpoint: o.endpoint,
    region: o.region,
    accessKeyId: o.accessKeyId,
    secretAccessKey: o.secretAccessKey,
  });
  const keyOf = (key: string) => `${o.prefix}${checkKey(key)}`;
  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      await client.write(keyOf(key), bytes, { type: contentType });
    },
    async get(key) {
      const file = client.file(keyOf(key));
      let size: number;
      try {
        size = (await file.stat()).size;
      } catch (error) {
        if ((error as { code?: string }).code === 'NoSuchKey' || /not ?found|NoSuchKey|404/i.test(String(error))) return null;
        throw error;
      }
      return { size, stream: (start, end) => file.slice(start, end + 1).stream() };
    },
    async delete(key) {
      await client.delete(keyOf(key));
    },
  };
}

/** The storage the config names: the bucket when `jobs.s3` is set, else files under `mediaDir` (default `<dataDir>/media`). */
export function openMediaStorage(config: JobsConfig, dataDir: string): MediaStorage {
  return config.s3 ? s3MediaStorage(config.s3) : fileMediaStorage(config.mediaDir ?? join(dataDir, 'media'));
}
