import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/**
 * One fresh, migrated PostgreSQL database per test file, cloned from a template that the real migration
 * command (npm run db:migrate's script) built. The template is rebuilt whenever a migration changes.
 */
const ROOT = join(__dirname, '..', '..');
const SERVER_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';

export function databaseUrl(database: string): string {
  return `${SERVER_URL}/${database}`;
}

function migrationsFingerprint(): string {
  const dir = join(ROOT, 'prisma', 'migrations');
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) {
    if (name.endsWith('.toml')) continue;
    hash.update(name).update(readFileSync(join(dir, name, 'migration.sql')));
  }
  return hash.digest('hex').slice(0, 12);
}

/** Migrates a database of the shared server (by name), or of another server when its URL is given. */
export function migrate(database: string, url = databaseUrl(database)): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'prisma-migrate.mjs'), 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(tag: string): Promise<TestDatabase> {
  const template = `zw_tpl_${migrationsFingerprint()}`;
  const name = `zw_test_${tag}_${process.pid}`;
  await withAdmin(async (admin) => {
    await admin.query(`SELECT pg_advisory_lock(hashtext('zonewise-test-template'))`);
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (exists.rowCount === 0) {
        const stale = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'zw\\_tpl\\_%'`);
        for (const row of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
        const result = migrate(template);
        if (result.status !== 0) throw new Error(`migrating the test template failed:\n${result.output}`);
      }
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    } finally {
      await admin.query(`SELECT pg_advisory_unlock(hashtext('zonewise-test-template'))`);
    }
  });
  return {
    name,
    url: databaseUrl(name),
    drop: () =>
      withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => undefined)),
  };
}
