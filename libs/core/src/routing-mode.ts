/**
 * What decides a Service's hints: the topology annotation (CPU heuristic), `spec.trafficDistribution`,
 * or nothing. Models current Kubernetes (v1.35) defaults.
 */
import type { Service } from './k8s-objects.js';
import { TRAFFIC_DISTRIBUTIONS, type TrafficDistribution } from './traffic-distribution.js';

export const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
/** Deprecated, but wins over `topology-mode` whenever present. */
export const TOPOLOGY_AWARE_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';

export type Routing = 'Auto' | TrafficDistribution | 'None';

export interface ControllerFeatures {
  /** ServiceTrafficDistribution (`PreferClose`): alpha 1.30 (off), beta 1.31 (on), GA 1.33. Absent: on. */
  trafficDistribution?: boolean;
  /** PreferSameTrafficDistribution: alpha 1.33 (off), beta 1.34 (on), GA and locked on in 1.35. */
  preferSameTrafficDistribution: boolean;
  /** The 1.31–1.32 PreferClose heuristic (see `VersionFeatures`). Absent: the current one. */
  zonelessEndpointsHintedForEmptyZone?: boolean;
}

export const KUBERNETES_1_35_FEATURES: ControllerFeatures = { preferSameTrafficDistribution: true };

/** Enabled only by exactly `Auto` or `auto`; the deprecated key wins by mere presence, even empty. */
export function hintsEnabledByAnnotation(service: Service): boolean {
  const annotations = service.metadata.annotations ?? {};
  const value = Object.hasOwn(annotations, TOPOLOGY_AWARE_HINTS_ANNOTATION)
    ? annotations[TOPOLOGY_AWARE_HINTS_ANNOTATION]
    : annotations[TOPOLOGY_MODE_ANNOTATION];
  return value === 'Auto' || value === 'auto';
}

/** The Service's `spec.trafficDistribution` if the controller recognises it, else null (ignored, no error). */
export function usableTrafficDistribution(
  service: Service,
  features: ControllerFeatures = KUBERNETES_1_35_FEATURES,
): TrafficDistribution | null {
  const value = service.spec?.trafficDistribution;
  if (!isTrafficDistribution(value) || features.trafficDistribution === false) return null;
  if (value !== 'PreferClose' && !features.preferSameTrafficDistribution) return null;
  return value;
}

/** `Auto` when the annotation enables the CPU heuristic (it beats trafficDistribution), else the usable trafficDistribution, else `None`. */
export function routingOf(service: Service, features: ControllerFeatures = KUBERNETES_1_35_FEATURES): Routing {
  if (hintsEnabledByAnnotation(service)) return 'Auto';
  return usableTrafficDistribution(service, features) ?? 'None';
}

export function isTrafficDistribution(value: unknown): value is TrafficDistribution {
  return (TRAFFIC_DISTRIBUTIONS as readonly unknown[]).includes(value);
}
