import { InjectQueue } from '@nestjs/bullmq';
import { X509Certificate } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { customTemplateProblem, formatDuration, type TrafficPreset, trafficQuery } from '@zw/core';
import {
  type AuditActor,
  clearMeasurements,
  type ClusterTrafficSource,
  deleteTrafficSource,
  measuredComparison,
  measuredComparisonFigures,
  PrismaService,
  ReadDb,
  recordAudit,
  resealedAuthHeader,
  saveTrafficSource,
  sealAuthHeader,
  trafficSourceOf,
} from '@zw/db';
import { enqueueTrafficSourceSync, prometheusUrlProblem, TRAFFIC_QUEUE, type TrafficConfig } from '@zw/queue';
import type { SecretKeyring } from '@zw/secrets';
import type { Queue } from 'bullmq';
import type { z } from 'zod';
import { ReadModelCache } from '../cache/read-model-cache.js';
import { QueueAvailability } from '../http/queue-availability.js';
import { notFound, validationProblem } from '../problem.js';
import { ServicesService, priceOf } from '../services/services.service.js';
import { TRAFFIC_CONFIG, TRAFFIC_KEYRING } from './traffic-config.js';
import {
  durationSeconds,
  type PutTrafficSourceBody,
  type TrafficComparisonView,
  type TrafficSourceView,
} from './traffic-sources.schemas.js';

function sameSource(
  row: ClusterTrafficSource,
  fields: {
    preset: string;
    url: string;
    windowSeconds: number;
    queryTemplate: string | null;
    clusterLabel: string;
    clusterValue: string | null;
  },
): boolean {
  return (
    row.preset === fields.preset &&
    row.url === fields.url &&
    row.windowSeconds === fields.windowSeconds &&
    row.queryTemplate === fields.queryTemplate &&
    row.clusterLabel === fields.clusterLabel &&
    row.clusterValue === fields.clusterValue
  );
}

/** The query a stored source sends. */
export function sourceQuery(row: ClusterTrafficSource): string {
  return trafficQuery({
    preset: row.preset as TrafficPreset,
    windowSeconds: row.windowSeconds,
    template: row.queryTemplate,
    cluster: { label: row.clusterLabel, value: row.clusterValue },
  });
}

/** Why a CA bundle is refused (not PEM, or a certificate Node cannot read), or null. */
function caBundleProblem(bundle: string): string | null {
  const blocks = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'expected PEM certificates (-----BEGIN CERTIFICATE----- …)';
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${index + 1} of the bundle cannot be read`;
    }
  }
  return null;
}

export function trafficSourceView(row: ClusterTrafficSource): TrafficSourceView {
  const preset = row.preset as TrafficPreset;
  return {
    clusterId: row.clusterId,
    preset,
    url: row.url,
    window: formatDuration(row.windowSeconds * 1000),
    windowSeconds: row.windowSeconds,
    interval: formatDuration(row.intervalSeconds * 1000),
    intervalSeconds: row.intervalSeconds,
    queryTemplate: row.queryTemplate,
    clusterLabel: row.clusterLabel,
    clusterValue: row.clusterValue,
    caBundle: row.caBundle,
    query: sourceQuery(row),
    hasAuthHeader: row.authHeader !== null,
    status: row.status,
    lastError: row.lastError,
    coverage: row.coverage,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    lastSuccessAt: row.lastSuccessAt?.toISOString() ?? null,
    consecutiveFailures: row.consecutiveFailures,
    seriesCount: row.seriesCount,
    servicesMeasured: row.servicesMeasured,
    unmatchedSeries: row.unmatchedSeries,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * A cluster's traffic source (one per cluster). The API only writes Postgres and asks the worker, through
 * the traffic queue, to sync the cluster's job scheduler and measure at once; the worker does the querying.
 */
@Injectable()
export class TrafficSourcesService {
  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(ServicesService) private readonly services: ServicesService,
    @Inject(ReadModelCache) private readonly cache: ReadModelCache,
    @InjectQueue(TRAFFIC_QUEUE) private readonly queue: Queue,
    @Inject(TRAFFIC_CONFIG) private readonly config: TrafficConfig,
    @Inject(TRAFFIC_KEYRING) private readonly keyring: SecretKeyring | null,
    @Inject(QueueAvailability) private readonly queueAvailability: QueueAvailability,
  ) {}

  async get(organizationId: string, clusterId: string): Promise<TrafficSourceView> {
    await this.services.head(organizationId, clusterId);
    const row = await trafficSourceOf(this.prisma, clusterId);
    if (!row) throw notFound(`cluster ${clusterId} has no traffic source`);
    return trafficSourceView(row);
  }

  async put(
    organizationId: string,
    clusterId: string,
    body: z.output<typeof PutTrafficSourceBody>,
    actor: AuditActor,
  ): Promise<{ created: boolean; source: TrafficSourceView }> {
    await this.services.head(organizationId, clusterId);
    const fields = this.validated(body);
    await this.queueAvailability.assertAvailable();
    const existing = await trafficSourceOf(this.prisma, clusterId);
    const data = {
      ...fields,
      // A changed configuration starts over: no status from the old one.
      status: 'pending',
      lastError: null,
      coverage: null,
      consecutiveFailures: 0,
      ...this.authHeaderColumn(clusterId, body.authHeader, existing),
    };
    const row = await this.prisma.$transaction(async (tx) => {
      const saved = await saveTrafficSource(tx, clusterId, data);
      await recordAudit(tx, actor, {
        organizationId,
        action: existing ? 'cluster.traffic_source_change' : 'cluster.traffic_source_create',
        targetType: 'cluster',
        targetId: clusterId,
        // Never the auth header: only whether one is set.
        details: { ...fields, authHeaderSet: saved.authHeader !== null },
      });
      return saved;
    });
    // Measurements of another source would be shown under this one's name: they go, and the Services
    // fall back to their estimates until it answers. The same source set again keeps them.
    if (existing && !sameSource(existing, fields)) {
      await clearMeasurements(this.prisma, clusterId);
      await this.cache.changed({ organizationId, clusterId });
    }
    await enqueueTrafficSourceSync(this.queue, clusterId, this.config);
    return { created: existing === null, source: trafficSourceView(row) };
  }

  async delete(organizationId: string, clusterId: string, actor: AuditActor): Promise<void> {
    await this.services.head(organizationId, clusterId);
    await this.queueAvailability.assertAvailable();
    await this.prisma.$transaction(async (tx) => {
      const deleted = await deleteTrafficSource(tx, clusterId);
      if (!deleted) throw notFound(`cluster ${clusterId} has no traffic source`);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'cluster.traffic_source_delete',
        targetType: 'cluster',
        targetId: clusterId,
      });
    });
    await clearMeasurements(this.prisma, clusterId);
    await this.cache.changed({ organizationId, clusterId });
    await enqueueTrafficSourceSync(this.queue, clusterId, this.config);
  }

  /** The cluster's model against its measurement (figures over its newest state). */
  async comparison(organizationId: string, clusterId: string): Promise<TrafficComparisonView> {
    const head = await this.services.head(organizationId, clusterId);
    const [row, source] = await Promise.all([
      measuredComparison(this.db, clusterId),
      trafficSourceOf(this.prisma, clusterId),
    ]);
    return {
      cluster: { id: head.id, name: head.name },
      source: source ? trafficSourceView(source) : null,
      ...measuredComparisonFigures(row, priceOf(head).pricePerGb),
    };
  }

  /** The body's fields as stored, or a 400 naming the field at fault. */
  private validated(body: z.output<typeof PutTrafficSourceBody>) {
    const problem = (field: string, message: string) => validationProblem([{ location: 'body', field, message }]);
    const urlProblem = prometheusUrlProblem(body.url, this.config.TRAFFIC_SOURCES_ALLOW_PRIVATE_ADDRESSES);
    if (urlProblem) throw problem('url', urlProblem);
    if (body.preset === 'custom') {
      if (body.queryTemplate === undefined) throw problem('queryTemplate', 'required for the custom preset');
      const templateProblem = customTemplateProblem(body.queryTemplate);
      if (templateProblem) throw problem('queryTemplate', templateProblem);
    } else if (body.queryTemplate !== undefined) {
      throw problem('queryTemplate', `only for the custom preset (the ${body.preset} preset has its own query)`);
    }
    const windowSeconds = durationSeconds(body.window);
    if (windowSeconds < this.config.TRAFFIC_SOURCE_MIN_WINDOW_SECONDS) {
      throw problem('window', `at least ${this.config.TRAFFIC_SOURCE_MIN_WINDOW_SECONDS}s on this deployment`);
    }
    const intervalSeconds = durationSeconds(body.interval);
    if (intervalSeconds < this.config.TRAFFIC_SOURCE_MIN_INTERVAL_SECONDS) {
      throw problem('interval', `at least ${this.config.TRAFFIC_SOURCE_MIN_INTERVAL_SECONDS}s on this deployment`);
    }
    const caProblem = body.caBundle === null ? null : caBundleProblem(body.caBundle);
    if (caProblem) throw problem('caBundle', caProblem);
    if (body.authHeader && !this.keyring) {
      throw problem(
        'authHeader',
        'this deployment stores no credentials: its operator must set SECRET_ENCRYPTION_KEYS',
      );
    }
    return {
      preset: body.preset,
      url: body.url,
      windowSeconds,
      intervalSeconds,
      queryTemplate: body.preset === 'custom' ? (body.queryTemplate ?? null) : null,
      clusterLabel: body.clusterLabel,
      clusterValue: body.clusterValue,
      caBundle: body.caBundle,
    };
  }

  /**
   * The auth header as the body sets it (null clears it), else the stored one re-sealed when it is in an
   * older form or under a retired key (the next write moves it to the keyring's current form), else nothing.
   */
  private authHeaderColumn(
    clusterId: string,
    header: string | null | undefined,
    existing: ClusterTrafficSource | null,
  ): { authHeader?: Uint8Array<ArrayBuffer> | null } {
    if (header === null) return { authHeader: null };
    if (header !== undefined) return { authHeader: sealAuthHeader(this.keyring!, clusterId, header) };
    const resealed =
      existing?.authHeader && this.keyring ? resealedAuthHeader(this.keyring, clusterId, existing.authHeader) : null;
    return resealed ? { authHeader: resealed } : {};
  }
}
