import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { CAPTURED_AT_ANNOTATION, type KubernetesList } from '@zw/core';
import { createPrismaClient, type PrismaClient } from '@zw/db';
import pg from 'pg';
import { Redis } from 'ioredis';

/**
 * What the pipeline and API benchmarks share: the local PostgreSQL and Redis, the compiled apps as
 * child processes, and small polling helpers.
 */

export const ROOT = join(__dirname, '..', '..'); // dist/bench → repository root
export const SERVER_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function withCapturedAt(list: KubernetesList, at: Date): KubernetesList {
  return {
    ...list,
    metadata: { annotations: { ...list.metadata.annotations, [CAPTURED_AT_ANNOTATION]: at.toISOString() } },
  };
}

export async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`pipeline bench: timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Node options for the worker the benches start, split on spaces: `BENCH_WORKER_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=/tmp/prof"` profiles its main and analysis threads (Node refuses --cpu-prof in NODE_OPTIONS).
 */
const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);

export function startApp(app: 'api' | 'worker', env: Record<string, string>): ChildProcess {
  const nodeArgs = app === 'worker' ? WORKER_NODE_ARGS : [];
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist', 'apps', app, 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, METRICS_PORT: '0', ...env }, // the API's metrics port: any free one
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

export function migrate(databaseUrl: string): void {
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'prisma-migrate.mjs'), 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`bench: migration of ${databaseUrl} failed: ${run.stderr}`);
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

export async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

export async function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || (url.startsWith('redis') ? 6379 : 5432)), hostname);
  const connected = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => resolve(false));
  });
  socket.destroy();
  return connected;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export async function waitForPort(port: number): Promise<void> {
  await waitUntil(() => reachable(`http://127.0.0.1:${port}`), 30_000, 100);
}

/** One bench's private stack: its own database (migrated), queue prefix, and the apps it started. */
export interface BenchStack {
  /** The database's name, and its URL. */
  database: string;
  databaseUrl: string;
  prisma: PrismaClient;
  /** What every app of this stack is started with: its database, Redis and queue prefix. */
  env: Record<string, string>;
  prefix: string;
  /** Starts an API on a free port and waits until it listens; answers its base URL. */
  startApi(env?: Record<string, string>): Promise<string>;
  startWorker(env?: Record<string, string>): ChildProcess;
}

/**
 * Runs `run` on a stack of its own named `name`, then stops every app it started (workers first, so no
 * job is left half-done against a vanishing API), drops the database (kept, and named, with
 * BENCH_KEEP_DATABASE=1: for like-for-like rounds of one statement on the same data) and deletes the
 * queue's keys — whether `run` succeeded or not. Answers a "skipped" line when PostgreSQL or Redis is not reachable.
 */
export async function withBenchStack(
  name: string,
  options: { poolMax?: number },
  run: (stack: BenchStack) => Promise<string[]>,
): Promise<string[]> {
  if (!(await reachable(SERVER_URL)) || !(await reachable(REDIS_URL))) {
    return [`${name}: skipped: PostgreSQL (${SERVER_URL}) or Redis (${REDIS_URL}) not reachable`];
  }
  const database = `zw_bench${name}_${process.pid}`;
  const databaseUrl = `${SERVER_URL}/${database}`;
  const prefix = `zwbench${name}-${process.pid}`;
  migrate(databaseUrl);
  const prisma = createPrismaClient({ databaseUrl, poolMax: options.poolMax ?? 4 });
  const env = { DATABASE_URL: databaseUrl, REDIS_URL, QUEUE_PREFIX: prefix, NO_COLOR: '1' };
  const apis: ChildProcess[] = [];
  const workers: ChildProcess[] = [];
  const stack: BenchStack = {
    database,
    databaseUrl,
    prisma,
    env,
    prefix,
    async startApi(extra = {}) {
      const port = await freePort();
      apis.push(startApp('api', { ...env, ...extra, PORT: String(port), HOST: '127.0.0.1' }));
      await waitForPort(port);
      return `http://127.0.0.1:${port}`;
    },
    startWorker(extra = {}) {
      const worker = startApp('worker', { ...env, ...extra });
      workers.push(worker);
      return worker;
    },
  };
  try {
    return await run(stack);
  } finally {
    for (const child of [...workers, ...apis]) await stop(child);
    await prisma.$disconnect();
    if (process.env.BENCH_KEEP_DATABASE === '1') console.log(`bench: kept database ${database}`);
    else await dropDatabase(database);
    await deleteKeys(prefix);
  }
}
