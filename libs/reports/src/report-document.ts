/**
 * The report: what topology routing saved and missed over one period, for a fleet or chosen clusters.
 * Built from history rows (report-input) by plain arithmetic; the JSON document is the report itself,
 * and the CSV and HTML renderings are drawn from it alone.
 *
 * Figures follow the savings model of `@zw/core` (its `describePricingModel`), integrated over time:
 * every monthly figure of a Service counts for the share of a 730-hour month its state held within the
 * period, so a report's totals equal `GET /v1/savings` over the same range.
 */
import { describePricingModel } from '@zw/core';
import { periodLabel } from './period-label.js';
import type { ReportInput } from './report-input.js';
import { REPORT_SCHEMA, HOURS_PER_MONTH, type ClusterRef, type ReportDocument } from './report-model.js';
import { groupBy } from './report-figures.js';
import { changesByService, serviceLines, topFixes } from './service-lines.js';
import { contradictionLines, missedByReason, totalsOf, topOpportunities } from './period-totals.js';
import { hintStatesOf, zonesAtRisk, cidrRisks } from './report-risks.js';
import { trendPoints } from './report-trend.js';
import { notesOf } from './report-notes.js';

export * from './report-model.js';

export function buildReportDocument(input: ReportInput): ReportDocument {
  const { meta } = input;
  const clustersById = new Map(input.scope.clusters.map((cluster) => [cluster.id, cluster]));
  const ref = (id: string): ClusterRef => ({ id, name: clustersById.get(id)?.name ?? id });
  const changes = changesByService(input);
  const services = serviceLines(input.services, changes, input.fixes ?? [], ref);
  const missedRows = input.services.filter((row) => row.missedBasis !== null);
  const byReason = missedByReason(missedRows, services);
  const pricing = new Map(input.scope.clusters.map((cluster) => [cluster.id, cluster.pricing]));
  const unknownPrice = (clusterId: string) => pricing.get(clusterId)?.source === 'unknown-cloud-default';
  const totals = totalsOf(services, input.services, unknownPrice);
  const coverage = new Map(input.coverage.map((row) => [row.clusterId, row]));
  const linesByCluster = groupBy(services, (line) => line.cluster.id);
  const rowsByCluster = groupBy(input.services, (row) => row.clusterId);

  return {
    schema: REPORT_SCHEMA,
    id: meta.id,
    schedule: { ...meta.schedule },
    period: {
      start: meta.period.start.toISOString(),
      end: meta.period.end.toISOString(),
      timeZone: meta.schedule.timeZone,
      label: periodLabel(meta.period, meta.schedule.timeZone, meta.partial),
      hours: (meta.period.end.getTime() - meta.period.start.getTime()) / 3_600_000,
      partial: meta.partial,
    },
    trigger: meta.trigger,
    generatedAt: meta.generatedAt.toISOString(),
    currency: 'USD',
    hoursPerMonth: HOURS_PER_MONTH,
    scope: {
      kind: input.scope.kind,
      clusters: input.scope.clusters.map((cluster) => ({ id: cluster.id, name: cluster.name })),
      missingClusterIds: [...input.scope.missingClusterIds],
    },
    totals,
    missedSavings: { byReason },
    clusters: input.scope.clusters.map((cluster) => {
      const rows = coverage.get(cluster.id);
      return {
        id: cluster.id,
        name: cluster.name,
        cloud: cluster.cloud,
        region: cluster.region,
        pricing: { ...cluster.pricing },
        coverage: {
          snapshots: rows?.snapshots ?? 0,
          firstCapturedAt: rows?.firstCapturedAt?.toISOString() ?? null,
          lastCapturedAt: rows?.lastCapturedAt?.toISOString() ?? null,
          historyBeforePeriod: rows?.historyBeforePeriod ?? false,
        },
        totals: totalsOf(linesByCluster.get(cluster.id) ?? [], rowsByCluster.get(cluster.id) ?? [], unknownPrice),
      };
    }),
    topOpportunities: topOpportunities(input.services, ref, unknownPrice),
    topFixes: topFixes(input.fixes ?? [], ref, unknownPrice),
    hintStates: hintStatesOf(input, services),
    zonesAtRisk: zonesAtRisk(input.documents, ref),
    serviceCidrRisks: cidrRisks(input.documents, ref),
    trend: { points: trendPoints(input) },
    services,
    contradictions: contradictionLines(services),
    measuredTraffic: (input.measured ?? []).map(({ clusterId, ...figures }) => ({
      cluster: ref(clusterId),
      ...figures,
    })),
    notes: notesOf(input, totals),
    model: {
      formulas: describePricingModel().formulas,
      traffic: describePricingModel().traffic,
      missedSavings: [
        'not-enabled: what enabling topology-mode Auto would have saved, from the stored preview of the controller with the annotation set (exact under the model)',
        'too-few-endpoints, overload-threshold, node-info, other: the cross-zone traffic of Services whose hints the controller refused (or would refuse) for that reason, the most that removing the cause could save (at-stake)',
        'every figure is integrated over the period: monthly GB × the share of a 730-hour month each state held',
      ],
    },
  };
}
