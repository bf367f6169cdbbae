#!/bin/sh
# Assembles the runtime image's files from a built checkout (npm install && npm run build) into OUT:
# the compiled api, worker and agent (the generated Prisma client is compiled into libs/db/dist), the
# dashboard bundle, the migrations and the script that applies them, the role entrypoint (bin/zonewise),
# and the production dependencies only, at the versions package-lock.json pins.
#   sh deploy/image/runtime-files.sh <checkout> <out>
# The Dockerfile's build stage runs it into /out, which the runtime stage copies whole; the image test
# (test/repository/image.spec.ts) runs it into a temporary directory and starts the apps from there, so
# the two cannot drift apart.
set -eu

if [ "$#" -ne 2 ]; then
  echo "usage: runtime-files.sh <checkout> <out>" >&2
  exit 2
fi
src=$(CDPATH='' cd -- "$1" && pwd)
out=$2
for built in dist/apps/api/main.js dist/apps/worker/main.js dist/apps/agent/main.js dist/dashboard/index.html; do
  if [ ! -f "$src/$built" ]; then
    echo "runtime-files: $src/$built is missing: run npm install && npm run build first" >&2
    exit 2
  fi
done
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "runtime-files: $out is not empty" >&2
  exit 2
fi
mkdir -p "$out"

copy() { # path relative to the checkout, copied to the same path under OUT
  mkdir -p "$out/$(dirname "$1")"
  cp -R "$src/$1" "$out/$1"
}

copy package.json
copy package-lock.json
for manifest in "$src"/libs/*/package.json; do
  lib=libs/$(basename "$(dirname "$manifest")")
  copy "$lib/package.json"
  copy "$lib/dist"
done
for app in api worker agent; do copy "dist/apps/$app"; done
copy dist/dashboard
copy prisma/schema.prisma
copy prisma/migrations
copy scripts/prisma-migrate.mjs
mkdir -p "$out/bin"
cp "$src/deploy/image/zonewise" "$out/bin/zonewise"
chmod 0755 "$out/bin/zonewise"
# Type declarations and incremental-build state are for compilers; source maps stay (--enable-source-maps).
find "$out/dist" "$out/libs" \( -name '*.d.ts' -o -name '*.d.ts.map' -o -name '*.tsbuildinfo' \) -type f -exec rm -f {} +

# Production dependencies only. `npm ci --omit=dev` would keep the Prisma CLI and TypeScript: @prisma/client
# names them as optional peers, so the lock marks them devOptional, which --omit=dev alone does not drop.
# Without devDependencies in package.json nothing asks for them; the lock still pins every other version.
# --ignore-scripts: the root's postinstall is `prisma generate` (already compiled in), and no production
# dependency needs its install script (msgpackr-extract is optional, @scarf/scarf is telemetry).
cd "$out"
npm pkg delete devDependencies scripts
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
