import type { EndpointSlice, Node, Service, ServiceCIDR } from './k8s-objects.js';

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
}
