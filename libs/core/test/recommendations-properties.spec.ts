import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeSnapshot } from '../src/analyze.js';
import { recommendFixes } from '../src/recommendations.js';
import { applyWhatIf } from '../src/what-if.js';
import { autoService, node, nodes, service, slice } from './fixtures.js';
import { analysisOf, expectKeptPromise, fixesOf, snapshotOf } from './recommendation-fixtures.js';

const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d'];

const clusterArb = fc
  .record({
    zoneCount: fc.integer({ min: 2, max: 4 }),
    strayNode: fc.boolean(),
    cpus: fc.array(fc.constantFrom(2, 4, 8, 12, 16), { minLength: 4, maxLength: 4 }),
    services: fc.array(
      fc.record({
        auto: fc.boolean(),
        endpoints: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 9 }),
        split: fc.boolean(),
      }),
      { minLength: 1, maxLength: 3 },
    ),
  })
  .map(({ zoneCount, strayNode, cpus, services }) => {
    const zones = ZONES.slice(0, zoneCount);
    const clusterNodes = nodes(Object.fromEntries(zones.map((zone, index) => [zone, [cpus[index]]])));
    if (strayNode) clusterNodes.push(node({ name: 'stray', zone: null }));
    const objects = services.map((spec, index) => {
      const name = `svc-${index}`;
      const zoneList = spec.endpoints.map((position) => zones[position % zoneCount]);
      const half = spec.split ? Math.ceil(zoneList.length / 2) : zoneList.length;
      const parts = [zoneList.slice(0, half), zoneList.slice(half)].filter((part) => part.length > 0);
      return {
        service: spec.auto ? autoService({ name }) : service({ name }),
        slices: parts.map((part, at) => slice(`${name}-${at}`, part, { service: name })),
      };
    });
    return snapshotOf({
      nodes: clusterNodes,
      services: objects.map((entry) => entry.service),
      endpointSlices: objects.flatMap((entry) => entry.slices),
    });
  });

describe('properties', () => {
  it('every fix, applied through the what-if machinery, gives exactly the promised state, crossings, overloads and savings', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        for (const entry of fixesOf(snapshot).services) {
          for (const fix of entry.recommendations) expectKeptPromise(snapshot, entry.name, fix);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('minimality: no smaller addition, wherever it goes, gets hints written', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        const report = analyzeSnapshot(snapshot);
        for (const entry of recommendFixes(snapshot, report).services) {
          const fix = entry.recommendations.find(
            (candidate) => candidate.kind === 'replicas' && candidate.stability === undefined,
          );
          if (fix?.endpointsToAdd === undefined || fix.resultingState !== 'populated') continue;
          const added = Object.values(fix.endpointsToAdd).reduce((sum, delta) => sum + delta, 0);
          const zones = Object.keys(analyzeSnapshot(snapshot).trafficOrigin.shares);
          const routing = fix.whatIf?.enableRouting ?? [];
          for (let smaller = 0; smaller < added; smaller++) {
            for (const placement of placementsOf(zones, smaller)) {
              const scaleReplicas = placement.map(([zone, delta]) => ({
                namespace: entry.namespace,
                name: entry.name,
                zone,
                delta,
              }));
              const after = analysisOf(applyWhatIf(snapshot, { enableRouting: routing, scaleReplicas }), entry.name);
              expect(after.hints.state).not.toBe('populated');
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('every Service whose hints are removed carries a fix that gets them written, or an entry saying why none does', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        const report = analyzeSnapshot(snapshot);
        const fixes = recommendFixes(snapshot, report);
        report.services.forEach((analysis, index) => {
          if (analysis.hints.state !== 'removed') return;
          const entries = fixes.services[index].recommendations;
          expect(entries.length).toBeGreaterThan(0);
          if (!entries.some((fix) => fix.resultingState === 'populated')) {
            expect(entries[0].summary.length).toBeGreaterThan(0);
          }
        });
      }),
      { numRuns: 40 },
    );
  });

  it('a Service that routes in-zone gets no fix', () => {
    fc.assert(
      fc.property(clusterArb, (snapshot) => {
        const report = analyzeSnapshot(snapshot);
        const fixes = recommendFixes(snapshot, report);
        report.services.forEach((analysis, index) => {
          if (analysis.hints.state === 'populated') expect(fixes.services[index].recommendations).toEqual([]);
        });
      }),
      { numRuns: 40 },
    );
  });
});

function placementsOf(zones: readonly string[], count: number): [string, number][][] {
  if (count === 0) return [[]];
  if (zones.length === 1) return [[[zones[0], count]]];
  const [first, ...rest] = zones;
  const result: [string, number][][] = [];
  for (let here = 0; here <= count; here++) {
    for (const tail of placementsOf(rest, count - here)) {
      result.push(here > 0 ? [[first, here], ...tail] : tail);
    }
  }
  return result;
}
