import {
  type AnalysisReport,
  DATA_PLANE_ANNOTATION,
  isDataPlaneName,
  KUBERNETES_VERSION_ANNOTATION,
  KUBERNETES_VERSION_PATTERN,
} from '@zw/core';

/** A cluster's overrides, set through the API (null: not overridden). */
export interface ClusterOverrides {
  kubernetesVersion: string | null;
  dataPlane: string | null;
}

export const NO_OVERRIDES: ClusterOverrides = { kubernetesVersion: null, dataPlane: null };

export type SettingSource = 'override' | 'snapshot' | 'default';

/** The Kubernetes version and data plane an analysis used, each with where it came from. */
export interface AnalysisSettings {
  kubernetesVersion: string | null;
  kubernetesVersionSource: SettingSource;
  dataPlane: string | null;
  dataPlaneSource: SettingSource;
}

type Json = Record<string, unknown>;

/**
 * Applies a cluster's overrides to a parsed snapshot document before the analysis reads it: each one sets
 * (or replaces what the agent wrote in) its List annotation, so an override always wins over what the
 * agent detected. Returns which overrides were applied. A value that is not a valid version or data plane
 * name (the API never stores one) is not applied. A document whose metadata is not an object is left
 * alone: parsing then rejects it with its own message.
 */
export function applyClusterOverrides(document: unknown, overrides: ClusterOverrides): ClusterOverrides {
  const applied: ClusterOverrides = {
    kubernetesVersion:
      overrides.kubernetesVersion !== null && KUBERNETES_VERSION_PATTERN.test(overrides.kubernetesVersion)
        ? overrides.kubernetesVersion
        : null,
    dataPlane: overrides.dataPlane !== null && isDataPlaneName(overrides.dataPlane) ? overrides.dataPlane : null,
  };
  if (applied.kubernetesVersion === null && applied.dataPlane === null) return applied;
  const annotations = listAnnotations(document);
  if (!annotations) return NO_OVERRIDES;
  if (applied.kubernetesVersion !== null) annotations[KUBERNETES_VERSION_ANNOTATION] = applied.kubernetesVersion;
  if (applied.dataPlane !== null) annotations[DATA_PLANE_ANNOTATION] = applied.dataPlane;
  return applied;
}

/** The document's List annotations, created when absent; null when the document's shape forbids it. */
function listAnnotations(document: unknown): Record<string, string> | null {
  if (!isObject(document)) return null;
  document.metadata ??= {};
  if (!isObject(document.metadata)) return null;
  document.metadata.annotations ??= {};
  return isObject(document.metadata.annotations) ? (document.metadata.annotations as Record<string, string>) : null;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
