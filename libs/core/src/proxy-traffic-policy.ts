/**
 * Per-port traffic policy (upstream `pkg/proxy/serviceport.go UsesClusterEndpoints` /
 * `UsesLocalEndpoints`): whether kube-proxy builds a Service port's cluster endpoints, its local
 * endpoints, or both, from its internal and external traffic policies.
 */
import type { AddressType, Service, ServicePort } from './k8s-objects.js';
import { parseIP } from './proxy-addresses.js';

export interface PortTrafficPolicy {
  /** The port ever sends traffic by the Cluster policy (so kube-proxy builds cluster endpoints). */
  usesCluster: boolean;
  /** The port ever sends traffic by the Local policy (so kube-proxy builds local endpoints). */
  usesLocal: boolean;
}

export function portTrafficPolicy(service: Service, servicePort: ServicePort, family: AddressType): PortTrafficPolicy {
  const spec = service.spec ?? {};
  const internalLocal = spec.internalTrafficPolicy === 'Local';
  const externalLocal = externallyReachableByType(service) && spec.externalTrafficPolicy === 'Local';
  const externallyAccessible =
    (servicePort.nodePort ?? 0) !== 0 ||
    loadBalancerVIPsOfFamily(service, family).length > 0 ||
    externalIPsOfFamily(service, family).length > 0;
  return {
    // Even with externalTrafficPolicy Local, externally reachable ports need cluster endpoints
    // for traffic that originates inside the cluster.
    usesCluster: !internalLocal || externallyAccessible,
    usesLocal: internalLocal || (externalLocal && externallyAccessible),
  };
}

/** Decision: a missing `spec.type` is `ClusterIP`, as the API server defaults it. */
function externallyReachableByType(service: Service): boolean {
  const type = service.spec?.type ?? 'ClusterIP';
  return (
    type === 'LoadBalancer' ||
    type === 'NodePort' ||
    (type === 'ClusterIP' && (service.spec?.externalIPs ?? []).length > 0)
  );
}

/** Load-balancer ingress IPs kube-proxy programs itself: ipMode `VIP` or absent (not `Proxy`). */
function loadBalancerVIPsOfFamily(service: Service, family: AddressType): string[] {
  return (service.status?.loadBalancer?.ingress ?? [])
    .filter((ingress) => ingress.ip && (ingress.ipMode ?? 'VIP') === 'VIP')
    .map((ingress) => ingress.ip as string)
    .filter((ip) => parseIP(ip)?.family === family);
}

function externalIPsOfFamily(service: Service, family: AddressType): string[] {
  return (service.spec?.externalIPs ?? []).filter((ip) => parseIP(ip)?.family === family);
}
