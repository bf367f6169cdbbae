/**
 * The what-if `enableRouting`: a Service with its routing mode set, through the annotation or
 * `spec.trafficDistribution` as the mode needs.
 */
import type { Service } from './k8s-objects.js';
import { TOPOLOGY_AWARE_HINTS_ANNOTATION, TOPOLOGY_MODE_ANNOTATION } from './routing-mode.js';
import type { RoutingMode } from './what-if-document.js';

/**
 * The Service with its routing mode set. Decision: `Auto` sets `topology-mode: Auto` and drops the
 * deprecated `topology-aware-hints` annotation (it wins by mere presence) and leaves
 * `spec.trafficDistribution` alone (the annotation wins over it); a `trafficDistribution` mode sets the
 * field and drops both annotations (an enabling annotation would win over it); `None` drops both
 * annotations and the field.
 */
export function withRoutingMode(service: Service, mode: RoutingMode): Service {
  const annotations = { ...service.metadata.annotations };
  delete annotations[TOPOLOGY_AWARE_HINTS_ANNOTATION];
  const spec = { ...service.spec };
  if (mode === 'Auto') annotations[TOPOLOGY_MODE_ANNOTATION] = 'Auto';
  else delete annotations[TOPOLOGY_MODE_ANNOTATION];
  if (mode === 'None') delete spec.trafficDistribution;
  else if (mode !== 'Auto') spec.trafficDistribution = mode;
  return { ...service, metadata: { ...service.metadata, annotations }, spec };
}
