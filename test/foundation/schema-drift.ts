/**
 * Prints, as JSON, the SQL drizzle-kit would generate between the newest migration snapshot
 * and `src/db/schema.ts` (`[]` when they agree). Run in its own process by the migrations
 * test: drizzle-kit's API adds an enumerable `random` to Array.prototype, which breaks every
 * `for...in` over an array in the process that loads it (apg-js, the SIWE message parser).
 */
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_FOLDER } from '../../src/db/open';
import * as schema from '../../src/db/schema';

const snapshots = readdirSync(join(MIGRATIONS_FOLDER, 'meta')).filter((f) => f.endsWith('_snapshot.json'));
const last = snapshots.sort().at(-1)!;
const previous = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', last), 'utf8'));
const current = generateDrizzleJson(schema as Record<string, unknown>, previous.id);
process.stdout.write(JSON.stringify({ snapshot: last, statements: await generateMigration(previous, current) }));
