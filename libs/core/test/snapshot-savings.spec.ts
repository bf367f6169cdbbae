import { describe, expect, it } from 'vitest';
import { analyzeSnapshot } from '../src/analyze.js';
import type { EndpointSlice, Node, Service } from '../src/k8s-objects.js';
import { crossZonePrice } from '../src/savings.js';
import { MONTHLY_TRAFFIC_ANNOTATION } from '../src/monthly-traffic.js';
import { snapshotSavings } from '../src/snapshot-savings.js';
import type { Snapshot } from '../src/snapshot-model.js';
import { parseSnapshot } from '../src/snapshots.js';
import { autoService, deepFreeze, nodes, service, slice } from './fixtures.js';

function snapshotOf(objects: { nodes: Node[]; services: Service[]; endpointSlices: EndpointSlice[] }): Snapshot {
  return parseSnapshot(structuredClone(objects));
}

const threeEqualZones = nodes({ 'zone-a': [4], 'zone-b': [4], 'zone-c': [4] });

/**
 * Three equal zones at $0.02 (AWS us-east-1):
 * - `auto` (Auto, 3 endpoints, one per zone): hints populated; 2/3 cross without hints, 0 with.
 * - `blocked` (Auto, 4 endpoints a,b,c,a): hints removed; 1/2 + 3/4 + 3/4 over 3 zones = 2/3 cross.
 * - `plain` (None, 3 endpoints, one per zone): 2/3 cross; Auto would populate hints, 0 crossing.
 * - `tiny` (None, 2 endpoints): Auto would be refused (fewer endpoints than zones).
 */
function fleet(): Snapshot {
  return snapshotOf({
    nodes: threeEqualZones,
    services: [
      autoService({ name: 'auto', annotations: { [MONTHLY_TRAFFIC_ANNOTATION]: '300' } }),
      autoService({ name: 'blocked' }),
      service({ name: 'plain', annotations: { [MONTHLY_TRAFFIC_ANNOTATION]: 'lots' } }),
      service({ name: 'tiny' }),
    ],
    endpointSlices: [
      slice('auto-1', ['zone-a', 'zone-b', 'zone-c'], { service: 'auto' }),
      slice('blocked-1', ['zone-a', 'zone-b', 'zone-c', 'zone-a'], { service: 'blocked' }),
      slice('plain-1', ['zone-a', 'zone-b', 'zone-c'], { service: 'plain' }),
      slice('tiny-1', ['zone-a', 'zone-b'], { service: 'tiny' }),
    ],
  });
}

describe('snapshotSavings', () => {
  it('per Service: traffic with its source, cost without and with hints, the opportunity of None Services', () => {
    const snapshot = deepFreeze(fleet());
    const report = analyzeSnapshot(snapshot);
    const savings = snapshotSavings({
      snapshot,
      report,
      price: crossZonePrice({ cloud: 'aws', region: 'us-east-1' }),
      explicitTrafficGb: { 'default/blocked': 600 },
    });
    const byName = Object.fromEntries(savings.services.map((entry) => [entry.name, entry]));

    expect(byName.auto.traffic).toMatchObject({ gb: 300, source: 'annotation', estimate: false });
    // 300 GB × 2/3 = 200 GB → $4 without hints; 0 with: $4 realized.
    expect(byName.auto.cost.withoutHints.cost).toBeCloseTo(4, 9);
    expect(byName.auto.cost.withHints).toEqual({ crossZoneGb: 0, cost: 0 });
    expect(byName.auto.cost.realizedSavings.cost).toBeCloseTo(4, 9);
    expect(byName.auto.missed).toBeNull();

    expect(byName.blocked.traffic).toMatchObject({ gb: 600, source: 'api' });
    // 600 GB × 2/3 = 400 GB crossing with or without hints (none written): $8, nothing realized.
    expect(byName.blocked.cost.withHints.cost).toBeCloseTo(8, 9);
    expect(byName.blocked.cost.realizedSavings.cost).toBeCloseTo(0, 9);
    expect(byName.blocked.preview).toBeNull();

    expect(byName.plain.traffic.source).toBe('default-per-endpoint');
    expect(byName.plain.traffic.note).toContain(`ignored ${MONTHLY_TRAFFIC_ANNOTATION}: "lots"`);
    // 150 GB (3 × 50) × 2/3 = 100 GB → $2 today; Auto would bring it to 0.
    expect(byName.plain.missed?.wouldPopulate).toBe(true);
    expect(byName.plain.missed?.savings.cost).toBeCloseTo(2, 9);

    expect(byName.tiny.missed).toMatchObject({
      wouldPopulate: false,
      reason: 'Insufficient number of endpoints (2 endpoints, 3 zones)',
      savings: { crossZoneGb: 0, cost: 0 },
    });

    expect(savings.opportunities.map((entry) => entry.name)).toEqual(['plain']);
  });

  it('totals add the Services up and say when a figure rests on an estimate', () => {
    const snapshot = fleet();
    const savings = snapshotSavings({
      snapshot,
      report: analyzeSnapshot(snapshot),
      price: crossZonePrice({ cloud: 'aws', region: 'us-east-1' }),
      explicitTrafficGb: new Map([['default/blocked', 600]]),
    });
    const { totals } = savings;
    expect(totals.services).toBe(4);
    expect(totals.servicesWithEstimatedTraffic).toBe(2);
    // 300 + 600 + 150 + 100 GB.
    expect(totals.trafficGb).toBe(1150);
    // tiny: 100 GB, from zone-a and zone-b half the requests cross, from zone-c all: (1/2 + 1/2 + 1)/3 = 2/3.
    const withoutHintsGb = (300 + 600 + 150 + 100) * (2 / 3);
    expect(totals.withoutHints.crossZoneGb).toBeCloseTo(withoutHintsGb, 9);
    expect(totals.withHints.crossZoneGb).toBeCloseTo(withoutHintsGb - 200, 9);
    expect(totals.realizedSavings.cost).toBeCloseTo(4, 9);
    expect(totals.missedSavings.cost).toBeCloseTo(2, 9);
    expect(totals.estimate).toBe(true);
  });
});
