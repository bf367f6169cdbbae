import { describe, expect, it } from 'vitest';
import { type AnalysisReport, analyzeSnapshot } from '../src/analyze.js';
import { fixContextFromReport, trafficDistributionOfferedBy } from '../src/fix-context.js';
import { type Recommendation, recommendFixes } from '../src/recommendations.js';
import { parseSnapshot } from '../src/snapshots.js';
import { autoService, service, slice } from './fixtures.js';
import { expectKeptPromise, fixesFor, snapshotOf, threeEqualZones } from './recommendation-fixtures.js';

describe('version and data plane', () => {
  const snapshot = snapshotOf({
    nodes: threeEqualZones,
    services: [autoService()],
    endpointSlices: [slice('web-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c'])],
  });

  it('a data path that ignores hints gets only the data-plane fix, never a topology-mode or replicas fix', () => {
    const fixes = fixesFor(snapshot, 'web', {
      contextOf: () => ({
        dataPathHonoursHints: false,
        dataPathReason: 'Cilium replaces kube-proxy with service topology off',
        dataPlaneFix: {
          summary: "Enable Cilium's service topology",
          patch: 'helm upgrade cilium cilium/cilium --reuse-values --set loadBalancer.serviceTopology=true',
        },
      }),
    });
    expect(fixes.map((fix) => fix.kind)).toEqual(['dataPlane']);
    expect(fixes[0].summary).toContain('service topology off');
  });

  it('a Service the controller does not manage never gets a fix that enables topology routing', () => {
    const fixes = fixesFor(snapshot, 'web', { contextOf: () => ({ managedByController: false }) });
    expect(fixes).toHaveLength(1);
    expect(fixes[0].whatIf).toBeNull();
    expect(fixes[0].resultingState).not.toBe('populated');
  });

  it('PreferClose where that is what the version offers; no trafficDistribution fix where it offers none', () => {
    const close = fixesFor(snapshot, 'web', { contextOf: () => ({ trafficDistributionOffered: 'PreferClose' }) });
    expect(close.find((fix) => fix.kind === 'trafficDistribution')?.trafficDistribution).toBe('PreferClose');
    const none = fixesFor(snapshot, 'web', { contextOf: () => ({ trafficDistributionOffered: null }) });
    expect(none.map((fix) => fix.kind)).toEqual(['replicas']);
  });
});

describe('version and data plane, as the analysis states them', () => {
  const snapshot = snapshotOf({
    nodes: threeEqualZones,
    services: [autoService(), autoService({ name: 'api' })],
    endpointSlices: [
      slice('web-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c']),
      slice('api-1', ['zone-a', 'zone-a', 'zone-b', 'zone-c'], { service: 'api' }),
    ],
  });

  it('the trafficDistribution value each version offers', () => {
    expect(
      ['1.29', '1.30', '1.31', '1.33', '1.34', '1.35', 'v1.36.2', 'unknown'].map(trafficDistributionOfferedBy),
    ).toEqual([
      null,
      null,
      'PreferClose',
      'PreferClose',
      'PreferSameZone',
      'PreferSameZone',
      'PreferSameZone',
      'PreferSameZone',
    ]);
  });

  it('reads kubernetesVersion, dataPlane, managedBy and dataPath from the analysis when it carries them', () => {
    const report = analyzeSnapshot(snapshot);
    const versioned = {
      ...report,
      kubernetesVersion: '1.31',
      dataPlane: { name: 'cilium-no-topology', source: 'flag' },
      services: report.services.map((service) =>
        service.name === 'api'
          ? {
              ...service,
              managedBy: 'endpointslice-controller',
              dataPath: { honoursHints: false, reason: 'Cilium service topology is off' },
            }
          : { ...service, managedBy: 'endpointslice-controller', dataPath: { honoursHints: true, reason: null } },
      ),
    } as unknown as AnalysisReport;
    const fixes = recommendFixes(snapshot, versioned);
    const byName = Object.fromEntries(fixes.services.map((entry) => [entry.name, entry.recommendations]));
    expect(byName.web.map((fix) => fix.kind)).toEqual(['replicas', 'trafficDistribution']);
    expect(byName.web[1].trafficDistribution).toBe('PreferClose');
    expect(byName.api.map((fix) => fix.kind)).toEqual(['dataPlane']);
    expect(byName.api[0].patch).toContain('loadBalancer.serviceTopology=true');
    expect(byName.api[0].summary).toContain('Cilium service topology is off');
    const meshed = { ...versioned.services[0], managedBy: 'my-mesh' };
    expect(fixContextFromReport(versioned)(meshed)).toMatchObject({ managedByController: false });
  });

  it('on the default analysis (Kubernetes 1.35, kube-proxy): PreferSameZone offered, hints honoured', () => {
    const context = fixContextFromReport(analyzeSnapshot(snapshot));
    expect(context(analyzeSnapshot(snapshot).services[0])).toEqual({
      dataPathHonoursHints: true,
      dataPathReason: null,
      dataPlaneFix: null,
      managedByController: true,
      trafficDistributionOffered: 'PreferSameZone',
    });
  });
});

describe('fixes at the version analysed: a ready endpoint without a zone (trafficdist.go preferCloseHeuristic)', () => {
  const endpoints = [...['zone-a', 'zone-b', 'zone-c'].flatMap((zone) => [{ zone }, { zone }]), { nodeName: 'edge-0' }];
  const at = (version: string) =>
    parseSnapshot(
      structuredClone({
        kind: 'List',
        metadata: { annotations: { 'zonewise.io/kubernetes-version': version } },
        items: [...threeEqualZones, service(), slice('web-1', endpoints)],
      }),
    );

  it('1.31–1.32 hint it for the zone "", so PreferClose keeps every zone in-zone; the promise holds', () => {
    for (const version of ['1.31', '1.32']) {
      const snapshot = at(version);
      const fix = fixesFor(snapshot).find((entry) => entry.kind === 'trafficDistribution');
      expect(fix, version).toMatchObject({
        trafficDistribution: 'PreferClose',
        resultingState: 'populated',
        crossZone: { withHints: 0 },
      });
      expectKeptPromise(snapshot, 'web', fix as Recommendation);
    }
  });

  it('from 1.33 the endpoint stays unhinted, kube-proxy falls back, and no trafficDistribution fix is offered', () => {
    for (const version of ['1.33', '1.35']) {
      expect(
        fixesFor(at(version)).filter((entry) => entry.kind === 'trafficDistribution'),
        version,
      ).toEqual([]);
    }
  });
});
