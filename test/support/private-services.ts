import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

/**
 * A PostgreSQL or Redis server of one test file's own, in a temporary directory on a free port, that the
 * test may stop and start again: outages are made on these, never on the servers other tests share.
 */
export interface PrivateServer {
  port: number;
  /** Starts the server (again) on the same port and data, and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it abruptly (SIGKILL for Redis, an immediate shutdown for Postgres) and waits for its exit. */
  stop(): Promise<void>;
  /** Stops it and deletes its data. */
  dispose(): Promise<void>;
  output(): string;
}

export interface PrivatePostgres extends PrivateServer {
  /** postgresql://postgres@127.0.0.1:<port> (trust authentication), without a database. */
  serverUrl: string;
}

export interface PrivateRedis extends PrivateServer {
  url: string;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function postgresBinDir(): string {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    const root = '/usr/lib/postgresql';
    const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
    if (!versions.length) throw new Error('no PostgreSQL server binaries (pg_config or /usr/lib/postgresql/*/bin)');
    return join(root, versions[0], 'bin');
  }
}

/** PostgreSQL refuses to run as root: there, the server runs as the postgres user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
  return { uid, gid };
}

export async function accepts(port: number): Promise<boolean> {
  const socket = new Socket();
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve).once('error', reject).connect(port, '127.0.0.1');
    });
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

export interface ServerProcess {
  launch(): ChildProcess;
  ready(): Promise<boolean>;
  stopSignal: NodeJS.Signals;
  directory: string;
}

export function privateServer(port: number, server: ServerProcess): PrivateServer {
  let child: ChildProcess | undefined;
  let output = '';
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill(server.stopSignal);
    await exited;
  };
  return {
    port,
    output: () => output,
    async start() {
      if (child) throw new Error(`the private server on port ${port} is running already`);
      child = server.launch();
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const starting = child;
      await waitFor(
        `the private server on port ${port} to accept connections`,
        async () => {
          if (starting.exitCode !== null) throw new Error(`the private server exited at start:\n${output}`);
          return server.ready();
        },
        30_000,
        50,
      );
    },
    stop,
    async dispose() {
      await stop();
      rmSync(server.directory, { recursive: true, force: true });
    },
  };
}

/** A fresh PostgreSQL cluster (initdb, trust, no fsync: tests need speed, not durability across crashes of the machine). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const user = serverUser();
  const directory = mkdtempSync(join(tmpdir(), 'zw-private-pg-'));
  if (user) chownSync(directory, user.uid, user.gid);
  const data = join(directory, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    stdio: 'ignore',
    ...user,
  });
  return startPostgresOn(directory, data);
}

/**
 * A streaming replica of a private PostgreSQL: `pg_basebackup -R` of the primary (initdb's pg_hba.conf lets
 * 127.0.0.1 replicate with trust) started on a port of its own, a hot standby answering reads.
 */
export async function startPrivateReplica(primary: PrivatePostgres): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const user = serverUser();
  const directory = mkdtempSync(join(tmpdir(), 'zw-private-pg-replica-'));
  if (user) chownSync(directory, user.uid, user.gid);
  const data = join(directory, 'data');
  execFileSync(
    join(bin, 'pg_basebackup'),
    ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--no-sync'],
    { stdio: 'ignore', ...user },
  );
  return startPostgresOn(directory, data);
}

async function startPostgresOn(directory: string, data: string): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const user = serverUser();
  const port = await freePort();
  const serverUrl = `postgresql://postgres@127.0.0.1:${port}`;
  const server = privateServer(port, {
    directory,
    // SIGQUIT: the immediate shutdown, what a crashed postmaster looks like to its clients.
    stopSignal: 'SIGQUIT',
    launch: () =>
      spawn(
        join(bin, 'postgres'),
        ['-D', data, '-p', String(port), '-k', directory, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
        { stdio: ['ignore', 'pipe', 'pipe'], ...user },
      ),
    ready: async () => (await accepts(port)) && pgAnswers(serverUrl),
  });
  await server.start();
  return { ...server, serverUrl };
}

async function pgAnswers(serverUrl: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: `${serverUrl}/postgres` });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A Redis that keeps its data across a stop (an append-only file written on every command), so a stop is
 * an outage, not a loss of data; deleting keys is how other tests show the loss.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const directory = mkdtempSync(join(tmpdir(), 'zw-private-redis-'));
  const port = await freePort();
  const server = privateServer(port, {
    directory,
    stopSignal: 'SIGKILL',
    launch: () =>
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          directory,
          '--save',
          '',
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--maxmemory-policy',
          'noeviction',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    ready: () => accepts(port),
  });
  await server.start();
  return { ...server, url: `redis://127.0.0.1:${port}` };
}
