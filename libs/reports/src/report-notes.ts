/** The notes a report carries: partial periods, missing clusters, coverage, traffic sources, prices. */
import type { ReportInput } from './report-input.js';
import type { PeriodTotals } from './report-model.js';

export function notesOf(input: ReportInput, totals: PeriodTotals): string[] {
  const notes: string[] = [];
  if (input.meta.partial) {
    notes.push(
      `made on demand before the period ended: it covers the period up to ${input.meta.period.end.toISOString()}`,
    );
  }
  if (input.scope.missingClusterIds.length > 0) {
    notes.push(
      `clusters chosen for this schedule that no longer exist were left out: ${input.scope.missingClusterIds.join(', ')}`,
    );
  }
  if (input.scope.clusters.length === 0) notes.push('no cluster in scope: every figure is zero');
  const coverage = new Map(input.coverage.map((row) => [row.clusterId, row]));
  for (const cluster of input.scope.clusters) {
    const row = coverage.get(cluster.id);
    if (!row || (row.snapshots === 0 && !row.historyBeforePeriod)) {
      notes.push(`${cluster.name}: no analysed snapshot covers this period`);
    } else if (!row.historyBeforePeriod) {
      notes.push(`${cluster.name}: history starts at ${row.firstCapturedAt?.toISOString()}, after the period's start`);
    }
  }
  if (totals.trafficSources.measured > 0) {
    notes.push(
      `${totals.trafficSources.measured} Service(s) use volumes measured by their cluster's traffic source (Prometheus): ${formatShare(totals.measuredShare)} of this period's traffic is measured, the rest declared or estimated`,
    );
  }
  if (totals.trafficSources['default-per-endpoint'] > 0) {
    notes.push(
      `${totals.trafficSources['default-per-endpoint']} Service(s) have no declared traffic: their volume is the per-endpoint default, an estimate`,
    );
  }
  for (const cluster of input.scope.clusters) {
    if (cluster.pricing.source === 'unknown-cloud-default') notes.push(`${cluster.name}: ${cluster.pricing.note}`);
  }
  return notes;
}

function formatShare(share: number | null): string {
  return share === null ? '0%' : `${(share * 100).toFixed(1)}%`;
}
