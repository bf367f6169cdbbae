import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  measuredCrossZoneFraction,
  measureTraffic,
  monthlyGbOf,
  parseSnapshot,
  type PodServices,
  podServicesOf,
  type TrafficPreset,
  trafficQuery,
} from '@zw/core';
import { type ClusterTrafficSource, openSecret, PrismaService, recordTrafficFailure, storeMeasurements } from '@zw/db';
import type { TrafficConfig } from '@zw/queue';
import { ReadModelPublisher } from '../read-model-events.js';
import { readPayload } from '../snapshot-analysis.js';
import { PrometheusQueryError, queryPrometheus } from './prometheus-client.js';
import { TRAFFIC_CONFIG } from './traffic-config.js';

/** Presets whose series name Pods, mapped to Services through the newest snapshot's EndpointSlices. */
const POD_PRESETS: ReadonlySet<TrafficPreset> = new Set(['beyla', 'opencost']);

export type MeasureResult = { measured: true; services: number; series: number } | { measured: false; reason: string };

/** A measurement that failed in a way a retry may fix: its status is already on the cluster. */
export class TrafficMeasurementError extends Error {
  override name = 'TrafficMeasurementError';
}

/**
 * Measures one cluster's traffic: one Prometheus query, the answer mapped to its Services, the volumes
 * stored. A failure is written on the cluster's traffic source (status, error, attempt time) and thrown,
 * so BullMQ retries with backoff; the Services keep their previous measurement meanwhile.
 */
@Injectable()
export class TrafficMeasurer {
  private readonly logger = new Logger('TrafficMeasurer');

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(TRAFFIC_CONFIG) private readonly config: TrafficConfig,
    @Inject(ReadModelPublisher) private readonly events: ReadModelPublisher,
  ) {}

  async measure(clusterId: string, now = new Date()): Promise<MeasureResult> {
    const source = await this.prisma.clusterTrafficSource.findUnique({ where: { clusterId } });
    if (!source) return { measured: false, reason: 'the cluster has no traffic source' };
    const preset = source.preset as TrafficPreset;
    const query = trafficQuery({ preset, windowSeconds: source.windowSeconds, template: source.queryTemplate });
    const podServices = POD_PRESETS.has(preset) ? await this.podServices(clusterId) : new Map();
    if (podServices === null) {
      return this.fail(clusterId, now, 'no-snapshot', 'no stored snapshot to map Pods to Services yet', query);
    }
    let samples;
    try {
      samples = await queryPrometheus(source.url, query, {
        authHeader: this.authHeaderOf(source),
        timeoutMs: this.config.TRAFFIC_SOURCE_TIMEOUT_MS,
        allowPrivate: this.config.TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES,
        maxResponseBytes: this.config.TRAFFIC_SOURCE_MAX_RESPONSE_BYTES,
      });
    } catch (error) {
      if (!(error instanceof PrometheusQueryError)) throw error;
      return this.fail(clusterId, now, error.status, error.message, query);
    }
    const measurement = measureTraffic(preset, samples, podServices);
    if (measurement.problem !== null) {
      return this.fail(clusterId, now, measurement.problem, measurement.detail ?? measurement.problem, query, {
        series: measurement.series,
      });
    }
    const services = await storeMeasurements(
      this.prisma,
      clusterId,
      measurement.services.map((entry) => ({
        namespace: entry.namespace,
        name: entry.name,
        monthlyGb: monthlyGbOf(entry.bytes, source.windowSeconds),
        crossZone: measuredCrossZoneFraction(entry),
      })),
      { query, series: measurement.series, unmatchedSeries: measurement.unmatchedSeries, measuredAt: now },
    );
    this.events.clusterChanged(clusterId);
    return { measured: true, services, series: measurement.series };
  }

  private async fail(
    clusterId: string,
    at: Date,
    status: string,
    error: string,
    query: string,
    extra: { series?: number } = {},
  ): Promise<never> {
    await recordTrafficFailure(this.prisma, clusterId, { status, error: `${error} (query: ${query})`, at, ...extra });
    this.logger.warn(`traffic source of cluster ${clusterId}: ${status}: ${error}`);
    throw new TrafficMeasurementError(`${status}: ${error}`);
  }

  private authHeaderOf(source: ClusterTrafficSource): string | null {
    if (!source.authHeader) return null;
    const key = this.config.TRAFFIC_SOURCES_ENCRYPTION_KEY;
    const header = key ? openSecret(source.authHeader, key) : null;
    if (header === null) {
      throw new PrometheusQueryError(
        'bad-credentials',
        'the stored auth header cannot be decrypted (TRAFFIC_SOURCES_ENCRYPTION_KEY missing or changed): set it again',
      );
    }
    return header;
  }

  /** Pods → Services from the newest processed snapshot whose payload is still stored; null if none. */
  private async podServices(clusterId: string): Promise<PodServices | null> {
    const [row] = await this.prisma.$queryRaw<{ gzip: Uint8Array }[]>`
      SELECT p.gzip FROM snapshots s JOIN snapshot_payloads p ON p.snapshot_id = s.id
       WHERE s.cluster_id = ${clusterId}::uuid AND s.status = 'processed'
       ORDER BY s.captured_at DESC LIMIT 1`;
    if (!row) return null;
    return podServicesOf(parseSnapshot(await readPayload(row.gzip)));
  }
}
