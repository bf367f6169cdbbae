#!/bin/sh
# Stand-in for Prisma's native schema-engine binary, which cannot be downloaded on these machines.
# `prisma generate/validate/format` only need a path that exists; anything that would really run the
# engine (prisma migrate ...) fails loudly here instead of silently printing nothing.
echo "zonewise: the native Prisma schema engine is not installed here; use npm run db:migrate | db:create | db:drift | db:status (scripts/prisma-migrate.mjs, WASM engine)" >&2
exit 1
