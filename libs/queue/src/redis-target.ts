import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

/** Connection options of one server, as BullMQ takes them. */
export interface RedisConnectionOptions {
  host: string;
  port: number;
  db?: number;
  username?: string;
  password?: string;
  tls?: Record<string, never>;
  maxRetriesPerRequest: null;
  retryStrategy: (times: number) => number;
}

/** A connection to a single Redis or to a Redis Cluster: both answer the commands zonewise sends. */
export type RedisClient = Redis | Cluster;

/** Longest wait between two reconnects to Redis. */
export const REDIS_RECONNECT_MAX_MS = 2000;

/**
 * Decision: reconnect to Redis at most REDIS_RECONNECT_MAX_MS apart, however long it has been away.
 * BullMQ's own schedule grows to 20 s, so work resumed up to 20 s after Redis was back; a connect
 * attempt every 2 s costs nothing.
 */
export function redisReconnectDelayMs(times: number): number {
  return Math.min(200 * Math.max(1, times), REDIS_RECONNECT_MAX_MS);
}

export interface RedisNode {
  host: string;
  port: number;
}

/** What REDIS_URL names: one server, or a cluster's seed nodes, and how to authenticate. */
export interface RedisTarget {
  cluster: boolean;
  /** The server, or a cluster's seed nodes (any reachable one finds the rest). */
  nodes: RedisNode[];
  username?: string;
  password?: string;
  /** Logical database (single server only: a cluster has database 0 alone). */
  db?: number;
  tls: boolean;
}

const SCHEMES: Record<string, { cluster: boolean; tls: boolean }> = {
  'redis:': { cluster: false, tls: false },
  'rediss:': { cluster: false, tls: true },
  'redis+cluster:': { cluster: true, tls: false },
  'rediss+cluster:': { cluster: true, tls: true },
};

/**
 * Reads REDIS_URL: `redis://[user:password@]host[:port][/db]` (or `rediss://` for TLS) names one server;
 * `redis+cluster://[user:password@]host[:port][,host[:port]…]` (or `rediss+cluster://`) names a Redis
 * Cluster by one or more seed nodes. Throws a sentence saying what is wrong.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = /^([a-z+]+:)\/\//i.exec(url)?.[1]?.toLowerCase();
  const kind = scheme ? SCHEMES[scheme] : undefined;
  if (!kind) {
    throw new Error('must start with redis://, rediss://, redis+cluster:// or rediss+cluster://');
  }
  const rest = url.slice(scheme!.length + 2);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd >= 0 ? rest.slice(0, authorityEnd) : rest;
  const path = authorityEnd >= 0 ? rest.slice(authorityEnd) : '';
  const at = authority.lastIndexOf('@');
  const credentials = at >= 0 ? authority.slice(0, at) : '';
  const hosts = at >= 0 ? authority.slice(at + 1) : authority;
  const nodes = hosts.split(',').map((text) => parseNode(text));
  if (!kind.cluster && nodes.length > 1) {
    throw new Error('names several hosts: a Redis Cluster is named by redis+cluster://host1:port,host2:port');
  }
  const dbText = /^\/(\d*)$/.exec(path)?.[1];
  if (path !== '' && path !== '/' && dbText === undefined) throw new Error('the path must be a database number');
  const db = dbText ? Number(dbText) : undefined;
  if (kind.cluster && db !== undefined && db !== 0) {
    throw new Error('a Redis Cluster has database 0 only: drop the /<db> part');
  }
  const [user, password] = splitCredentials(credentials);
  return {
    cluster: kind.cluster,
    nodes,
    ...(user ? { username: user } : {}),
    ...(password ? { password } : {}),
    ...(db !== undefined && !kind.cluster ? { db } : {}),
    tls: kind.tls,
  };
}

/** Why REDIS_URL cannot be used, or null. */
export function redisUrlProblem(url: string): string | null {
  try {
    parseRedisUrl(url);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function parseNode(text: string): RedisNode {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(text);
  if (!match) throw new Error(`"${text}" is not a host[:port]`);
  const port = match[2] ? Number(match[2]) : 6379;
  if (port < 1 || port > 65535) throw new Error(`port ${port} is out of range`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function splitCredentials(text: string): [string | undefined, string | undefined] {
  if (!text) return [undefined, undefined];
  const colon = text.indexOf(':');
  const user = decodeURIComponent(colon >= 0 ? text.slice(0, colon) : text);
  const password = colon >= 0 ? decodeURIComponent(text.slice(colon + 1)) : undefined;
  return [user || undefined, password || undefined];
}

/** Whether REDIS_URL names a Redis Cluster. */
export function isClusterUrl(url: string): boolean {
  return parseRedisUrl(url).cluster;
}

/** Options of a connection to one server, or to each node of a cluster. */
function nodeOptions(target: RedisTarget) {
  return {
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
    // Required by BullMQ workers' blocking connections; harmless for producers.
    maxRetriesPerRequest: null,
    retryStrategy: redisReconnectDelayMs,
  };
}

/**
 * A client of REDIS_URL: ioredis' Redis for one server, its Cluster for a cluster (which follows the
 * cluster's slot map, MOVED and ASK on its own). `options` apply to the connection (to every node's).
 */
export function createRedisClient(url: string, options: RedisOptions = {}): RedisClient {
  const target = parseRedisUrl(url);
  if (!target.cluster) {
    const [node] = target.nodes;
    return new Redis({
      host: node.host,
      port: node.port,
      ...(target.db !== undefined ? { db: target.db } : {}),
      ...nodeOptions(target),
      ...options,
    });
  }
  const { enableOfflineQueue, lazyConnect, ...perNode } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: { ...nodeOptions(target), ...perNode },
    clusterRetryStrategy: redisReconnectDelayMs,
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    // Node addresses as the cluster announces them (CLUSTER SLOTS); TLS checks them against the seed's name.
    ...(target.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
  };
  return new Cluster(target.nodes, clusterOptions);
}

/** Cluster clients handed to BullMQ, which shares them and so never closes them: closed at shutdown. */
const sharedBullClusters = new Set<Cluster>();

/**
 * BullMQ's `connection`: plain options for one server (each queue and worker opens its own connections
 * from them, as before), a Cluster client for a cluster (BullMQ shares it between queues and duplicates
 * it for its workers' blocking reads; closeBullConnections closes it).
 */
export function bullConnection(url: string): RedisClient | RedisConnectionOptions {
  const target = parseRedisUrl(url);
  if (!target.cluster) return redisConnectionOptions(target);
  const client = createRedisClient(url) as Cluster;
  client.on('error', () => undefined);
  sharedBullClusters.add(client);
  return client;
}

/** Closes the cluster clients made for BullMQ (after the queues and workers closed). */
export async function closeBullConnections(): Promise<void> {
  const clients = [...sharedBullClusters];
  sharedBullClusters.clear();
  await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
}

/** BullModule.forRoot's options: the connection, and QUEUE_PREFIX (queues override it on a cluster). */
export function bullRootOptions(url: string, queuePrefix: string) {
  return { connection: bullConnection(url), prefix: queuePrefix };
}

/** A queue's registration (BullModule.registerQueue): its name and its prefix (see queuePrefixOf). */
export function queueRegistration(url: string, queuePrefix: string, name: string): { name: string; prefix: string } {
  return { name, prefix: queuePrefixOf(queuePrefix, name, isClusterUrl(url)) };
}

function redisConnectionOptions(target: RedisTarget): RedisConnectionOptions {
  const [node] = target.nodes;
  return {
    host: node.host,
    port: node.port,
    ...(target.db !== undefined ? { db: target.db } : {}),
    ...nodeOptions(target),
  };
}

/**
 * The BullMQ prefix of one queue. On a single server: QUEUE_PREFIX, as it always was, so jobs that wait
 * in an existing deployment's Redis stay where its workers look. On a cluster: QUEUE_PREFIX followed by
 * the queue's own hash tag (`zw:{snapshots}`), so every key of one queue lives in one slot (BullMQ's
 * scripts touch several keys of a queue at once, which a cluster refuses across slots: CROSSSLOT) and
 * different queues spread over the shards.
 */
export function queuePrefixOf(queuePrefix: string, queueName: string, cluster: boolean): string {
  return cluster ? `${queuePrefix}:{${queueName}}` : queuePrefix;
}

/**
 * A key of zonewise's own (not BullMQ's) that scripts use together with others of the same `group`: its
 * hash tag puts the group in one cluster slot. `zw:{events}:stream`, `zw:{sse:<org>}:key:<id>`…
 */
export function taggedKey(queuePrefix: string, group: string, ...rest: string[]): string {
  return [`${queuePrefix}:{${group}}`, ...rest].join(':');
}
