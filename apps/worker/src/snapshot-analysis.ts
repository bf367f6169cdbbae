import { type AnalysisReport, analyzeSnapshot, parseSnapshot, SnapshotError } from '@zw/core';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { SnapshotAggregates } from './history/history-writer.js';
import { type ServiceState, withStateHash } from './history/service-state.js';

const gunzipAsync = promisify(gunzip);

/** A snapshot that no retry can ever make processable: bad payload, too old, payload gone. */
export class UnprocessableSnapshotError extends Error {
  override name = 'UnprocessableSnapshotError';
}

export interface AnalyzedSnapshot {
  services: ServiceState[];
  aggregates: SnapshotAggregates;
}

/** Decompresses and parses a stored payload; failures are permanent. */
export async function readPayload(gzipped: Uint8Array): Promise<unknown> {
  let json: Buffer;
  try {
    json = await gunzipAsync(gzipped);
  } catch (error) {
    throw new UnprocessableSnapshotError(`stored payload is not valid gzip: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(json.toString('utf8'));
  } catch (error) {
    throw new UnprocessableSnapshotError(`stored payload is not valid JSON: ${(error as Error).message}`);
  }
}

/** Runs the core on a snapshot document and keeps what history stores. */
export function analyzeDocument(document: unknown): AnalyzedSnapshot {
  let report: AnalysisReport;
  try {
    report = analyzeSnapshot(parseSnapshot(document));
  } catch (error) {
    if (error instanceof SnapshotError) throw new UnprocessableSnapshotError(`invalid snapshot: ${error.message}`);
    throw error;
  }
  return { services: serviceStates(report), aggregates: aggregatesOf(report) };
}

/**
 * Decision: a Service's state is what the issue lists (routing, hint state and reason, per-zone
 * allocation, cross-zone fractions). Events, slices, ready-endpoint counts and drift are left out: they
 * follow from these or churn with every pod restart (which would split intervals for nothing), and the
 * raw payload keeps them for PAYLOAD_RETENTION_DAYS.
 */
function serviceStates(report: AnalysisReport): ServiceState[] {
  return report.services.map((service) =>
    withStateHash({
      namespace: service.namespace,
      name: service.name,
      routing: service.routing,
      hintState: service.hints.state,
      hintReason: service.hints.reason,
      zones: service.zones as unknown as Record<string, Record<string, unknown>>,
      crossZoneWithoutHints: service.crossZone.withoutHints,
      crossZoneWithHints: service.crossZone.withHints,
    }),
  );
}

/** Decision: the estimated cross-zone fraction is the core's own summary (weighted by ready endpoints). */
function aggregatesOf(report: AnalysisReport): SnapshotAggregates {
  return {
    services: report.services.length,
    servicesPopulated: report.summary.services.populated,
    servicesRemoved: report.summary.services.removed,
    servicesNone: report.summary.services.none,
    servicesWithDrift: report.summary.servicesWithDrift,
    nodeInfoSufficient: report.nodeInfo.sufficient,
    nodeInfoReason: report.nodeInfo.reason,
    zones: report.nodeInfo.zones,
    crossZoneWithoutHints: report.summary.crossZone.withoutHints,
    crossZoneWithHints: report.summary.crossZone.withHints,
  };
}
