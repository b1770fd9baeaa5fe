import { createHash } from 'node:crypto';
import type { RedisCommands } from './redis-link';

/** A Lua script ready for EVALSHA: its text and that text's SHA-1, computed once. */
export interface LuaScript {
  readonly body: string;
  readonly sha: string;
}

/** Prepares a script for {@link runScript} (at module load: one SHA-1 per script, not per call). */
export function luaScript(body: string): LuaScript {
  return { body, sha: createHash('sha1').update(body).digest('hex') };
}

/**
 * Runs a script with EVALSHA (the text is not sent again on every call), and with EVAL,
 * which caches it, after a NOSCRIPT (a new or restarted server, a SCRIPT FLUSH). On a
 * cluster the command goes to the slot of the first key.
 */
export async function runScript(
  client: RedisCommands,
  script: LuaScript,
  keys: readonly string[],
  args: readonly string[],
): Promise<unknown> {
  const argv = new Array<string>(2 + keys.length + args.length);
  argv[0] = script.sha;
  argv[1] = String(keys.length);
  for (let i = 0; i < keys.length; i++) argv[2 + i] = keys[i]!;
  for (let i = 0; i < args.length; i++) argv[2 + keys.length + i] = args[i]!;
  try {
    return await client.send('EVALSHA', argv);
  } catch (error) {
    if (!String(error).includes('NOSCRIPT')) throw error;
    argv[0] = script.body;
    return client.send('EVAL', argv);
  }
}
