import { describe, expect, it } from 'vitest';
import { analyzeSnapshot, type ServiceAnalysis } from '../src/analyze.js';
import { endpointsForNode } from '../src/node-endpoints.js';
import { type Recommendation, recommendFixes } from '../src/recommendations.js';
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

  it('the fleet summary counts hints written but ignored: the headless Service and the two kube-proxy skips', () => {
    expect(report.summary.servicesWithIgnoredHints).toBe(3);
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

describe('Services kube-proxy never programs (cmd/kube-proxy/app/server.go: its informers skip two labels)', () => {
  const report = analyzeSnapshot(snapshot());
  const services = byKey(report.services);

  it.each([
    ['shop/proxied-elsewhere', 'service.kubernetes.io/service-proxy-name="other-proxy"'],
    ['shop/labelled-headless', 'service.kubernetes.io/headless'],
  ])('%s: the controller writes hints, no proxy applies them, nothing is credited', (key, label) => {
    const entry = services[key];
    expect(entry).toMatchObject({ managedBy: 'endpointslice-controller', hints: { state: 'populated' } });
    expect(entry.dataPath.honoursHints).toBe(false);
    expect(entry.dataPath.reason).toContain(label);
    expect(entry.kubeProxy).toEqual({ usesHints: false, reason: entry.dataPath.reason });
    expect(entry.crossZone).toEqual({ withoutHints: CROSS, withHints: CROSS });
  });

  it('endpoints --node: no list at all, and the reason', () => {
    for (const computedHints of [false, true]) {
      const view = endpointsForNode(snapshot(), 'zone-a-0', { computedHints });
      const byName = Object.fromEntries(view.services.map((entry) => [entry.name, entry]));
      for (const name of ['proxied-elsewhere', 'labelled-headless']) {
        expect(byName[name]).toMatchObject({ clusterEndpoints: null, localEndpoints: null, topologyFiltered: false });
        expect(byName[name].reason).toBe(services[`shop/${name}`].dataPath.reason);
      }
    }
  });

  it('Istio and Linkerd pick endpoints themselves: the labels change nothing there', () => {
    const linkerd = byKey(analyzeSnapshot(snapshot(), { dataPlane: 'linkerd' }).services);
    expect(linkerd['shop/proxied-elsewhere'].dataPath).toEqual({ honoursHints: true, reason: null });
  });
});

describe('a slice without the controller managed-by label (endpointslice_controller.go syncService lists by it)', () => {
  const split = byKey(analyzeSnapshot(snapshot()).services)['shop/split'];
  const handWritten = () => split.endpointSlices.find((entry) => entry.metadata.name === 'split-by-hand');

  it('is never listed: its hints stay as written, it is not rewritten, and it does not count for the heuristic', () => {
    expect(split.managedBy).toBe('endpointslice-controller');
    expect(split.hints.state).toBe('populated');
    expect(split.rewrittenSlices).toEqual(['split-abcde']);
    expect(handWritten()?.endpoints.map((endpoint) => endpoint.hints?.forZones?.[0]?.name)).toEqual([
      'zone-a',
      'zone-a',
      'zone-a',
    ]);
    // The CPU heuristic's stored counts are those of the controller's own 9 endpoints.
    expect(Object.values(split.zones).map((zone) => zone.desired)).toEqual([3, 3, 3]);
    const given = snapshot().endpointSlices.find((entry) => entry.metadata.name === 'split-by-hand');
    expect(handWritten()).toEqual(given);
  });

  it('kube-proxy reads it: zone-a clients also reach the hand-hinted endpoints of zones b and c', () => {
    const view = endpointsForNode(snapshot(), 'zone-a-0', { computedHints: true });
    const entry = view.services.find((candidate) => candidate.name === 'split');
    expect(entry).toMatchObject({ topologyFiltered: true, topologyMode: 'PreferSameZone' });
    expect(entry?.clusterEndpoints).toEqual([
      '10.10.0.1',
      '10.10.0.2',
      '10.10.0.3',
      '10.11.0.1',
      '10.11.1.1',
      '10.11.2.1',
    ]);
    // zone-a: 2 of 6 candidates elsewhere; zone-b and zone-c: own zone only (one third of the requests each).
    expect(split.crossZone.withHints).toBeCloseTo(((1 / 3) * 2) / 6, 12);
  });

  it('in a hand-written snapshot without any managed-by label, an unlabelled slice still counts as the controller’s', () => {
    const list = unmanagedServicesList();
    for (const item of list.items as { metadata: { labels?: Record<string, string> } }[]) {
      delete item.metadata.labels?.['endpointslice.kubernetes.io/managed-by'];
    }
    const unlabelled = byKey(analyzeSnapshot(parseSnapshot(structuredClone(list))).services)['shop/split'];
    // The heuristic counts all 12 endpoints (desired 4 per zone); the hand-written hints are within the maxima.
    expect(Object.values(unlabelled.zones).map((zone) => zone.desired)).toEqual([4, 4, 4]);
  });
});

describe('fixes never promise what no change can realise', () => {
  const fixesOf = (dataPlane?: 'cilium-no-topology') => {
    const parsed = snapshot();
    const analysed = analyzeSnapshot(parsed, dataPlane === undefined ? {} : { dataPlane });
    const fixes = recommendFixes(parsed, analysed).services;
    return Object.fromEntries(fixes.map((entry) => [`${entry.namespace}/${entry.name}`, entry.recommendations]));
  };
  const expectNoSaving = (fix: Recommendation) => {
    expect(fix.savings).toEqual({ crossZoneFraction: 0, crossZoneGb: 0, cost: 0 });
    expect(fix.whatIf).toBeNull();
  };

  it('a selector-less Service annotated Auto: the entry keeps the analysed state, with no saving', () => {
    const fixes = fixesOf();
    const external = byKey(analyzeSnapshot(snapshot()).services)['shop/external-db'];
    expect(fixes['shop/external-db']).toHaveLength(1);
    const [fix] = fixes['shop/external-db'];
    expect(fix).toMatchObject({
      kind: 'topologyMode',
      resultingState: 'none',
      reason: external.hints.reason,
      crossZone: { withHints: external.crossZone.withHints },
    });
    expectNoSaving(fix);
    expectNoSaving(fixes['default/kubernetes'][0]);
  });

  it('Services kube-proxy never programs, and headless ones: why, and no saving', () => {
    const fixes = fixesOf();
    for (const key of ['shop/proxied-elsewhere', 'shop/labelled-headless', 'shop/headless']) {
      expect(fixes[key], key).toHaveLength(1);
      expect(fixes[key][0].kind).toBe('dataPlane');
      expect(fixes[key][0].summary).toMatch(/^Hints change nothing here/);
      expectNoSaving(fixes[key][0]);
    }
  });

  it('on Cilium without service topology, enabling it is offered only where it can change something', () => {
    const fixes = fixesOf('cilium-no-topology');
    for (const key of ['shop/proxied-elsewhere', 'shop/labelled-headless', 'shop/headless']) {
      expect(fixes[key][0].patch, key).not.toContain('helm upgrade cilium');
      expectNoSaving(fixes[key][0]);
    }
    const web = fixes['shop/web'][0];
    expect(web).toMatchObject({ kind: 'dataPlane', resultingState: 'populated' });
    expect(web.patch).toContain('loadBalancer.serviceTopology=true');
    expect(web.savings.cost).toBeGreaterThan(0);
  });
});
