/**
 * The subset of Kubernetes API objects the core reads, typed as `kubectl get -o json` prints them.
 * Only fields the analysis uses are declared; everything else passes through untouched, which is why
 * these are open interfaces rather than closed records.
 */

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  [field: string]: unknown;
}

export interface Condition {
  type: string;
  status: string;
  [field: string]: unknown;
}

export interface Node {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  status?: {
    allocatable?: Record<string, string>;
    conditions?: Condition[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  nodePort?: number;
  [field: string]: unknown;
}

export interface Service {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    ipFamilies?: string[];
    ports?: ServicePort[];
    externalIPs?: string[];
    internalTrafficPolicy?: string;
    externalTrafficPolicy?: string;
    trafficDistribution?: string;
    publishNotReadyAddresses?: boolean;
    selector?: Record<string, string> | null;
    [field: string]: unknown;
  };
  status?: {
    loadBalancer?: { ingress?: { ip?: string; hostname?: string; ipMode?: string }[] };
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

export interface ForZone {
  name: string;
}

export interface ForNode {
  name: string;
}

export interface EndpointHints {
  forZones?: ForZone[];
  forNodes?: ForNode[];
}

export interface EndpointConditions {
  ready?: boolean | null;
  serving?: boolean | null;
  terminating?: boolean | null;
}

export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  nodeName?: string;
  zone?: string;
  hints?: EndpointHints;
  [field: string]: unknown;
}

export interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  [field: string]: unknown;
}

export type AddressType = 'IPv4' | 'IPv6';

export interface EndpointSlice {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  addressType: AddressType | 'FQDN';
  endpoints: Endpoint[];
  ports?: EndpointPort[] | null;
  [field: string]: unknown;
}

export interface ServiceCIDR {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { cidrs: string[] };
  status?: { conditions?: Condition[] };
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  /** true on the one reference of the controller that manages the object. */
  controller?: boolean;
  [field: string]: unknown;
}

/**
 * A Pod or a ReplicaSet as far as the core reads it: who owns it (`metadata.ownerReferences`), to find
 * the workload behind an endpoint.
 */
export interface OwnedObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta & { ownerReferences?: OwnerReference[] };
  [field: string]: unknown;
}
