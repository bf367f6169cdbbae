import { describe, expect, it } from 'vitest';
import { analyzeSnapshot, type AnalyzeOptions, type ServiceAnalysis } from '../src/analyze.js';
import type { Service } from '../src/k8s-objects.js';
import { modelledVersion, parseKubernetesMinor, versionFeatures } from '../src/kubernetes-versions.js';
import { endpointsForNode } from '../src/node-endpoints.js';
import { routingSnapshot } from './fixtures.js';

function byName(services: readonly ServiceAnalysis[]): Record<string, ServiceAnalysis> {
  return Object.fromEntries(services.map((entry) => [entry.name, entry]));
}

type Verdict = [routing: string, state: string, honoured: boolean];

interface VersionRow {
  version: string;
  source: string;
  auto: Verdict;
  close: Verdict;
  sameZone: Verdict;
  sameNode: Verdict;
  handHinted: Verdict;
  /** Whether the PreferSameNode Service's endpoints carry node hints after the sync. */
  nodeHints: boolean;
}

/** Two thirds of requests cross zones without hints (3 of 9 endpoints in each zone); none with honoured own-zone hints. */
const CROSS = 2 / 3;

const VERSION_ROWS: VersionRow[] = [
  {
    version: '1.27',
    source:
      'kubernetes#116522: topology-mode added; kube-proxy honours hints only with an annotation not empty/disabled',
    auto: ['Auto', 'populated', true],
    close: ['None', 'none', false],
    sameZone: ['None', 'none', false],
    sameNode: ['None', 'none', false],
    handHinted: ['None', 'none', false],
    nodeHints: false,
  },
  {
    version: '1.30',
    source: 'kubernetes#123487: trafficDistribution alpha, off by default; kube-proxy still checks the annotation',
    auto: ['Auto', 'populated', true],
    close: ['None', 'none', false],
    sameZone: ['None', 'none', false],
    sameNode: ['None', 'none', false],
    handHinted: ['None', 'none', false],
    nodeHints: false,
  },
  {
    version: '1.31',
    source:
      'ServiceTrafficDistribution beta, on by default (KEP-4444): PreferClose hints; kube-proxy reads hints alone',
    auto: ['Auto', 'populated', true],
    close: ['PreferClose', 'populated', true],
    sameZone: ['None', 'none', true],
    sameNode: ['None', 'none', true],
    handHinted: ['None', 'none', true],
    nodeHints: false,
  },
  {
    version: '1.33',
    source:
      'kubernetes#130673 / #130742: trafficDistribution and hints GA; PreferSameZone/PreferSameNode alpha, off (KEP-3015)',
    auto: ['Auto', 'populated', true],
    close: ['PreferClose', 'populated', true],
    sameZone: ['None', 'none', true],
    sameNode: ['None', 'none', true],
    handHinted: ['None', 'none', true],
    nodeHints: false,
  },
  {
    version: '1.34',
    source: 'KEP-3015: PreferSameTrafficDistribution beta, on: PreferSameZone, PreferSameNode and node hints',
    auto: ['Auto', 'populated', true],
    close: ['PreferClose', 'populated', true],
    sameZone: ['PreferSameZone', 'populated', true],
    sameNode: ['PreferSameNode', 'populated', true],
    handHinted: ['None', 'none', true],
    nodeHints: true,
  },
  {
    version: '1.35',
    source: 'KEP-3015: PreferSameTrafficDistribution GA; PreferClose an alias of PreferSameZone',
    auto: ['Auto', 'populated', true],
    close: ['PreferClose', 'populated', true],
    sameZone: ['PreferSameZone', 'populated', true],
    sameNode: ['PreferSameNode', 'populated', true],
    handHinted: ['None', 'none', true],
    nodeHints: true,
  },
];

function verdict(entry: ServiceAnalysis): Verdict {
  return [entry.routing, entry.hints.state, entry.dataPath.honoursHints];
}

describe('Kubernetes versions: each row against its upstream source', () => {
  it.each(VERSION_ROWS)('v$version ($source)', (row) => {
    const report = analyzeSnapshot(routingSnapshot(), { kubernetesVersion: row.version });
    expect(report.kubernetesVersion).toBe(row.version);
    expect(report.kubernetesVersionSource).toBe('flag');
    const services = byName(report.services);
    expect(verdict(services.auto)).toEqual(row.auto);
    expect(verdict(services.legacy)).toEqual(row.auto);
    expect(verdict(services.close)).toEqual(row.close);
    expect(verdict(services['same-zone'])).toEqual(row.sameZone);
    expect(verdict(services['same-node'])).toEqual(row.sameNode);
    expect(verdict(services['hand-hinted'])).toEqual(row.handHinted);
    const nodeHinted = services['same-node'].endpointSlices[0].endpoints.every((e) => e.hints?.forNodes?.length);
    expect(nodeHinted).toBe(row.nodeHints);
    for (const entry of Object.values(services)) {
      const routed = entry.dataPath.honoursHints && (entry.hints.state === 'populated' || entry.name === 'hand-hinted');
      expect(entry.crossZone.withoutHints).toBeCloseTo(CROSS, 12);
      expect(entry.crossZone.withHints).toBeCloseTo(routed ? 0 : CROSS, 12);
    }
    // Written hints that the data path ignores: the hand-hinted slice before 1.31.
    expect(report.summary.servicesWithIgnoredHints).toBe(row.handHinted[2] ? 0 : 1);
  });

  it('kube-proxy before 1.31 ignores hints of a Service without the annotation, but not with any enabling value', () => {
    const on130 = (annotation: string | null) => {
      const snapshot = routingSnapshot();
      const target = snapshot.services.find((entry) => entry.metadata.name === 'hand-hinted') as Service;
      if (annotation !== null) target.metadata.annotations = { 'service.kubernetes.io/topology-mode': annotation };
      return byName(analyzeSnapshot(snapshot, { kubernetesVersion: '1.30' }).services)['hand-hinted'].dataPath;
    };
    expect(on130(null).honoursHints).toBe(false);
    expect(on130(null).reason).toContain('before 1.31');
    expect(on130('disabled').honoursHints).toBe(false);
    // kubernetes#116522: "kube-proxy now accepts any value that is not disabled".
    expect(
      byName(analyzeSnapshot(routingSnapshot(), { kubernetesVersion: '1.30' }).services).close.hints.reason,
    ).toContain('PreferClose is ignored by this Kubernetes version: its feature gate is on by default from 1.31');
    expect(on130('custom-heuristic').honoursHints).toBe(true);
    expect(on130('Auto').honoursHints).toBe(true);
  });

  it('the same snapshot gives different, correct verdicts for v1.31 and v1.35', () => {
    const snapshot = routingSnapshot();
    const v131 = byName(analyzeSnapshot(snapshot, { kubernetesVersion: '1.31' }).services);
    const v135report = analyzeSnapshot(snapshot, { kubernetesVersion: '1.35' });
    const v135 = byName(v135report.services);
    expect(v131['same-zone'].routing).toBe('None');
    expect(v131['same-zone'].hints).toEqual({
      state: 'none',
      reason:
        'spec.trafficDistribution PreferSameZone is ignored by this Kubernetes version: its feature gate is on by default from 1.34 (PreferSameTrafficDistribution)',
    });
    expect(v135['same-zone'].hints).toEqual({ state: 'populated', reason: null });
    expect(v135report.services.find((s) => s.name === 'plain')?.hints).toEqual({ state: 'none', reason: null });
    expect(v131['same-zone'].crossZone.withHints).toBeCloseTo(CROSS, 12);
    expect(v135['same-zone'].routing).toBe('PreferSameZone');
    expect(v135['same-zone'].crossZone.withHints).toBe(0);
  });

  it('kube-proxy honours node hints from 1.34 only (endpoints --node)', () => {
    const snapshot = routingSnapshot();
    const sameNode = (version: string) =>
      endpointsForNode(snapshot, 'zone-a-0', { computedHints: true, kubernetesVersion: version }).services.find(
        (entry) => entry.name === 'same-node',
      );
    expect(sameNode('1.35')).toMatchObject({ topologyFiltered: true, topologyMode: 'PreferSameNode' });
    // 1.33: PreferSameNode is not recognised, so no hints are written and nothing is filtered.
    expect(sameNode('1.33')).toMatchObject({ topologyFiltered: false, topologyMode: null });
  });

  it('the snapshot annotation gives the version when no flag does; the flag wins', () => {
    const snapshot = routingSnapshot({ 'zonewise.io/kubernetes-version': 'v1.31.4-eks-1234' });
    expect(analyzeSnapshot(snapshot)).toMatchObject({ kubernetesVersion: '1.31', kubernetesVersionSource: 'snapshot' });
    const options: AnalyzeOptions = { kubernetesVersion: '1.34' };
    expect(analyzeSnapshot(snapshot, options)).toMatchObject({
      kubernetesVersion: '1.34',
      kubernetesVersionSource: 'flag',
    });
  });

  it('no version: the newest modelled (1.35), flagged as the default', () => {
    const report = analyzeSnapshot(routingSnapshot());
    expect(report).toMatchObject({ kubernetesVersion: '1.35', kubernetesVersionSource: 'default' });
    expect(report.kubernetesVersionNote).toContain('no Kubernetes version given');
  });

  it('versions outside 1.27–1.35 are modelled as the nearest end, with a note', () => {
    expect(modelledVersion('1.25', null)).toMatchObject({ version: '1.27', source: 'flag' });
    expect(modelledVersion('1.25', null).note).toContain('outside the modelled range');
    expect(modelledVersion(undefined, '1.40')).toMatchObject({ version: '1.35', source: 'snapshot' });
    expect(modelledVersion('1.31', '1.29')).toEqual({ version: '1.31', minor: 31, source: 'flag', note: null });
  });

  it('reads versions as /version and people write them; refuses anything else', () => {
    expect(['1.31', 'v1.31', '1.31.4', 'v1.31.4-eks-1234', 'v1.31.0+k3s1'].map(parseKubernetesMinor)).toEqual([
      31, 31, 31, 31, 31,
    ]);
    expect(['2.1', 'one.31', '', '1', '1.x'].map(parseKubernetesMinor)).toEqual([null, null, null, null, null]);
    expect(() => routingSnapshot({ 'zonewise.io/kubernetes-version': 'latest' })).toThrow(
      /zonewise.io\/kubernetes-version.*"latest" is not a Kubernetes version/,
    );
  });

  it('features per minor follow the table', () => {
    expect(versionFeatures(30)).toMatchObject({ trafficDistribution: false, proxyReadsHintsAlone: false });
    expect(versionFeatures(33)).toMatchObject({
      trafficDistribution: true,
      preferSameTrafficDistribution: false,
      topologyAnnotationDeprecated: true,
    });
    expect(versionFeatures(35)).toMatchObject({
      preferSameTrafficDistribution: true,
      preferCloseIsPreferSameZone: true,
    });
  });
});
