import type { INestApplication, INestApplicationContext, LoggerService } from '@nestjs/common';
import { type KubernetesList, moneyReplacer } from '@zw/core';
import { createApiKey, createOrganization, createPrismaClient, type PrismaClient, registerCluster } from '@zw/db';
import { createApiApp } from '../../apps/api/src/http-app.js';
import { MetricsServer } from '../../apps/api/src/ops/metrics-server.js';
import { createTestDatabase, databaseUrl, type TestDatabase } from './databases.js';
import { buildProjects } from './processes.js';
import { deletePrefixKeys, TEST_REDIS_URL, uniquePrefix } from './redis.js';
import { waitFor } from './wait.js';
import { startInProcessWorker } from './worker.js';

/**
 * The whole stack for query-API tests, in this process: a fresh migrated database, the API on an
 * ephemeral port and a worker, sharing the real Redis under a prefix of their own. Snapshots go in through
 * the real ingest route and are recorded by the real worker.
 */
export interface QueryStack {
  db: TestDatabase;
  prisma: PrismaClient;
  prefix: string;
  api: INestApplication;
  url: string;
  /** The API's metrics port (`<metricsUrl>/metrics`), apart from `url` as in production. */
  metricsUrl: string;
  worker: INestApplicationContext;
  env: Record<string, string>;
  stop(): Promise<void>;
}

const quiet = { logger: ['error' as const] };

export async function startQueryStack(
  tag: string,
  overrides: Record<string, string> = {},
  options: {
    workerLogger?: LoggerService;
    /** The PostgreSQL server of the stack's database (a private one); the shared one by default. */
    serverUrl?: string;
    /** A streaming replica of serverUrl: DATABASE_READ_URL names the database there. */
    readServerUrl?: string;
  } = {},
): Promise<QueryStack> {
  const db = await createTestDatabase(tag, options.serverUrl);
  const prefix = uniquePrefix(tag);
  const env = {
    DATABASE_URL: db.url,
    ...(options.readServerUrl ? { DATABASE_READ_URL: databaseUrl(db.name, options.readServerUrl) } : {}),
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    JOB_BACKOFF_MS: '100',
    SWEEP_GRACE_MS: '1000',
    SWEEP_EVERY_MS: '1000',
    DB_POOL_MAX: '4',
    READ_POOL_MAX: '4',
    // Webhook secrets are encrypted at rest: a test-only key, never a deployment's.
    REPORT_WEBHOOK_ENCRYPTION_KEYS: 'test-1:a-test-only-webhook-secret-key',
    ...overrides,
  };
  Object.assign(process.env, env);
  buildProjects(['apps/api']); // the ingest threads run the compiled thread script
  const prisma = createPrismaClient({ databaseUrl: db.url, poolMax: 2 });
  const api = await createApiApp(quiet);
  await api.listen(0, '127.0.0.1');
  const url = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  const metricsUrl = await api.get(MetricsServer).listen(0, '127.0.0.1');
  const worker = await startInProcessWorker(env, options.workerLogger ? { logger: options.workerLogger } : quiet);
  return {
    db,
    prisma,
    prefix,
    api,
    url,
    metricsUrl,
    worker,
    env,
    async stop() {
      await worker.close();
      await api.close();
      await prisma.$disconnect();
      await deletePrefixKeys(prefix);
      await db.drop();
    },
  };
}

export interface Tenant {
  organizationId: string;
  slug: string;
  adminKey: string;
  /** A viewer's key (read only). */
  readKey: string;
  operatorKey: string;
}

/** An organization with an admin key, an operator key and a viewer (read-only) key. */
export async function createTenant(prisma: PrismaClient, slug: string): Promise<Tenant> {
  const organization = await createOrganization(prisma, { slug });
  const admin = await createApiKey(prisma, { organizationId: organization.id, name: 'admin', role: 'admin' });
  const read = await createApiKey(prisma, { organizationId: organization.id, name: 'read', role: 'viewer' });
  const operator = await createApiKey(prisma, { organizationId: organization.id, name: 'operator', role: 'operator' });
  return { organizationId: organization.id, slug, adminKey: admin.key, readKey: read.key, operatorKey: operator.key };
}

/** A cluster of the tenant, created directly in the database, with its agent token. */
export async function createCluster(
  prisma: PrismaClient,
  tenant: Tenant,
  name: string,
  extra: { cloud?: 'aws' | 'gcp' | 'azure' | 'onprem' | 'other'; region?: string; crossZonePricePerGb?: number } = {},
): Promise<{ id: string; token: string }> {
  const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: tenant.slug, name, ...extra });
  return { id: cluster.id, token: agentToken };
}

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** An HTTP client of the API authenticating with one key (or none). */
export function apiClient(url: string, key: string | null) {
  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    const parsed = /json/.test(type) && text ? (JSON.parse(text) as T) : (text as T);
    return { status: response.status, headers: response.headers, body: parsed } as Answer<T>;
  }
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers), // eslint-disable-line @typescript-eslint/no-explicit-any
    post: <T = any>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}), // eslint-disable-line @typescript-eslint/no-explicit-any
    patch: <T = any>(path: string, body: unknown) => call<T>('PATCH', path, body), // eslint-disable-line @typescript-eslint/no-explicit-any
    put: <T = any>(path: string, body: unknown) => call<T>('PUT', path, body), // eslint-disable-line @typescript-eslint/no-explicit-any
    delete: <T = any>(path: string) => call<T>('DELETE', path), // eslint-disable-line @typescript-eslint/no-explicit-any
    call,
  };
}

/** Pushes a snapshot through the real ingest route with the cluster's agent token; returns its id. */
export async function pushSnapshot(url: string, agentToken: string, list: KubernetesList): Promise<string> {
  const response = await fetch(`${url}/v1/ingest/snapshots`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(list),
  });
  if (response.status !== 202) throw new Error(`push answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { snapshotId: string }).snapshotId;
}

/** Waits until the worker recorded every one of these snapshots. */
export async function waitProcessed(prisma: PrismaClient, snapshotIds: string[], timeoutMs = 30_000): Promise<void> {
  await waitFor(
    `${snapshotIds.length} snapshot(s) processed`,
    async () => {
      const failed = await prisma.snapshot.findFirst({ where: { id: { in: snapshotIds }, status: 'failed' } });
      if (failed) throw new Error(`snapshot ${failed.id} failed: ${failed.error}`);
      return (
        (await prisma.snapshot.count({ where: { id: { in: snapshotIds }, status: 'processed' } })) ===
        snapshotIds.length
      );
    },
    timeoutMs,
  );
}

/** A figure as the API answers it: every `cost` in cents. */
export function inCents<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, moneyReplacer)) as T;
}

export interface GraphQLAnswer {
  status: number;
  headers: Headers;
  body: { data?: any; errors?: { message: string; extensions: Record<string, unknown> }[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** POSTs a GraphQL request body (`{query, variables}`, or anything hostile) to /graphql with a key (or none). */
export async function postGraphQL(url: string, key: string | null, body: unknown): Promise<GraphQLAnswer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as GraphQLAnswer['body'] };
}
