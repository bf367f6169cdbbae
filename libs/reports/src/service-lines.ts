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
import { ZERO, subtract, byteOrder, serviceKeyOf } from './report-figures.js';

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

/**
 * Merges each Service's rows (one per kind of missed saving) into its line, by cluster name, namespace
 * and name, with its best fix (fixes come ranked, so a fix's rank is its position). Decision: a line is
 * built once and its figures summed in place (measured: copies of 25-field lines and a new figure per
 * row made most of the time and garbage of a 200,000-Service report), in row order from 0: a
 * floating-point sum's last bits depend on its order, and the figures keep them.
 */
export function serviceLines(
  rows: readonly ServicePeriodRow[],
  changes: ReadonlyMap<string, number>,
  fixes: readonly FixRow[],
  ref: (id: string) => ClusterRef,
): ServiceLine[] {
  const drafts = new Map<string, { line: ServiceLine; reasonMonths: Map<MissedReason, number> | null }>();
  for (const row of rows) {
    const key = serviceKeyOf(row);
    let draft = drafts.get(key);
    if (!draft) {
      draft = { line: newLine(row, ref(row.clusterId), changes.get(key) ?? 0), reasonMonths: null };
      drafts.set(key, draft);
    }
    addRow(draft.line, row);
    const reason = reasonOfRow(row);
    if (reason !== null) {
      draft.reasonMonths ??= new Map();
      draft.reasonMonths.set(reason, (draft.reasonMonths.get(reason) ?? 0) + row.months);
    }
  }
  const lines: ServiceLine[] = [];
  for (const { line, reasonMonths } of drafts.values()) {
    line.realizedSavings = subtract(line.withoutHints, line.withHints);
    line.missedReason = longestReason(reasonMonths);
    line.missedBasis = line.missedReason === null ? null : missedBasisOf(line.missedReason);
    lines.push(line);
  }
  // A Service listed twice among the fixes keeps the later one.
  fixes.forEach((fix, index) => {
    const draft = drafts.get(serviceKeyOf(fix));
    if (draft) draft.line.bestFix = bestFixOf(fix, index + 1);
  });
  return lines.sort(
    (a, b) =>
      byteOrder(a.cluster.name, b.cluster.name) ||
      byteOrder(a.cluster.id, b.cluster.id) ||
      byteOrder(a.namespace, b.namespace) ||
      byteOrder(a.name, b.name),
  );
}

/** A Service's line from its first row, nothing summed yet; the fields after the sums are set once all rows are in. */
function newLine(row: ServicePeriodRow, cluster: ClusterRef, hintStateChanges: number): ServiceLine {
  return {
    cluster,
    namespace: row.namespace,
    name: row.name,
    routing: row.routing,
    hintState: row.hintState,
    hintReason: row.hintReason,
    months: 0,
    trafficGb: 0,
    trafficSource: row.trafficSource,
    estimate: false,
    crossZoneSource: row.measuredCrossZone === null ? 'model' : 'measured',
    modelCrossZone: row.modelCrossZone,
    measuredCrossZone: row.measuredCrossZone,
    fullyMeasured: row.fullyMeasured,
    contradiction: measuredContradiction(row),
    withoutHints: { crossZoneGb: 0, cost: 0 },
    withHints: { crossZoneGb: 0, cost: 0 },
    realizedSavings: ZERO,
    missedSavings: { crossZoneGb: 0, cost: 0 },
    missedReason: null,
    missedBasis: null,
    hintStateChanges,
    flapping: hintStateChanges >= FLAPPING_MIN_CHANGES,
    bestFix: null,
  };
}

function addRow(line: ServiceLine, row: ServicePeriodRow): void {
  line.months += row.months;
  line.trafficGb += row.trafficGb;
  line.estimate ||= row.estimated;
  line.withoutHints.crossZoneGb += row.withoutHintsGb;
  line.withoutHints.cost += row.withoutHintsCost;
  line.withHints.crossZoneGb += row.withHintsGb;
  line.withHints.cost += row.withHintsCost;
  line.missedSavings.crossZoneGb += row.missedGb;
  line.missedSavings.cost += row.missedCost;
}

/** Decision: a Service's reason is the one it spent longest in during the period (ties: byte order). */
function longestReason(reasonMonths: ReadonlyMap<MissedReason, number> | null): MissedReason | null {
  let longest: MissedReason | null = null;
  let longestMonths = 0;
  for (const [reason, months] of reasonMonths ?? []) {
    if (longest === null || months > longestMonths || (months === longestMonths && byteOrder(reason, longest) < 0)) {
      longest = reason;
      longestMonths = months;
    }
  }
  return longest;
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
    patch: patchOf(fix),
    trafficGb: fix.trafficGb,
    estimate: fix.trafficSource === 'default-per-endpoint' || unknownPrice(fix.clusterId),
    alternatives: fix.alternatives,
  }));
}

function patchOf(fix: FixRow): string {
  if (fix.patch === null)
    throw new Error(`report input: top fix of ${fix.namespace}/${fix.name} came without its patch`);
  return fix.patch;
}
