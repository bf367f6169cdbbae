import type { AnalysisSettingsRow } from '@zw/db';
import type { z } from 'zod';
import type { AnalysisSettingsSchema } from './clusters.schemas.js';

export type AnalysisSettingsView = z.output<typeof AnalysisSettingsSchema>;

type Source = 'override' | 'snapshot' | 'default';

/**
 * What the newest recorded analysis of a cluster used, for REST and GraphQL alike. Null when nothing is
 * recorded yet. Decision: a summary recorded before the analysis named its settings says `default` with
 * no value, which is what that analysis did (it modelled one version and kube-proxy for every cluster).
 */
export function analysisSettingsView(row: AnalysisSettingsRow): AnalysisSettingsView {
  if (!row.capturedAt) return null;
  return {
    asOf: row.capturedAt.toISOString(),
    kubernetesVersion: row.kubernetesVersion,
    kubernetesVersionSource: sourceOf(row.kubernetesVersionSource),
    dataPlane: row.dataPlane,
    dataPlaneSource: sourceOf(row.dataPlaneSource),
  };
}

function sourceOf(value: string | null): Source {
  return value === 'override' || value === 'snapshot' ? value : 'default';
}
