import { defineConfig } from 'prisma/config';

// The native schema engine cannot be downloaded here; `prisma generate` only needs a path that exists, and
// the shim fails loudly if something tries to run a migration through it (see scripts/prisma-migrate.mjs).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= `${process.cwd()}/scripts/no-schema-engine.sh`;

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  // Not env('DATABASE_URL'): that throws when unset, and postinstall (prisma generate) must work without it.
  datasource: { url: process.env.DATABASE_URL ?? '' },
});
