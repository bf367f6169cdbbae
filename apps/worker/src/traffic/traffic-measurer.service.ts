import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type ClusterSelector,
  coverageQuery,
  coverageStepSeconds,
  labelDiscoveryQuery,
  measuredVolumes,
  measureTraffic,
  parseSnapshot,
  type PromSample,
  type ServiceMap,
  serviceMapOf,
  type TrafficMeasurement,
  PRESET_SERIES_NAME,
  type TrafficPreset,
  type TrafficQuerySpec,
  trafficQuery,
  withRefinedCoverage,
  wrongLabelsDetail,
} from '@zw/core';
import {
  type ClusterTrafficSource,
  newestProcessedPayload,
  openAuthHeader,
  PrismaService,
  recordTrafficFailure,
  storeMeasurements,
  trafficSourceOf,
} from '@zw/db';
import type { TrafficConfig } from '@zw/queue';
import { SealedSecretError, type SecretKeyring } from '@zw/secrets';
import { ReadModelPublisher } from '../read-model-events.js';
import { readPayload } from '../snapshot-analysis.js';
import { PrometheusQueryError, queryPrometheus } from './prometheus-client.js';
import { TRAFFIC_CONFIG, TRAFFIC_KEYRING } from './traffic-config.js';

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
    @Inject(TRAFFIC_KEYRING) private readonly keyring: SecretKeyring | null,
    @Inject(ReadModelPublisher) private readonly events: ReadModelPublisher,
  ) {}

  async measure(clusterId: string, now = new Date()): Promise<MeasureResult> {
    const source = await trafficSourceOf(this.prisma, clusterId);
    if (!source) return { measured: false, reason: 'the cluster has no traffic source' };
    const preset = source.preset as TrafficPreset;
    const cluster: ClusterSelector = { label: source.clusterLabel, value: source.clusterValue };
    const spec: TrafficQuerySpec = {
      preset,
      windowSeconds: source.windowSeconds,
      template: source.queryTemplate,
      cluster,
    };
    const query = trafficQuery(spec);
    const services = PRESET_SERIES_NAME[preset] === 'pod' ? await this.serviceMap(clusterId) : undefined;
    if (services === null) {
      return this.fail(clusterId, now, 'no-snapshot', 'no stored snapshot to map Pods to Services yet', query);
    }
    const ask = (promql: string) => this.query(source, promql);
    let samples: PromSample[];
    try {
      samples = await ask(query);
    } catch (error) {
      if (!(error instanceof PrometheusQueryError)) throw error;
      return this.fail(clusterId, now, error.status, error.message, query);
    }
    let measurement = measureTraffic(preset, samples, { windowSeconds: source.windowSeconds, cluster, services });
    if (measurement.problem !== null) {
      const detail =
        measurement.problem === 'wrong-labels'
          ? await this.labelsSeen(measurement, spec, samples, ask)
          : measurement.detail;
      return this.fail(clusterId, now, measurement.problem, detail ?? measurement.problem, query, {
        series: measurement.series,
      });
    }
    if (measurement.coverage !== null && measurement.coverage < 1) {
      measurement = await this.refinedCoverage(measurement, spec, ask);
    }
    const seconds = measurement.coveredSeconds ?? source.windowSeconds;
    const volumes = measuredVolumes(measurement.services, seconds);
    if ('problem' in volumes) {
      return this.fail(clusterId, now, volumes.problem, volumes.detail, query, { series: measurement.series });
    }
    const partial = measurement.coverage !== null && measurement.coverage < 1;
    const stored = await storeMeasurements(this.prisma, clusterId, volumes, {
      query,
      series: measurement.series,
      unmatchedSeries: measurement.unmatchedSeries,
      measuredAt: now,
      status: partial ? 'partial' : 'ok',
      coverage: measurement.coverage,
      note: noteOf(measurement, source.windowSeconds),
    });
    this.events.clusterChanged(clusterId);
    return { measured: true, services: stored, series: measurement.series };
  }

  private query(source: ClusterTrafficSource, promql: string): Promise<PromSample[]> {
    return queryPrometheus(source.url, promql, {
      authHeader: this.authHeaderOf(source),
      timeoutMs: this.config.TRAFFIC_SOURCE_TIMEOUT_MS,
      allowPrivate: this.config.TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES,
      maxResponseBytes: this.config.TRAFFIC_SOURCE_MAX_RESPONSE_BYTES,
      caBundle: source.caBundle,
    });
  }

  /** A `partial` answer's coverage, looked at again at a finer step (a failure keeps the coarse one). */
  private async refinedCoverage(
    measurement: TrafficMeasurement,
    spec: TrafficQuerySpec,
    ask: (promql: string) => Promise<PromSample[]>,
  ): Promise<TrafficMeasurement> {
    const step = coverageStepSeconds(spec.windowSeconds);
    const finer = coverageQuery(spec, (measurement.coveredSeconds ?? spec.windowSeconds) + 2 * step);
    if (finer === null) return measurement;
    try {
      return withRefinedCoverage(measurement, await ask(finer.query), spec.windowSeconds, finer.stepSeconds);
    } catch (error) {
      if (!(error instanceof PrometheusQueryError)) throw error;
      return measurement;
    }
  }

  /**
   * The labels the preset's series really carry: the preset's answer keeps only those it groups by, so a
   * second query reads a few raw series of its metrics (only when the answer has the wrong labels).
   */
  private async labelsSeen(
    measurement: TrafficMeasurement,
    spec: TrafficQuerySpec,
    samples: readonly PromSample[],
    ask: (promql: string) => Promise<PromSample[]>,
  ): Promise<string> {
    const detail = measurement.detail ?? 'the series lack the labels the preset reads';
    const discovery = labelDiscoveryQuery(spec);
    if (discovery === null) return wrongLabelsDetail(detail, samples);
    try {
      return wrongLabelsDetail(detail, await ask(discovery));
    } catch (error) {
      if (!(error instanceof PrometheusQueryError)) throw error;
      return `${detail} (listing the labels the series carry failed: ${error.message})`;
    }
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
    const unreadable = (why: string) =>
      new PrometheusQueryError('bad-credentials', `the stored auth header cannot be decrypted: ${why}; set it again`);
    if (!this.keyring) throw unreadable('this deployment has no secret keyring (SECRET_ENCRYPTION_KEYS)');
    try {
      return openAuthHeader(this.keyring, source.clusterId, source.authHeader);
    } catch (error) {
      if (!(error instanceof SealedSecretError)) throw error;
      throw unreadable(`${error.message} (SECRET_ENCRYPTION_KEYS; from before it, TRAFFIC_SOURCES_ENCRYPTION_KEY)`);
    }
  }

  /** Services by Pod and owner, from the newest processed snapshot whose payload is still stored; null if none. */
  private async serviceMap(clusterId: string): Promise<ServiceMap | null> {
    const gzip = await newestProcessedPayload(this.prisma, clusterId);
    if (!gzip) return null;
    return serviceMapOf(parseSnapshot(await readPayload(gzip)));
  }
}

/** What a good measurement's status means for its figures, and what the answer told besides (null: nothing). */
function noteOf(measurement: TrafficMeasurement, windowSeconds: number): string | null {
  const notes = [...measurement.notes];
  if (measurement.coverage !== null && measurement.coverage < 1) {
    notes.unshift(
      `the source has data for ${Math.round(measurement.coverage * 100)} % of the ${windowSeconds}s window (${Math.round(measurement.coveredSeconds ?? 0)}s): volumes are per month at the rate of the seconds covered`,
    );
  }
  return notes.length === 0 ? null : notes.join('; ');
}
