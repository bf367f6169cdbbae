/** The period's totals, its missed savings per reason and its top opportunities, from the Service lines and rows. */
import { rankingUnits } from '@zw/core';
import { MISSED_REASON_TITLES, MISSED_REASONS, missedBasisOf, type MissedReason } from './missed-reasons.js';
import type { ServicePeriodRow, TrafficSource } from './report-input.js';
import {
  TOP_OPPORTUNITIES,
  type Figure,
  type ClusterRef,
  type PeriodTotals,
  type MissedByReason,
  type ServiceLine,
  type OpportunityLine,
  type ContradictionLine,
} from './report-model.js';
import { ZERO, add, subtract, byteOrder, groupBy, serviceKeyOf } from './report-figures.js';
import { reasonOfRow } from './service-lines.js';

/**
 * Missed savings per reason: money and GB from every row (a Service that changed reasons adds to each),
 * Services counted under the one reason of their line (the one they spent longest in), so the counts
 * are the CSV's rows per `missed_reason`.
 */
export function missedByReason(rows: readonly ServicePeriodRow[], lines: readonly ServiceLine[]): MissedByReason[] {
  const byReason = groupBy(rows, (row) => reasonOfRow(row) ?? '');
  const services = new Map<MissedReason, number>();
  for (const line of lines) {
    if (line.missedReason !== null) services.set(line.missedReason, (services.get(line.missedReason) ?? 0) + 1);
  }
  return MISSED_REASONS.map((reason) => {
    const matching = byReason.get(reason) ?? [];
    return {
      reason,
      title: MISSED_REASON_TITLES[reason],
      basis: missedBasisOf(reason),
      services: services.get(reason) ?? 0,
      crossZoneGb: matching.reduce((sum, row) => sum + row.missedGb, 0),
      cost: matching.reduce((sum, row) => sum + row.missedCost, 0),
    };
  });
}

export function totalsOf(
  lines: readonly ServiceLine[],
  rows: readonly ServicePeriodRow[],
  unknownPrice: (clusterId: string) => boolean,
): PeriodTotals {
  const sum = (pick: (line: ServiceLine) => Figure) =>
    lines.reduce<Figure>((total, line) => add(total, pick(line)), ZERO);
  const missed = (basis: ServicePeriodRow['missedBasis']) =>
    rows
      .filter((row) => row.missedBasis === basis)
      .reduce<Figure>((total, row) => add(total, { crossZoneGb: row.missedGb, cost: row.missedCost }), ZERO);
  const trafficSources: Record<TrafficSource, number> = {
    api: 0,
    measured: 0,
    annotation: 0,
    'default-per-endpoint': 0,
  };
  for (const line of lines) trafficSources[line.trafficSource]++;
  const trafficGb = lines.reduce((total, line) => total + line.trafficGb, 0);
  // A measured volume is the Service's own (like an API value), so all of its period traffic is measured.
  const measuredTrafficGb = lines
    .filter((line) => line.trafficSource === 'measured')
    .reduce((total, line) => total + line.trafficGb, 0);
  const withoutHints = sum((line) => line.withoutHints);
  const withHints = sum((line) => line.withHints);
  const measured = lines.filter((line) => line.fullyMeasured);
  const measuredWithHints = measured.reduce<Figure>((total, line) => add(total, line.withHints), ZERO);
  const measuredKeys = new Set(measured.map((line) => serviceKeyOf({ clusterId: line.cluster.id, ...line })));
  const measuredMissed = rows
    .filter((row) => row.missedBasis === 'preview' && measuredKeys.has(serviceKeyOf(row)))
    .reduce((total, row) => total + row.missedCost, 0);
  return {
    services: lines.length,
    serviceMonths: lines.reduce((total, line) => total + line.months, 0),
    trafficGb,
    withoutHints,
    withHints,
    realizedSavings: subtract(withoutHints, withHints),
    missedSavings: missed('preview'),
    blockedAtStake: missed('blocked'),
    opportunities: new Set(rows.filter((row) => row.missedBasis === 'preview').map(serviceKeyOf)).size,
    trafficSources,
    measuredTrafficGb,
    measuredShare: trafficGb > 0 ? measuredTrafficGb / trafficGb : null,
    measured: {
      services: measured.length,
      withHints: measuredWithHints,
      realizedSavings: { cost: measured.reduce((total, line) => total + line.realizedSavings.cost, 0) },
      missedSavings: { cost: measuredMissed },
      withHintsCostShare: withHints.cost > 0 ? measuredWithHints.cost / withHints.cost : null,
    },
    contradictions: lines.filter((line) => line.contradiction !== null).length,
    estimate: lines.some((line) => line.estimate) || rows.some((row) => unknownPrice(row.clusterId)),
  };
}

/** As the query API ranks them: largest saving in money, then in GB, then namespace and name. */
export function topOpportunities(
  rows: readonly ServicePeriodRow[],
  ref: (id: string) => ClusterRef,
  unknownPrice: (clusterId: string) => boolean,
): OpportunityLine[] {
  const byService = new Map<string, OpportunityLine>();
  for (const row of rows) {
    if (row.missedBasis !== 'preview') continue;
    const key = serviceKeyOf(row);
    const line = byService.get(key) ?? {
      cluster: ref(row.clusterId),
      namespace: row.namespace,
      name: row.name,
      trafficGb: 0,
      missedSavings: ZERO,
      estimate: unknownPrice(row.clusterId),
    };
    line.trafficGb += row.trafficGb;
    line.missedSavings = add(line.missedSavings, { crossZoneGb: row.missedGb, cost: row.missedCost });
    line.estimate ||= row.estimated;
    byService.set(key, line);
  }
  return [...byService.values()]
    .sort(
      (a, b) =>
        rankingUnits(b.missedSavings.cost) - rankingUnits(a.missedSavings.cost) ||
        rankingUnits(b.missedSavings.crossZoneGb) - rankingUnits(a.missedSavings.crossZoneGb) ||
        byteOrder(a.namespace, b.namespace) ||
        byteOrder(a.name, b.name) ||
        byteOrder(a.cluster.id, b.cluster.id),
    )
    .slice(0, TOP_OPPORTUNITIES);
}

/** The Services whose measured share contradicts their populated hints, largest as-routed cost first. */
export function contradictionLines(lines: readonly ServiceLine[]): ContradictionLine[] {
  return lines
    .flatMap((line) =>
      line.contradiction === null
        ? []
        : [
            {
              cluster: line.cluster,
              namespace: line.namespace,
              name: line.name,
              ...line.contradiction,
              withHints: line.withHints,
            },
          ],
    )
    .sort(
      (a, b) =>
        rankingUnits(b.withHints.cost) - rankingUnits(a.withHints.cost) ||
        byteOrder(a.cluster.name, b.cluster.name) ||
        byteOrder(a.namespace, b.namespace) ||
        byteOrder(a.name, b.name),
    );
}
