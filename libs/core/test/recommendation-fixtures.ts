/**
 * Shared set-up of the recommendations specs: snapshots parsed as the CLI reads them, the fixes
 * recommended for them, and the check that a fix's promise is what `analyze` reports once its what-if
 * is applied.
 */
import { expect } from 'vitest';
import { analyzeSnapshot, type ServiceAnalysis } from '../src/analyze.js';
import type { EndpointSlice, Node, OwnedObject, Service } from '../src/k8s-objects.js';
import { monthlyTrafficGb } from '../src/monthly-traffic.js';
import {
  type Recommendation,
  recommendFixes,
  type RecommendOptions,
  type SnapshotRecommendations,
} from '../src/recommendations.js';
import { crossZonePrice } from '../src/savings.js';
import type { Snapshot } from '../src/snapshot-model.js';
import { parseSnapshot } from '../src/snapshots.js';
import { applyWhatIf } from '../src/what-if.js';
import { nodes, type PodOwner, podsOwnedBy } from './fixtures.js';

export function snapshotOf(objects: {
  nodes: Node[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  pods?: OwnedObject[];
  replicaSets?: OwnedObject[];
}): Snapshot {
  return parseSnapshot(structuredClone(objects));
}

/** The snapshot's objects with every endpoint's Pod owned by `owner` (see podsOwnedBy). */
export function ownedBy<T extends { endpointSlices: EndpointSlice[] }>(objects: T, owner: PodOwner) {
  return { ...objects, ...podsOwnedBy(objects.endpointSlices, () => owner) };
}

export function analysisOf(snapshot: Snapshot, name = 'web'): ServiceAnalysis {
  const found = analyzeSnapshot(snapshot).services.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
}

export function fixesOf(snapshot: Snapshot, options: RecommendOptions = {}): SnapshotRecommendations {
  return recommendFixes(snapshot, analyzeSnapshot(snapshot), options);
}

export function fixesFor(snapshot: Snapshot, name = 'web', options: RecommendOptions = {}): Recommendation[] {
  const found = fixesOf(snapshot, options).services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found.recommendations;
}

const PRICE = crossZonePrice({});

function withoutNodes(snapshot: Snapshot, names: readonly string[]): Snapshot {
  return { ...snapshot, nodes: snapshot.nodes.filter((entry) => !names.includes(entry.metadata.name)) };
}

/** The promise of one fix checked against `analyze` of the snapshot with its what-if applied. */
export function expectKeptPromise(given: Snapshot, name: string, fix: Recommendation): void {
  if (fix.whatIf === null) return;
  // A nodes fix promises what happens once its nodes are out of the controller's count.
  const snapshot = fix.nodes === undefined ? given : withoutNodes(given, fix.nodes);
  const before = analysisOf(snapshot, name);
  const after = analysisOf(applyWhatIf(snapshot, fix.whatIf), name);
  expect(after.hints.state).toBe(fix.resultingState);
  if (fix.resultingState !== 'populated') return;
  expect(after.crossZone.withHints).toBe(fix.crossZone.withHints);
  for (const [zone, overload] of Object.entries(fix.expectedOverload)) {
    expect(after.zones[zone]?.expectedOverload).toBe(overload);
  }
  const service = snapshot.services.find((entry) => entry.metadata.name === name);
  const traffic = monthlyTrafficGb({
    annotations: service?.metadata.annotations,
    readyEndpoints: before.readyEndpoints,
  });
  // Against today: with the blocking nodes in place the controller writes no hints, so every request
  // spreads over all endpoints.
  const today = fix.nodes === undefined ? before.crossZone.withHints : before.crossZone.withoutHints;
  const saved = traffic.gb * (today - after.crossZone.withHints);
  expect(fix.savings.crossZoneGb).toBeCloseTo(saved, 9);
  expect(fix.savings.cost).toBeCloseTo(saved * PRICE.pricePerGb, 9);
}

export const threeEqualZones = nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] });
