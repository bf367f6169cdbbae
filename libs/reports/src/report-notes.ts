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
  if (totals.measured.services > 0) {
    notes.push(
      `${totals.measured.services} Service(s) have both their volume and their share crossing zones measured: ${formatUsd(totals.measured.withHints.cost)} of the ${formatUsd(totals.withHints.cost)} as routed (${formatShare(totals.measured.withHintsCostShare)}), ${formatUsd(totals.measured.realizedSavings.cost)} of the realised and ${formatUsd(totals.measured.missedSavings.cost)} of the missed savings are measured; the rest is estimated by the model`,
    );
  }
  if (totals.contradictions > 0) {
    notes.push(
      `${totals.contradictions} Service(s) have populated hints, yet their measured share crossing zones is well above the model's: a data plane that ignores the hints, or clients outside the cluster (see contradictions)`,
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

function formatUsd(value: number): string {
  return `${value.toFixed(2)} USD`;
}

function formatShare(share: number | null): string {
  return share === null ? '0%' : `${(share * 100).toFixed(1)}%`;
}
