import { Inject, Injectable } from '@nestjs/common';
import { DAY_MS, describePricingModel, roundCents } from '@zw/core';
import { HOURS_PER_MONTH, type ReadDb, type SavingsRow, savingsWithOpportunities } from '@zw/db';
import type { z } from 'zod';
import { clusterNotFound } from '../problem.js';
import { HeavyReadBudget } from '../heavy-reads/heavy-read-budget.js';
import { HEAVY_READ_DB } from '../heavy-reads/heavy-read-db.provider.js';
import { validationProblem } from '../problem.js';
import { type PricedCluster, pricedClusters } from '../cluster-pricing.js';
import type { SavingsQuerySchema, SavingsView } from './savings.schemas.js';

const DEFAULT_RANGE_DAYS = 30;

/** Savings over a time range, by cluster, namespace or Service, with the ranked opportunities. */
@Injectable()
export class SavingsService {
  constructor(
    @Inject(HEAVY_READ_DB) private readonly db: ReadDb,
    @Inject(HeavyReadBudget) private readonly budget: HeavyReadBudget,
  ) {}

  /** Runs inside the organization's heavy-read budget, on the heavy-read pool. */
  async savings(
    organizationId: string,
    query: z.output<typeof SavingsQuerySchema>,
    now = new Date(),
  ): Promise<SavingsView> {
    return this.budget.run(organizationId, 'savings', () => this.compute(organizationId, query, now));
  }

  private async compute(organizationId: string, query: z.output<typeof SavingsQuerySchema>, now: Date) {
    const to = query.to ? new Date(query.to) : now;
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
    if (from >= to) throw validationProblem([{ location: 'query', field: 'from', message: 'must be before `to`' }]);
    const clusters = await this.pricedClusters(organizationId, query.clusterId);
    const byId = new Map(clusters.map((cluster) => [cluster.id, cluster]));
    const sqlQuery = {
      clusters: clusters.map((cluster) => ({ id: cluster.id, pricePerGb: cluster.pricing.pricePerGb })),
      from,
      to,
      now,
      namespace: query.namespace,
      groupBy: query.groupBy,
      limit: query.limit + 1,
    };
    const { rows, opportunities } = clusters.length
      ? await savingsWithOpportunities(this.db, sqlQuery, query.limit)
      : { rows: [], opportunities: [] };
    const unknownPrice = clusters.some((cluster) => cluster.pricing.source === 'unknown-cloud-default');
    const totalsRow = rows.find((row) => row.is_total);
    const groups = rows.filter((row) => !row.is_total);
    const model = describePricingModel();
    const ref = (id: string) => ({ id, name: byId.get(id)!.name });
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      groupBy: query.groupBy,
      currency: 'USD' as const,
      hoursPerMonth: HOURS_PER_MONTH,
      pricing: clusters.map((cluster) => ({
        cluster: { id: cluster.id, name: cluster.name },
        pricePerGb: cluster.pricing.pricePerGb,
        source: cluster.pricing.source,
        note: cluster.pricing.note,
      })),
      totals: figures(totalsRow, unknownPrice),
      groups: groups.slice(0, query.limit).map((row) => ({
        cluster: ref(row.cluster_id!),
        namespace: row.namespace,
        name: row.name,
        ...figures(row, byId.get(row.cluster_id!)!.pricing.source === 'unknown-cloud-default'),
      })),
      truncated: groups.length > query.limit,
      opportunities: opportunities.map((row) => ({
        cluster: ref(row.cluster_id),
        namespace: row.namespace,
        name: row.name,
        trafficGb: row.traffic_gb,
        missedSavings: { crossZoneGb: row.missed_gb, cost: roundCents(row.missed_cost) },
        estimate: row.estimated || byId.get(row.cluster_id)!.pricing.source === 'unknown-cloud-default',
      })),
      model: {
        formulas: model.formulas,
        traffic: model.traffic,
        defaultMonthlyGbPerEndpoint: model.defaultMonthlyGbPerEndpoint,
      },
    };
  }

  private async pricedClusters(organizationId: string, clusterId: string | undefined): Promise<PricedCluster[]> {
    const clusters = await pricedClusters(this.db, organizationId, clusterId);
    if (clusterId && clusters.length === 0) throw clusterNotFound(clusterId);
    return clusters;
  }
}

/**
 * A group's figures, its money rounded to cents here (as every answer writes money), so the answer can be
 * written without a JSON replacer: with one, V8 leaves its fast serializer (1.8 ms instead of 0.6 ms for
 * the 80 KB answer of 100 Services and 100 opportunities).
 */
function figures(row: SavingsRow | undefined, unknownPrice: boolean) {
  const zero = { crossZoneGb: 0, cost: 0 };
  if (!row) {
    return {
      months: 0,
      trafficGb: 0,
      withoutHints: zero,
      withHints: zero,
      realizedSavings: zero,
      missedSavings: zero,
      services: 0,
      opportunities: 0,
      inputs: {
        trafficSources: { api: 0, measured: 0, annotation: 0, 'default-per-endpoint': 0 },
        measuredTrafficGb: 0,
        measuredShare: null,
        servicesWithMeasuredCrossZone: 0,
        estimate: unknownPrice,
      },
      measured: {
        services: 0,
        withHints: zero,
        realizedSavings: { cost: 0 },
        missedSavings: { cost: 0 },
        withHintsCostShare: null,
      },
    };
  }
  return {
    months: row.months ?? 0,
    trafficGb: row.traffic_gb,
    withoutHints: { crossZoneGb: row.without_gb, cost: roundCents(row.without_cost) },
    withHints: { crossZoneGb: row.with_gb, cost: roundCents(row.with_cost) },
    realizedSavings: {
      crossZoneGb: row.without_gb - row.with_gb,
      cost: roundCents(row.without_cost - row.with_cost),
    },
    missedSavings: { crossZoneGb: row.missed_gb, cost: roundCents(row.missed_cost) },
    services: row.services,
    opportunities: row.opportunities,
    inputs: {
      trafficSources: {
        api: row.services_api,
        measured: row.services_measured,
        annotation: row.services_annotation,
        'default-per-endpoint': row.services_default,
      },
      measuredTrafficGb: row.measured_gb,
      measuredShare: row.traffic_gb > 0 ? row.measured_gb / row.traffic_gb : null,
      servicesWithMeasuredCrossZone: row.services_measured_share,
      estimate: row.services_default > 0 || unknownPrice,
    },
    measured: measuredPart(row),
  };
}

/**
 * The part of each figure that rests on measurement alone: the Services whose volume and share crossing
 * zones were both measured (their as-routed cost is measured; their savings compare it with the model's
 * counterfactual, which cannot be measured). The rest of each figure is estimated.
 */
function measuredPart(row: SavingsRow) {
  return {
    services: row.services_fully_measured,
    withHints: { crossZoneGb: row.measured_with_gb, cost: roundCents(row.measured_with_cost) },
    realizedSavings: { cost: roundCents(row.measured_without_cost - row.measured_with_cost) },
    missedSavings: { cost: roundCents(row.measured_missed_cost) },
    withHintsCostShare: row.with_cost > 0 ? row.measured_with_cost / row.with_cost : null,
  };
}
