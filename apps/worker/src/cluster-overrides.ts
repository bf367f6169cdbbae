import {
  type AnalysisReport,
  type ClusterOverrides,
  DATA_PLANE_ANNOTATION,
  KUBERNETES_VERSION_ANNOTATION,
} from '@zw/core';

/**
 * Where each setting of a stored analysis came from. (The overrides themselves reach the analysis
 * through @zw/core's applyClusterOverrides.)
 */

export type SettingSource = 'override' | 'snapshot' | 'default';

/** The Kubernetes version and data plane an analysis used, each with where it came from. */
export interface AnalysisSettings {
  kubernetesVersion: string | null;
  kubernetesVersionSource: SettingSource;
  dataPlane: string | null;
  dataPlaneSource: SettingSource;
}

/** What the analysis reports it modelled, where it says (older analyses did not). */
interface ReportedSettings {
  kubernetesVersion?: unknown;
  kubernetesVersionSource?: unknown;
  dataPlane?: { name?: unknown; source?: unknown } | null;
}

/**
 * The one place that says where each setting of a stored analysis came from: `override` when the
 * cluster's override was applied; otherwise what the analysis reports (`snapshot` for the agent's
 * annotation, `default` for its own default), or, from an analysis that does not report it, whether the
 * snapshot carried the annotation. The value is the override, else the one the analysis says it
 * modelled, else the annotation's, else null (the analysis' unnamed default).
 */
export function analysisSettings(
  report: AnalysisReport,
  annotations: Record<string, string> | undefined,
  applied: ClusterOverrides,
): AnalysisSettings {
  const reported = report as unknown as ReportedSettings;
  const version = setting(
    applied.kubernetesVersion,
    reported.kubernetesVersion,
    reported.kubernetesVersionSource,
    annotations?.[KUBERNETES_VERSION_ANNOTATION],
  );
  const dataPlane = setting(
    applied.dataPlane,
    reported.dataPlane?.name,
    reported.dataPlane?.source,
    annotations?.[DATA_PLANE_ANNOTATION],
  );
  return {
    kubernetesVersion: version.value,
    kubernetesVersionSource: version.source,
    dataPlane: dataPlane.value,
    dataPlaneSource: dataPlane.source,
  };
}

function setting(
  override: string | null,
  reportedValue: unknown,
  reportedSource: unknown,
  annotation: string | undefined,
): { value: string | null; source: SettingSource } {
  if (override !== null) return { value: override, source: 'override' };
  const value = typeof reportedValue === 'string' ? reportedValue : (annotation ?? null);
  if (reportedSource === 'snapshot' || reportedSource === 'default') return { value, source: reportedSource };
  return { value, source: annotation === undefined ? 'default' : 'snapshot' };
}
