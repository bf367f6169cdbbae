/** One line per Service per cluster from its history rows, with its main missed reason and its best fix; the top fixes. */
import { measuredContradiction } from '@zw/core';
import { missedBasisOf, type MissedReason, missedReasonOf } from './missed-reasons.js';
import type { FixRow, ReportInput, ServicePeriodRow } from './report-input.js';
import {
  TOP_FIXES,
  FLAPPING_MIN_CHANGES,
  type ClusterRef,
  type ServiceLine,
  type BestFix,
  type FixLine,
} from './report-model.js';
import { ZERO, add, subtract, byteOrder, serviceKeyOf } from './report-figures.js';

/** Hint-state changes per Service (`clusterId/namespace/name`). */
export function changesByService(input: ReportInput): Map<string, number> {
  const changes = new Map<string, number>();
  for (const row of input.transitions) {
    const key = serviceKeyOf(row);
    changes.set(key, (changes.get(key) ?? 0) + row.count);
  }
  return changes;
}

export function reasonOfRow(row: ServicePeriodRow): MissedReason | null {
  if (row.missedBasis === null) return null;
  return row.missedBasis === 'preview' ? 'not-enabled' : missedReasonOf(row.missedReason);
}

/** The Service's share as routed, measured or modelled, and whether the measurement contradicts its verdict. */
function measuredShareOf(
  row: ServicePeriodRow,
): Pick<ServiceLine, 'crossZoneSource' | 'modelCrossZone' | 'measuredCrossZone' | 'fullyMeasured' | 'contradiction'> {
  return {
    crossZoneSource: row.measuredCrossZone === null ? 'model' : 'measured',
    modelCrossZone: row.modelCrossZone,
    measuredCrossZone: row.measuredCrossZone,
    fullyMeasured: row.fullyMeasured,
    contradiction: measuredContradiction(row),
  };
}

/** Merges each Service's rows (one per kind of missed saving) into its line. */
export function serviceLines(
  rows: readonly ServicePeriodRow[],
  changes: ReadonlyMap<string, number>,
  ref: (id: string) => ClusterRef,
): ServiceLine[] {
  const lines = new Map<string, ServiceLine & { reasonMonths: Map<MissedReason, number> }>();
  for (const row of rows) {
    const key = serviceKeyOf(row);
    let line = lines.get(key);
    if (!line) {
      const hintStateChanges = changes.get(key) ?? 0;
      line = {
        cluster: ref(row.clusterId),
        namespace: row.namespace,
        name: row.name,
        routing: row.routing,
        hintState: row.hintState,
        hintReason: row.hintReason,
        months: 0,
        trafficGb: 0,
        trafficSource: row.trafficSource,
        estimate: false,
        ...measuredShareOf(row),
        withoutHints: ZERO,
        withHints: ZERO,
        realizedSavings: ZERO,
        missedSavings: ZERO,
        missedReason: null,
        missedBasis: null,
        hintStateChanges,
        flapping: hintStateChanges >= FLAPPING_MIN_CHANGES,
        bestFix: null,
        reasonMonths: new Map(),
      };
      lines.set(key, line);
    }
    line.months += row.months;
    line.trafficGb += row.trafficGb;
    line.estimate ||= row.estimated;
    line.withoutHints = add(line.withoutHints, { crossZoneGb: row.withoutHintsGb, cost: row.withoutHintsCost });
    line.withHints = add(line.withHints, { crossZoneGb: row.withHintsGb, cost: row.withHintsCost });
    line.missedSavings = add(line.missedSavings, { crossZoneGb: row.missedGb, cost: row.missedCost });
    const reason = reasonOfRow(row);
    if (reason !== null) line.reasonMonths.set(reason, (line.reasonMonths.get(reason) ?? 0) + row.months);
  }
  return [...lines.values()]
    .map(({ reasonMonths, ...line }) => {
      // Decision: a Service's reason is the one it spent longest in during the period.
      const reason = [...reasonMonths.entries()].sort((a, b) => b[1] - a[1] || byteOrder(a[0], b[0]))[0]?.[0] ?? null;
      return {
        ...line,
        realizedSavings: subtract(line.withoutHints, line.withHints),
        missedReason: reason,
        missedBasis: reason === null ? null : missedBasisOf(reason),
      };
    })
    .sort(
      (a, b) =>
        byteOrder(a.cluster.name, b.cluster.name) ||
        byteOrder(a.cluster.id, b.cluster.id) ||
        byteOrder(a.namespace, b.namespace) ||
        byteOrder(a.name, b.name),
    );
}

function bestFixOf(fix: FixRow, rank: number): BestFix {
  return {
    rank,
    kind: fix.kind,
    summary: fix.summary,
    resultingState: fix.resultingState,
    monthlySavings: { crossZoneGb: fix.savedGb, cost: fix.savedCost },
  };
}

/** Each Service line with its best fix (fixes come ranked, so a fix's rank is its position). */
export function withBestFixes(lines: ServiceLine[], fixes: readonly FixRow[]): ServiceLine[] {
  const ranked = new Map(fixes.map((fix, index) => [serviceKeyOf(fix), bestFixOf(fix, index + 1)]));
  return lines.map((line) => ({
    ...line,
    bestFix: ranked.get(serviceKeyOf({ clusterId: line.cluster.id, ...line })) ?? null,
  }));
}

export function topFixes(
  fixes: readonly FixRow[],
  ref: (id: string) => ClusterRef,
  unknownPrice: (clusterId: string) => boolean,
): FixLine[] {
  return fixes.slice(0, TOP_FIXES).map((fix, index) => ({
    ...bestFixOf(fix, index + 1),
    cluster: ref(fix.clusterId),
    namespace: fix.namespace,
    name: fix.name,
    crossZoneAfter: fix.crossZoneAfter,
    overloadAboveThreshold: fix.overloadAboveThreshold,
    patch: fix.patch,
    trafficGb: fix.trafficGb,
    estimate: fix.trafficSource === 'default-per-endpoint' || unknownPrice(fix.clusterId),
    alternatives: fix.alternatives,
  }));
}
