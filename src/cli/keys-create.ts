import { parseArgs } from 'node:util';
import { createKeyForFirstAccount } from '../auth/bootstrap';
import { ConfigError, loadConfig } from '../config';
import { openStorage } from '../db/open';

/**
 * `bun run keys:create --type ADMIN|INFERENCE`: creates a key on the bootstrap account in
 * the configured database and prints its secret once.
 */
async function main() {
  const { values } = parseArgs({ options: { type: { type: 'string', default: 'INFERENCE' } } });
  const type = values.type?.toUpperCase();
  if (type !== 'ADMIN' && type !== 'INFERENCE') {
    process.stderr.write('usage: bun run keys:create --type ADMIN|INFERENCE\n');
    process.exit(2);
  }
  const config = loadConfig();
  const storage = await openStorage(config);
  try {
    const { secret, row } = await createKeyForFirstAccount(storage.db, type, config.bootstrapCreditUsd);
    process.stdout.write(`Created ${type} key ${row.id} (shown once):\n${secret}\n`);
  } finally {
    await storage.close();
  }
}

main().catch((error) => {
  process.stderr.write(`keys:create: ${error instanceof ConfigError ? error.message : (error?.stack ?? error)}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
