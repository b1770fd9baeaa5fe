import type { Config } from '../config';
import { dataDirHolder } from '../lifecycle/data-lock';

/** Where an operator command goes: a running server's API, or the database directly when no server holds it. */
export type Target = { kind: 'api'; url: string; key: string } | { kind: 'direct' };

/** A command the CLI will not carry out, with the reason and what to do instead. */
export class CliRefusal extends Error {
  override name = 'CliRefusal';
}

/**
 * Chooses the target. With an ADMIN key (`--key` or SVC_ADMIN_KEY) the command goes through
 * the API of the server at `--url`/SVC_URL, else the one holding the embedded database, else
 * the configured port. Without a key it may write directly, but never into an embedded
 * database a running server holds: that process would never see the write (and two writers
 * can corrupt PGlite's files), which is how keys used to get lost.
 */
export function resolveTarget(config: Config, opts: { url?: string; key?: string }, env = process.env): Target {
  const key = opts.key ?? env.SVC_ADMIN_KEY;
  const holder = config.databaseUrl ? null : dataDirHolder(config.dataDir);
  const url = opts.url ?? env.SVC_URL ?? holder?.url ?? `http://127.0.0.1:${config.port}${config.basePath}`;
  if (key) return { kind: 'api', url: url.replace(/\/+$/, ''), key };
  if (holder)
    throw new CliRefusal(
      `the embedded database in ${config.dataDir} is held by a running svc (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''}); ` +
        'the CLI never writes into a database another process holds. Pass an ADMIN key (--key or SVC_ADMIN_KEY) ' +
        'to go through its API, or stop the server first.',
    );
  return { kind: 'direct' };
}
