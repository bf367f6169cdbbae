import { describe, expect, it } from 'vitest';
import { analyzeSnapshot, type ServiceAnalysis } from '../src/analyze.js';
import { endpointsForNode } from '../src/node-endpoints.js';
import { crossZonePrice } from '../src/savings.js';
import { snapshotSavings } from '../src/snapshot-savings.js';
import { parseSnapshot } from '../src/snapshots.js';
import { unmanagedServicesList } from '../../../test/support/unmanaged-services.js';

function snapshot() {
  return parseSnapshot(structuredClone(unmanagedServicesList()));
}

function byKey(services: readonly ServiceAnalysis[]): Record<string, ServiceAnalysis> {
  return Object.fromEntries(services.map((entry) => [`${entry.namespace}/${entry.name}`, entry]));
}

/** Without hints 6 of 9 endpoints are in other zones, from every zone. */
const CROSS = 2 / 3;

describe('Services the EndpointSlice controller does not manage (upstream syncService and its managed-by list)', () => {
  const report = analyzeSnapshot(snapshot());
  const services = byKey(report.services);

  it('default/kubernetes: written by kube-apiserver, no hints, no events, whatever its annotation says', () => {
    const kubernetes = services['default/kubernetes'];
    expect(kubernetes.managedBy).toBe('kube-apiserver');
    expect(kubernetes.routing).toBe('Auto');
    expect(kubernetes.hints.state).toBe('none');
    expect(kubernetes.hints.reason).toContain('kube-apiserver writes the slices of default/kubernetes');
    expect(kubernetes.events).toEqual([]);
    expect(kubernetes.rewrittenSlices).toEqual([]);
    expect(kubernetes.endpointSlices[0].endpoints.every((endpoint) => endpoint.hints === undefined)).toBe(true);
  });

  it('no selector, hand-written slice: managedBy none, the reason says so, no events', () => {
    const external = services['shop/external-db'];
    expect(external).toMatchObject({ managedBy: 'none', routing: 'Auto', events: [], rewrittenSlices: [] });
    expect(external.hints).toEqual({
      state: 'none',
      reason:
        'the Service has no selector, so the EndpointSlice controller does not manage its slices (they are written by hand or by another tool)',
    });
    expect(external.crossZone).toEqual({ withoutHints: CROSS, withHints: CROSS });
  });

  it('no selector, mirrored slice: managedBy is the mirroring controller', () => {
    const mirrored = services['shop/legacy-api'];
    expect(mirrored.managedBy).toBe('endpointslicemirroring-controller.k8s.io');
    expect(mirrored.hints.reason).toContain('mirrored from its Endpoints by the EndpointSliceMirroring controller');
  });

  it('no selector, hand-written hints: the controller leaves them, kube-proxy honours them', () => {
    const handHinted = services['shop/hand-hinted'];
    expect(handHinted).toMatchObject({ managedBy: 'none', routing: 'None', hints: { state: 'none' } });
    expect(handHinted.endpointSlices[0].endpoints.every((endpoint) => endpoint.hints?.forZones?.length === 1)).toBe(
      true,
    );
    expect(handHinted.dataPath).toEqual({ honoursHints: true, reason: null });
    expect(handHinted.crossZone).toEqual({ withoutHints: CROSS, withHints: 0 });
    expect(handHinted.drift.endpoints).toBe(0);
  });

  it('headless: the controller writes hints, but clients connect to Pod IPs, so nothing is saved', () => {
    const headless = services['shop/headless'];
    expect(headless).toMatchObject({ managedBy: 'endpointslice-controller', hints: { state: 'populated' } });
    expect(headless.dataPath.honoursHints).toBe(false);
    expect(headless.dataPath.reason).toContain('headless Service');
    expect(headless.kubeProxy.usesHints).toBe(false);
    expect(headless.crossZone.withHints).toBeCloseTo(headless.crossZone.withoutHints, 12);
    expect(headless.crossZone.withoutHints).toBeCloseTo(CROSS, 12);
  });

  it('ExternalName: no slices from the controller, no proxy, nothing crosses', () => {
    const alias = services['shop/alias'];
    expect(alias).toMatchObject({ managedBy: 'none', hints: { state: 'none' }, events: [], readyEndpoints: 0 });
    expect(alias.hints.reason).toContain('ExternalName');
    expect(alias.dataPath.honoursHints).toBe(false);
    expect(alias.crossZone).toEqual({ withoutHints: 0, withHints: 0 });
  });

  it('the control group is untouched: web populated and honoured, plain none', () => {
    expect(services['shop/web']).toMatchObject({
      managedBy: 'endpointslice-controller',
      hints: { state: 'populated' },
    });
    expect(services['shop/web'].events[0].reason).toBe('TopologyAwareHintsEnabled');
    expect(services['shop/web'].crossZone.withHints).toBe(0);
    expect(services['shop/plain'].hints).toEqual({ state: 'none', reason: null });
  });

  it('the fleet summary counts the headless Service as hints written but ignored', () => {
    expect(report.summary.servicesWithIgnoredHints).toBe(1);
  });

  it('none of them is ever an opportunity; the control group is', () => {
    const savings = snapshotSavings({
      snapshot: snapshot(),
      report,
      price: crossZonePrice({ cloud: 'aws', region: 'us-east-1' }),
    });
    expect(savings.opportunities.map((entry) => `${entry.namespace}/${entry.name}`)).toEqual(['shop/plain']);
    const byName = Object.fromEntries(savings.services.map((entry) => [`${entry.namespace}/${entry.name}`, entry]));
    for (const key of [
      'default/kubernetes',
      'shop/external-db',
      'shop/legacy-api',
      'shop/headless-plain',
      'shop/alias',
    ]) {
      expect(byName[key].missed, key).toBeNull();
      expect(byName[key].preview, key).toBeNull();
    }
    // No saving is credited to hints that nobody reads.
    expect(byName['shop/headless'].cost.realizedSavings.cost).toBe(0);
    expect(byName['shop/web'].cost.realizedSavings.cost).toBeGreaterThan(0);
  });

  it('kube-proxy still reads hand-written hints, and proxies neither headless nor ExternalName Services', () => {
    const view = endpointsForNode(snapshot(), 'zone-a-0', { computedHints: true });
    const services = Object.fromEntries(view.services.map((entry) => [entry.name, entry]));
    expect(services['hand-hinted']).toMatchObject({ topologyFiltered: true, topologyMode: 'PreferSameZone' });
    expect(services['hand-hinted'].clusterEndpoints).toEqual(['10.5.0.1', '10.5.0.2', '10.5.0.3']);
    expect(services['external-db']).toMatchObject({ topologyFiltered: false });
    expect(services['external-db'].clusterEndpoints).toHaveLength(9);
    expect(services.headless).toMatchObject({ clusterEndpoints: null, localEndpoints: null });
    expect(services.alias).toMatchObject({ clusterEndpoints: null, localEndpoints: null });
  });
});
