import { DAY_MS, generateFleetSnapshot } from '@zw/core';
import { createApiKey, createOrganization, type PrismaClient, registerCluster } from '@zw/db';
import { pending, push } from './api.js';
import { Client, HEAVY, startLoadThread } from './savings-load.js';
import { inParallel, waitUntil, withBenchStack, withCapturedAt } from './local-stack.js';

/**
 * Savings beside the other reads, and one organization unable to slow another's, measured with the real
 * api and worker on history recorded through ingest:
 *  - `GET /v1/savings?groupBy=service` over 30 days of a 1,000-Service cluster (a snapshot a day, states
 *    changing every day: ~30,000 intervals) against the first page of the same cluster's Services list,
 *    one client, as a ratio of medians (target ≤ 5), the two measured in alternating blocks;
 *  - another organization's Services list and zones, alone and while the first saturates savings (24
 *    concurrent clients) and ingest (2 pushers), as ratios of medians (target ≤ 3).
 * The API runs without its read-model cache, so every read is a query; the database is vacuumed after the
 * history is written, as autovacuum keeps a real one.
 */

const CALM = { nodes: 12, zones: 3, services: 200, endpointsPerService: 3 };
const DAYS = 30;
const SAMPLES = 60;
/** The savings ratio's two requests are measured in this many alternating blocks of SAMPLES / BLOCKS. */
const BLOCKS = 4;
const SAVINGS_CLIENTS = 24;
const PUSHERS = 2;
/** Two minutes at the ingest rate limit (120 per minute per cluster). */
const PREPARED_PUSHES = 240;
const SAVINGS_TARGET = 5;
const ISOLATION_TARGET = 3;

export async function runSavingsBench(): Promise<string[]> {
  return withBenchStack('savings', {}, async ({ prisma, startApi, startWorker }) => {
    const apiUrl = await startApi({ RATE_LIMIT_REQUESTS: '100000000', QUERY_CACHE_TTL_MS: '0' });
    startWorker({ WORKER_CONCURRENCY: '2' });
    const started = performance.now();
    const heavy = await tenant(prisma, 'bench-heavy', HEAVY, DAYS, apiUrl);
    const calm = await tenant(prisma, 'bench-calm', CALM, 1, apiUrl);
    await waitUntil(async () => (await pending(prisma)) === 0, 900_000, 500);
    // The history of 30 days is written in seconds here; a real one has been vacuumed by autovacuum as it
    // grew, so the reads are measured on a vacuumed database, not on one still holding every old row version.
    await prisma.$executeRawUnsafe('VACUUM ANALYZE');
    const intervals = await prisma.$queryRawUnsafe<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM service_intervals WHERE cluster_id = $1::uuid',
      heavy.clusterId,
    );
    const setupSeconds = (performance.now() - started) / 1000;
    const client = new Client(apiUrl);
    const savingsPath = '/v1/savings?groupBy=service';
    const servicesOf = (clusterId: string) => `/v1/clusters/${clusterId}/services`;
    const zonesOf = (clusterId: string) => `/v1/clusters/${clusterId}/zones`;

    await client.median(heavy.apiKey, savingsPath, 20);
    const [savings, heavyServices] = await client.alternatingMedians(
      heavy.apiKey,
      [savingsPath, servicesOf(heavy.clusterId)],
      SAMPLES,
      BLOCKS,
    );
    const savingsRatio = savings / heavyServices;

    await client.median(calm.apiKey, servicesOf(calm.clusterId), 20);
    const calmServices = await client.median(calm.apiKey, servicesOf(calm.clusterId), SAMPLES);
    const calmZones = await client.median(calm.apiKey, zonesOf(calm.clusterId), SAMPLES);
    const underLoad = async (pushers: number) => {
      const load = await startLoadThread({
        apiUrl,
        apiKey: heavy.apiKey,
        agentToken: heavy.agentToken,
        savingsPath,
        savingsClients: SAVINGS_CLIENTS,
        pushers,
        preparedPushes: pushers > 0 ? PREPARED_PUSHES : 0,
      });
      let stopped = false;
      try {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const services = await client.median(calm.apiKey, servicesOf(calm.clusterId), SAMPLES);
        const zones = await client.median(calm.apiKey, zonesOf(calm.clusterId), SAMPLES);
        stopped = true;
        return { services, zones, counts: await load.stop() };
      } finally {
        if (!stopped) await load.stop();
      }
    };
    const savingsOnly = await underLoad(0);
    const loaded = await underLoad(PUSHERS);
    const servicesRatio = loaded.services / calmServices;
    const zonesRatio = loaded.zones / calmZones;
    const verdict = (ratio: number, target: number) => (ratio <= target ? 'ok' : 'OVER');
    return [
      `savings: data recorded through ingest and the worker in ${setupSeconds.toFixed(0)} s: a ${HEAVY.services}-Service cluster with ${DAYS} daily snapshots (${intervals[0]?.n ?? 0} intervals), another organization's ${CALM.services}-Service cluster; the API without its read-model cache`,
      `savings: GET ${savingsPath} over 30 days: median ${savings.toFixed(1)} ms; the same cluster's Services list (first page): ${heavyServices.toFixed(1)} ms`,
      `savings groupBy=service ratio: ${savingsRatio.toFixed(2)}x the Services list (target <= ${SAVINGS_TARGET}x): ${verdict(savingsRatio, SAVINGS_TARGET)}`,
      `savings: isolation, savings load only (${savingsOnly.counts.savingsOk} answered, ${savingsOnly.counts.savingsRefused} refused 429): Services list ${savingsOnly.services.toFixed(1)} ms (${(savingsOnly.services / calmServices).toFixed(2)}x), zones ${savingsOnly.zones.toFixed(1)} ms (${(savingsOnly.zones / calmZones).toFixed(2)}x)`,
      `savings: while one organization runs ${SAVINGS_CLIENTS} concurrent savings clients and ${PUSHERS} pushers of gzip 1,000-Service snapshots (${loaded.counts.savingsOk} savings answered, ${loaded.counts.savingsRefused} refused 429, ${loaded.counts.pushes} snapshots accepted in ${loaded.counts.seconds.toFixed(1)} s, ${(loaded.counts.pushes / loaded.counts.seconds).toFixed(2)}/s, ${loaded.counts.pushesRefused} pushes refused 429 by the ingest rate limit), another's reads:`,
      `savings: isolation: Services list median ${calmServices.toFixed(1)} ms alone, ${loaded.services.toFixed(1)} ms under load: ${servicesRatio.toFixed(2)}x (target <= ${ISOLATION_TARGET}x): ${verdict(servicesRatio, ISOLATION_TARGET)}`,
      `savings: isolation: zones median ${calmZones.toFixed(1)} ms alone, ${loaded.zones.toFixed(1)} ms under load: ${zonesRatio.toFixed(2)}x (target <= ${ISOLATION_TARGET}x): ${verdict(zonesRatio, ISOLATION_TARGET)}`,
    ];
  });
}

interface BenchTenant {
  apiKey: string;
  clusterId: string;
  agentToken: string;
}

/** An organization with one cluster and `days` daily snapshots, the Services' states changing each day. */
async function tenant(
  prisma: PrismaClient,
  slug: string,
  shape: typeof HEAVY,
  days: number,
  apiUrl: string,
): Promise<BenchTenant> {
  const organization = await createOrganization(prisma, { slug });
  const { key } = await createApiKey(prisma, { organizationId: organization.id, name: 'bench', role: 'viewer' });
  const { cluster, agentToken } = await registerCluster(prisma, { organizationSlug: slug, name: slug, cloud: 'aws' });
  const now = Date.now();
  await inParallel(
    Array.from({ length: days }, (_, day) => day),
    2,
    async (day) => {
      const list = generateFleetSnapshot({ ...shape, autoShare: 0.5, seed: 1 + (day % 3) });
      await push(apiUrl, agentToken, withCapturedAt(list, new Date(now - (days - day) * DAY_MS + 60_000)));
    },
  );
  return { apiKey: key, clusterId: cluster.id, agentToken };
}
