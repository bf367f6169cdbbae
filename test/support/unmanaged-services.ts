import type { KubernetesList } from '@zw/core';

/**
 * A cluster, as `kubectl get nodes,services,endpointslices -A -o json` prints it, with every kind of
 * Service whose hints the EndpointSlice controller does not write or no proxy reads, each asking for
 * topology routing (or, the `-plain` ones, not asking, so they could look like an opportunity):
 *
 * - `default/kubernetes`: its real shape (no selector; the slice kube-apiserver writes has no zone and
 *   no managed-by label), annotated `topology-mode: Auto` by someone.
 * - `shop/external-db`: no selector, a hand-written slice (no managed-by label).
 * - `shop/legacy-api`: no selector, its slice mirrored by the EndpointSliceMirroring controller.
 * - `shop/hand-hinted`: no selector, a hand-written slice carrying own-zone hints (kube-proxy reads them).
 * - `shop/headless` and `shop/headless-plain`: `clusterIP: None`, selecting Pods.
 * - `shop/alias`: ExternalName.
 * - `shop/proxied-elsewhere`: selecting Pods, labelled `service.kubernetes.io/service-proxy-name` (copied
 *   to its slice by the controller): kube-proxy never programs it.
 * - `shop/labelled-headless`: a ClusterIP Service selecting Pods but labelled `service.kubernetes.io/headless`
 *   (seen in a real kind dump): kube-proxy never programs it either.
 * - `shop/split`: selecting Pods, with the controller's slice and a hand-written one (service-name label
 *   only) whose endpoints are all hinted for zone-a: the controller never lists it, kube-proxy reads it.
 * - `shop/web` and `shop/plain`: ordinary Services selecting Pods (the control group).
 *
 * Three equal zones with one node each; every zonal Service has 3 ready endpoints per zone.
 */
export function unmanagedServicesList(): KubernetesList {
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const items: Record<string, unknown>[] = zones.map((zone) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: `${zone}-0`,
      labels: { 'topology.kubernetes.io/zone': zone, 'kubernetes.io/hostname': `${zone}-0` },
    },
    status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
  }));
  items.push(
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        labels: { component: 'apiserver', provider: 'kubernetes' },
        annotations: { 'service.kubernetes.io/topology-mode': 'Auto' },
      },
      spec: {
        clusterIP: '10.96.0.1',
        clusterIPs: ['10.96.0.1'],
        internalTrafficPolicy: 'Cluster',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
        sessionAffinity: 'None',
        type: 'ClusterIP',
      },
      status: { loadBalancer: {} },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'kubernetes',
        namespace: 'default',
        generation: 1,
        labels: { 'kubernetes.io/service-name': 'kubernetes' },
      },
      addressType: 'IPv4',
      endpoints: ['172.18.0.2', '172.18.0.3', '172.18.0.4'].map((ip) => ({
        addresses: [ip],
        conditions: { ready: true },
      })),
      ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
    },
  );
  const auto = { 'service.kubernetes.io/topology-mode': 'Auto' };
  const service = (
    name: string,
    spec: Record<string, unknown>,
    annotations: Record<string, string> = auto,
    labels: Record<string, string> = {},
  ) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'shop', annotations, labels },
    spec: { type: 'ClusterIP', ipFamilies: ['IPv4'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ...spec },
  });
  const slice = (
    service: string,
    block: number,
    labels: Record<string, string>,
    hinted = false,
    shape: { name?: string; perZone?: number; hintedFor?: string } = {},
  ) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: shape.name ?? `${service}-abcde`,
      namespace: 'shop',
      labels: { 'kubernetes.io/service-name': service, ...labels },
    },
    addressType: 'IPv4',
    endpoints: zones.flatMap((zone, z) =>
      Array.from({ length: shape.perZone ?? 3 }, (_, index) => ({
        addresses: [`10.${block}.${z}.${index + 1}`],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: `${zone}-0`,
        zone,
        ...(hinted ? { hints: { forZones: [{ name: shape.hintedFor ?? zone }] } } : {}),
      })),
    ),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  });
  const controller = { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' };
  const mirrored = { 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' };
  const proxyName = { 'service.kubernetes.io/service-proxy-name': 'other-proxy' };
  const headlessLabel = { 'service.kubernetes.io/headless': '' };
  items.push(
    service('web', { clusterIP: '10.96.10.1', selector: { app: 'web' } }),
    slice('web', 1, controller),
    service('plain', { clusterIP: '10.96.10.2', selector: { app: 'plain' } }, {}),
    slice('plain', 2, controller),
    service('external-db', { clusterIP: '10.96.10.3' }),
    slice('external-db', 3, {}),
    service('legacy-api', { clusterIP: '10.96.10.4' }, {}),
    slice('legacy-api', 4, mirrored),
    service('hand-hinted', { clusterIP: '10.96.10.5' }, {}),
    slice('hand-hinted', 5, {}, true),
    service('headless', { clusterIP: 'None', selector: { app: 'headless' } }),
    slice('headless', 6, controller),
    service('headless-plain', { clusterIP: 'None', selector: { app: 'headless-plain' } }, {}),
    slice('headless-plain', 7, controller),
    service('alias', { type: 'ExternalName', externalName: 'db.example.com' }),
    service('proxied-elsewhere', { clusterIP: '10.96.10.8', selector: { app: 'proxied-elsewhere' } }, auto, proxyName),
    slice('proxied-elsewhere', 8, { ...controller, ...proxyName }),
    service(
      'labelled-headless',
      { clusterIP: '10.96.10.9', selector: { app: 'labelled-headless' } },
      auto,
      headlessLabel,
    ),
    slice('labelled-headless', 9, controller),
    service('split', { clusterIP: '10.96.10.10', selector: { app: 'split' } }),
    slice('split', 10, controller),
    slice('split', 11, {}, true, { name: 'split-by-hand', perZone: 1, hintedFor: 'zone-a' }),
  );
  return { apiVersion: 'v1', kind: 'List', metadata: { annotations: {} }, items: items as KubernetesList['items'] };
}
