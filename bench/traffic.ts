import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { trafficQuery } from '@zw/core';
import { createPrismaClient, type PrismaClient, registerCluster, createOrganization } from '@zw/db';
import { dropDatabase, migrate, reachable, ROOT, SERVER_URL, waitUntil } from './local-stack.js';

/**
 * Measuring one cluster's traffic for 10,000 Services: the worker's whole measurement (one Prometheus
 * query, the answer mapped to Services, 10,000 volumes stored and the roll-up recomputed) against its
 * floor, the same Prometheus round trip alone (query sent, answer read and parsed). A real Prometheus
 * scrapes an exporter with one counter per Service; Prometheus' own request counter shows how many
 * queries one measurement sends.
 */

const SERVICES = 10_000;
const RUNS = 5;
const PROMETHEUS = process.env.PROMETHEUS_BINARY ?? '/usr/bin/prometheus';
const TEMPLATE = 'sum by (namespace, service) (increase(zw_bench_service_bytes_total[$window]))';

interface Measurer {
  measure(clusterId: string): Promise<{ measured: boolean; services?: number }>;
}

export async function runTrafficBench(): Promise<string[]> {
  if (!existsSync(PROMETHEUS)) return [`traffic: skipped: ${PROMETHEUS} is missing (scripts/ensure-services.sh)`];
  if (!(await reachable(SERVER_URL))) return [`traffic: skipped: PostgreSQL (${SERVER_URL}) not reachable`];
  const database = `zw_benchtraffic_${process.pid}`;
  const databaseUrl = `${SERVER_URL}/${database}`;
  migrate(databaseUrl);
  const prisma = createPrismaClient({ databaseUrl, poolMax: 4 });
  const exporter = await startExporter();
  const prometheus = await startPrometheus(`127.0.0.1:${(exporter.address() as AddressInfo).port}`);
  try {
    const clusterId = await seedCluster(prisma, prometheus.url);
    await waitUntil(
      async () => (await samplesOf(prometheus.url, 'count(zw_bench_service_bytes_total)')) >= 1,
      60_000,
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 6000)); // a 5 s window needs a few scrapes
    const query = trafficQuery({ preset: 'custom', windowSeconds: 5, template: TEMPLATE });
    const measurer = await measurerFor(prisma);

    const floor = await median(async () => {
      const answer = await fetch(`${prometheus.url}/api/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query }).toString(),
      });
      const body = (await answer.json()) as { data: { result: unknown[] } };
      if (body.data.result.length !== SERVICES) throw new Error(`floor: ${body.data.result.length} series`);
    });
    const before = await queriesServed(prometheus.url);
    let stored = 0;
    const full = await median(async () => {
      const result = await measurer.measure(clusterId);
      stored = result.services ?? 0;
    });
    const queries = ((await queriesServed(prometheus.url)) - before) / (RUNS + 1); // runs + the warm-up
    if (stored !== SERVICES) throw new Error(`traffic bench: ${stored} Services measured, expected ${SERVICES}`);
    return [
      `traffic: one cluster, ${SERVICES} Services measured through a real Prometheus; Prometheus queries per measurement: ${queries}`,
      `traffic: floor (the Prometheus round trip alone) ${floor.toFixed(0)} ms; query + map + store ${SERVICES} volumes ${full.toFixed(0)} ms`,
      `traffic measurement ratio: ${(full / floor).toFixed(2)}x floor`,
    ];
  } finally {
    await prisma.$disconnect();
    await prometheus.stop();
    await new Promise((resolve) => exporter.close(resolve));
    await dropDatabase(database);
  }
}

/** The worker's own measurer, compiled, with the settings a private-network deployment uses. */
async function measurerFor(prisma: PrismaClient): Promise<Measurer> {
  const file = join(ROOT, 'dist', 'apps', 'worker', 'traffic', 'traffic-measurer.service.js');
  const { TrafficMeasurer } = (await import(file)) as {
    TrafficMeasurer: new (prisma: unknown, config: unknown, events: unknown) => Measurer;
  };
  const config = {
    TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES: true,
    TRAFFIC_SOURCE_TIMEOUT_MS: 60_000,
    TRAFFIC_SOURCE_MAX_RESPONSE_BYTES: 256 * 1024 * 1024,
  };
  return new TrafficMeasurer(prisma, config, { clusterChanged: () => undefined });
}

async function seedCluster(prisma: PrismaClient, url: string): Promise<string> {
  await createOrganization(prisma, { slug: 'bench' });
  const { cluster } = await registerCluster(prisma, { organizationSlug: 'bench', name: 'measured' });
  await prisma.$executeRaw`
    INSERT INTO cluster_services (cluster_id, namespace, name)
    SELECT ${cluster.id}::uuid, 'team-' || (n % 50), 'svc-' || n FROM generate_series(0, ${SERVICES - 1}) n`;
  await prisma.clusterTrafficSource.create({
    data: {
      clusterId: cluster.id,
      preset: 'custom',
      url,
      windowSeconds: 5,
      intervalSeconds: 300,
      queryTemplate: TEMPLATE,
    },
  });
  return cluster.id;
}

async function startExporter(): Promise<Server> {
  let scrapes = 0;
  const server = createServer((_req, res) => {
    scrapes++;
    const lines: string[] = [];
    for (let n = 0; n < SERVICES; n++) {
      lines.push(
        `zw_bench_service_bytes_total{namespace="team-${n % 50}",service="svc-${n}"} ${(n + 1) * 1000 * scrapes}`,
      );
    }
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(`${lines.join('\n')}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** The demo's Prometheus launcher, compiled (bench compiles alone, so it loads the built module). */
async function startPrometheus(target: string): Promise<{ url: string; stop(): Promise<void> }> {
  const file = join(ROOT, 'dist', 'apps', 'demo', 'local-prometheus.js');
  const { startLocalPrometheus } = (await import(file)) as {
    startLocalPrometheus: (targets: string[], scrapeSeconds: number) => Promise<{ url: string; stop(): Promise<void> }>;
  };
  return startLocalPrometheus([target], 1);
}

async function samplesOf(url: string, query: string): Promise<number> {
  const answer = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query })}`).catch(() => null);
  if (!answer?.ok) return 0;
  const body = (await answer.json()) as { data: { result: { value: [number, string] }[] } };
  return Number(body.data.result[0]?.value[1] ?? 0);
}

/** Queries Prometheus has answered on /api/v1/query (its own counter, read through the other endpoint). */
async function queriesServed(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((entry) => entry.startsWith('prometheus_http_requests_total{') && entry.includes('handler="/api/v1/query"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function median(run: () => Promise<void>): Promise<number> {
  await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

if (require.main === module) {
  runTrafficBench().then(
    (lines) => {
      for (const line of lines) console.log(line);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
