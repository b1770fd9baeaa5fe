import type { Ratelimit } from '@upstash/ratelimit';
import { createHash } from 'node:crypto';
import type { RedisCommands } from '../kv/redis-link';

/** The client type @upstash/ratelimit expects (an @upstash/redis instance). */
export type UpstashRedis = ConstructorParameters<typeof Ratelimit>[0]['redis'];

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** The script without its `#!lua flags=...` shebang line, which real Redis rejects. */
export function stripShebang(script: string): string {
  return script.startsWith('#!') ? script.slice(script.indexOf('\n') + 1) : script;
}

/** A Lua script ready for EVALSHA: its body (shebang stripped) and that body's SHA-1. */
export interface LuaScript {
  body: string;
  sha: string;
}

/** Prepares a script for {@link runScript}. */
export function luaScript(source: string): LuaScript {
  const body = stripShebang(source);
  return { body, sha: sha1(body) };
}

/** EVALSHA, falling back to EVAL (which caches the script) after a SCRIPT FLUSH or on a new server. */
export async function runScript(client: RedisCommands, script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args.map(String)];
  try {
    return await client.send('EVALSHA', [script.sha, ...tail]);
  } catch (error) {
    if (!String(error).includes('NOSCRIPT')) throw error;
    return client.send('EVAL', [script.body, ...tail]);
  }
}

/**
 * The part of the @upstash/redis client that @upstash/ratelimit's single-region algorithms
 * use (`eval`, `evalsha`; `get`/`set`/`del` for dynamic limits), over svc's Redis link (Bun's client or the cluster client).
 * Upstash names its scripts by the SHA-1 of the text with the shebang, so that hash is
 * mapped to the stripped body's SHA-1. An unseen hash answers NOSCRIPT, and Upstash then
 * calls `eval` with the text, which records the mapping. `multi` (deny lists, analytics)
 * is not offered: protection and analytics are off.
 */
export function upstashAdapter(client: RedisCommands): UpstashRedis {
  const byUpstashHash = new Map<string, LuaScript>();
  const adapter = {
    async eval(script: string, keys: string[], args: unknown[]) {
      const prepared = luaScript(script);
      byUpstashHash.set(sha1(script), prepared);
      return client.send('EVAL', [prepared.body, String(keys.length), ...keys, ...args.map(String)]);
    },
    async evalsha(hash: string, keys: string[], args: unknown[]) {
      const prepared = byUpstashHash.get(hash);
      if (!prepared) throw new Error(`NOSCRIPT no mapping yet for ${hash}`);
      return client.send('EVALSHA', [prepared.sha, String(keys.length), ...keys, ...args.map(String)]);
    },
    get: (key: string) => client.send('GET', [key]),
    async set(key: string, value: unknown) {
      await client.send('SET', [key, String(value)]);
      return 'OK';
    },
    // One DEL per key: in a cluster the keys may live on different nodes.
    del: async (...keys: string[]) =>
      (await Promise.all(keys.map((k) => client.send('DEL', [k])))).reduce<number>((n, d) => n + Number(d), 0),
  };
  return adapter as unknown as UpstashRedis;
}
