export * from './k8s-objects.js';
export * from './snapshot-model.js';
export * from './snapshots.js';
export * from './captured-at.js';
export * from './cluster-settings.js';
export * from './errors.js';
export * from './quantity.js';
export * from './node-info.js';
export * from './allocations.js';
export * from './events.js';
export * from './hints.js';
export * from './traffic-distribution.js';
export * from './routing-mode.js';
export * from './endpointslice-controller.js';
export * from './proxy-filter.js';
export * from './proxy-traffic-policy.js';
export {
  nodeHintsOf,
  preferredDuplicate,
  proxyConditions,
  slicesInVisitOrder,
  zoneHintsOf,
  type ProxyConditions,
  type ProxyEndpoint,
} from './proxy-endpointslice-cache.js';
export * from './proxy-categorize-endpoints.js';
export {
  decideTopology,
  hintCoverage,
  isAvailableForTopology,
  TOPOLOGY_FALLBACK,
  type HintCoverage,
  type ProxyNode,
  type TopologyCandidate,
  type TopologyDecision,
  type TopologyMode,
} from './proxy-topology-mode.js';
export * from './proxy-addresses.js';
export {
  crossZoneFractions,
  expectedOverloadByZone,
  modelSliceTraffic,
  modelTraffic,
  originZonesOf,
  sliceTrafficByOrigin,
  trafficEndpointsFromSlices,
  type CrossZoneFractions,
  type OriginTraffic,
  type SliceTrafficEndpoint,
  type TrafficEndpoint,
  type TrafficModel,
  type TrafficModelInput,
} from './traffic-model.js';
export * from './failed-allocation-overload.js';
export * from './traffic-presets.js';
export * from './traffic-attribution.js';
export { type MeasuredServiceTraffic, type PromSample } from './preset-attribution.js';
export * from './service-map.js';
export * from './traffic-sources.js';
export * from './model-vs-measured.js';
export * from './ip-addresses.js';
export * from './cidr-bands.js';
export * from './cluster-ips.js';
export { isServiceCidrReady, serviceCidrsOf, type ServiceCidrInput } from './service-cidrs.js';
export {
  allocateDynamic,
  allocateStatic,
  allocationState,
  releaseAddress,
  type AllocationOutcome,
  type AllocationState,
  type RandomSource,
} from './cluster-ip-allocator.js';
export * from './drift.js';
export * from './analyze.js';
export * from './node-endpoints.js';
export * from './fleet-generator.js';
export {
  crossZonePrice,
  priceCatalogue,
  type Cloud,
  type CrossZonePrice,
  type CrossZonePriceInput,
  type PriceSource,
  type ProviderPrice,
} from './savings.js';
export {
  DEFAULT_MONTHLY_GB_PER_ENDPOINT,
  MONTHLY_TRAFFIC_ANNOTATION,
  monthlyTrafficGb,
  type MonthlyTraffic,
  type MonthlyTrafficInput,
  type TrafficSource,
} from './monthly-traffic.js';
export * from './service-cost.js';
export * from './pricing-model-description.js';
export * from './what-if.js';
export {
  parseWhatIf,
  ROUTING_MODES,
  WHAT_IF_LIMITS,
  WhatIfError,
  type EnableRoutingWhatIf,
  type RemoveZoneNodesWhatIf,
  type RoutingMode,
  type ScaleReplicasWhatIf,
  type WhatIf,
} from './what-if-document.js';
export * from './what-if-enable-routing.js';
export * from './opportunity.js';
export * from './opportunity-ranking.js';
export * from './routing-previews.js';
export * from './snapshot-savings.js';
export * from './money.js';
export * from './kubernetes-versions.js';
export * from './data-planes.js';
export * from './slice-management.js';
export * from './json-limits.js';
export * from './service-outcome.js';
export * from './scaled-slices.js';
export * from './replica-search.js';
export * from './stable-replica-floor.js';
export * from './fix-patches.js';
export * from './recommendations.js';
export * from './service-reuse.js';
export { blockingNodes } from './fix-clusters.js';
export * from './analysis-with-fixes.js';
export * from './fix-context.js';
export * from './workloads.js';
export * from './time-units.js';
export * from './log-format.js';
export * from './durations.js';
export * from './snapshot-payload.js';
