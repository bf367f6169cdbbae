import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from './databases.js';
import { waitFor } from './wait.js';

/**
 * A PostgreSQL and a Redis of a test's own, on free ports in a temporary directory, that the test may
 * stop and start to make real outages: never the shared servers other tests use.
 */

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Runs a PostgreSQL tool as the `postgres` user when this process is root (initdb refuses root). */
function asPostgres(command: string, args: string[]): string[] {
  const bin = join(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim(), command);
  return process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', bin, ...args] : [bin, ...args];
}

function run([command, ...args]: string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface PrivatePostgres {
  port: number;
  /** The URL of a database on it (created and migrated by {@link createMigratedDatabase}). */
  url(database: string): string;
  start(): Promise<void>;
  /** Stops it at once (`immediate`: like a crash, connections dropped). */
  stop(): void;
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'zw-private-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  run(asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']));
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=16MB`;
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  let running = false;
  const instance: PrivatePostgres = {
    port,
    url,
    async start() {
      run(asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']));
      running = true;
      await waitFor('the private PostgreSQL', () => canConnect(url('postgres')), 20_000);
    },
    stop() {
      run(asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']));
      running = false;
    },
    async destroy() {
      if (running) instance.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await instance.start();
  return instance;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** Creates a database on the private server and migrates it with the real migration command. */
export async function createMigratedDatabase(server: PrivatePostgres, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: server.url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const result = migrate(name, server.url(name));
  if (result.status !== 0) throw new Error(`migrating ${name} failed:\n${result.output}`);
  return server.url(name);
}

export interface PrivateRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const instance: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--maxmemory-policy',
          'noeviction',
        ],
        { stdio: 'ignore' },
      );
      await waitFor('the private Redis', async () => {
        const { connect } = await import('node:net');
        return new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          socket.once('connect', () => (socket.destroy(), resolve(true)));
          socket.once('error', () => resolve(false));
        });
      });
    },
    async stop() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      const exited = once(running, 'exit');
      running.kill('SIGKILL');
      await exited;
    },
  };
  await instance.start();
  return instance;
}
