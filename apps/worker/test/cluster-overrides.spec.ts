import { DATA_PLANE_ANNOTATION, KUBERNETES_VERSION_ANNOTATION, type KubernetesList } from '@zw/core';
import { describe, expect, it } from 'vitest';
import { capturedAt, fleet } from '../../../test/support/snapshots.js';
import { analysisSettings } from '../src/cluster-overrides.js';
import { analyzeDocument } from '../src/snapshot-analysis.js';

/**
 * The cluster's overrides reach the analysis as the List annotations it reads (the API and pipeline side
 * is proven in apps/api/test/cluster-overrides.spec.ts).
 */

function agentSnapshot(at: Date, annotations: Record<string, string> = {}): KubernetesList {
  const list = capturedAt(fleet(4, 3, 21), at);
  return { ...list, metadata: { annotations: { ...list.metadata.annotations, ...annotations } } };
}

describe('analyzeDocument with overrides', () => {
  it('sets or replaces the List annotations the analysis reads', () => {
    const document = JSON.parse(
      JSON.stringify(agentSnapshot(new Date(), { [DATA_PLANE_ANNOTATION]: 'kube-proxy' })),
    ) as KubernetesList;
    const analyzed = analyzeDocument(document, { kubernetesVersion: '1.31', dataPlane: 'calico-ebpf' });
    expect(document.metadata.annotations).toMatchObject({
      [KUBERNETES_VERSION_ANNOTATION]: '1.31',
      [DATA_PLANE_ANNOTATION]: 'calico-ebpf',
    });
    expect(analyzed.aggregates.settings).toEqual({
      kubernetesVersion: '1.31',
      kubernetesVersionSource: 'override',
      dataPlane: 'calico-ebpf',
      dataPlaneSource: 'override',
    });
    // The wrapped form, which has no metadata of its own, gets it.
    const wrapped = { nodes: [], services: [], endpointSlices: [] } as Record<string, unknown>;
    analyzeDocument(wrapped, { kubernetesVersion: null, dataPlane: 'cilium' });
    expect(wrapped.metadata).toEqual({ annotations: { [DATA_PLANE_ANNOTATION]: 'cilium' } });
  });

  it('ignores a stored value that is not a version or data plane name (none is ever stored)', () => {
    const document = JSON.parse(JSON.stringify(agentSnapshot(new Date()))) as KubernetesList;
    const analyzed = analyzeDocument(document, { kubernetesVersion: 'v1.31.2', dataPlane: 'flannel' });
    expect(document.metadata.annotations[KUBERNETES_VERSION_ANNOTATION]).toBeUndefined();
    expect(analyzed.aggregates.settings).toMatchObject({
      kubernetesVersionSource: 'default',
      dataPlaneSource: 'default',
    });
  });

  it('takes what the analysis reports it modelled, where it reports it', () => {
    const report = {
      kubernetesVersion: '1.35',
      kubernetesVersionSource: 'default',
      dataPlane: { name: 'kube-proxy', source: 'default' },
    };
    expect(analysisSettings(report as never, {}, { kubernetesVersion: null, dataPlane: null })).toEqual({
      kubernetesVersion: '1.35',
      kubernetesVersionSource: 'default',
      dataPlane: 'kube-proxy',
      dataPlaneSource: 'default',
    });
    expect(
      analysisSettings(
        report as never,
        { [DATA_PLANE_ANNOTATION]: 'cilium' },
        { kubernetesVersion: '1.31', dataPlane: null },
      ),
    ).toMatchObject({ kubernetesVersion: '1.31', kubernetesVersionSource: 'override', dataPlaneSource: 'default' });
  });
});
