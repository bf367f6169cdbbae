/**
 * Which Kubernetes minor version the analysis models, and what that version's default feature gates
 * change in the EndpointSlice controller and in kube-proxy. Every row names the upstream change that
 * set it (docs/kubernetes-versions-and-data-planes.md has the same table for users).
 */

/** The oldest minor modelled: `service.kubernetes.io/topology-mode` appeared in 1.27 (kubernetes#116522). */
export const OLDEST_MODELLED_MINOR = 27;
/** The newest minor modelled, and the one assumed when a snapshot does not say. */
export const NEWEST_MODELLED_MINOR = 35;
export const NEWEST_MODELLED_VERSION = `1.${NEWEST_MODELLED_MINOR}`;

export type SettingSource = 'flag' | 'snapshot' | 'default';

export interface VersionFeatures {
  /**
   * The controller writes hints for `spec.trafficDistribution: PreferClose` (ServiceTrafficDistribution:
   * alpha and off in 1.30, kubernetes#123487; beta and on in 1.31; GA in 1.33, kubernetes#130673).
   */
  trafficDistribution: boolean;
  /**
   * `PreferSameZone` / `PreferSameNode` and node hints (`hints.forNodes`), written by the controller and
   * read by kube-proxy (PreferSameTrafficDistribution: alpha and off in 1.33, beta and on in 1.34, GA in 1.35).
   */
  preferSameTrafficDistribution: boolean;
  /**
   * kube-proxy reads the slices' hints alone. Before, with ServiceTrafficDistribution off (1.27–1.30),
   * it also required the Service's topology annotation to be set to a value other than empty or
   * `disabled` (kubernetes#116522); from 1.31 the gate is on and that check is skipped, and 1.33 removed
   * it with both gates (kubernetes#130742, kubernetes#130673).
   */
  proxyReadsHintsAlone: boolean;
  /** The topology annotations are deprecated (still honoured) from 1.33 (kubernetes#130742). */
  topologyAnnotationDeprecated: boolean;
  /** `PreferClose` is a documented alias of `PreferSameZone` from 1.35; both write own-zone hints. */
  preferCloseIsPreferSameZone: boolean;
  /**
   * The PreferClose heuristic of 1.31–1.32 (`trafficdist.go preferCloseHeuristic`, k8s.io/endpointslice
   * v0.30.0 to v0.32.x, `update` lines 137-141 at v0.32.0): a ready endpoint without a zone is hinted for
   * the zone `""`, and only zone hints are compared or written (node hints are dropped on a rewrite).
   * 1.30 has the same code but never reaches it (ServiceTrafficDistribution off); from 1.33 (v0.33.0,
   * kubernetes#130673) an endpoint without a zone gets no zone hint.
   */
  zonelessEndpointsHintedForEmptyZone: boolean;
  /**
   * kube-proxy filters on a node without a zone label when some hint names the zone `""`: from 1.33
   * `pkg/proxy/topology.go topologyModeFromHints` compares the node's zone (`""` without the label) with
   * the hints as a plain string. Before, `canUseTopology` refuses topology on such a node ("Skipping
   * topology aware endpoint filtering since node is missing label"), whatever the hints say.
   */
  proxyFiltersOnNodeWithoutZone: boolean;
}

export interface ModelledVersion {
  /** `1.<minor>` of the version modelled. */
  version: string;
  minor: number;
  source: SettingSource;
  /** Why the version modelled is not the one asked for (outside the modelled range, or not given). */
  note: string | null;
}

export function versionFeatures(minor: number): VersionFeatures {
  return {
    trafficDistribution: minor >= 31,
    preferSameTrafficDistribution: minor >= 34,
    proxyReadsHintsAlone: minor >= 31,
    topologyAnnotationDeprecated: minor >= 33,
    preferCloseIsPreferSameZone: minor >= 35,
    zonelessEndpointsHintedForEmptyZone: minor >= 31 && minor <= 32,
    proxyFiltersOnNodeWithoutZone: minor >= 33,
  };
}

/** The `--kubernetes-version` flag's form: `MAJOR.MINOR`, e.g. `1.31`. */
export function isMajorMinor(text: string): boolean {
  return /^\d+\.\d+$/.test(text);
}

/**
 * The minor of a version as a person or `/version` writes it: `1.31`, `v1.31`, `1.31.4`,
 * `v1.31.4-eks-1234`. Null when it is not a Kubernetes 1.x version.
 */
export function parseKubernetesMinor(text: string): number | null {
  const match = /^v?(\d+)\.(\d+)(?:[.+-].*)?$/.exec(text.trim());
  if (match === null || match[1] !== '1') return null;
  return Number(match[2]);
}

/**
 * The version the analysis models: the flag, else the snapshot's annotation, else the newest modelled.
 * Decision: a version outside the modelled range is modelled as the nearest end of it, with a note: before
 * 1.27 the controller ignores `topology-mode` and kube-proxy honours hints only for `topology-aware-hints:
 * Auto`, so 1.27's rules are the closest modelled; versions after 1.35 are assumed to keep 1.35's.
 */
export function modelledVersion(flag: string | undefined, annotation: string | null | undefined): ModelledVersion {
  const source: SettingSource = flag !== undefined ? 'flag' : annotation ? 'snapshot' : 'default';
  const asked = flag ?? annotation ?? null;
  const minor = asked === null ? null : parseKubernetesMinor(asked);
  if (minor === null) {
    return {
      version: NEWEST_MODELLED_VERSION,
      minor: NEWEST_MODELLED_MINOR,
      source: 'default',
      note: `no Kubernetes version given: modelled as ${NEWEST_MODELLED_VERSION}, the newest modelled`,
    };
  }
  const clamped = Math.min(NEWEST_MODELLED_MINOR, Math.max(OLDEST_MODELLED_MINOR, minor));
  const note =
    clamped === minor
      ? null
      : `Kubernetes 1.${minor} is outside the modelled range 1.${OLDEST_MODELLED_MINOR}–${NEWEST_MODELLED_VERSION}: modelled as 1.${clamped}`;
  return { version: `1.${clamped}`, minor: clamped, source, note };
}
