import { gzipSync } from 'node:zlib';
import { DAY_MS, generateFleetSnapshot } from '@zw/core';
import { createApiKey, ReadDb, registerCluster, reportClusters, reportServiceRows } from '@zw/db';
import { pending } from './api.js';
import { processCpu } from './cpu-time.js';
import { inParallel, waitUntil, withBenchStack, withCapturedAt } from './local-stack.js';

/**
 * Organization-wide reads (`BENCH_ONLY=orgread`): one organization of BENCH_ORG_CLUSTERS clusters
 * (200) × BENCH_ORG_SERVICES Services (1,000), one snapshot per cluster pushed through ingest (gzip) and
 * processed by the worker, then `GET /v1/savings?groupBy=service` and `groupBy=cluster` over the default
 * 30 days, against one cluster's Services list (first page) as the floor, measured in alternating blocks;
 * and the organization-wide report's Service rows (libs/db reports.ts `reportServiceRows`, every Service's
 * integrals over the last 30 days, as a scheduled report of the whole fleet reads them) on a pool of the
 * heavy reads' settings, with the CPU time of its Postgres backend, and the whole report made through the
 * product (see wholeReportLine). Target: each within 1 s (issue 24). The API runs without its read-model cache, with its
 * production heavy-read pool (statement timeout 5 s: a read past it answers 503, counted here).
 */

const SHAPE = { nodes: 30, zones: 3, endpointsPerService: 3, autoShare: 0.5 };
const SAMPLES = 12;
const BLOCKS = 3;
const TARGET_MS = 1000;

export async function runOrgReadBench(): Promise<string[]> {
  const clusterCount = Number(process.env.BENCH_ORG_CLUSTERS ?? 200);
  const services = Number(process.env.BENCH_ORG_SERVICES ?? 1000);
  // The whole report covers every Service of the organization (the generator's own among them), past the
  // default REPORT_MAX_SERVICES.
  const perCluster = generateFleetSnapshot({ ...SHAPE, services, seed: 1 }).items.filter(
    (item) => item.kind === 'Service',
  ).length;
  const reportMax = { REPORT_MAX_SERVICES: String(Math.max(200_000, clusterCount * perCluster)) };
  return withBenchStack('org', {}, async ({ prisma, databaseUrl, startApi, startWorker }) => {
    const apiUrl = await startApi({ RATE_LIMIT_REQUESTS: '100000000', QUERY_CACHE_TTL_MS: '0', ...reportMax });
    startWorker({ WORKER_CONCURRENCY: '2', ...reportMax });
    const started = performance.now();
    const slug = 'bench-org';
    const clusters: { id: string; token: string }[] = [];
    for (let n = 0; n < clusterCount; n++) {
      const { cluster, agentToken } = await registerCluster(prisma, {
        organizationSlug: slug,
        name: `cluster-${String(n).padStart(4, '0')}`,
        cloud: 'aws',
      });
      clusters.push({ id: cluster.id, token: agentToken });
    }
    const organization = await prisma.organization.findUniqueOrThrow({ where: { slug } });
    const { key } = await createApiKey(prisma, { organizationId: organization.id, name: 'bench', role: 'viewer' });
    // A few distinct fleets, each body made once (gzip, as agents send them).
    const bodies = [1, 2, 3].map((seed) =>
      gzipSync(
        JSON.stringify(
          withCapturedAt(generateFleetSnapshot({ ...SHAPE, services, seed }), new Date(Date.now() - 3600_000)),
        ),
      ),
    );
    await inParallel(
      clusters.map((cluster, n) => ({ ...cluster, body: bodies[n % bodies.length] })),
      4,
      async ({ token, body }) => {
        for (;;) {
          const response = await fetch(`${apiUrl}/v1/ingest/snapshots`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'content-encoding': 'gzip',
            },
            body,
          });
          await response.text();
          if (response.status === 202) return;
          if (response.status !== 429) throw new Error(`orgread bench: push answered ${response.status}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      },
    );
    await waitUntil(async () => (await pending(prisma)) === 0, 3_600_000, 1000);
    await prisma.$executeRawUnsafe('VACUUM ANALYZE');
    const [{ n: serviceCount }] = await prisma.$queryRawUnsafe<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM cluster_services',
    );
    const setupSeconds = (performance.now() - started) / 1000;

    const paths = [
      '/v1/savings?groupBy=service',
      '/v1/savings?groupBy=cluster',
      `/v1/clusters/${clusters[0].id}/services`,
    ];
    const samples = paths.map(() => [] as number[]);
    const failures = paths.map(() => new Map<number, number>());
    const timed = async (which: number, recorded = true) => {
      const before = performance.now();
      const response = await fetch(apiUrl + paths[which], { headers: { authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      if (!recorded) return;
      if (response.status === 200) samples[which].push(performance.now() - before);
      else failures[which].set(response.status, (failures[which].get(response.status) ?? 0) + 1);
    };
    for (const which of paths.keys()) await timed(which, false); // warm: prepared statements, plans
    for (let block = 0; block < BLOCKS; block++) {
      for (const which of paths.keys()) {
        for (let i = 0; i < SAMPLES / BLOCKS; i++) await timed(which);
      }
    }
    const floor = median(samples[2]);
    const lines = [
      `orgread: one organization of ${clusterCount} clusters, ${serviceCount} Services (a snapshot per cluster through ingest and the worker, set up in ${setupSeconds.toFixed(0)} s); the API without its read-model cache; floor: one cluster's Services list (first page) median ${floor.toFixed(1)} ms`,
    ];
    for (const which of [0, 1]) {
      const refused = [...failures[which]].map(([status, count]) => `${count} answered ${status}`).join(', ');
      if (samples[which].length === 0) {
        lines.push(
          `orgread: GET ${paths[which]}: no answer in ${SAMPLES} tries (${refused}) (target <= ${TARGET_MS} ms): OVER`,
        );
        continue;
      }
      const ms = median(samples[which]);
      const verdict = ms <= TARGET_MS && failures[which].size === 0 ? 'ok' : 'OVER';
      lines.push(
        `orgread: GET ${paths[which]} over 30 days: median ${ms.toFixed(0)} ms (${(ms / floor).toFixed(1)}x the floor; ${samples[which].length} of ${SAMPLES} answered 200${refused ? `, ${refused}` : ''}) (target <= ${TARGET_MS} ms): ${verdict}`,
      );
    }
    lines.push(await reportRowsLine(databaseUrl, organization.id));
    const { key: adminKey } = await createApiKey(prisma, {
      organizationId: organization.id,
      name: 'bench-admin',
      role: 'admin',
    });
    const whole = await wholeReportLine(apiUrl, adminKey);
    lines.push(whole.line, await reportDownloadLine(apiUrl, adminKey, whole.reportId));
    return lines;
  });
}

const REPORT_SAMPLES = 3;
const REPORT_PRICE_PER_GB = 0.01;

/** The organization-wide report's Service rows over the last 30 days: median wall time and backend CPU time. */
async function reportRowsLine(databaseUrl: string, organizationId: string): Promise<string> {
  const db = new ReadDb({ databaseUrl, poolMax: 1, oneCorePerStatement: true });
  try {
    const clusters = await reportClusters(db, organizationId, null);
    const prices = clusters.map(() => REPORT_PRICE_PER_GB); // the price changes no work
    const [{ pid }] = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const walls: number[] = [];
    const cpus: number[] = [];
    let rows = 0;
    for (let n = 0; n < REPORT_SAMPLES; n++) {
      const now = new Date();
      const query = {
        clusters: { ids: clusters.map((row) => row.id), prices },
        from: new Date(now.getTime() - 30 * DAY_MS),
        to: now,
        now,
      };
      const [cpuBefore, before] = [processCpu(pid), performance.now()];
      rows = (await reportServiceRows(db, query)).length;
      walls.push(performance.now() - before);
      const cpuAfter = processCpu(pid);
      if (cpuBefore !== null && cpuAfter !== null) cpus.push(cpuAfter - cpuBefore);
    }
    const ms = median(walls);
    return `orgread: reportServiceRows over 30 days (${rows} rows): median ${ms.toFixed(0)} ms, Postgres CPU ${cpus.length ? `${median(cpus).toFixed(0)} ms` : 'not measured'} (target <= ${TARGET_MS} ms): ${ms <= TARGET_MS ? 'ok' : 'OVER'}`;
  } finally {
    await db.end();
  }
}

const WHOLE_REPORT_SAMPLES = 2;

/**
 * The organization's whole report made through the product: a monthly schedule of the fleet (JSON, CSV
 * and HTML) run now (`POST /v1/report-schedules/{id}/run`), timed from the request until the report
 * reads `ready`: the worker's reads, the document, its renderings and their storage.
 */
async function wholeReportLine(apiUrl: string, adminKey: string): Promise<{ line: string; reportId: string }> {
  const call = async (path: string, body?: unknown) => {
    const response = await fetch(apiUrl + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`orgread bench: ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const { schedule } = (await call('/v1/report-schedules', { name: 'bench', cadence: 'monthly' })) as {
    schedule: { id: string };
  };
  const walls: number[] = [];
  let services = 0;
  let reportId = '';
  for (let n = 0; n < WHOLE_REPORT_SAMPLES; n++) {
    const before = performance.now();
    const { report } = (await call(`/v1/report-schedules/${schedule.id}/run`, {})) as {
      report: { id: string };
    };
    let made: Record<string, unknown> = {};
    await waitUntil(
      async () => {
        made = await call(`/v1/reports/${report.id}`);
        if (made.status === 'failed') throw new Error(`orgread bench: the report failed: ${JSON.stringify(made)}`);
        return made.status === 'ready';
      },
      600_000,
      50,
    );
    walls.push(performance.now() - before);
    reportId = report.id;
    services = Number((made.summary as { totals?: { services?: number } } | undefined)?.totals?.services ?? 0);
  }
  const ms = median(walls);
  const line = `orgread: the organization's whole report (monthly, JSON + CSV + HTML, ${services} Services), run to ready: median ${ms.toFixed(0)} ms of ${WHOLE_REPORT_SAMPLES} (${walls.map((wall) => wall.toFixed(0)).join(', ')} ms) (target <= ${TARGET_MS} ms): ${ms <= TARGET_MS ? 'ok' : 'OVER'}`;
  return { line, reportId };
}

const DOWNLOAD_SAMPLES = 3;

/** The whole report's JSON downloaded (`GET /v1/reports/{id}/download?format=json`), read to its last byte. */
async function reportDownloadLine(apiUrl: string, adminKey: string, reportId: string): Promise<string> {
  const walls: number[] = [];
  let bytes = 0;
  for (let n = 0; n < DOWNLOAD_SAMPLES; n++) {
    const before = performance.now();
    const response = await fetch(`${apiUrl}/v1/reports/${reportId}/download?format=json`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    if (!response.ok) throw new Error(`orgread bench: the download answered ${response.status}`);
    bytes = (await response.arrayBuffer()).byteLength;
    walls.push(performance.now() - before);
  }
  const ms = median(walls);
  return `orgread: that report's JSON downloaded (${(bytes / 1e6).toFixed(0)} MB): median ${ms.toFixed(0)} ms of ${DOWNLOAD_SAMPLES} (target <= ${TARGET_MS} ms): ${ms <= TARGET_MS ? 'ok' : 'OVER'}`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}
