import { afterAll, describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import postgres from 'postgres';
import { MIGRATIONS_FOLDER } from '../../src/db/open';
import { scratchDatabase } from '../helpers/backends';
import { answers, freePort, serverEnv, spawnSvc, until, type SvcProcess } from '../helpers/svc-process';

// A Deployment's replicas (or compose's instances) start together on an empty Postgres: five
// real svc processes at once, three times over, each round on a new database. Every one must
// come up ready, with one set of tables between them and one bootstrap key.
const EXTERNAL = Boolean(process.env.DATABASE_URL);
if (!EXTERNAL) console.warn('first-deploy: skipped, it needs DATABASE_URL');

const INSTANCES = 5;
const ROUNDS = 3;
const MIGRATIONS = readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith('.sql')).length;

describe.skipIf(!EXTERNAL)('instances starting together on an empty database', () => {
  const started: SvcProcess[] = [];
  afterAll(async () => {
    for (const child of started) child.proc.kill('SIGKILL');
    await Promise.all(started.map((c) => c.proc.exited));
  });

  for (let round = 1; round <= ROUNDS; round++)
    test(`round ${round}: all ${INSTANCES} are ready; one migrates, one bootstraps`, async () => {
      const db = await scratchDatabase(process.env.DATABASE_URL!);
      const ports = Array.from({ length: INSTANCES }, freePort);
      const instances = ports.map((port) => spawnSvc(serverEnv({ PORT: String(port), DATABASE_URL: db.url })));
      started.push(...instances);
      try {
        await Promise.all(
          ports.map((port, i) =>
            until(
              `instance ${i} ready`,
              async () => {
                if (instances[i]!.proc.exitCode !== null) throw new Error(`instance ${i} exited: ${instances[i]!.stderr}`);
                return answers(`http://127.0.0.1:${port}/health/ready`, 200)();
              },
              90_000,
            ),
          ),
        );
        const sql = postgres(db.url, { max: 1, onnotice: () => {} });
        try {
          const [applied] = await sql`select count(*)::int as n from drizzle.__drizzle_migrations`;
          expect(applied!.n).toBe(MIGRATIONS);
          const [keys] = await sql`select count(*)::int as n from api_keys`;
          expect(keys!.n).toBe(1);
          const [accounts] = await sql`select count(*)::int as n from accounts where display_name = 'bootstrap'`;
          expect(accounts!.n).toBe(1);
        } finally {
          await sql.end();
        }
        expect(instances.filter((c) => c.stderr.includes('created an ADMIN API key')).length).toBe(1);
      } finally {
        for (const child of instances) child.proc.kill('SIGTERM');
        await Promise.all(instances.map((c) => c.proc.exited));
        await db.drop();
      }
    }, 180_000);
});
