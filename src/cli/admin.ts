import { parseArgs } from 'node:util';
import { createKeyForFirstAccount } from '../auth/bootstrap';
import { ConfigError, loadConfig } from '../config';
import { openStorage } from '../db/open';
import { DataDirLockedError, lockDataDir } from '../lifecycle/data-lock';
import { ApiCallError, callApi } from './api-client';
import { CliRefusal, resolveTarget, type Target } from './target';

const USAGE = `usage: npm run admin -- <command> [options]

  keys create --type ADMIN|INFERENCE [--description TEXT]
  keys list
  keys delete <keyId>
  keys guardrails <keyId> [--set NAME,...]   (show; --set replaces them, --set "" removes all)
  accounts list [--limit N]
  accounts show <accountId>
  accounts credit <accountId> <amount> [--currency USD|DIEM|VCU|BUNDLED_CREDITS|USDC] [--notes TEXT]
  accounts create [--description NAME]   (a lasting account with one ADMIN key, no credit)
  accounts create-scratch [--description NAME]
  accounts delete <accountId>            (scratch accounts only, with everything they hold)
  accounts guardrails <accountId> [--set NAME,...]   (every key of the account runs them)
  balance
  usage [--limit N]                      (entries per page, 10 to 1000)

Commands go through the running server's API with an ADMIN key (--key or SVC_ADMIN_KEY;
the server at --url or SVC_URL, else the one holding the embedded database, else the
configured port). Without a key, only "keys create" works, directly on the database, and
never on an embedded database a running server holds.
`;

/** Bad usage: exit code 2 with the usage text. */
class UsageError extends Error {}

const print = (value: unknown) => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Creates a key directly in the database (no server running): the recovery path when no ADMIN key is at hand. */
async function createKeyDirectly(type: 'ADMIN' | 'INFERENCE') {
  const config = loadConfig();
  // Held while writing, so a server cannot start on the same files meanwhile.
  const lock = config.databaseUrl ? null : lockDataDir(config.dataDir);
  const storage = await openStorage(config);
  try {
    const { secret, row } = await createKeyForFirstAccount(storage.db, type, config.bootstrapCreditUsd);
    process.stdout.write(`Created ${type} key ${row.id} on account ${row.accountId} (shown once):\n${secret}\n`);
  } finally {
    await storage.close();
    lock?.release();
  }
}

type Api = Extract<Target, { kind: 'api' }>;
type Options = { type?: string; description?: string; currency?: string; notes?: string; limit?: string; set?: string };

/** The commands that go through the API, by "<group> <verb>". */
const API_COMMANDS: Record<string, (api: Api, args: string[], o: Options) => Promise<void>> = {
  async 'keys create'(api, _args, o) {
    const type = keyType(o.type);
    const body = { apiKeyType: type, description: o.description ?? `Created by the svc CLI (${type})` };
    const { data } = (await callApi(api, 'POST', '/api_keys', body)) as { data: { id: string; apiKey: string } };
    process.stdout.write(`Created ${type} key ${data.id} (shown once):\n${data.apiKey}\n`);
  },
  'keys list': async (api) => print(await callApi(api, 'GET', '/api_keys')),
  'keys delete': async (api, [id]) => print(await callApi(api, 'DELETE', `/api_keys?id=${encodeURIComponent(required(id, 'keyId'))}`)),
  'keys guardrails': async (api, [id], o) => print(await guardrails(api, `/admin/keys/${encodeURIComponent(required(id, 'keyId'))}`, o)),
  'accounts list': async (api, _a, o) => print(await callApi(api, 'GET', `/admin/accounts${o.limit ? `?limit=${Number(o.limit)}` : ''}`)),
  'accounts show': async (api, [id]) =>
    print(await callApi(api, 'GET', `/admin/accounts/${encodeURIComponent(required(id, 'accountId'))}`)),
  async 'accounts credit'(api, [id, amount], o) {
    const body = { currency: o.currency ?? 'USD', amount: required(amount, 'amount'), ...(o.notes ? { notes: o.notes } : {}) };
    print(await callApi(api, 'POST', `/admin/accounts/${encodeURIComponent(required(id, 'accountId'))}/credits`, body));
  },
  'accounts create': async (api, _a, o) => print(await createAccount(api, false, o.description)),
  'accounts create-scratch': async (api, _a, o) => print(await createAccount(api, true, o.description)),
  'accounts delete': async (api, [id]) =>
    print(await callApi(api, 'DELETE', `/admin/accounts/${encodeURIComponent(required(id, 'accountId'))}`)),
  'accounts guardrails': async (api, [id], o) =>
    print(await guardrails(api, `/admin/accounts/${encodeURIComponent(required(id, 'accountId'))}`, o)),
  balance: async (api) => print(await callApi(api, 'GET', '/billing/balance')),
  // usage-history pages by `pageSize` (10 to 1000); the CLI keeps the --limit flag it documents.
  usage: async (api, _a, o) => print(await callApi(api, 'GET', `/billing/usage-history${o.limit ? `?pageSize=${Number(o.limit)}` : ''}`)),
};

/** Creates an account with one ADMIN key: scratch (deletable with everything it holds) or lasting. */
function createAccount(api: Api, scratch: boolean, name: string | undefined) {
  return callApi(api, 'POST', '/admin/accounts', { scratch, ...(name ? { displayName: name } : {}) });
}

/** Reads the guardrails attached at `base`, or replaces them with the comma-separated `--set` list. */
function guardrails(api: Api, base: string, o: Options) {
  if (o.set === undefined) return callApi(api, 'GET', `${base}/guardrails`);
  const names = o.set
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return callApi(api, 'PUT', `${base}/guardrails`, { guardrails: names });
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`missing <${name}>`);
  return value;
}

function keyType(value: string | undefined): 'ADMIN' | 'INFERENCE' {
  const type = (value ?? 'INFERENCE').toUpperCase();
  if (type !== 'ADMIN' && type !== 'INFERENCE') throw new UsageError(`--type must be ADMIN or INFERENCE, not "${value}"`);
  return type;
}

/** Runs one operator command from `argv` (without the runtime and script). */
export async function runAdmin(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      type: { type: 'string' },
      description: { type: 'string' },
      currency: { type: 'string' },
      notes: { type: 'string' },
      limit: { type: 'string' },
      set: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  // One-word commands (balance, usage) take the rest as arguments; the others are "<group> <verb>".
  const single = API_COMMANDS[positionals[0] ?? ''] ? 1 : 2;
  const name = positionals.slice(0, single).join(' ');
  const args = positionals.slice(single);
  const command = API_COMMANDS[name];
  if (values.help) return void process.stdout.write(USAGE);
  if (!command) throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  const config = loadConfig();
  const target = resolveTarget(config, { url: values.url, key: values.key });
  if (target.kind === 'api') return command(target, args, values);
  if (name !== 'keys create')
    throw new CliRefusal(`"${name}" goes through the server's API: pass an ADMIN key with --key or SVC_ADMIN_KEY`);
  return createKeyDirectly(keyType(values.type));
}

/** Runs the CLI and exits: 2 for bad usage, 3 for a refusal or a configuration error, 1 for a failed call. */
export function main(argv: string[]) {
  runAdmin(argv).catch((error) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`svc admin: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    const refused = error instanceof ConfigError || error instanceof CliRefusal || error instanceof DataDirLockedError;
    process.stderr.write(`svc admin: ${refused || error instanceof ApiCallError ? error.message : (error?.stack ?? error)}\n`);
    process.exit(refused ? 3 : 1);
  });
}

if (import.meta.main) main(process.argv.slice(2));
