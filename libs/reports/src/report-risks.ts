/** Hint states and their changes, zones past the overload threshold, and Service CIDRs at risk. */
import { OVERLOAD_THRESHOLD } from '@zw/core';
import type { ClusterDocumentsRow, ReportInput } from './report-input.js';
import {
  FLAPPING_MIN_CHANGES,
  CIDR_UTILIZATION_RISK,
  type ClusterRef,
  type ServiceLine,
  type ZoneRisk,
  type CidrRisk,
  type ReportDocument,
} from './report-model.js';
import { byteOrder } from './report-figures.js';

export function hintStatesOf(input: ReportInput, services: readonly ServiceLine[]): ReportDocument['hintStates'] {
  const transitions = new Map<string, { from: string; to: string; count: number }>();
  for (const row of input.transitions) {
    const key = `${row.from}→${row.to}`;
    const entry = transitions.get(key) ?? { from: row.from, to: row.to, count: 0 };
    entry.count += row.count;
    transitions.set(key, entry);
  }
  const changed = services.filter((line) => line.hintStateChanges > 0);
  return {
    changes: changed.reduce((sum, line) => sum + line.hintStateChanges, 0),
    servicesChanged: changed.length,
    transitions: [...transitions.values()].sort(
      (a, b) => b.count - a.count || byteOrder(a.from, b.from) || byteOrder(a.to, b.to),
    ),
    flappingThreshold: FLAPPING_MIN_CHANGES,
    flapping: changed
      .filter((line) => line.flapping)
      .sort(
        (a, b) =>
          b.hintStateChanges - a.hintStateChanges || byteOrder(a.namespace, b.namespace) || byteOrder(a.name, b.name),
      )
      .map((line) => ({
        cluster: line.cluster,
        namespace: line.namespace,
        name: line.name,
        changes: line.hintStateChanges,
        hintState: line.hintState,
      })),
  };
}

interface StoredZoneStats {
  name: string;
  cpuShare: number | null;
  expectedOverload?: { max?: number; maxService?: string | null; servicesAboveThreshold?: number };
}

/** Zones where Services' expected overload passes the controller's threshold, worst first. */
export function zonesAtRisk(documents: readonly ClusterDocumentsRow[], ref: (id: string) => ClusterRef): ZoneRisk[] {
  const risks: ZoneRisk[] = [];
  for (const row of documents) {
    if (!Array.isArray(row.zoneStats)) continue;
    for (const zone of row.zoneStats as StoredZoneStats[]) {
      const overload = zone.expectedOverload ?? {};
      const max = overload.max ?? 0;
      const above = overload.servicesAboveThreshold ?? 0;
      if (above === 0 && max <= OVERLOAD_THRESHOLD) continue;
      risks.push({
        cluster: ref(row.clusterId),
        zone: zone.name,
        asOf: row.capturedAt.toISOString(),
        cpuShare: zone.cpuShare ?? null,
        maxExpectedOverload: max,
        maxService: overload.maxService ?? null,
        servicesAboveThreshold: above,
      });
    }
  }
  return risks.sort(
    (a, b) =>
      b.servicesAboveThreshold - a.servicesAboveThreshold ||
      b.maxExpectedOverload - a.maxExpectedOverload ||
      byteOrder(a.cluster.name, b.cluster.name) ||
      byteOrder(a.zone, b.zone),
  );
}

interface StoredCidr {
  cidr: string;
  family: string;
  utilization: number;
  allocated: unknown;
  free: unknown;
  risks?: unknown[];
  conflicts?: unknown[];
}

/** Service CIDRs with static ClusterIPs in the dynamic band, conflicts, or little room left. */
export function cidrRisks(documents: readonly ClusterDocumentsRow[], ref: (id: string) => ClusterRef): CidrRisk[] {
  const risks: CidrRisk[] = [];
  for (const row of documents) {
    if (!Array.isArray(row.serviceCidrs)) continue;
    for (const cidr of row.serviceCidrs as StoredCidr[]) {
      const listed = cidr.risks ?? [];
      const conflicts = cidr.conflicts ?? [];
      if (listed.length === 0 && conflicts.length === 0 && !(cidr.utilization >= CIDR_UTILIZATION_RISK)) continue;
      risks.push({
        cluster: ref(row.clusterId),
        asOf: row.capturedAt.toISOString(),
        cidr: cidr.cidr,
        family: cidr.family,
        utilization: cidr.utilization,
        allocated: cidr.allocated,
        free: cidr.free,
        risks: listed,
        conflicts,
      });
    }
  }
  return risks.sort(
    (a, b) =>
      b.conflicts.length + b.risks.length - (a.conflicts.length + a.risks.length) ||
      b.utilization - a.utilization ||
      byteOrder(a.cluster.name, b.cluster.name) ||
      byteOrder(a.cidr, b.cidr),
  );
}
