#!/usr/bin/env bash
# Start the local PostgreSQL and Redis when they are not answering (development and CI machines run
# them natively; docker-compose.yml is the route for machines with a Docker engine).
set -uo pipefail

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

wait_for() { # name check
  for _ in $(seq 1 50); do "$2" && return 0; sleep 0.2; done
  echo "ensure-services: $1 did not come up" >&2
  return 1
}

if ! pg_up; then
  echo "ensure-services: starting PostgreSQL" >&2
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | sort -V | tail -n 1)" main start || true
  fi
  wait_for PostgreSQL pg_up || exit 1
fi

if ! redis_up; then
  echo "ensure-services: starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log --maxmemory-policy noeviction >/dev/null
  wait_for Redis redis_up || exit 1
fi

# Headless Chromium (Debian's package) for the HTML report's screenshot test; that test skips, saying
# so, when no browser is there. Never fatal: only the screenshot test needs it.
if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] && [ "${ZONEWISE_SKIP_CHROMIUM:-}" != "1" ] \
  && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ensure-services: installing chromium (for the HTML report screenshot test)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
    || echo "ensure-services: could not install chromium; the screenshot test will be skipped" >&2
fi
