import type { EndpointSlice, Node, OwnedObject, Service, ServiceCIDR } from './k8s-objects.js';

/**
 * A cluster snapshot after parsing: the four kinds the core reads, in input order, plus the
 * zonewise-specific settings a snapshot may carry.
 */
export interface Snapshot {
  nodes: Node[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  serviceCIDRs: ServiceCIDR[];
  /** CIDRs from the List annotation `zonewise.io/service-cidr`, for clusters without ServiceCIDR objects. */
  annotatedServiceCIDRs: string[];
  /**
   * Relative request volume originating per zone (`zonewise.io/zone-traffic-weights`). When absent the
   * traffic model assumes requests originate in proportion to allocatable CPU, as the controller does.
   */
  zoneTrafficWeights: Record<string, number> | null;
  /** `zonewise.io/kubernetes-version` as written (e.g. `1.31`); absent when the snapshot does not say. */
  kubernetesVersion?: string | null;
  /** `zonewise.io/data-plane`: a data-plane name (see data-planes.ts); absent when the snapshot does not say. */
  dataPlane?: string | null;
  /**
   * Pods and ReplicaSets, reduced to their names and owner references: who owns each endpoint's Pod
   * (see workloads.ts). Absent or empty when the snapshot does not carry them.
   */
  pods?: OwnedObject[];
  replicaSets?: OwnedObject[];
}
