import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { accepts, freePort, type PrivateServer, privateServer } from './private-services.js';
import { waitFor } from './wait.js';

/**
 * A real Redis Cluster of one test file's own: six Debian `redis-server` processes in cluster mode on
 * private ports (client and bus ports both free ones), made into three masters with a replica each by
 * `redis-cli --cluster create … --cluster-replicas 1`. Each node keeps an append-only file written on
 * every command, so a node stopped and started again is an outage, not a loss of its data; a master
 * killed for good is replaced by its replica (failover after --cluster-node-timeout).
 */
export interface RedisCluster {
  /** REDIS_URL naming the cluster by all six nodes (redis+cluster://127.0.0.1:p1,…). */
  url: string;
  nodes: PrivateServer[];
  /** The node that serves `key`'s slot now (its master). */
  masterOf(key: string): Promise<PrivateServer>;
  /** Waits until every running node says cluster_state:ok and every slot's master is a running node. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Stops every node and deletes their data. */
  dispose(): Promise<void>;
}

/** Milliseconds a master may be unreachable before its replica takes over. */
export const CLUSTER_NODE_TIMEOUT_MS = 2000;

export async function startRedisCluster(): Promise<RedisCluster> {
  const directory = mkdtempSync(join(tmpdir(), 'zw-redis-cluster-'));
  const nodes: PrivateServer[] = [];
  try {
    for (let index = 0; index < 6; index++) {
      const port = await freePort();
      const busPort = await freePort();
      const nodeDirectory = join(directory, String(index));
      mkdirSync(nodeDirectory);
      const node = privateServer(port, {
        directory: nodeDirectory,
        stopSignal: 'SIGKILL',
        launch: () =>
          spawn(
            'redis-server',
            [
              ...['--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDirectory],
              ...['--cluster-enabled', 'yes', '--cluster-port', String(busPort)],
              ...['--cluster-config-file', join(nodeDirectory, 'nodes.conf')],
              ...['--cluster-node-timeout', String(CLUSTER_NODE_TIMEOUT_MS)],
              // A replica takes over however long its master has been away (a test stops masters early).
              ...['--cluster-replica-validity-factor', '0', '--repl-diskless-sync-delay', '0'],
              ...['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
              ...['--maxmemory-policy', 'noeviction'],
            ],
            { stdio: ['ignore', 'pipe', 'pipe'] },
          ),
        ready: () => accepts(port),
      });
      nodes.push(node);
    }
    await Promise.all(nodes.map((node) => node.start()));
    execFileSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { stdio: 'pipe', timeout: 60_000 },
    );
  } catch (error) {
    await Promise.all(nodes.map((node) => node.dispose()));
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }

  // The nodes as the test sees them: stopping or starting one keeps track of which are running.
  const running = new Set<PrivateServer>();
  const tracked = nodes.map((node): PrivateServer => ({
    ...node,
    async start() {
      await node.start();
      running.add(tracked[nodes.indexOf(node)]);
    },
    async stop() {
      running.delete(tracked[nodes.indexOf(node)]);
      await node.stop();
    },
  }));
  for (const node of tracked) running.add(node);

  const onNode = async <T>(port: number, run: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return await run(redis);
    } finally {
      redis.disconnect();
    }
  };

  const cluster: RedisCluster = {
    url: `redis+cluster://${tracked.map((node) => `127.0.0.1:${node.port}`).join(',')}`,
    nodes: tracked,
    async masterOf(key) {
      const [first] = running;
      const port = await onNode(first.port, async (redis) => {
        const slot = (await redis.cluster('KEYSLOT', key)) as number;
        const ranges = await redis.cluster('SLOTS');
        const range = ranges.find(([from, to]) => slot >= from && slot <= to);
        if (!range) throw new Error(`no node serves slot ${slot}`);
        return range[2][1];
      });
      const node = tracked.find((candidate) => candidate.port === port);
      if (!node) throw new Error(`slot owner ${port} is not a node of this cluster`);
      return node;
    },
    async waitHealthy(timeoutMs = 60_000) {
      await waitFor(
        'the Redis Cluster to be healthy (cluster_state:ok, every slot on a running master)',
        async () => {
          const ports = new Set([...running].map((node) => node.port));
          for (const node of running) {
            const healthy = await onNode(node.port, async (redis) => {
              const info = (await redis.cluster('INFO')) as string;
              if (!/cluster_state:ok/.test(info)) return false;
              const ranges = await redis.cluster('SLOTS');
              const covered = ranges.reduce((sum, [from, to]) => sum + (to - from + 1), 0);
              return covered === 16384 && ranges.every((range) => ports.has(range[2]![1]));
            }).catch(() => false);
            if (!healthy) return false;
          }
          return true;
        },
        timeoutMs,
        200,
      );
    },
    async dispose() {
      await Promise.all(nodes.map((node) => node.dispose()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
  await cluster.waitHealthy();
  // Every replica in sync with its master: a master stopped now has a replica to take over from it.
  await waitFor(
    'every replica of the Redis Cluster to be in sync',
    async () => {
      let online = 0;
      for (const node of tracked) {
        const info = await onNode(node.port, (redis) => redis.info('replication')).catch(() => '');
        online += (info.match(/^slave\d+:.*state=online/gm) ?? []).length;
      }
      return online === 3;
    },
    60_000,
    200,
  );
  return cluster;
}
