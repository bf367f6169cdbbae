#!/usr/bin/env node
// Prisma migrations without Prisma's native schema-engine binary, which cannot be downloaded here.
// Drives the same engine compiled to WASM (@prisma/schema-engine-wasm, byte-identical to the CLI's
// bundled copy) through @prisma/adapter-pg, so `deploy` writes `_prisma_migrations` exactly as
// `prisma migrate deploy` does and the folders it creates are ones `prisma migrate deploy` accepts.
//
//   node scripts/prisma-migrate.mjs deploy        apply pending migrations (creates the database if missing)
//   node scripts/prisma-migrate.mjs create NAME   write prisma/migrations/<utc>_NAME/migration.sql from schema.prisma
//   node scripts/prisma-migrate.mjs diff          SQL from the migrations to schema.prisma (exit 2 if not empty)
//   node scripts/prisma-migrate.mjs drift         SQL from the live database to schema.prisma (exit 2 if not empty)
//   node scripts/prisma-migrate.mjs status        migration history vs the database (exit 1 if not up to date)
//
// Needs DATABASE_URL. Each workaround below says why it exists.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';
import { parse } from 'pg-connection-string';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const schemaPath = join(root, 'prisma', 'schema.prisma');
const migrationsDir = join(root, 'prisma', 'migrations');
const lockfileName = 'migration_lock.toml';
const filters = { externalTables: [], externalEnums: [] };

function fail(message) {
  console.error(`prisma-migrate: ${message}`);
  process.exit(1);
}

function connectionConfig() {
  const url = process.env.DATABASE_URL;
  if (!url) fail('DATABASE_URL is not set (e.g. postgresql://postgres@127.0.0.1:5432/zonewise)');
  const { database, ...rest } = parse(url);
  if (!database) fail('DATABASE_URL names no database');
  // Workaround (a): discrete fields, never connectionString, or the shadow pool would reach the real DB.
  return { ...rest, port: rest.port ? Number(rest.port) : undefined, database };
}

// `prisma migrate deploy` creates a missing database; so does this.
async function ensureDatabase(cfg) {
  const admin = new pg.Client({ ...cfg, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [cfg.database]);
    if (rowCount === 0) {
      await admin.query(`CREATE DATABASE "${cfg.database.replaceAll('"', '""')}"`);
      console.error(`prisma-migrate: created database ${cfg.database}`);
    }
  } catch (error) {
    if (error.code !== '42P04') throw error; // created concurrently by someone else: fine
  } finally {
    await admin.end();
  }
}

// Workaround (b): adapter-pg drops the shadow database before closing its pool ("being accessed by other users").
class PgWithShadow extends PrismaPg {
  async connectToShadowDb() {
    const main = await this.connect();
    const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID()}`;
    await main.executeScript(`CREATE DATABASE "${database}"`);
    const shadow = await new PrismaPg({ ...this.config, database }).connect();
    const closeShadow = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await closeShadow();
      await main.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
      await main.dispose();
    };
    return shadow;
  }
}

async function patchAdapter(cfg) {
  const probe = await new PrismaPg(cfg).connect();
  const adapterProto = Object.getPrototypeOf(probe);
  const queryableProto = Object.getPrototypeOf(adapterProto);
  await probe.dispose();
  // Workaround (c): the engine's describer reads "char" columns (OID 18), which adapter-pg cannot map.
  const performIO = queryableProto.performIO;
  queryableProto.performIO = async function (query) {
    const result = await performIO.call(this, query);
    for (const field of result?.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
    return result;
  };
  // Workaround (d): adapter-pg splits scripts on ';' (breaks $$ bodies, strings) and is not atomic.
  // One simple-protocol query runs a multi-statement script in one implicit transaction.
  adapterProto.executeScript = async function (script) {
    try {
      await this.client.query(script);
    } catch (error) {
      this.onError(error);
    }
  };
}

async function loadEngine(adapterFactory) {
  const wasmPath = join(
    dirname(fileURLToPath(import.meta.resolve('@prisma/schema-engine-wasm'))),
    'schema_engine_bg.wasm',
  );
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  const log = (line) => {
    if (process.env.PRISMA_MIGRATE_DEBUG) console.error(line);
  };
  const schemaText = readFileSync(schemaPath, 'utf8');
  return bg.SchemaEngine.new({ datamodels: [[schemaPath, schemaText]] }, log, adapterFactory);
}

function schemaFiles() {
  return { files: [{ path: schemaPath, content: readFileSync(schemaPath, 'utf8') }] };
}

function migrationsList() {
  const lockPath = join(migrationsDir, lockfileName);
  const dirs = existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir: migrationsDir,
    lockfile: { path: lockfileName, content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: dirs.map((path) => {
      const file = join(migrationsDir, path, 'migration.sql');
      const content = existsSync(file)
        ? { tag: 'ok', value: readFileSync(file, 'utf8') }
        : { tag: 'error', value: `${file} not found` };
      return { path, migrationFile: { path: 'migration.sql', content } };
    }),
  };
}

function migrationsSource() {
  const list = migrationsList();
  return list.lockfile.content === null ? { tag: 'empty' } : { tag: 'migrations', ...list };
}

function utcStamp(date = new Date()) {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

const commands = {
  async deploy(engine) {
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList: migrationsList(), filters });
    if (appliedMigrationNames.length === 0) console.log('No pending migrations to apply.');
    for (const name of appliedMigrationNames) console.log(`Applied migration ${name}`);
    return 0;
  },
  async create(engine, name) {
    if (!name || !/^[a-z0-9_]+$/.test(name)) fail('create needs a name of [a-z0-9_]+');
    const { stdout } = await engine.diff({
      from: migrationsSource(),
      to: { tag: 'schemaDatamodel', ...schemaFiles() },
      script: true,
      exitCode: true,
      filters,
    });
    const sql = stdout ?? '';
    if (!/\S/.test(sql.replace(/^--.*$/gm, ''))) {
      console.log('schema.prisma matches the migrations: nothing to create.');
      return 0;
    }
    mkdirSync(migrationsDir, { recursive: true });
    const lockPath = join(migrationsDir, lockfileName);
    if (!existsSync(lockPath)) {
      writeFileSync(
        lockPath,
        '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
      );
    }
    const dir = join(migrationsDir, `${utcStamp()}_${name}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'migration.sql'), sql);
    console.log(`Created ${dir}/migration.sql (sha256 ${createHash('sha256').update(sql).digest('hex')})`);
    return 0;
  },
  async diff(engine) {
    const { stdout, exitCode } = await engine.diff({
      from: migrationsSource(),
      to: { tag: 'schemaDatamodel', ...schemaFiles() },
      script: true,
      exitCode: true,
      filters,
    });
    process.stdout.write(stdout ?? '');
    return exitCode;
  },
  async drift(engine) {
    const { stdout, exitCode } = await engine.diff({
      from: { tag: 'schemaDatasource', ...schemaFiles(), configDir: root },
      to: { tag: 'schemaDatamodel', ...schemaFiles() },
      script: true,
      exitCode: true,
      filters,
    });
    if (exitCode === 0) console.error('No drift: the database matches schema.prisma.');
    else console.error('Drift: the database differs from schema.prisma; SQL that would reconcile it:');
    process.stdout.write(stdout ?? '');
    return exitCode;
  },
  async status(engine) {
    const result = await engine.diagnoseMigrationHistory({
      migrationsList: migrationsList(),
      optInToShadowDatabase: false,
      filters,
    });
    const problems = [];
    if (result.failedMigrationNames.length) problems.push(`failed: ${result.failedMigrationNames.join(', ')}`);
    if (result.editedMigrationNames.length)
      problems.push(`edited after apply: ${result.editedMigrationNames.join(', ')}`);
    const history = result.history;
    if (history?.diagnostic === 'databaseIsBehind')
      problems.push(`not applied: ${history.unappliedMigrationNames.join(', ')}`);
    if (history?.diagnostic === 'migrationsDirectoryIsBehind')
      problems.push(`in the database only: ${history.unpersistedMigrationNames.join(', ')}`);
    if (history?.diagnostic === 'historiesDiverge')
      problems.push(`histories diverge after ${history.lastCommonMigrationName ?? '(start)'}`);
    if (!result.hasMigrationsTable) problems.push('no _prisma_migrations table');
    const count = migrationsList().migrationDirectories.length;
    if (problems.length === 0) console.log(`${count} migrations; database schema is up to date.`);
    else console.log(`${count} migrations; ${problems.join('; ')}`);
    return problems.length === 0 ? 0 : 1;
  },
};

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!commands[command]) fail(`usage: prisma-migrate.mjs ${Object.keys(commands).join('|')} [name]`);
  const cfg = connectionConfig();
  // deploy creates a missing database as `prisma migrate deploy` does; create/diff only need a server to
  // hold their temporary shadow database, so an empty one is fine there too.
  if (command !== 'drift' && command !== 'status') await ensureDatabase(cfg);
  await patchAdapter(cfg);
  const pool = new pg.Pool(cfg);
  let engine;
  let code;
  try {
    engine = await loadEngine(bindMigrationAwareSqlAdapterFactory(new PgWithShadow(pool)));
    code = await commands[command](engine, ...args);
  } catch (error) {
    console.error(`prisma-migrate ${command} failed: ${String(error?.message ?? error).trim()}`);
    code = 1;
  } finally {
    engine?.free();
    await pool.end();
  }
  // The WASM engine leaves a timer pending after applyMigrations; don't linger for it.
  process.exit(code);
}

await main();
