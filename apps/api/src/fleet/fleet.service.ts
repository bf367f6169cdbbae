import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { agentAgeSeconds, type FleetRow, fleetRows, isAgentStale, ReadDb } from '@zw/db';
import type { ApiConfig } from '../config.js';
import { clusterPricing } from '../cluster-pricing.js';
import type { FleetClusterAnswerView, FleetClusterView, FleetView } from './fleet.schemas.js';

/** The dashboard's fleet summary: per cluster, hint states, node info, traffic and agent freshness. */
@Injectable()
export class FleetService {
  private readonly staleAfterSeconds: number;

  constructor(
    @Inject(ReadDb) private readonly db: ReadDb,
    @Inject(ConfigService) config: ConfigService<ApiConfig, true>,
  ) {
    this.staleAfterSeconds = config.get('STALE_AFTER_SECONDS', { infer: true });
  }

  async fleet(organizationId: string, now = new Date()): Promise<FleetView> {
    const rows = await fleetRows(this.db, organizationId);
    const clusters = rows.map((row) => this.clusterView(row, now));
    const services = { populated: 0, removed: 0, none: 0 };
    const monthly = {
      withoutHints: { crossZoneGb: 0, cost: 0 },
      withHints: { crossZoneGb: 0, cost: 0 },
      realizedSavings: { crossZoneGb: 0, cost: 0 },
      missedSavings: { crossZoneGb: 0, cost: 0 },
    };
    const atStake = {
      crossZoneGb: 0,
      cost: 0,
      services: 0,
      trafficGb: 0,
      servicesWithEstimatedTraffic: 0,
      estimate: false,
    };
    let trafficGb = 0;
    let measuredTrafficGb = 0;
    const measured = { services: 0, withHints: { crossZoneGb: 0, cost: 0 } };
    let servicesWithIgnoredHints = 0;
    for (const cluster of clusters) {
      servicesWithIgnoredHints += cluster.servicesWithIgnoredHints ?? 0;
      trafficGb += cluster.monthly?.trafficGb ?? 0;
      measuredTrafficGb += cluster.monthly?.measuredTrafficGb ?? 0;
      measured.services += cluster.monthly?.measured.services ?? 0;
      measured.withHints.crossZoneGb += cluster.monthly?.measured.withHints.crossZoneGb ?? 0;
      measured.withHints.cost += cluster.monthly?.measured.withHints.cost ?? 0;
      services.populated += cluster.services.populated;
      services.removed += cluster.services.removed;
      services.none += cluster.services.none;
      for (const key of Object.keys(monthly) as (keyof typeof monthly)[]) {
        monthly[key].crossZoneGb += cluster.monthly?.[key].crossZoneGb ?? 0;
        monthly[key].cost += cluster.monthly?.[key].cost ?? 0;
      }
      if (cluster.monthly?.atStake) addAtStake(atStake, cluster.monthly.atStake);
    }
    return {
      generatedAt: now.toISOString(),
      staleAfterSeconds: this.staleAfterSeconds,
      currency: 'USD' as const,
      clusters,
      totals: {
        clusters: clusters.length,
        staleClusters: clusters.filter((cluster) => cluster.lastSnapshot?.stale ?? true).length,
        services,
        servicesWithIgnoredHints,
        monthly: {
          ...monthly,
          atStake,
          trafficGb,
          measuredTrafficGb,
          measuredShare: trafficGb > 0 ? measuredTrafficGb / trafficGb : null,
          measured: {
            ...measured,
            withHintsCostShare: monthly.withHints.cost > 0 ? measured.withHints.cost / monthly.withHints.cost : null,
          },
        },
      },
    };
  }

  /** One cluster as the fleet summary shows it (its cluster page's summary band), or null if not the caller's. */
  async cluster(organizationId: string, clusterId: string, now = new Date()): Promise<FleetClusterAnswerView | null> {
    const [row] = await fleetRows(this.db, organizationId, [clusterId]);
    if (!row) return null;
    return {
      generatedAt: now.toISOString(),
      staleAfterSeconds: this.staleAfterSeconds,
      cluster: this.clusterView(row, now),
    };
  }

  clusterView(row: FleetRow, now: Date): FleetClusterView {
    const ageSeconds = row.last_snapshot_captured_at ? agentAgeSeconds(row.last_snapshot_captured_at, now) : null;
    return {
      id: row.id,
      name: row.name,
      cloud: row.cloud as FleetClusterView['cloud'],
      region: row.region,
      labels: row.labels,
      services: {
        populated: row.services_populated ?? 0,
        removed: row.services_removed ?? 0,
        none: row.services_none ?? 0,
      },
      servicesWithDrift: row.services_with_drift,
      servicesWithIgnoredHints: row.services_with_ignored_hints,
      nodeInfo: { sufficient: row.node_info_sufficient, reason: row.node_info_reason },
      crossZone:
        row.cross_zone_with_hints === null || row.cross_zone_without_hints === null
          ? null
          : { withoutHints: row.cross_zone_without_hints, withHints: row.cross_zone_with_hints },
      lastSnapshot:
        row.last_snapshot_captured_at && ageSeconds !== null
          ? {
              capturedAt: row.last_snapshot_captured_at.toISOString(),
              receivedAt: row.last_snapshot_received_at!.toISOString(),
              status: row.last_snapshot_status as 'queued' | 'processing' | 'processed' | 'failed',
              ageSeconds,
              stale: isAgentStale(row.last_snapshot_captured_at, now, this.staleAfterSeconds),
            }
          : null,
      monthly: monthlyOf(row),
      trafficSource:
        row.traffic_preset === null
          ? null
          : {
              preset: row.traffic_preset,
              status: row.traffic_status ?? 'pending',
              lastError: row.traffic_last_error,
              lastSuccessAt: row.traffic_last_success_at?.toISOString() ?? null,
            },
      analysis:
        row.summary_snapshot_id && row.summary_captured_at
          ? { snapshotId: row.summary_snapshot_id, capturedAt: row.summary_captured_at.toISOString() }
          : null,
    };
  }
}

/** The cluster's monthly figures: the newest summary's roll-up (GB) priced at the cluster's price. */
function monthlyOf(row: FleetRow): FleetClusterView['monthly'] {
  if (row.traffic_gb === null || row.cross_zone_gb_with_hints === null || row.cross_zone_gb_without_hints === null) {
    return null;
  }
  const pricing = clusterPricing({
    cloud: row.cloud as 'aws' | 'gcp' | 'azure' | 'other',
    region: row.region,
    crossZonePricePerGb: row.price_override,
    organizationPricePerGb: row.org_price_override,
  });
  const figure = (gb: number) => ({ crossZoneGb: gb, cost: gb * pricing.pricePerGb });
  const estimated = row.services_estimated_traffic ?? 0;
  const unknownPrice = pricing.source === 'unknown-cloud-default';
  return {
    trafficGb: row.traffic_gb,
    withoutHints: figure(row.cross_zone_gb_without_hints),
    withHints: figure(row.cross_zone_gb_with_hints),
    realizedSavings: figure(row.cross_zone_gb_without_hints - row.cross_zone_gb_with_hints),
    missedSavings: figure(row.missed_gb ?? 0),
    atStake: atStakeOf(row, figure, unknownPrice),
    opportunities: row.opportunities ?? 0,
    servicesWithEstimatedTraffic: estimated,
    servicesWithMeasuredTraffic: row.services_measured_traffic,
    measuredTrafficGb: row.measured_traffic_gb,
    measuredShare: row.traffic_gb > 0 ? row.measured_traffic_gb / row.traffic_gb : null,
    measured: {
      services: row.services_fully_measured,
      withHints: figure(row.measured_cross_zone_gb),
      withHintsCostShare:
        row.cross_zone_gb_with_hints > 0 ? row.measured_cross_zone_gb / row.cross_zone_gb_with_hints : null,
    },
    pricing: { pricePerGb: pricing.pricePerGb, currency: pricing.currency, source: pricing.source, note: pricing.note },
    estimate: estimated > 0 || unknownPrice,
  };
}

type AtStake = NonNullable<NonNullable<FleetClusterView['monthly']>['atStake']>;

/** Null for a summary recorded before the at-stake roll-up existed (its next snapshot has it). */
function atStakeOf(
  row: FleetRow,
  figure: (gb: number) => { crossZoneGb: number; cost: number },
  unknownPrice: boolean,
): AtStake | null {
  if (row.at_stake_gb === null || row.services_at_stake === null) return null;
  const estimated = row.services_at_stake_estimated ?? 0;
  return {
    ...figure(row.at_stake_gb),
    services: row.services_at_stake,
    trafficGb: row.at_stake_traffic_gb ?? 0,
    servicesWithEstimatedTraffic: estimated,
    estimate: estimated > 0 || unknownPrice,
  };
}

function addAtStake(total: AtStake, cluster: AtStake): void {
  total.crossZoneGb += cluster.crossZoneGb;
  total.cost += cluster.cost;
  total.services += cluster.services;
  total.trafficGb += cluster.trafficGb;
  total.servicesWithEstimatedTraffic += cluster.servicesWithEstimatedTraffic;
  total.estimate ||= cluster.estimate;
}
