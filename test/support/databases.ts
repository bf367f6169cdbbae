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
const KEPT_TEMPLATES = 10;

export function databaseUrl(database: string, serverUrl = SERVER_URL): string {
  return `${serverUrl}/${database}`;
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

export function migrate(database: string, serverUrl = SERVER_URL): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'prisma-migrate.mjs'), 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl(database, serverUrl) },
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres', serverUrl) });
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

/** A database on the shared test server, or on `serverUrl` (a private server, see private-services.ts). */
export async function createTestDatabase(tag: string, serverUrl = SERVER_URL): Promise<TestDatabase> {
  const template = `zw_tpl_${migrationsFingerprint()}`;
  const name = `zw_test_${tag}_${process.pid}`;
  await withAdmin(serverUrl, async (admin) => {
    await admin.query(`SELECT pg_advisory_lock(hashtext('zonewise-test-template'))`);
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (exists.rowCount === 0) {
        // Several checkouts (worktrees, branches) may test against one server, each with its own migrations:
        // keep the newest few templates so they do not drop each other's, and drop only older ones.
        const stale = await admin.query(
          `SELECT datname FROM pg_database WHERE datname LIKE 'zw\\_tpl\\_%' ORDER BY oid DESC OFFSET $1`,
          [KEPT_TEMPLATES - 1],
        );
        for (const row of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
        const result = migrate(template, serverUrl);
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
    url: databaseUrl(name, serverUrl),
    drop: () =>
      withAdmin(serverUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => undefined),
      ),
  };
}

export interface MigratedDatabase extends TestDatabase {
  /** Applies one more migration (by the end of its folder's name) as its SQL file says. */
  apply(migration: string): Promise<void>;
  /** Applies every migration not applied yet, so the schema is the one the current client expects. */
  applyRest(): Promise<void>;
}

/**
 * An organization "acme" with one cluster, written in SQL every schema since the first accepts (the
 * current client writes columns a migration test's older schema does not have yet); answers its id.
 */
export async function insertClusterAtAnySchema(databaseUrl: string, name = 'old'): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `WITH o AS (INSERT INTO organizations (id, slug, name, updated_at)
                  VALUES (gen_random_uuid(), 'acme', 'acme', now()) RETURNING id)
       INSERT INTO clusters (id, organization_id, name, updated_at)
       SELECT gen_random_uuid(), o.id, $1, now() FROM o RETURNING id::text AS id`,
      [name],
    );
    return rows[0].id;
  } finally {
    await client.end();
  }
}

/**
 * A fresh database with the migrations up to and including the one whose folder name ends with `last`,
 * applied as their SQL files say: the schema one migration back, for a test that fills it with data and
 * then applies the next migration to see that data carried over.
 */
export async function createDatabaseAtMigration(tag: string, last: string): Promise<MigratedDatabase> {
  const folders = migrationFolders();
  return createDatabaseWith(tag, folders.slice(0, folders.findIndex((name) => name.endsWith(last)) + 1));
}

/**
 * A fresh database with every migration but the one whose folder name ends with `skipped`: today's
 * schema without that change, for a test that records history as the current code does and then applies
 * it (`apply(skipped)`) to see that history read the same.
 */
export async function createDatabaseWithoutMigration(tag: string, skipped: string): Promise<MigratedDatabase> {
  const folders = migrationFolders();
  if (!folders.some((name) => name.endsWith(skipped))) throw new Error(`no migration ending with ${skipped}`);
  return createDatabaseWith(
    tag,
    folders.filter((name) => !name.endsWith(skipped)),
  );
}

function migrationFolders(): string[] {
  return readdirSync(join(ROOT, 'prisma', 'migrations'))
    .filter((name) => !name.endsWith('.toml'))
    .sort();
}

async function createDatabaseWith(tag: string, upTo: string[]): Promise<MigratedDatabase> {
  const dir = join(ROOT, 'prisma', 'migrations');
  const folders = migrationFolders();
  const sqlOf = (suffix: string) => {
    const folder = folders.find((name) => name.endsWith(suffix));
    if (!folder) throw new Error(`no migration ending with ${suffix}`);
    return readFileSync(join(dir, folder, 'migration.sql'), 'utf8');
  };
  const name = `zw_test_${tag}_${process.pid}`;
  await withAdmin(SERVER_URL, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  });
  const url = databaseUrl(name);
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  for (const folder of upTo) await run(sqlOf(folder));
  const applied = new Set(upTo);
  const apply = async (migration: string) => {
    const folder = folders.find((candidate) => candidate.endsWith(migration));
    if (folder) applied.add(folder);
    await run(sqlOf(migration));
  };
  return {
    name,
    url,
    apply,
    applyRest: async () => {
      for (const folder of folders.filter((candidate) => !applied.has(candidate))) await apply(folder);
    },
    drop: () =>
      withAdmin(SERVER_URL, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => undefined),
      ),
  };
}
