import { type ExecutedQuery, ReadDb } from '@zw/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../../../test/support/databases.js';
import {
  type PrivatePostgres,
  startPrivatePostgres,
  startPrivateReplica,
} from '../../../test/support/private-services.js';
import {
  apiClient,
  createCluster,
  createTenant,
  pushSnapshot,
  type QueryStack,
  startQueryStack,
  type Tenant,
  waitProcessed,
} from '../../../test/support/query-api.js';
import { timeline } from '../../../test/support/snapshots.js';
import { waitFor } from '../../../test/support/wait.js';
import { HEAVY_READ_DB } from '../src/heavy-reads/heavy-read-db.provider.js';
import { REPORTS_READ_DB } from '../../worker/src/reports/reports-worker.config.js';
import { REPLICA_READ_DB } from '../src/read-db.provider.js';

/**
 * Heavy reads on a real streaming replica: a private primary (initdb) and its replica (pg_basebackup -R) on
 * ports of this file's own, DATABASE_READ_URL naming the replica. A replica whose replay is paused shows
 * the primary as it was: the answers prove which server served them.
 */

let primary: PrivatePostgres;
let replica: PrivatePostgres;
let stack: QueryStack;
let tenant: Tenant;
let cluster: { id: string; token: string };
const start = new Date(Date.now() - 6 * 3600_000);
const sequence = timeline(8, 10, 2, start);
const from = new Date(start.getTime() - 3600_000).toISOString();
const to = new Date().toISOString();

async function onServer<T>(serverUrl: string, database: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl(database, serverUrl) });
  await client.connect();
  try {
    return (await client.query(sql)).rows[0] as T;
  } finally {
    await client.end();
  }
}

/** Waits until the replica has replayed everything the primary wrote so far. */
async function replicaCaughtUp(): Promise<void> {
  const { lsn } = await onServer<{ lsn: string }>(primary.serverUrl, 'postgres', 'SELECT pg_current_wal_lsn() AS lsn');
  await waitFor('the replica to replay the primary', async () => {
    const row = await onServer<{ done: boolean }>(
      replica.serverUrl,
      'postgres',
      `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`,
    );
    return row.done;
  });
}

const pauseReplay = () => onServer(replica.serverUrl, 'postgres', 'SELECT pg_wal_replay_pause()');
const resumeReplay = () => onServer(replica.serverUrl, 'postgres', 'SELECT pg_wal_replay_resume()');

/** The servers that answered the statements `run` made through `db`. */
async function servedBy(db: ReadDb, run: () => Promise<unknown>): Promise<Set<string>> {
  const seen: ExecutedQuery[] = [];
  const stop = db.onQuery((query) => seen.push(query));
  try {
    await run();
  } finally {
    stop();
  }
  return new Set(seen.map((query) => query.server));
}

const savings = () =>
  apiClient(stack.url, tenant.readKey).get(`/v1/savings?clusterId=${cluster.id}&from=${from}&to=${to}`);
const trends = () =>
  apiClient(stack.url, tenant.readKey).get(`/v1/clusters/${cluster.id}/trends?from=${from}&to=${to}&bucket=hour`);

beforeAll(async () => {
  primary = await startPrivatePostgres();
  replica = await startPrivateReplica(primary);
  stack = await startQueryStack(
    'read-replica',
    // A bound no test reaches: reads stay on a paused replica until it stops.
    { DATABASE_READ_MAX_LAG_MS: String(3600_000) },
    { serverUrl: primary.serverUrl, readServerUrl: replica.serverUrl },
  );
  tenant = await createTenant(stack.prisma, 'replica');
  cluster = await createCluster(stack.prisma, tenant, 'replicated');
  const ids: string[] = [];
  for (const list of sequence.slice(0, -1)) ids.push(await pushSnapshot(stack.url, cluster.token, list));
  await waitProcessed(stack.prisma, ids, 60_000);
  await replicaCaughtUp();
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await replica?.dispose();
  await primary?.dispose();
});

describe('heavy reads on a streaming replica (DATABASE_READ_URL)', () => {
  it('answers savings and trends from the replica: a paused replica keeps the answers it had', async () => {
    const heavy = stack.api.get<ReadDb>(HEAVY_READ_DB);
    const replicaReads = stack.api.get<ReadDb>(REPLICA_READ_DB);
    const before = { savings: await savings(), trends: await trends() };
    expect(before.savings.status).toBe(200);
    expect(before.trends.status).toBe(200);
    expect(await servedBy(heavy, savings)).toEqual(new Set(['replica']));
    expect(await servedBy(replicaReads, trends)).toEqual(new Set(['replica']));
    expect((await heavy.query<{ port: number }>('SELECT inet_server_port() AS port'))[0].port).toBe(replica.port);

    // The primary moves on (one more snapshot recorded); the replica does not replay it.
    await pauseReplay();
    try {
      await waitProcessed(stack.prisma, [await pushSnapshot(stack.url, cluster.token, sequence.at(-1)!)]);
      expect((await trends()).body).toEqual(before.trends.body);
      expect((await savings()).body).toEqual(before.savings.body);
    } finally {
      await resumeReplay();
    }
    const after = await waitFor('the replayed snapshot in the trends', async () => {
      const answer = await trends();
      return JSON.stringify(answer.body) !== JSON.stringify(before.trends.body) ? answer : null;
    });
    expect(after.status).toBe(200);
    expect(replicaReads.replicaStatus()).toMatchObject({ usable: true });
    const metrics = (await apiClient(stack.metricsUrl, null).get<string>('/metrics')).body;
    expect(metrics).toContain('zonewise_read_replica_in_use{pool="heavy"} 1');
    expect(metrics).toContain('zonewise_read_replica_in_use{pool="trends"} 1');
    expect(metrics).toMatch(/^zonewise_read_replica_lag_seconds\{pool="heavy"\} [0-9.e-]+$/m);
  }, 120_000);

  it("builds the worker's reports from the replica", async () => {
    await replicaCaughtUp();
    const reports = stack.worker.get<ReadDb>(REPORTS_READ_DB);
    const admin = apiClient(stack.url, tenant.adminKey);
    const servers = await servedBy(reports, async () => {
      const schedule = (await admin.post('/v1/report-schedules', { name: 'replica', cadence: 'daily' })).body.schedule;
      const run = await admin.post(`/v1/report-schedules/${schedule.id}/run`, {});
      await waitFor(
        'the report to be ready',
        async () => (await admin.get(`/v1/reports/${run.body.report.id}`)).body.status === 'ready',
        120_000,
        250,
      );
    });
    expect(servers).toEqual(new Set(['replica']));
  }, 180_000);

  it('reads from the primary once the replica lags past the bound, and from the replica once it caught up', async () => {
    await replicaCaughtUp();
    const db = new ReadDb({
      databaseUrl: databaseUrl(stack.db.name, primary.serverUrl),
      replica: { databaseUrl: databaseUrl(stack.db.name, replica.serverUrl), maxLagMs: 500, checkEveryMs: 100 },
    });
    const count = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM clusters'))[0].n);
    try {
      const clusters = await count();
      await pauseReplay();
      try {
        await createCluster(stack.prisma, tenant, 'written-while-paused');
        // The replica's last replayed commit grows older: past 500 ms, reads go to the primary and see it.
        const fresh = await waitFor('a read past the bound to reach the primary', async () => {
          const n = await count();
          return n === clusters + 1 ? n : null;
        });
        expect(fresh).toBe(clusters + 1);
        expect(await servedBy(db, count)).toEqual(new Set(['primary']));
        expect(db.replicaStatus()).toMatchObject({ usable: false });
        expect(db.replicaStatus()!.lagMs).toBeGreaterThan(500);
      } finally {
        await resumeReplay();
      }
      await waitFor('the caught-up replica to serve again', async () => (await servedBy(db, count)).has('replica'));
      expect(await count()).toBe(clusters + 1);
    } finally {
      await db.end();
    }
  }, 120_000);

  it('falls back to the primary while the replica is down, answering every request, and returns to it', async () => {
    const heavy = stack.api.get<ReadDb>(HEAVY_READ_DB);
    const replicaReads = stack.api.get<ReadDb>(REPLICA_READ_DB);
    await replicaCaughtUp();
    const expected = { savings: (await savings()).body, trends: (await trends()).body };
    await replica.stop();
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const answers = { savings: await savings(), trends: await trends() };
        expect([answers.savings.status, answers.trends.status]).toEqual([200, 200]);
        expect({ savings: answers.savings.body, trends: answers.trends.body }).toEqual(expected);
      }
      expect(await servedBy(heavy, savings)).toEqual(new Set(['primary']));
      expect(await servedBy(replicaReads, trends)).toEqual(new Set(['primary']));
      expect(heavy.replicaStatus()).toMatchObject({ usable: false, lagMs: null });
      const metrics = (await apiClient(stack.metricsUrl, null).get<string>('/metrics')).body;
      expect(metrics).toContain('zonewise_read_replica_in_use{pool="heavy"} 0');
      expect(metrics).not.toMatch(/^zonewise_read_replica_lag_seconds\{pool="heavy"\}/m);
    } finally {
      await replica.start();
    }
    await waitFor('the replica to serve again', async () => (await servedBy(heavy, savings)).has('replica'), 60_000);
    expect((await savings()).body).toEqual(expected.savings);
  }, 120_000);
});
