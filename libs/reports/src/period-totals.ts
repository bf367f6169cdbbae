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
import { subtract, byteOrder, serviceKeyOf } from './report-figures.js';
import { reasonOfRow } from './service-lines.js';

/**
 * Missed savings per reason: money and GB from every row (a Service that changed reasons adds to each),
 * Services counted under the one reason of their line (the one they spent longest in), so the counts
 * are the CSV's rows per `missed_reason`.
 */
export function missedByReason(rows: readonly ServicePeriodRow[], lines: readonly ServiceLine[]): MissedByReason[] {
  const missed = new Map<MissedReason, Figure>();
  for (const row of rows) {
    const reason = reasonOfRow(row);
    if (reason === null) continue;
    let figure = missed.get(reason);
    if (!figure) missed.set(reason, (figure = { crossZoneGb: 0, cost: 0 }));
    figure.crossZoneGb += row.missedGb;
    figure.cost += row.missedCost;
  }
  const services = new Map<MissedReason, number>();
  for (const line of lines) {
    if (line.missedReason !== null) services.set(line.missedReason, (services.get(line.missedReason) ?? 0) + 1);
  }
  return MISSED_REASONS.map((reason) => ({
    reason,
    title: MISSED_REASON_TITLES[reason],
    basis: missedBasisOf(reason),
    services: services.get(reason) ?? 0,
    crossZoneGb: missed.get(reason)?.crossZoneGb ?? 0,
    cost: missed.get(reason)?.cost ?? 0,
  }));
}

/**
 * Decision: every total is summed in place in one pass (measured: a new figure per line and a filtered
 * copy per total cost more than the sums, for 200,000 lines totalled for the fleet and again per cluster),
 * in line or row order from 0: a floating-point sum's last bits depend on its order, and the figures keep them.
 */
export function totalsOf(
  lines: readonly ServiceLine[],
  rows: readonly ServicePeriodRow[],
  unknownPrice: (clusterId: string) => boolean,
): PeriodTotals {
  const ofLines = lineTotals(lines);
  const ofRows = rowTotals(rows, ofLines.measuredKeys);
  const { withoutHints, withHints, trafficGb, measuredTrafficGb, measured } = ofLines;
  return {
    services: lines.length,
    serviceMonths: ofLines.serviceMonths,
    trafficGb,
    withoutHints,
    withHints,
    realizedSavings: subtract(withoutHints, withHints),
    missedSavings: ofRows.missedSavings,
    blockedAtStake: ofRows.blockedAtStake,
    opportunities: ofRows.opportunities,
    trafficSources: ofLines.trafficSources,
    measuredTrafficGb,
    measuredShare: trafficGb > 0 ? measuredTrafficGb / trafficGb : null,
    measured: {
      services: measured.services,
      withHints: measured.withHints,
      realizedSavings: { cost: measured.realizedCost },
      missedSavings: { cost: ofRows.measuredMissedCost },
      withHintsCostShare: withHints.cost > 0 ? measured.withHints.cost / withHints.cost : null,
    },
    contradictions: ofLines.contradictions,
    estimate: ofLines.estimate || rows.some((row) => unknownPrice(row.clusterId)),
  };
}

function lineTotals(lines: readonly ServiceLine[]) {
  const totals = {
    serviceMonths: 0,
    trafficGb: 0,
    // A measured volume is the Service's own (like an API value), so all of its period traffic is measured.
    measuredTrafficGb: 0,
    withoutHints: { crossZoneGb: 0, cost: 0 },
    withHints: { crossZoneGb: 0, cost: 0 },
    trafficSources: { api: 0, measured: 0, annotation: 0, 'default-per-endpoint': 0 } as Record<TrafficSource, number>,
    measured: { services: 0, withHints: { crossZoneGb: 0, cost: 0 }, realizedCost: 0 },
    measuredKeys: new Set<string>(),
    contradictions: 0,
    estimate: false,
  };
  for (const line of lines) {
    totals.serviceMonths += line.months;
    totals.trafficGb += line.trafficGb;
    if (line.trafficSource === 'measured') totals.measuredTrafficGb += line.trafficGb;
    totals.trafficSources[line.trafficSource]++;
    totals.withoutHints.crossZoneGb += line.withoutHints.crossZoneGb;
    totals.withoutHints.cost += line.withoutHints.cost;
    totals.withHints.crossZoneGb += line.withHints.crossZoneGb;
    totals.withHints.cost += line.withHints.cost;
    if (line.fullyMeasured) {
      totals.measured.services++;
      totals.measured.withHints.crossZoneGb += line.withHints.crossZoneGb;
      totals.measured.withHints.cost += line.withHints.cost;
      totals.measured.realizedCost += line.realizedSavings.cost;
      totals.measuredKeys.add(serviceKeyOf({ clusterId: line.cluster.id, namespace: line.namespace, name: line.name }));
    }
    if (line.contradiction !== null) totals.contradictions++;
    totals.estimate ||= line.estimate;
  }
  return totals;
}

function rowTotals(rows: readonly ServicePeriodRow[], measuredKeys: ReadonlySet<string>) {
  const totals = {
    missedSavings: { crossZoneGb: 0, cost: 0 },
    blockedAtStake: { crossZoneGb: 0, cost: 0 },
    opportunities: 0,
    measuredMissedCost: 0,
  };
  const opportunities = new Set<string>();
  for (const row of rows) {
    if (row.missedBasis === 'blocked') {
      totals.blockedAtStake.crossZoneGb += row.missedGb;
      totals.blockedAtStake.cost += row.missedCost;
    } else if (row.missedBasis === 'preview') {
      totals.missedSavings.crossZoneGb += row.missedGb;
      totals.missedSavings.cost += row.missedCost;
      const key = serviceKeyOf(row);
      opportunities.add(key);
      if (measuredKeys.has(key)) totals.measuredMissedCost += row.missedCost;
    }
  }
  totals.opportunities = opportunities.size;
  return totals;
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
    let line = byService.get(key);
    if (!line) {
      line = {
        cluster: ref(row.clusterId),
        namespace: row.namespace,
        name: row.name,
        trafficGb: 0,
        missedSavings: { crossZoneGb: 0, cost: 0 },
        estimate: unknownPrice(row.clusterId),
      };
      byService.set(key, line);
    }
    line.trafficGb += row.trafficGb;
    line.missedSavings.crossZoneGb += row.missedGb;
    line.missedSavings.cost += row.missedCost;
    line.estimate ||= row.estimated;
  }
  // Ranking units are computed once per Service, not twice per comparison.
  return [...byService.values()]
    .map((line) => ({
      line,
      cost: rankingUnits(line.missedSavings.cost),
      crossZoneGb: rankingUnits(line.missedSavings.crossZoneGb),
    }))
    .sort(
      (a, b) =>
        b.cost - a.cost ||
        b.crossZoneGb - a.crossZoneGb ||
        byteOrder(a.line.namespace, b.line.namespace) ||
        byteOrder(a.line.name, b.line.name) ||
        byteOrder(a.line.cluster.id, b.line.cluster.id),
    )
    .slice(0, TOP_OPPORTUNITIES)
    .map((ranked) => ranked.line);
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
