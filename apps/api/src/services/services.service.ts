import { Inject, Injectable } from '@nestjs/common';
import {
  type AuditActor,
  clusterHead,
  type ClusterHeadRow,
  countServiceStates,
  findClusterService,
  hintStateSince,
  latestServiceInterval,
  listServiceStates,
  PrismaService,
  ReadDb,
  recordAudit,
  refreshLatestRollup,
  serviceIntervals,
  type ServiceStateRow,
  serviceTrafficOf,
  setServiceTraffic,
} from '@zw/db';
import type { z } from 'zod';
import { ReadModelCache } from '../cache/read-model-cache.js';
import { clusterNotFound } from '../problem.js';
import { decodeCursor, encodeCursor, fingerprint } from '../http/pagination.js';
import { notFound, validationProblem } from '../problem.js';
import { type ClusterPricing, clusterPricing } from '../cluster-pricing.js';
import { RecommendationsService } from '../recommendations/recommendations.service.js';
import { LiveViewService, overridesOf } from './live-view.service.js';
import { measurementSourceOf, routingView, serviceSummaryView, zoneAllocations } from './service-view.js';
import type {
  ListServicesQuery,
  ServiceCountsQuery,
  ServiceCountsView,
  ServiceDetailQuery,
  ServiceDetailView,
  ServiceListView,
  TimelineView,
} from './services.schemas.js';
import { DAY_MS } from '@zw/core';

export const DEFAULT_TIMELINE_DAYS = 7;
export const TIMELINE_LIMIT = 1000;
/**
 * Decision: a Service "flaps" when its hint state changed at least this often within the window: once is a
 * change, twice may be a rollout that came back, three times is a pattern worth a look.
 */
const FLAPPING_MIN_CHANGES = 3;

export function priceOf(
  head: Pick<ClusterHeadRow, 'cloud' | 'region' | 'price_override' | 'org_price_override'>,
): ClusterPricing {
  return clusterPricing({
    cloud: head.cloud as 'aws' | 'gcp' | 'azure' | 'other',
    region: head.region,
    crossZonePricePerGb: head.price_override,
    organizationPricePerGb: head.org_price_override,
  });
}

@Injectable()
export class ServicesService {
  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(LiveViewService) private readonly live: LiveViewService,
    @Inject(ReadModelCache) private readonly cache: ReadModelCache,
    @Inject(RecommendationsService) private readonly recommendations: RecommendationsService,
  ) {}

  /** The cluster, if the caller's organization owns it (404 otherwise, whoever else owns it). */
  async head(organizationId: string, clusterId: string): Promise<ClusterHeadRow> {
    const head = await clusterHead(this.db, organizationId, clusterId);
    if (!head) throw clusterNotFound(clusterId);
    return head;
  }

  /**
   * One page of the cluster's Services. A listing is pinned to the instant of the newest processed
   * snapshot when its first page was asked for (the cursor carries it), so snapshots arriving while a
   * client pages through never make rows repeat or go missing.
   */
  async list(
    organizationId: string,
    clusterId: string,
    query: z.output<typeof ListServicesQuery>,
  ): Promise<ServiceListView> {
    const head = await this.head(organizationId, clusterId);
    const descending = (query.order ?? (query.sort === 'name' ? 'asc' : 'desc')) === 'desc';
    if (query.sort === 'name' && descending) {
      throw validationProblem([{ location: 'query', field: 'order', message: 'the name sort is ascending only' }]);
    }
    const filters = {
      namespace: query.namespace,
      routing: query.routing,
      hintState: query.hintState,
      reason: query.reason,
      opportunity: query.opportunity,
    };
    const print = fingerprint(['services', clusterId, query.sort, descending, filters]);
    const cursor = decodeCursor(query.cursor, print);
    const at = cursor?.t ? new Date(cursor.t) : head.latest_captured_at;
    const cluster = { id: head.id, name: head.name };
    if (!at) return { cluster, asOf: null, services: [], nextCursor: null };
    const rows = await listServiceStates(this.db, {
      clusterId,
      at,
      filters,
      sort: query.sort,
      descending,
      after: cursor
        ? { key: cursor.k[0] as number | null, namespace: String(cursor.k[1]), name: String(cursor.k[2]) }
        : null,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const price = priceOf(head);
    return {
      cluster,
      asOf: at.toISOString(),
      services: page.map((row) => serviceSummaryView(row, price, measurementSourceOf(head))),
      nextCursor:
        rows.length > query.limit
          ? encodeCursor({ f: print, k: [last.sort_key, last.namespace, last.name], t: at.toISOString() })
          : null,
    };
  }

  /** How many Services of the newest snapshot match the list's filters, in all and by hint state. */
  async counts(
    organizationId: string,
    clusterId: string,
    query: z.output<typeof ServiceCountsQuery>,
  ): Promise<ServiceCountsView> {
    const head = await this.head(organizationId, clusterId);
    const cluster = { id: head.id, name: head.name };
    const at = head.latest_captured_at;
    const byHintState = at
      ? await countServiceStates(this.db, { clusterId, at, filters: query })
      : { populated: 0, removed: 0, none: 0 };
    return {
      cluster,
      asOf: at?.toISOString() ?? null,
      total: byHintState.populated + byHintState.removed + byHintState.none,
      byHintState,
    };
  }

  async detail(
    organizationId: string,
    clusterId: string,
    namespace: string,
    name: string,
    query: z.output<typeof ServiceDetailQuery>,
    now = new Date(),
  ): Promise<ServiceDetailView> {
    const head = await this.head(organizationId, clusterId);
    const service = await findClusterService(this.db, clusterId, namespace, name);
    const latest = service ? await latestServiceInterval(this.db, service.id) : null;
    if (!service || !latest) throw notFound(`no Service ${namespace}/${name} in cluster ${clusterId}`);
    const to = query.to ? new Date(query.to) : now;
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_TIMELINE_DAYS * DAY_MS);
    if (from >= to) {
      throw validationProblem([{ location: 'query', field: 'from', message: 'must be before `to`' }]);
    }
    const current = latest.valid_to === null ? latest : null;
    const price = priceOf(head);
    const [intervals, live, recommendations, stateSince] = await Promise.all([
      serviceIntervals(this.db, service.id, from, to, TIMELINE_LIMIT + 1),
      this.live.view(current ? head.latest_snapshot_id : null, overridesOf(head), namespace, name),
      current ? this.recommendations.service(clusterId, price, namespace, name) : Promise.resolve([]),
      current ? hintStateSince(this.db, service.id, current.valid_from) : Promise.resolve(null),
    ]);
    const timeline = timelineOf(intervals, from, to);
    const summary = current ? serviceSummaryView(current, price, measurementSourceOf(head), now) : null;
    const stability =
      current && summary && timeline.flapping && current.routing === 'Auto'
        ? await this.live.stabilityFix(
            head.latest_snapshot_id,
            namespace,
            name,
            [...new Set(timeline.entries.map((entry) => entry.readyEndpoints))],
            price,
            summary.monthly.inputs.trafficGb,
            overridesOf(head),
          )
        : null;
    return {
      cluster: { id: head.id, name: head.name },
      namespace,
      name,
      asOf: head.latest_captured_at?.toISOString() ?? null,
      current:
        current && summary
          ? { ...summary, hintStateSince: stateSince!.toISOString(), zones: zoneAllocations(current) }
          : null,
      lastSeen: current ? null : (latest.valid_to?.toISOString() ?? null),
      ...(current
        ? live
        : {
            ...live,
            kubeProxy: { ...live.kubeProxy, reason: 'the Service is not in the newest snapshot' },
          }),
      // A flapping Service's replica floor comes after the fixes stored with the snapshot.
      recommendations: stability === null ? recommendations : [...recommendations, stability],
      timeline,
    };
  }

  /** Sets (or, with null, removes) the Service's monthly traffic; the cluster's current figures follow. */
  async setTraffic(
    organizationId: string,
    clusterId: string,
    namespace: string,
    name: string,
    gb: number | null,
    actor: AuditActor,
  ): Promise<ServiceDetailView> {
    await this.head(organizationId, clusterId);
    await this.prisma.$transaction(async (tx) => {
      const before = await serviceTrafficOf(tx, clusterId, namespace, name);
      if (!before) throw notFound(`no Service ${namespace}/${name} in cluster ${clusterId}`);
      await setServiceTraffic(tx, before.id, gb);
      await recordAudit(tx, actor, {
        organizationId,
        action: 'service.traffic_change',
        targetType: 'service',
        targetId: `${clusterId}/${namespace}/${name}`,
        details: {
          clusterId,
          namespace,
          name,
          monthlyTrafficGb: { from: before.monthlyTrafficGb === null ? null : Number(before.monthlyTrafficGb), to: gb },
        },
      });
    });
    await refreshLatestRollup(this.prisma, clusterId);
    await this.cache.changed({ organizationId, clusterId });
    return this.detail(organizationId, clusterId, namespace, name, {});
  }
}

export function timelineOf(rows: ServiceStateRow[], from: Date, to: Date): TimelineView {
  const truncated = rows.length > TIMELINE_LIMIT;
  const kept = rows.slice(0, TIMELINE_LIMIT);
  let changes = 0;
  let hintStateChanges = 0;
  for (let i = 0; i < kept.length; i++) {
    const row = kept[i];
    const previous = kept[i - 1];
    // A boundary inside the window is a change: the Service appeared, or its state changed.
    if (row.valid_from > from) {
      changes++;
      const contiguous = previous?.valid_to?.getTime() === row.valid_from.getTime();
      if (contiguous && previous.hint_state !== row.hint_state) hintStateChanges++;
    }
    // …and so is its disappearance.
    if (row.valid_to !== null && row.valid_to < to && kept[i + 1]?.valid_from.getTime() !== row.valid_to.getTime()) {
      changes++;
    }
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    entries: kept.map((row) => ({
      from: row.valid_from.toISOString(),
      to: row.valid_to?.toISOString() ?? null,
      ...routingView(row),
      crossZone: { withoutHints: row.cross_zone_without_hints ?? 0, withHints: row.cross_zone_with_hints ?? 0 },
      readyEndpoints: row.ready_endpoints,
    })),
    truncated,
    changes,
    hintStateChanges,
    flapping: hintStateChanges >= FLAPPING_MIN_CHANGES,
  };
}
